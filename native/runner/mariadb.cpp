// runner::Database over MariaDB Connector/C (which also speaks to MySQL). Isolation: SET SESSION
// TRANSACTION ISOLATION LEVEL ... once per connection, then START TRANSACTION per transaction.
// Errors 1213 (deadlock), 1205 (lock wait timeout) and 1020 (record changed since the snapshot:
// innodb_snapshot_isolation=ON) abort the transaction; 2006, 2013 and 1927 (server gone,
// connection lost, connection killed) lose it. Statements are short texts of integers.
#include <mysql.h>

#include <cctype>
#include <chrono>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "runner/backends.h"

namespace isoscope::runner {

namespace {

Status classify(MYSQL* c) {
  const unsigned e = mysql_errno(c);
  if (e == 0) return {};
  Status s;
  s.message = std::string(mysql_error(c)) + " (error " + std::to_string(e) + ")";
  if (e == 1213 || e == 1205 || e == 1020)
    s.outcome = Outcome::Aborted;
  else if (e == 2006 || e == 2013 || e == 1927 || e == 2055 || e == 2026)
    s.outcome = Outcome::Lost;
  else
    s.outcome = Outcome::Failed;
  s.lock_timeout = e == 1205;
  s.duplicate_key = e == 1062;  // ER_DUP_ENTRY
  return s;
}

const char* isolation_statement(Isolation iso) {
  switch (iso) {
    case Isolation::ReadUncommitted: return "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED";
    case Isolation::ReadCommitted: return "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED";
    case Isolation::RepeatableRead: return "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ";
    case Isolation::Serializable: return "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE";
  }
  return "";
}

Status run(MYSQL* c, const std::string& sql) {
  if (mysql_real_query(c, sql.data(), sql.size()) != 0) return classify(c);
  if (MYSQL_RES* r = mysql_store_result(c)) mysql_free_result(r);
  return classify(c);
}

// The first column of the single row `sql` returns.
Status query_value(MYSQL* c, const std::string& sql, std::string& out, bool& found) {
  found = false;
  if (mysql_real_query(c, sql.data(), sql.size()) != 0) return classify(c);
  MYSQL_RES* r = mysql_store_result(c);
  if (!r) return classify(c);
  if (MYSQL_ROW row = mysql_fetch_row(r)) {
    const unsigned long* len = mysql_fetch_lengths(r);
    out.assign(row[0] ? row[0] : "", row[0] ? len[0] : 0);
    found = true;
  }
  mysql_free_result(r);
  return {};
}

// A session variable's value in a SET statement, in a form no sql_mode and no character set
// can read otherwise: a number as itself; anything else as a hexadecimal string literal (only
// 0-9 and A-F: nothing to escape, no quote to break out of) converted to the connection's
// character set. Escaping with backslashes broke out of the quotes after ?sql_mode=
// NO_BACKSLASH_ESCAPES, where a backslash is an ordinary character.
bool plain_number(const std::string& v) {
  size_t i = !v.empty() && v[0] == '-' ? 1 : 0;
  const size_t digits = i;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
  if (i == digits) return false;
  if (i < v.size() && v[i] == '.') {
    const size_t fraction = ++i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    if (i == fraction) return false;
  }
  return i == v.size() && v.size() <= 30;
}

std::string sql_value(const std::string& v) {
  if (plain_number(v)) return v;
  static const char* hex = "0123456789ABCDEF";
  std::string out = v.empty() ? "''" : "CONVERT(X'";
  if (v.empty()) return out;
  for (char ch : v) {
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  }
  return out + "' USING utf8mb4)";
}

// The value the server reports means the one asked for: the same text but for case, a number
// written otherwise, or ON/OFF, TRUE/FALSE for 1/0.
bool same_setting(std::string asked, std::string got) {
  for (std::string* s : {&asked, &got})
    for (char& c : *s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (asked == got) return true;
  auto boolean = [](const std::string& s) { return s == "ON" || s == "TRUE" || s == "1" ? 1 : s == "OFF" || s == "FALSE" || s == "0" ? 0 : -1; };
  if (boolean(asked) >= 0 && boolean(asked) == boolean(got)) return true;
  char* e1 = nullptr;
  char* e2 = nullptr;
  const double a = std::strtod(asked.c_str(), &e1), g = std::strtod(got.c_str(), &e2);
  return !asked.empty() && !got.empty() && *e1 == '\0' && *e2 == '\0' && a == g;
}

MYSQL* open_connection(const Target& t, Isolation iso, std::string& error, std::vector<std::string>* notes = nullptr) {
  MYSQL* c = mysql_init(nullptr);
  if (!c) {
    error = "MariaDB: out of memory";
    return nullptr;
  }
  const unsigned timeout = 10;
  mysql_options(c, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  // No password given (URL, MYSQL_PWD, --password-file): the [client] group of the option files
  // (~/.my.cnf), as the mariadb client reads it.
  if (t.password.empty()) mysql_options(c, MYSQL_READ_DEFAULT_GROUP, "client");
  // A host that is a path: the Unix-domain socket (the host is then "localhost").
  const bool socket = !t.host.empty() && t.host[0] == '/';
  const char* host = socket ? "localhost" : t.host.empty() ? nullptr : t.host.c_str();
  if (!mysql_real_connect(c, host, t.user.empty() ? nullptr : t.user.c_str(),
                          t.password.empty() ? nullptr : t.password.c_str(), t.database.c_str(),
                          static_cast<unsigned>(t.port), socket ? t.host.c_str() : nullptr, 0)) {
    error = "MariaDB at " + t.display + ": " + mysql_error(c);
    mysql_close(c);
    return nullptr;
  }
  if (Status s = run(c, isolation_statement(iso)); !s.ok()) {
    error = "MariaDB at " + t.display + ": " + isolation_statement(iso) + ": " + s.message;
    mysql_close(c);
    return nullptr;
  }
  for (const auto& [name, value] : t.session_vars) {
    // The name is a plain identifier (parse_target); the value cannot leave its literal.
    const std::string sql = "SET SESSION " + name + " = " + sql_value(value);
    std::string got;
    bool found = false;
    Status s = run(c, sql);
    // Read back what was set: the variable of that name, in this session.
    if (s.ok()) s = query_value(c, "SELECT @@SESSION." + name, got, found);
    if (!s.ok()) {
      error = "MariaDB at " + t.display + ": cannot set session variable " + name + ": " + s.message;
      mysql_close(c);
      return nullptr;
    }
    if (notes && !same_setting(value, got))
      notes->push_back("MariaDB: session variable " + name + " was set to '" + value + "'; the server reports '" + got + "'");
  }
  return c;
}

bool parse_int(const std::string& s, int64_t& v) {
  return !s.empty() && std::from_chars(s.data(), s.data() + s.size(), v).ptr == s.data() + s.size();
}

class MariaConnection final : public Connection {
 public:
  MariaConnection(MYSQL* c, const Schema& s) : c_(c), s_(s), id_(static_cast<int64_t>(mysql_thread_id(c))) {}
  ~MariaConnection() override { mysql_close(c_); }

  Status begin(bool) override { return run(c_, "START TRANSACTION"); }
  Status read(uint32_t key, int64_t& value) override { return read_int(key, "", value); }
  Status read_for_update(uint32_t key, int64_t& value) override { return read_int(key, " FOR UPDATE", value); }
  Status write(uint32_t key, int64_t value) override {
    return update("UPDATE " + s_.registers + " SET v = " + std::to_string(value) + " WHERE k = " + std::to_string(key), key);
  }
  Status append(uint32_t key, int64_t value) override {
    return update("UPDATE " + s_.lists + " SET v = CONCAT(v, ' ', '" + std::to_string(value) + "') WHERE k = " +
                      std::to_string(key), key);
  }
  Status read_list(uint32_t key, std::vector<int64_t>& values) override {
    std::string text;
    bool found;
    if (Status s = query_value(c_, "SELECT v FROM " + s_.lists + " WHERE k = " + std::to_string(key), text, found); !s.ok())
      return s;
    if (!found) return missing(key);
    return parse_list_text(text, values) ? Status{} : Status{Outcome::Failed, "not a list: " + text};
  }
  Status add_lists(const std::vector<uint32_t>& keys) override { return run(c_, add_lists_sql("INSERT IGNORE INTO", s_.lists, keys, "")); }
  Status exec_rows(const std::string& sql, Rows* rows, int64_t& changed) override {
    if (mysql_real_query(c_, sql.data(), sql.size()) != 0) return classify(c_);
    MYSQL_RES* r = mysql_store_result(c_);
    changed = r ? 0 : static_cast<int64_t>(mysql_affected_rows(c_));
    if (!r) return classify(c_);
    Status s;
    while (MYSQL_ROW row = mysql_fetch_row(r)) {
      int64_t k = 0, v = 0;
      if (!row[0] || !row[1] || !parse_int(row[0], k) || !parse_int(row[1], v)) {
        s = {Outcome::Failed, "not a row of two integers: " + sql};
        break;
      }
      if (rows) rows->push_back({k, v});
    }
    mysql_free_result(r);
    return s;
  }
  Status commit() override { return run(c_, "COMMIT"); }
  void rollback() override { run(c_, "ROLLBACK"); }
  int64_t server_id() const override { return id_; }

 private:
  static Status missing(uint32_t key) {
    return {Outcome::Failed, "the runner's row for key " + std::to_string(key) + " is missing"};
  }
  Status read_int(uint32_t key, const char* suffix, int64_t& value) {
    std::string text;
    bool found;
    if (Status s = query_value(c_, "SELECT v FROM " + s_.registers + " WHERE k = " + std::to_string(key) + suffix, text, found);
        !s.ok())
      return s;
    if (!found) return missing(key);
    return parse_int(text, value) ? Status{} : Status{Outcome::Failed, "not an integer: " + text};
  }
  Status update(const std::string& sql, uint32_t key) {
    if (Status s = run(c_, sql); !s.ok()) return s;
    return mysql_affected_rows(c_) == 1 ? Status{} : missing(key);
  }

  MYSQL* c_;
  const Schema& s_;
  int64_t id_;
};

class MariaDatabase final : public Database {
 public:
  MariaDatabase(const Target& t, Isolation iso, MYSQL* admin, std::vector<std::string> notes)
      : t_(t), iso_(iso), admin_(admin), notes_(std::move(notes)) {}
  ~MariaDatabase() override { mysql_close(admin_); }

  std::unique_ptr<Connection> connect(std::string& error) override {
    MYSQL* c = open_connection(t_, iso_, error);
    return c ? std::make_unique<MariaConnection>(c, schema_) : nullptr;
  }
  Status create_schema(const Schema& s) override {
    schema_ = s;
    // The run's mark, held until its connection ends: the named lock isoscope_run_<id>.
    std::string got;
    bool found = false;
    if (Status st = query_value(admin_, "SELECT GET_LOCK('isoscope_run_" + s.run_id + "', 0)", got, found); !st.ok())
      return st;
    if (got != "1") return {Outcome::Failed, "the lock isoscope_run_" + s.run_id + " is taken by another connection"};
    const std::string comment = "isoscope run " + owner_mark();
    // ENGINE=InnoDB: the transactional engine whatever the server's default. No DROP first, no
    // IF NOT EXISTS: a table of the name is another run's, and an error.
    auto fill = [&](const std::string& table, const char* type, const char* initial) -> Status {
      if (table.empty()) return {};
      if (Status st = run(admin_, "CREATE TABLE " + table + " (k BIGINT PRIMARY KEY, v " + type +
                                      " NOT NULL) ENGINE=InnoDB COMMENT='" + comment + "'");
          !st.ok())
        return st;
      created_.push_back(table);
      for (uint32_t k = 0; k < s.keys;) {
        std::string sql = "INSERT INTO " + table + " VALUES ";
        for (uint32_t n = 0; n < 1000 && k < s.keys; ++n, ++k)
          sql += (n ? ",(" : "(") + std::to_string(k) + "," + initial + ")";
        if (Status st = run(admin_, sql); !st.ok()) return st;
      }
      return {};
    };
    Status st = fill(s.registers, "BIGINT", "0");
    if (st.ok()) st = fill(s.lists, "TEXT", "''");
    if (!st.ok()) drop_schema(s);  // what this run made, and nothing else
    return st;
  }
  Status drop_schema(const Schema&) override {
    while (!created_.empty()) {
      if (Status st = run(admin_, "DROP TABLE IF EXISTS " + created_.back()); !st.ok()) return st;
      created_.pop_back();
    }
    return {};
  }
  bool leftovers(std::vector<Leftover>& out, std::string& error) override {
    out.clear();
    const std::string sql =
        "SELECT table_name, table_comment FROM information_schema.tables WHERE table_schema = DATABASE() "
        "AND table_name LIKE 'isoscope\\_run\\_%' ORDER BY table_name";
    if (mysql_real_query(admin_, sql.data(), sql.size()) != 0) {
      error = classify(admin_).message;
      return false;
    }
    MYSQL_RES* r = mysql_store_result(admin_);
    if (!r) {
      error = classify(admin_).message;
      return false;
    }
    std::vector<std::pair<std::string, std::string>> tables;
    while (MYSQL_ROW row = mysql_fetch_row(r)) tables.emplace_back(row[0] ? row[0] : "", row[1] ? row[1] : "");
    mysql_free_result(r);
    for (const auto& [name, comment] : tables) {
      std::string id;
      if (!runner_table(name, id) || (!id.empty() && id == schema_.run_id)) continue;
      std::string note = owner_note(comment);
      if (!id.empty()) {
        // Its run holds the lock isoscope_run_<id> for as long as it runs.
        std::string v;
        bool found = false;
        if (!query_value(admin_, "SELECT IS_FREE_LOCK('isoscope_run_" + id + "')", v, found).ok() || v != "1") continue;
      } else {
        note = Leftover::kUnmarked;
      }
      out.push_back({name, note});
    }
    return true;
  }
  Status drop_table(const std::string& name) override {
    return run(admin_, "DROP TABLE IF EXISTS " + name);
  }
  // MariaDB has DELETE ... RETURNING (10.0.5) but no UPDATE ... RETURNING; MySQL has neither.
  SqlFeatures sql_features() override {
    return {false, value("SELECT VERSION()").find("MariaDB") != std::string::npos, true};
  }
  ServerFacts facts() override {
    ServerFacts f;
    f.version = value("SELECT VERSION()");
    f.product = f.version.find("MariaDB") != std::string::npos ? "MariaDB" : "MySQL";
    for (const char* name : {"innodb_snapshot_isolation", "transaction_isolation", "tx_isolation", "innodb_lock_wait_timeout"}) {
      std::string v;
      bool found = false;
      if (query_value(admin_, std::string("SELECT @@SESSION.") + name, v, found).ok() && found)
        f.variables.emplace_back(name, v);
      else
        mysql_errno(admin_);
    }
    f.notes = notes_;
    for (const auto& [name, v] : t_.session_vars) {
      bool seen = false;
      for (const auto& [n, x] : f.variables) seen |= n == name;
      if (!seen) f.variables.emplace_back(name, value("SELECT @@SESSION." + name));
    }
    return f;
  }
  int64_t commit_counter(std::string& name) override {
    name = "Com_commit";
    std::string v;
    bool found = false;
    if (!query_value(admin_, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_COMMIT'", v, found).ok() || !found)
      return -1;
    int64_t n;
    return parse_int(v, n) ? n : -1;
  }
  bool kill(int64_t id) override { return run(admin_, "KILL CONNECTION " + std::to_string(id)).ok(); }
  bool lock_waits(int64_t id, bool& waiting, std::vector<int64_t>& blockers) override {
    // InnoDB fills its INNODB_TRX view afresh only when nobody read it for 100 ms: a closer poll
    // reads the same stale view for ever.
    const auto since = std::chrono::steady_clock::now() - last_lock_query_;
    if (since < std::chrono::milliseconds(120)) std::this_thread::sleep_for(std::chrono::milliseconds(120) - since);
    last_lock_query_ = std::chrono::steady_clock::now();
    const std::string me = std::to_string(id);
    std::string state, list;
    bool found = false;
    if (!query_value(admin_, "SELECT trx_state FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = " + me, state, found)
             .ok())
      return false;
    waiting = found && state == "LOCK WAIT";
    blockers.clear();
    if (!waiting) return true;
    if (!query_value(admin_,
                     "SELECT GROUP_CONCAT(b.trx_mysql_thread_id) FROM information_schema.INNODB_LOCK_WAITS w "
                     "JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id "
                     "JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id WHERE r.trx_mysql_thread_id = " + me,
                     list, found)
             .ok())
      return true;
    for (size_t at = 0; at < list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      int64_t b = 0;
      if (parse_int(list.substr(at, comma - at), b)) blockers.push_back(b);
      at = comma + 1;
    }
    return true;
  }

 private:
  std::string value(const std::string& sql) {
    std::string v;
    bool found = false;
    query_value(admin_, sql, v, found);
    return v;
  }

  Target t_;
  Isolation iso_;
  MYSQL* admin_;
  std::chrono::steady_clock::time_point last_lock_query_;
  Schema schema_;
  std::vector<std::string> created_;  // the tables this run made, to drop
  std::vector<std::string> notes_;    // what the first connection found (ServerFacts::notes)
};

}  // namespace

std::unique_ptr<Database> open_mariadb(const Target& t, Isolation iso, std::string& error) {
  std::vector<std::string> notes;
  MYSQL* admin = open_connection(t, iso, error, &notes);
  if (!admin) return nullptr;
  return std::make_unique<MariaDatabase>(t, iso, admin, std::move(notes));
}

}  // namespace isoscope::runner
