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
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generate/workload.h"
#include "model/history.h"
#include "runner/database.h"

namespace isoscope::runner {

struct RunParams {
  WorkloadParams workload;
  uint32_t sessions = 10;
  uint32_t txns_per_session = 100;
  uint64_t seed = 1;
  bool nemesis_kill = false;
  uint32_t nemesis_interval_ms = 200;  // a kill every interval, of a random session
  double duration_s = 0;  // > 0: the sessions stop after this long (a benchmark's fixed time)
};

struct RecordedOp {
  enum Kind : uint8_t { Read, Write, Append, ReadList } kind;
  uint32_t key;
  int64_t value;                     // Read, Write, Append
  uint32_t list_begin, list_end;     // ReadList: its values in RecordedSession::list_values
};
struct RecordedTxn {
  uint32_t op_begin, op_end;
  TxnStatus status;
  int64_t start_ns, end_ns;
};
struct RecordedSession {
  std::vector<RecordedTxn> txns;
  std::vector<RecordedOp> ops;
  std::vector<int64_t> list_values;
};

struct RunCounts {
  std::atomic<uint64_t> committed{0}, aborted{0}, unknown{0}, kills{0}, reconnects{0};
};

struct RunResult {
  std::vector<RecordedSession> sessions;
  bool interrupted = false;  // stopped (Ctrl-C, a failure) before every session finished
  std::string error;         // a failure that stopped the run (the history holds what ran)
  double seconds = 0;
};

// Runs p against db (whose schema is in place). `stop` ends the run early: sessions finish
// or roll back the transaction they are in. `tick` is called about five times a second from
// the calling thread while the sessions run.
RunResult run_sessions(Database& db, const RunParams& p, std::atomic<bool>& stop, RunCounts& counts,
                       const std::function<void()>& tick);

// The history in isoscope JSON: {"format": "isoscope/1", "initial": 0, "recorded_by": {...},
// "sessions": [...]}; `recorded_by_json` is the metadata object's text.
std::string history_json(const RunResult& r, bool lists, const std::string& recorded_by_json);

}  // namespace isoscope::runner
