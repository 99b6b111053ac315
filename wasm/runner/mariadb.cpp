// runner::Database over MariaDB Connector/C (which also speaks to MySQL). Isolation: SET SESSION
// TRANSACTION ISOLATION LEVEL ... once per connection, then START TRANSACTION per transaction.
// Errors 1213 (deadlock), 1205 (lock wait timeout) and 1020 (record changed since the snapshot:
// innodb_snapshot_isolation=ON) abort the transaction; 2006, 2013 and 1927 (server gone,
// connection lost, connection killed) lose it. Statements are short texts of integers.
#include <mysql.h>

#include <charconv>
#include <cstdio>
#include <cstring>

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

MYSQL* open_connection(const Target& t, Isolation iso, std::string& error) {
  MYSQL* c = mysql_init(nullptr);
  if (!c) {
    error = "MariaDB: out of memory";
    return nullptr;
  }
  const unsigned timeout = 10;
  mysql_options(c, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  if (!mysql_real_connect(c, t.host.c_str(), t.user.empty() ? nullptr : t.user.c_str(),
                          t.password.empty() ? nullptr : t.password.c_str(), t.database.c_str(),
                          static_cast<unsigned>(t.port), nullptr, 0)) {
    error = "MariaDB at " + t.display + ": " + mysql_error(c);
    mysql_close(c);
    return nullptr;
  }
  std::vector<std::string> setup = {isolation_statement(iso)};
  for (const auto& [name, value] : t.session_vars) {
    std::string esc(value.size() * 2 + 1, '\0');
    esc.resize(mysql_real_escape_string(c, esc.data(), value.c_str(), value.size()));
    setup.push_back("SET SESSION " + name + " = '" + esc + "'");
  }
  for (const std::string& sql : setup)
    if (Status s = run(c, sql); !s.ok()) {
      error = "MariaDB at " + t.display + ": " + sql + ": " + s.message;
      mysql_close(c);
      return nullptr;
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
  MariaDatabase(const Target& t, Isolation iso, MYSQL* admin) : t_(t), iso_(iso), admin_(admin) {}
  ~MariaDatabase() override { mysql_close(admin_); }

  std::unique_ptr<Connection> connect(std::string& error) override {
    MYSQL* c = open_connection(t_, iso_, error);
    return c ? std::make_unique<MariaConnection>(c, schema_) : nullptr;
  }
  Status create_schema(const Schema& s) override {
    schema_ = s;
    // ENGINE=InnoDB: the transactional engine whatever the server's default.
    auto fill = [&](const std::string& table, const char* type, const char* initial) -> Status {
      if (table.empty()) return {};
      for (const std::string& sql : {"DROP TABLE IF EXISTS " + table,
                                     "CREATE TABLE " + table + " (k BIGINT PRIMARY KEY, v " + type + " NOT NULL) ENGINE=InnoDB"})
        if (Status st = run(admin_, sql); !st.ok()) return st;
      for (uint32_t k = 0; k < s.keys;) {
        std::string sql = "INSERT INTO " + table + " VALUES ";
        for (uint32_t n = 0; n < 1000 && k < s.keys; ++n, ++k)
          sql += (n ? ",(" : "(") + std::to_string(k) + "," + initial + ")";
        if (Status st = run(admin_, sql); !st.ok()) return st;
      }
      return {};
    };
    if (Status st = fill(s.registers, "BIGINT", "0"); !st.ok()) return st;
    return fill(s.lists, "TEXT", "''");
  }
  Status drop_schema(const Schema& s) override {
    for (const std::string& table : {s.registers, s.lists})
      if (!table.empty())
        if (Status st = run(admin_, "DROP TABLE IF EXISTS " + table); !st.ok()) return st;
    return {};
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
  Schema schema_;
};

}  // namespace

std::unique_ptr<Database> open_mariadb(const Target& t, Isolation iso, std::string& error) {
  MYSQL* admin = open_connection(t, iso, error);
  if (!admin) return nullptr;
  return std::make_unique<MariaDatabase>(t, iso, admin);
}

}  // namespace isoscope::runner
