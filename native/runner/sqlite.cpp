// runner::Database over SQLite: every connection opens the same file (WAL journal, so readers
// never wait for the writer). SQLite transactions are serializable, and that is the only
// level it accepts. A transaction that writes begins IMMEDIATE (it takes the write lock at
// once, waiting up to the busy timeout); SQLITE_BUSY or SQLITE_LOCKED aborts it.
#include <sqlite3.h>

#include <charconv>
#include <cstdio>

#include "runner/backends.h"

namespace isoscope::runner {

namespace {

Status classify(sqlite3* db, int rc) {
  if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return {};
  Status s;
  s.message = std::string(sqlite3_errmsg(db)) + " (SQLite error " + std::to_string(rc) + ")";
  const int primary = rc & 0xff;
  s.outcome = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? Outcome::Aborted : Outcome::Failed;
  s.lock_timeout = primary == SQLITE_BUSY;  // the busy timeout ran out
  s.duplicate_key = primary == SQLITE_CONSTRAINT;  // the table workload's only constraint is its key
  return s;
}

sqlite3* open_file(const Target& t, std::string& error) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(t.path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    error = "SQLite at " + t.path + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return nullptr;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  return db;
}

class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(st_); }
  bool prepare(sqlite3* db, const std::string& sql) { return prepare_rc(db, sql) == SQLITE_OK; }
  int prepare_rc(sqlite3* db, const std::string& sql) { return sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr); }
  sqlite3_stmt* get() const { return st_; }

 private:
  sqlite3_stmt* st_ = nullptr;
};

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  // close_v2: the connection closes once the member statements are finalized, after this body.
  ~SqliteConnection() override { sqlite3_close_v2(db_); }
  bool prepare(const Schema& s, std::string& error) {
    bool ok = true;
    if (!s.registers.empty())
      ok = read_.prepare(db_, "SELECT v FROM " + s.registers + " WHERE k = ?1") &&
           write_.prepare(db_, "UPDATE " + s.registers + " SET v = ?2 WHERE k = ?1");
    if (ok && !s.lists.empty())
      ok = read_list_.prepare(db_, "SELECT v FROM " + s.lists + " WHERE k = ?1") &&
           append_.prepare(db_, "UPDATE " + s.lists + " SET v = v || ' ' || ?2 WHERE k = ?1");
    lists_ = s.lists;
    if (!ok) error = std::string("SQLite: ") + sqlite3_errmsg(db_);
    return ok;
  }

  Status begin(bool writes) override { return exec(writes ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"); }
  Status read(uint32_t key, int64_t& value) override {
    return select(read_.get(), key, [&](sqlite3_stmt* st) {
      value = sqlite3_column_int64(st, 0);
      return Status{};
    });
  }
  // SQLite has no row locks: the transaction that writes holds the database's write lock.
  Status read_for_update(uint32_t key, int64_t& value) override { return read(key, value); }
  Status write(uint32_t key, int64_t value) override { return update(write_.get(), key, value); }
  Status append(uint32_t key, int64_t value) override { return update(append_.get(), key, value); }
  Status read_list(uint32_t key, std::vector<int64_t>& values) override {
    return select(read_list_.get(), key, [&](sqlite3_stmt* st) {
      const char* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      const std::string t = text ? text : "";
      return parse_list_text(t, values) ? Status{} : Status{Outcome::Failed, "not a list: " + t};
    });
  }
  Status add_lists(const std::vector<uint32_t>& keys) override {
    return exec(add_lists_sql("INSERT OR IGNORE INTO", lists_, keys, "").c_str());
  }
  Status exec_rows(const std::string& sql, Rows* rows, int64_t& changed) override {
    Statement st;
    int rc = st.prepare_rc(db_, sql);
    if (rc != SQLITE_OK) return classify(db_, rc);
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW)
      if (rows) rows->push_back({sqlite3_column_int64(st.get(), 0), sqlite3_column_int64(st.get(), 1)});
    if (rc != SQLITE_DONE) return classify(db_, rc);
    changed = sqlite3_changes(db_);
    return {};
  }
  Status commit() override { return exec("COMMIT"); }
  void rollback() override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  int64_t server_id() const override { return -1; }

 private:
  Status exec(const char* sql) { return classify(db_, sqlite3_exec(db_, sql, nullptr, nullptr, nullptr)); }
  template <class F>
  Status select(sqlite3_stmt* st, uint32_t key, F&& take) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, key);
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) return {Outcome::Failed, "the runner's row for key " + std::to_string(key) + " is missing"};
    if (rc != SQLITE_ROW) return classify(db_, rc);
    Status s = take(st);
    sqlite3_reset(st);
    return s;
  }
  Status update(sqlite3_stmt* st, uint32_t key, int64_t value) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, key);
    sqlite3_bind_int64(st, 2, value);
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return classify(db_, rc);
    if (sqlite3_changes(db_) != 1) return {Outcome::Failed, "the runner's row for key " + std::to_string(key) + " is missing"};
    return {};
  }

  sqlite3* db_;
  Statement read_, write_, read_list_, append_;
  std::string lists_;  // the lists table's name
};

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const Target& t, sqlite3* admin) : t_(t), admin_(admin) {}
  ~SqliteDatabase() override { sqlite3_close(admin_); }

  std::unique_ptr<Connection> connect(std::string& error) override {
    sqlite3* db = open_file(t_, error);
    if (!db) return nullptr;
    auto c = std::make_unique<SqliteConnection>(db);
    if (!c->prepare(schema_, error)) return nullptr;
    return c;
  }
  Status create_schema(const Schema& s) override {
    schema_ = s;
    std::string sql = "BEGIN;";
    const std::string n = std::to_string(s.keys);
    // The run's mark goes in the table's definition (sqlite_master keeps it as written): SQLite
    // has no server to hold a lock for the run. No DROP first, no IF NOT EXISTS: a table of the
    // name is another run's, and an error.
    const std::string mark = "/* isoscope run " + owner_mark() + " */";
    auto table = [&](const std::string& name, const char* type, const char* initial) {
      if (name.empty()) return;
      sql += "CREATE TABLE " + name + " (k INTEGER PRIMARY KEY, v " + type + " NOT NULL " + mark +
             "); WITH RECURSIVE g(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM g WHERE k + 1 < " + n +
             ") INSERT INTO " + name + " SELECT k, " + initial + " FROM g;";
    };
    table(s.registers, "INTEGER", "0");
    table(s.lists, "TEXT", "''");
    sql += "COMMIT;";
    Status st = classify(admin_, sqlite3_exec(admin_, sql.c_str(), nullptr, nullptr, nullptr));
    if (!st.ok()) {
      if (!sqlite3_get_autocommit(admin_)) sqlite3_exec(admin_, "ROLLBACK", nullptr, nullptr, nullptr);
      return st;
    }
    created_ = true;
    return st;
  }
  Status drop_schema(const Schema& s) override {
    if (!created_) return {};
    std::string sql;
    for (const std::string& name : {s.registers, s.lists})
      if (!name.empty()) sql += "DROP TABLE IF EXISTS " + name + ";";
    Status st = classify(admin_, sqlite3_exec(admin_, sql.c_str(), nullptr, nullptr, nullptr));
    if (st.ok()) created_ = false;
    return st;
  }
  bool leftovers(std::vector<Leftover>& out, std::string& error) override {
    out.clear();
    struct Row {
      std::string name, sql;
    };
    std::vector<Row> rows;
    char* err = nullptr;
    const int rc = sqlite3_exec(
        admin_, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'isoscope\\_run\\_%' ESCAPE '\\' ORDER BY name",
        [](void* a, int, char** v, char**) {
          static_cast<std::vector<Row>*>(a)->push_back({v[0] ? v[0] : "", v[1] ? v[1] : ""});
          return 0;
        },
        &rows, &err);
    if (rc != SQLITE_OK) {
      error = err ? err : sqlite3_errmsg(admin_);
      sqlite3_free(err);
      return false;
    }
    for (const Row& r : rows) {
      std::string id;
      if (!runner_table(r.name, id) || (!id.empty() && id == schema_.run_id)) continue;
      const size_t b = r.sql.find("/* isoscope run ");
      const std::string mark = b == std::string::npos ? "" : r.sql.substr(b + 16, r.sql.find(" */", b) - b - 16);
      if (id.empty()) {
        out.push_back({r.name, Leftover::kUnmarked});
        continue;
      }
      switch (owner_state(mark)) {
        case Owner::Running: break;
        case Owner::Gone: out.push_back({r.name, owner_note(mark)}); break;
        case Owner::Unknown: break;  // another machine's run (or a mark this one cannot read): it may be going

      }
    }
    return true;
  }
  Status drop_table(const std::string& name) override {
    return classify(admin_, sqlite3_exec(admin_, ("DROP TABLE IF EXISTS " + name).c_str(), nullptr, nullptr, nullptr));
  }
  // RETURNING from SQLite 3.35.0; no row locks (a transaction that writes holds the database's
  // write lock from its BEGIN IMMEDIATE).
  SqlFeatures sql_features() override {
    int major = 0, minor = 0;
    const bool returning = std::sscanf(sqlite3_libversion(), "%d.%d", &major, &minor) == 2 && (major > 3 || (major == 3 && minor >= 35));
    return {returning, returning, false};
  }
  ServerFacts facts() override {
    ServerFacts f;
    f.product = "SQLite";
    f.version = sqlite3_libversion();
    f.variables.emplace_back("journal_mode", "wal");
    return f;
  }
  int64_t commit_counter(std::string& name) override {
    name.clear();
    return -1;
  }
  bool kill(int64_t) override { return false; }

 private:
  Target t_;
  sqlite3* admin_;
  Schema schema_;
  bool created_ = false;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const Target& t, Isolation iso, std::string& error) {
  if (iso != Isolation::Serializable) {
    error = std::string("SQLite does not offer --isolation ") + isolation_name(iso) +
            ": SQLite transactions are serializable only (pass --isolation serializable)";
    return nullptr;
  }
  sqlite3* admin = open_file(t, error);
  if (!admin) return nullptr;
  return std::make_unique<SqliteDatabase>(t, admin);
}

}  // namespace isoscope::runner
