// The runner's view of a database (`isoscope run`): a target parsed from its URL, connections
// that run one transaction program's statements, and the administration the runner needs
// (schema, server facts, the nemesis). One implementation per client library: postgres.cpp
// (libpq), mariadb.cpp (MariaDB Connector/C), sqlite.cpp (SQLite); each is compiled only when
// CMake found its library. Native only: the browser cannot open sockets.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isoscope::runner {

enum class DbKind : uint8_t { PostgreSQL, MariaDB, SQLite };
enum class Isolation : uint8_t { ReadUncommitted, ReadCommitted, RepeatableRead, Serializable };

const char* db_kind_name(DbKind k);            // "PostgreSQL", "MariaDB", "SQLite"
const char* isolation_name(Isolation i);       // "read-committed", ...
bool parse_isolation(std::string_view s, Isolation& out);

struct Target {
  DbKind kind = DbKind::SQLite;
  std::string user, password, host, database;
  int port = 0;
  std::string path;  // SQLite: the database file
  // Query parameters (?name=value&...): session variables set on every connection (MariaDB,
  // PostgreSQL), e.g. mariadb://...?innodb_snapshot_isolation=ON.
  std::vector<std::pair<std::string, std::string>> session_vars;
  std::string display;  // the URL without its password, for reports and file names
};
// "postgresql://USER[:PASSWORD]@HOST[:PORT]/DB", "postgres://...", "mariadb://...", "mysql://...",
// "sqlite:PATH". The password may also come from PGPASSWORD / MYSQL_PWD. false with a message.
bool parse_target(std::string_view url, Target& out, std::string& error);

// What a statement did.
enum class Outcome : uint8_t {
  Ok,
  Aborted,  // the database refused the transaction (serialization failure, deadlock, lock
            // timeout, SQLite busy): it is rolled back
  Lost,     // the connection is gone: whether an unacknowledged commit happened is unknown
  Failed,   // any other error: the run stops with the message
};
struct Status {
  Outcome outcome = Outcome::Ok;
  std::string message;
  bool ok() const { return outcome == Outcome::Ok; }
};

// The names of the runner's own tables, unique per run.
struct Schema {
  std::string registers;  // (k integer primary key, v integer)
  std::string lists;      // (k integer primary key, v text): space-separated appended values
  uint32_t keys = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;
  // Starts a transaction at the run's isolation level; `writes`: the program writes (SQLite
  // takes the write lock at once).
  virtual Status begin(bool writes) = 0;
  virtual Status read(uint32_t key, int64_t& value) = 0;
  virtual Status read_for_update(uint32_t key, int64_t& value) = 0;  // locks the row
  virtual Status write(uint32_t key, int64_t value) = 0;
  virtual Status append(uint32_t key, int64_t value) = 0;
  virtual Status read_list(uint32_t key, std::vector<int64_t>& values) = 0;
  virtual Status commit() = 0;
  virtual void rollback() = 0;
  // The server's id of this connection (PostgreSQL backend pid, MariaDB connection id).
  virtual int64_t server_id() const = 0;
};

// Facts about the server recorded with the history.
struct ServerFacts {
  std::string product;  // "PostgreSQL"
  std::string version;  // the server's own version string
  std::vector<std::pair<std::string, std::string>> variables;  // relevant settings, as the server reports them
};

class Database {
 public:
  virtual ~Database() = default;
  // A new connection at `iso` (an unreachable server, bad credentials: an error message).
  virtual std::unique_ptr<Connection> connect(std::string& error) = 0;
  virtual Status create_schema(const Schema& s) = 0;  // drops leftovers, creates, fills with 0 / ''
  virtual Status drop_schema(const Schema& s) = 0;
  virtual ServerFacts facts() = 0;
  // The server's count of committed transactions (PostgreSQL pg_stat_database.xact_commit,
  // MariaDB Com_commit), or -1; `name` says which.
  virtual int64_t commit_counter(std::string& name) = 0;
  // Ends another connection from the server side (the nemesis); false when it cannot.
  virtual bool kill(int64_t server_id) = 0;
};

// The database at `t`, at isolation `iso`; nullptr with an error when the level is not one the
// database offers, or when isoscope was built without its client library.
std::unique_ptr<Database> open_database(const Target& t, Isolation iso, std::string& error);

}  // namespace isoscope::runner
