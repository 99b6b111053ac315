// `isoscope run`: sessions execute the workload's transaction programs (generate/workload.h)
// against a database, one connection and one thread per session, all at once, and record what
// the database did: each operation with the value read or written, each transaction's status
// and its begin and commit times (integer nanoseconds of one monotonic clock shared by every
// session, counted from the run's start).
//
// Statuses: committed when COMMIT was acknowledged; aborted when the database refused the
// transaction (serialization failure, deadlock, lock timeout, busy) or the run was stopped in
// its middle (rolled back); unknown when the connection was lost before COMMIT was
// acknowledged (the session reconnects and goes on). Values written are unique across the run.
//
// The table workload (`--predicates`, table_workload.h) runs its statements as they are and
// records what each observed, as docs/formats.md's tables say: a select and the rows it
// returned; a read by key and the row's value or null; an insert, an update and a delete that
// changed a row as that write; an update or delete by key that changed none as a read of null;
// a predicate write (UPDATE/DELETE ... WHERE) as a select of the rows it changed (their values
// before it: from RETURNING where the database has it, else from a locking read of the matching
// rows, which are then written by key) followed by the write of each. An insert (of a key the
// transaction saw absent) refused for its key (a unique-key violation: another transaction
// inserted the row) rolls its transaction back, recorded as aborted.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "generate/workload.h"
#include "model/history.h"
#include "runner/database.h"
#include "runner/nemesis.h"
#include "runner/table_workload.h"

namespace isoscope::runner {

struct RunParams {
  WorkloadParams workload;
  uint32_t sessions = 10;
  uint32_t txns_per_session = 100;
  uint64_t seed = 1;
  bool nemesis_kill = false;
  uint32_t nemesis_interval_ms = 200;  // a kill every interval, of a random session
  // The list-append workload: a key is left for a fresh one once this many appends to it were
  // planned (Elle's max-writes-per-key; 0: never), so that lists, their reads and the history
  // grow linearly with the run. Key slot s (of workload.key.keys) holds keys s, s + keys, ...
  uint32_t max_writes_per_key = 0;
  // Process faults (nemesis.h) on `servers`' nodes, one node at a time: every interval a pause
  // (for half the interval) or a crash (and the node's restart), of a random node.
  bool nemesis_pause = false, nemesis_crash = false;
  const ServerSet* servers = nullptr;
  uint32_t process_fault_interval_ms = 5000;
  // How long a session tries to connect again after its connection was lost (a crashed server
  // comes back once its start script has run, which may take seconds).
  uint32_t reconnect_ms = 5000;
  double duration_s = 0;  // > 0: the sessions stop after this long (a benchmark's fixed time)
  // > 0: transactions begun a second, over all the sessions (Jepsen's rate): each session begins
  // one every sessions/rate seconds, its first at a random point of that interval, and does not
  // make up for time it lost (a fault, a slow transaction): a whole interval late, it begins its
  // next one an interval after the late one, not at once.
  // 0: each session begins its next transaction as soon as the last ended.
  double rate = 0;
  // The table workload (--predicates) instead of `workload`: its programs, its table (the
  // schema's rows table) and the rows the table holds at the start (put there by fill_table).
  bool predicates = false;
  bool dirty_reads = false;  // the database lets transactions read uncommitted writes (MariaDB READ UNCOMMITTED)
  TableWorkloadParams table_workload;
  std::string table;
  std::vector<std::pair<int64_t, int64_t>> rows;
};

struct RecordedOp {
  // Tables: ReadNull (no row), Insert, Update, Delete, Select.
  enum Kind : uint8_t { Read, Write, Append, ReadList, ReadNull, Insert, Update, Delete, Select } kind;
  uint32_t key;
  int64_t value;                     // Read, Write, Append, Insert, Update; Select: its predicate's
                                     // index in RecordedSession::predicates
  uint32_t list_begin, list_end;     // ReadList: its values in RecordedSession::list_values;
                                     // Select: its rows in RecordedSession::rows
};
struct RecordedTxn {
  uint32_t op_begin, op_end;
  TxnStatus status;
  int64_t start_ns, end_ns;
  // The table workload: since when other transactions may have seen its writes (it sent COMMIT;
  // with dirty reads, its first write); INT64_MAX when it wrote nothing (HistoryStream).
  int64_t visible_ns = INT64_MAX;
};
struct RecordedSession {
  std::vector<RecordedTxn> txns;
  std::vector<RecordedOp> ops;
  std::vector<int64_t> list_values;
  std::vector<std::pair<int64_t, int64_t>> rows;  // the rows selects returned
  std::vector<std::string> predicates;
};

// committed, aborted, unknown: the transactions in the history, by status. A transaction that
// ended before any of its operations completed is not in the history (it did nothing a checker
// could see); those are counted apart, by how they ended.
struct RunCounts {
  std::atomic<uint64_t> committed{0}, aborted{0}, unknown{0}, kills{0}, reconnects{0};
  std::atomic<uint64_t> aborted_before_any_operation{0}, unknown_before_any_operation{0};
};

struct RunResult {
  std::vector<RecordedSession> sessions;
  bool interrupted = false;  // stopped (Ctrl-C, a failure) before every session finished
  std::string error;         // a failure that stopped the run (the history holds what ran)
  double seconds = 0;
  std::vector<Fault> faults;  // the process faults, in the order they began
};

// One transaction in isoscope JSON: {"ops": [...], "status": ..., "start": ..., "end": ...}.
std::string txn_json(const RecordedSession& s, const RecordedTxn& t);

// Puts `rows` in the table (the table workload's rows at the start), in one transaction of a
// connection of its own.
Status fill_table(Database& db, const std::string& table, const std::vector<std::pair<int64_t, int64_t>>& rows);

// The history file (--out), written while the run goes: a complete isoscope JSON document
// between its writes, so that a run killed at any point (even by SIGKILL; the one exception
// below) leaves a history that `isoscope check` reads, with the transactions that had finished
// a moment before.
//
// Each session owns a region of the file: its transactions, then spaces (JSON whitespace), then
// its closing bracket. Finished transactions are written over the spaces, each session's batch
// in one write (once it returns, a reader sees the batch whole; a read that races the write may
// see part of it, as Linux does not order buffered reads with writes, and a SIGKILL that lands
// inside a write of more than a page may cut it short), and only once the transactions whose
// values they read are in the file (a session can finish a transaction before the one it read
// from is handed in: the file never holds a read of a value it does not hold). When a region is
// full, the whole document is laid out again with more room (twice each session's text, at
// least twice the average), in a new file renamed over the old one (rename is atomic): the
// rewriting costs a few times the file in all. finish() puts the final document, without the
// spaces, in place the same way.
//
// A table's transaction that saw a row absent (a read of null; a select, which sees every row
// it does not return absent or not matching) may have seen the delete of any transaction whose
// writes were visible before it ended (it had sent COMMIT; with dirty reads, a write), so it
// goes in only once every such transaction of the other sessions is in the file (a session says
// when its running transaction's writes become visible: visible(); a recorded transaction's
// time is its RecordedTxn::visible_ns). Transactions that may need each other so, or a value
// the other wrote, go in the same round, whose writes are one per session (a kill between two
// of them, a matter of microseconds, may leave a select without the delete it saw).
class HistoryStream {
 public:
  HistoryStream() = default;
  HistoryStream(const HistoryStream&) = delete;
  HistoryStream& operator=(const HistoryStream&) = delete;
  ~HistoryStream();
  // recorded_by_json: the metadata object written while the run goes. False with error set
  // when the file cannot be written.
  // rows: a table's rows at the start (the document's "rows" instead of "initial": 0).
  bool open(const std::string& path, uint32_t sessions, bool lists, const std::string& recorded_by_json,
            std::string& error, const std::vector<std::pair<int64_t, int64_t>>* rows = nullptr);
  // A finished transaction of a session, in session order. Any thread.
  void add(uint32_t session, const RecordedSession& rs, const RecordedTxn& t);
  // The writes of the session's running transaction (the one it will add next) may be seen
  // from since_ns on (a table's: see above). Any thread.
  void visible(uint32_t session, int64_t since_ns);
  // Writes what was added since the last flush and can be written. One thread at a time.
  bool flush(std::string& error);
  // Replaces the file with the final document (everything added), its metadata recorded_by_json
  // and, when given, the run's faults (faults_json).
  bool finish(const std::string& recorded_by_json, std::string& error, const std::string& faults = "");
  const std::string& path() const { return path_; }
  // The bytes of the file this stream wrote last (after finish: the final document), read from
  // its own descriptor: the history of this run even when another program (another run with
  // the same --out) has since put another file at the path. `replaced`: the path no longer
  // names that file.
  bool read_back(std::string& out, bool& replaced, std::string& error) const;

 private:
  struct Entry {
    std::string text;                   // txn_json
    std::vector<int64_t> reads, writes;  // values read from others, values written
    bool absent = false;                // saw a row absent (a read of null, a select)
    int64_t end_ns = 0, visible_ns = INT64_MAX;
  };
  struct Mark {
    uint32_t round = 0, session = 0;  // by value: the round that put its write in the file
  };
  bool write_ready(bool everything, std::string& error);
  bool lay_out(const std::string& recorded_by_json, bool padded, std::string& error);
  // The mark of a value (nullptr: none); values below kDenseMarks are looked up in an array.
  static constexpr int64_t kDenseMarks = int64_t{1} << 22;
  const Mark* find_mark(int64_t v) const;
  void set_mark(int64_t v, Mark m);

  std::string path_;
  bool lists_ = false;
  std::string rows_json_;                      // a table's rows at the start ("" for registers, lists)
  std::unordered_set<int64_t> initial_values_;  // their values: in the file from the start
  std::string meta_;  // the metadata of the file as it is being written
  std::string faults_json_;  // the run's faults (finish)
  int fd_ = -1;
  std::mutex mu_;
  std::vector<std::vector<Entry>> added_;   // under mu_: added since the last flush
  // Since when each session's running transaction's writes may be seen (INT64_MAX: not yet)
  std::vector<std::atomic<int64_t>> visible_;
  std::vector<std::vector<Entry>> waiting_;  // added, not yet in the file (a value read is not)
  std::vector<Mark> mark_;
  std::unordered_map<int64_t, Mark> large_marks_;  // values outside [0, kDenseMarks)
  uint32_t round_ = 0;
  std::vector<std::string> text_;           // each session's transactions, as in the file
  std::vector<size_t> room_;                // each session's region size
  std::vector<uint64_t> offset_;            // where each session's region begins in the file
};

// Runs p against db (whose schema is in place). `stop` ends the run early: sessions finish
// or roll back the transaction they are in. `tick` is called about five times a second from
// the calling thread while the sessions run. Every finished transaction goes to `stream`
// (when given), which the calling thread flushes as the sessions run.
RunResult run_sessions(Database& db, const RunParams& p, std::atomic<bool>& stop, RunCounts& counts,
                       const std::function<void()>& tick, HistoryStream* stream = nullptr);

}  // namespace isoscope::runner
