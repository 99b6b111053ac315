// runner::Database over libpq. Isolation: BEGIN ISOLATION LEVEL ... per transaction (PostgreSQL
// runs READ UNCOMMITTED as READ COMMITTED; the history records what was asked). Statements are
// prepared once per connection. SQLSTATE 40001 (serialization failure), 40P01 (deadlock) and
// 55P03 (lock not available) abort the transaction; a broken connection (class 08, 57P01
// terminated by the administrator) loses it.
#include <libpq-fe.h>

#include <charconv>
#include <cstring>
#include <vector>

#include "runner/backends.h"

namespace isoscope::runner {

namespace {

std::string trimmed(const char* s) {
  std::string m = s ? s : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

// The outcome of a statement's result (consumes r).
Status classify(PGconn* c, PGresult* r) {
  const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return {};
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string code = state ? state : "";
  Status s;
  s.message = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(c));
  if (s.message.empty()) s.message = trimmed(PQerrorMessage(c));
  if (PQstatus(c) == CONNECTION_BAD || code.rfind("08", 0) == 0 || code == "57P01" || code == "57P02" || code == "57P03")
    s.outcome = Outcome::Lost;
  else if (code == "40001" || code == "40P01" || code == "55P03")
    s.outcome = Outcome::Aborted;
  else
    s.outcome = Outcome::Failed;
  s.lock_timeout = code == "55P03";
  s.duplicate_key = code == "23505";
  return s;
}

struct Result {
  PGresult* r = nullptr;
  explicit Result(PGresult* x) : r(x) {}
  ~Result() { PQclear(r); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
};

PGconn* open_connection(const Target& t, std::string& error) {
  const std::string port = std::to_string(t.port);
  // The target's parts, then its connection keywords (?sslmode=... : libpq takes the last value
  // of a keyword). No password: libpq's own sources (PGPASSWORD, PGPASSFILE, ~/.pgpass).
  std::vector<const char*> keys, vals;
  auto add = [&](const char* k, const std::string& v) {
    keys.push_back(k);
    vals.push_back(v.c_str());
  };
  if (!t.host.empty()) add("host", t.host);
  add("port", port);
  if (!t.user.empty()) add("user", t.user);
  if (!t.password.empty()) add("password", t.password);
  add("dbname", t.database);
  const std::string timeout = "10", app = "isoscope";
  add("connect_timeout", timeout);
  add("application_name", app);
  for (const auto& [k, v] : t.connection_params) add(k.c_str(), v);
  keys.push_back(nullptr);
  vals.push_back(nullptr);
  PGconn* c = PQconnectdbParams(keys.data(), vals.data(), 0);
  if (!c || PQstatus(c) != CONNECTION_OK) {
    error = "PostgreSQL at " + t.display + ": " + trimmed(c ? PQerrorMessage(c) : "out of memory");
    PQfinish(c);
    return nullptr;
  }
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);  // "table does not exist, skipping"
  for (const auto& [name, value] : t.session_vars) {
    char* lit = PQescapeLiteral(c, value.c_str(), value.size());
    const std::string sql = "SET " + name + " = " + (lit ? lit : "''");
    PQfreemem(lit);
    Result r(PQexec(c, sql.c_str()));
    if (Status s = classify(c, r.r); !s.ok()) {
      error = "PostgreSQL at " + t.display + ": cannot set " + name + ": " + s.message;
      PQfinish(c);
      return nullptr;
    }
  }
  return c;
}

const char* begin_statement(Isolation iso) {
  switch (iso) {
    case Isolation::ReadUncommitted: return "BEGIN ISOLATION LEVEL READ UNCOMMITTED";
    case Isolation::ReadCommitted: return "BEGIN ISOLATION LEVEL READ COMMITTED";
    case Isolation::RepeatableRead: return "BEGIN ISOLATION LEVEL REPEATABLE READ";
    case Isolation::Serializable: return "BEGIN ISOLATION LEVEL SERIALIZABLE";
  }
  return "BEGIN";
}

bool parse_int(const char* s, int64_t& v) {
  const size_t n = std::strlen(s);
  return std::from_chars(s, s + n, v).ptr == s + n && n > 0;
}

class PgConnection final : public Connection {
 public:
  PgConnection(PGconn* c, Isolation iso) : c_(c), begin_(begin_statement(iso)), pid_(PQbackendPID(c)) {}
  ~PgConnection() override { PQfinish(c_); }

  // Prepares the statements of the schema's tables; false with the error.
  bool prepare(const Schema& s, std::string& error) {
    lists_ = s.lists;
    auto prep = [&](const char* name, const std::string& sql, int n) {
      Result r(PQprepare(c_, name, sql.c_str(), n, nullptr));
      Status st = classify(c_, r.r);
      if (!st.ok()) error = "PostgreSQL: cannot prepare " + sql + ": " + st.message;
      return st.ok();
    };
    if (!s.registers.empty() &&
        !(prep("r", "SELECT v FROM " + s.registers + " WHERE k = $1", 1) &&
          prep("rfu", "SELECT v FROM " + s.registers + " WHERE k = $1 FOR UPDATE", 1) &&
          prep("w", "UPDATE " + s.registers + " SET v = $2 WHERE k = $1", 2)))
      return false;
    if (!s.lists.empty() &&
        !(prep("rl", "SELECT v FROM " + s.lists + " WHERE k = $1", 1) &&
          prep("a", "UPDATE " + s.lists + " SET v = v || ' ' || $2 WHERE k = $1", 2)))
      return false;
    return true;
  }

  Status begin(bool) override { return command(begin_); }
  Status read(uint32_t key, int64_t& value) override { return read_int("r", key, value); }
  Status read_for_update(uint32_t key, int64_t& value) override { return read_int("rfu", key, value); }
  Status write(uint32_t key, int64_t value) override { return update("w", key, value); }
  Status append(uint32_t key, int64_t value) override { return update("a", key, value); }
  Status read_list(uint32_t key, std::vector<int64_t>& values) override {
    return select("rl", key, [&](const char* text) {
      return parse_list_text(text, values) ? Status{} : Status{Outcome::Failed, std::string("not a list: ") + text};
    });
  }
  Status add_lists(const std::vector<uint32_t>& keys) override {
    return command(add_lists_sql("INSERT INTO", lists_, keys, " ON CONFLICT (k) DO NOTHING").c_str());
  }
  Status exec_rows(const std::string& sql, Rows* rows, int64_t& changed) override {
    Result r(PQexec(c_, sql.c_str()));
    if (Status s = classify(c_, r.r); !s.ok()) return s;
    changed = 0;
    parse_int(PQcmdTuples(r.r), changed);
    if (rows)
      for (int i = 0; i < PQntuples(r.r); ++i) {
        int64_t k = 0, v = 0;
        if (!parse_int(PQgetvalue(r.r, i, 0), k) || !parse_int(PQgetvalue(r.r, i, 1), v))
          return {Outcome::Failed, "not a row of two integers: " + sql};
        rows->push_back({k, v});
      }
    return {};
  }
  Status commit() override { return command("COMMIT"); }
  void rollback() override {
    if (PQstatus(c_) == CONNECTION_OK) PQclear(PQexec(c_, "ROLLBACK"));
  }
  int64_t server_id() const override { return pid_; }

 private:
  Status command(const char* sql) {
    Result r(PQexec(c_, sql));
    return classify(c_, r.r);
  }
  template <class F>
  Status select(const char* stmt, uint32_t key, F&& take) {
    char k[16];
    *std::to_chars(k, k + sizeof k - 1, key).ptr = '\0';
    const char* params[] = {k};
    Result r(PQexecPrepared(c_, stmt, 1, params, nullptr, nullptr, 0));
    if (Status s = classify(c_, r.r); !s.ok()) return s;
    if (PQntuples(r.r) != 1) return {Outcome::Failed, "the runner's row for key " + std::to_string(key) + " is missing"};
    return take(PQgetvalue(r.r, 0, 0));
  }
  Status read_int(const char* stmt, uint32_t key, int64_t& value) {
    return select(stmt, key, [&](const char* text) {
      return parse_int(text, value) ? Status{} : Status{Outcome::Failed, std::string("not an integer: ") + text};
    });
  }
  Status update(const char* stmt, uint32_t key, int64_t value) {
    char k[16], v[24];
    *std::to_chars(k, k + sizeof k - 1, key).ptr = '\0';
    *std::to_chars(v, v + sizeof v - 1, value).ptr = '\0';
    const char* params[] = {k, v};
    Result r(PQexecPrepared(c_, stmt, 2, params, nullptr, nullptr, 0));
    if (Status s = classify(c_, r.r); !s.ok()) return s;
    if (std::strcmp(PQcmdTuples(r.r), "1") != 0)
      return {Outcome::Failed, "the runner's row for key " + std::to_string(key) + " is missing"};
    return {};
  }

  PGconn* c_;
  const char* begin_;
  std::string lists_;  // the lists table's name
  int64_t pid_;
};

class PgDatabase final : public Database {
 public:
  PgDatabase(const Target& t, Isolation iso, PGconn* admin) : t_(t), iso_(iso), admin_(admin) {}
  ~PgDatabase() override { PQfinish(admin_); }

  std::unique_ptr<Connection> connect(std::string& error) override {
    PGconn* c = open_connection(t_, error);
    if (!c) return nullptr;
    auto conn = std::make_unique<PgConnection>(c, iso_);
    if (!conn->prepare(schema_, error)) return nullptr;
    return conn;
  }

  Status create_schema(const Schema& s) override {
    schema_ = s;
    // The run's mark, held until its connection ends: an advisory lock on its id.
    if (Status st = exec("SELECT pg_advisory_lock(" + lock_key(s.run_id) + ")"); !st.ok()) return st;
    std::string sql = "BEGIN;";
    const std::string n = std::to_string(s.keys);
    const std::string comment = "isoscope run " + owner_mark();
    // No DROP first, no IF NOT EXISTS: a table of the name is another run's, and an error.
    if (!s.registers.empty())
      sql += "CREATE TABLE " + s.registers + " (k bigint PRIMARY KEY, v bigint NOT NULL); INSERT INTO " + s.registers +
             " SELECT g, 0 FROM generate_series(0, " + n + " - 1) g; COMMENT ON TABLE " + s.registers + " IS '" + comment + "';";
    if (!s.lists.empty())
      sql += "CREATE TABLE " + s.lists + " (k bigint PRIMARY KEY, v text NOT NULL); INSERT INTO " + s.lists +
             " SELECT g, '' FROM generate_series(0, " + n + " - 1) g; COMMENT ON TABLE " + s.lists + " IS '" + comment + "';";
    sql += "COMMIT;";
    Status st = exec(sql);
    if (!st.ok()) {
      PQclear(PQexec(admin_, "ROLLBACK"));
      return st;
    }
    created_ = true;
    return st;
  }
  Status drop_schema(const Schema& s) override {
    if (!created_) return {};
    std::string sql;
    if (!s.registers.empty()) sql += "DROP TABLE IF EXISTS " + s.registers + ";";
    if (!s.lists.empty()) sql += "DROP TABLE IF EXISTS " + s.lists + ";";
    Status st = exec(sql);
    if (st.ok()) created_ = false;
    return st;
  }
  bool leftovers(std::vector<Leftover>& out, std::string& error) override {
    out.clear();
    Result r(PQexec(admin_,
                    "SELECT c.relname, coalesce(obj_description(c.oid, 'pg_class'), '') FROM pg_class c "
                    "WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace "
                    "AND c.relname LIKE 'isoscope\\_run\\_%' ORDER BY c.relname"));
    if (Status st = classify(admin_, r.r); !st.ok()) {
      error = st.message;
      return false;
    }
    for (int i = 0; i < PQntuples(r.r); ++i) {
      const std::string name = PQgetvalue(r.r, i, 0), comment = PQgetvalue(r.r, i, 1);
      std::string id;
      if (!runner_table(name, id) || (!id.empty() && id == schema_.run_id)) continue;
      std::string note = owner_note(comment);
      if (!id.empty()) {
        // Its run holds the advisory lock on its id for as long as it runs.
        const uint64_t key = std::stoull(id, nullptr, 16);
        const std::string held =
            value(("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM "
                   "pg_database WHERE datname = current_database()) AND classid = " + std::to_string(key >> 32) +
                   " AND objid = " + std::to_string(key & 0xffffffffu) + " AND objsubid = 1").c_str());
        if (held != "0") continue;  // running (or unknown: the server did not say)
      } else {
        note = Leftover::kUnmarked;
      }
      out.push_back({name, note});
    }
    return true;
  }
  Status drop_table(const std::string& name) override {
    return exec("DROP TABLE IF EXISTS " + name);
  }
  SqlFeatures sql_features() override { return {true, true, true}; }
  ServerFacts facts() override {
    ServerFacts f;
    f.product = "PostgreSQL";
    f.version = value("SHOW server_version");
    for (const char* name : {"deadlock_timeout", "default_transaction_isolation", "max_connections"})
      f.variables.emplace_back(name, value((std::string("SHOW ") + name).c_str()));
    for (const auto& [name, v] : t_.session_vars) f.variables.emplace_back(name, value(("SHOW " + name).c_str()));
    return f;
  }
  int64_t commit_counter(std::string& name) override {
    name = "pg_stat_database.xact_commit";
    PQclear(PQexec(admin_, "SELECT pg_stat_clear_snapshot()"));
    const std::string v = value("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
    int64_t n = -1;
    return parse_int(v.c_str(), n) ? n : -1;
  }
  bool kill(int64_t pid) override {
    return value(("SELECT pg_terminate_backend(" + std::to_string(pid) + ")").c_str()) == "t";
  }
  bool lock_waits(int64_t pid, bool& waiting, std::vector<int64_t>& blockers) override {
    Result r(PQexec(admin_, ("SELECT unnest(pg_blocking_pids(" + std::to_string(pid) + "))").c_str()));
    if (PQresultStatus(r.r) != PGRES_TUPLES_OK) return false;
    blockers.clear();
    for (int i = 0; i < PQntuples(r.r); ++i) {
      int64_t b = 0;
      if (parse_int(PQgetvalue(r.r, i, 0), b)) blockers.push_back(b);
    }
    waiting = !blockers.empty();
    return true;
  }

 private:
  Status exec(const std::string& sql) {
    Result r(PQexec(admin_, sql.c_str()));
    return classify(admin_, r.r);
  }
  std::string value(const char* sql) {
    Result r(PQexec(admin_, sql));
    if (PQresultStatus(r.r) != PGRES_TUPLES_OK || PQntuples(r.r) < 1) return "";
    return PQgetvalue(r.r, 0, 0);
  }

  static std::string lock_key(const std::string& run_id) {
    return std::to_string(static_cast<int64_t>(std::stoull(run_id, nullptr, 16)));
  }

  Target t_;
  Isolation iso_;
  PGconn* admin_;
  Schema schema_;
  bool created_ = false;
};

}  // namespace

std::unique_ptr<Database> open_postgres(const Target& t, Isolation iso, std::string& error) {
  PGconn* admin = open_connection(t, error);
  if (!admin) return nullptr;
  return std::make_unique<PgDatabase>(t, iso, admin);
}

}  // namespace isoscope::runner
