// The runner's view of a database (`isoscope run`): a target parsed from its URL, connections
// that run one transaction program's statements, and the administration the runner needs
// (schema, server facts, the nemesis). One implementation per client library: postgres.cpp
// (libpq), mariadb.cpp (MariaDB Connector/C), sqlite.cpp (SQLite), etcd.cpp (gRPC on nghttp2,
// and libcurl for etcd's v3 JSON gateway), redis.cpp (hiredis); each is compiled only when CMake
// found its library.
// Native only: the browser cannot open sockets.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isoscope::runner {

enum class DbKind : uint8_t { PostgreSQL, MariaDB, SQLite, Etcd, Redis };
enum class Isolation : uint8_t { ReadUncommitted, ReadCommitted, RepeatableRead, Serializable };

const char* isolation_name(Isolation i);       // "read-committed", ...
bool parse_isolation(std::string_view s, Isolation& out);

struct Target {
  DbKind kind = DbKind::SQLite;
  // host: a name, an IP address (IPv6 without its brackets) or, when it begins with '/', a
  // Unix-domain socket: PostgreSQL's socket folder, MariaDB's socket file. Empty: the client
  // library's default (a local socket).
  std::string user, password, host, database;
  int port = 0;
  std::string path;  // SQLite: the database file
  // etcd: every member of the cluster the URL names (host and port; host and port above are the
  // first's); the connections spread over them.
  std::vector<std::pair<std::string, int>> members;
  // etcd: reads of a transaction are serializable (from the member's own state, possibly stale)
  // instead of linearizable (--reads).
  bool serializable_reads = false;
  // PostgreSQL: libpq connection keywords given as ?name=value (host, sslmode, passfile, ...),
  // passed to libpq as they are. MariaDB: ?socket=PATH.
  std::vector<std::pair<std::string, std::string>> connection_params;
  // Other query parameters (?name=value&...): session variables set on every connection
  // (MariaDB, PostgreSQL), e.g. mariadb://...?innodb_snapshot_isolation=ON.
  std::vector<std::pair<std::string, std::string>> session_vars;
  std::string display;  // the URL without its password, for reports and file names
  // Where the password came from: "" (none given: the client library's own sources, such as
  // ~/.pgpass or ~/.my.cnf), "url", "environment" (PGPASSWORD, MYSQL_PWD), "file".
  std::string password_source;
};
// "postgresql://USER[:PASSWORD]@HOST[:PORT]/DB", "postgres://...", "mariadb://...", "mysql://...",
// "sqlite:PATH", "etcd://HOST:PORT[,HOST:PORT...]", "redis://[USER:PASSWORD@]HOST:PORT[/DB]",
// with the URL conventions of each client library: an IPv6 address in brackets
// ([::1]:5432), %XX escapes in every part (a socket folder as the host: %2Fvar%2Frun%2Fpostgresql),
// PostgreSQL's connection keywords as query parameters (?host=/var/run/postgresql). The password
// may also come from PGPASSWORD / MYSQL_PWD / REDISCLI_AUTH. false with a message, which never holds the password.
bool parse_target(std::string_view url, Target& out, std::string& error);

// s with the password of anything in it that looks like a URL's user information
// (scheme://user:PASSWORD@host) replaced by "***": for messages that quote what was typed.
std::string redact_password(std::string_view s);

// HOST:PORT as a URL writes it: an IPv6 address in brackets, a name %-encoded.
std::string host_port_text(const std::string& host, int port);

// Where the password of a target's user information is in its text: [begin, end), or
// begin == end when it has none.
std::pair<size_t, size_t> password_span(std::string_view url);
// Overwrites the passwords in a command-line argument (the user information's, ?password=...)
// in place, keeping its length: what 'ps' and /proc/PID/cmdline show from then on.
void mask_password_in_place(char* arg);

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
  // Aborted because a lock wait timed out (PostgreSQL's lock_timeout, InnoDB's
  // innodb_lock_wait_timeout, SQLite's busy timeout), not because the database refused an
  // interleaving: `isoscope hermitage` takes it for a stalled schedule.
  bool lock_timeout = false;
  // Failed because the row's key is taken (a unique-key violation: PostgreSQL 23505, MariaDB
  // 1062, SQLite's constraint error): the table workload's insert of a key another transaction
  // inserted, which it takes for a refusal (it rolls its transaction back).
  bool duplicate_key = false;
  bool ok() const { return outcome == Outcome::Ok; }
};

// The runner's own tables: isoscope_run_<ID>_registers, _lists or _rows, ID 16 hexadecimal digits
// from the operating system's random source (new_run_id), so that no two runs, on one machine
// or in two containers, name the same table. A run marks its tables as in use for as long as
// it runs (PostgreSQL: an advisory lock on ID, MariaDB: the named lock isoscope_run_<ID>, both
// held by the run's connection and released by the server when it ends, even by SIGKILL;
// SQLite: the creating process's host, boot, pid and start time, in the table's definition;
// etcd and Redis, whose "tables" are the keys NAME/<k>: the same mark in the key
// isoscope_runs/NAME, put before the keys and deleted after them),
// and creates them without dropping anything first: a table of that name is an error.
struct Schema {
  std::string run_id;     // 16 hexadecimal digits
  // (k integer primary key, v integer), a row per key (v = 0): isoscope_run_<ID>_registers, or
  // _rows for the table workload (whose runner then puts its own rows in it)
  std::string registers;
  std::string lists;      // (k integer primary key, v text): space-separated appended values
  uint32_t keys = 0;
};
// 16 hexadecimal digits from getrandom(2); empty with error when there is no random source.
std::string new_run_id(std::string& error);
// The schema of a run: its tables' names from its id.
enum class RunTable : uint8_t { Registers, Lists, Rows };
Schema run_schema(const std::string& run_id, RunTable table, uint32_t keys);
// Whether name is a runner table (isoscope_run_<16 hex>_registers|_lists|_rows, or the
// isoscope_run_<pid>_<seed>_... of earlier isoscope versions), and its id.
bool runner_table(std::string_view name, std::string& run_id);

// A table of a run that is not going on: killed (SIGKILL, a crash, a lost machine) before it
// dropped its tables.
struct Leftover {
  std::string table;
  std::string note;  // what is known of the run that made it ("created ... by pid ... on ...")
  // The note of a table an earlier isoscope made, which marked no run (every target says it)
  static constexpr const char* kUnmarked =
      "named by an earlier isoscope (isoscope_run_<pid>_<seed>), which marked no run: drop it only when no such run is going";
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
  // Makes these list keys (empty) beyond the ones create_schema made, outside any transaction; a
  // key already there stays as it is. A key-value store's absent key is an empty list: nothing to do.
  virtual Status add_lists(const std::vector<uint32_t>& /*keys*/) { return {}; }
  // A statement of `isoscope hermitage`'s table cases, on this connection: the rows (k, v) it
  // returns when rows is given (a SELECT of two integer columns), and how many rows it changed.
  using Rows = std::vector<std::pair<int64_t, int64_t>>;
  virtual Status exec_rows(const std::string& sql, Rows* rows, int64_t& changed) = 0;
  virtual Status commit() = 0;
  virtual void rollback() = 0;
  // The server's id of this connection (PostgreSQL backend pid, MariaDB connection id).
  virtual int64_t server_id() const = 0;
};

// What the database's SQL offers the table workload (`isoscope run --predicates`).
struct SqlFeatures {
  bool update_returning = false;  // UPDATE ... RETURNING (PostgreSQL, SQLite 3.35+)
  bool delete_returning = false;  // DELETE ... RETURNING (PostgreSQL, MariaDB, SQLite 3.35+)
  bool row_locks = false;         // SELECT ... FOR UPDATE (not SQLite, whose writer holds the whole database)
};

// Facts about the server recorded with the history.
struct ServerFacts {
  std::string product;  // "PostgreSQL"
  std::string version;  // the server's own version string
  std::vector<std::pair<std::string, std::string>> variables;  // relevant settings, as the server reports them
  // What a person should know, said on standard error: a session variable the server reports
  // with another value than the one asked for, ...
  std::vector<std::string> notes;
};

class Database {
 public:
  virtual ~Database() = default;
  // A new connection at `iso` (an unreachable server, bad credentials: an error message).
  virtual std::unique_ptr<Connection> connect(std::string& error) = 0;
  // Marks the run's tables as in use (see Schema), creates them (an existing table of a name
  // is an error: nothing is dropped) and fills them with 0 / ''. A failure drops what it made.
  virtual Status create_schema(const Schema& s) = 0;
  // Drops the tables create_schema made in this run, and no other.
  virtual Status drop_schema(const Schema& s) = 0;
  // The runner tables of runs that are not going on (see Schema); false with error when the
  // server cannot be asked.
  virtual bool leftovers(std::vector<Leftover>& out, std::string& error) = 0;
  // Drops a leftover found by leftovers(): a runner table's name (runner_table), nothing else.
  Status drop_leftover(const Leftover& l);
  virtual ServerFacts facts() = 0;
  virtual SqlFeatures sql_features() = 0;
  // The server's count of committed transactions (PostgreSQL pg_stat_database.xact_commit,
  // MariaDB Com_commit), or -1; `name` says which.
  virtual int64_t commit_counter(std::string& name) = 0;
  // Ends another connection from the server side (the nemesis); false when it cannot.
  virtual bool kill(int64_t server_id) = 0;
  // The database's lock view: whether the connection server_id waits for a lock, and the
  // server ids of the connections it waits for (PostgreSQL's pg_blocking_pids, InnoDB's lock
  // waits). False when the database cannot tell (SQLite).
  virtual bool lock_waits(int64_t server_id, bool& waiting, std::vector<int64_t>& blockers) {
    (void)server_id, (void)waiting, (void)blockers;
    return false;
  }

 protected:
  // DROP TABLE IF EXISTS `name`, on the database's own connection.
  virtual Status drop_table(const std::string& name) = 0;
};

// The database at `t`, at isolation `iso`; nullptr with an error when the level is not one the
// database offers, or when isoscope was built without its client library.
std::unique_ptr<Database> open_database(const Target& t, Isolation iso, std::string& error);

}  // namespace isoscope::runner
