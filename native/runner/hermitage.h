// Hermitage's table for a database, decided by isoscope (`isoscope hermitage TARGET`).
//
// Hermitage (Kleppmann's test suite) names the anomalies each isolation level of a database
// lets through, one scripted schedule per anomaly class, run by hand in several terminals and
// judged by reading what the statements return. Here each case is a script of steps (which
// session does what, in what order) over the registers x and y (0 at the start, every written
// value unique per key), run on real connections, one per session:
//   - each step runs on its session's connection in the script's order; a step that blocks
//     (the database's own lock view says it waits: PostgreSQL's pg_blocking_pids, InnoDB's lock
//     waits; SQLite, which has none, after a pause) lets the other sessions go on, as a person
//     at the terminals would, and its session's later steps wait behind it; after each step
//     the driver waits until every session is idle or waiting, so a run is one schedule;
//   - a statement the database refuses (a serialization failure, a deadlock) aborts its
//     transaction; the rest of that transaction's steps are skipped;
//   - the recorded history (what every read returned, which transactions committed, their
//     times) is checked by isoscope at the case's level: the weakest level that the anomaly's
//     outcome of the script fails (tests/native/runner/hermitage_test.cpp checks each case's
//     anomalous and prevented outcomes against it). A failing level is the anomaly, with its
//     counterexample; never a comparison of values with an expected result.
// The predicate anomalies (PMP, G2) run on Hermitage's own table instead: rows (1, 10) and
// (2, 20) at the start, read by predicates (SELECT ... WHERE), inserted, updated and deleted;
// their histories are tables (docs/formats.md, "Rows that come and go").
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "runner/database.h"

namespace isoscope::runner {

// Hermitage's columns, in its order.
enum class HermitageAnomaly : uint8_t { G0, G1a, G1b, G1c, OTV, PMP, P4, GSingle, G2Item, G2 };
inline constexpr int kHermitageAnomalies = 10;
const char* hermitage_anomaly_name(HermitageAnomaly a);  // "G0", ..., "G-single", "G2-item", "G2"
const char* hermitage_anomaly_title(HermitageAnomaly a);  // "write cycles", ...

struct HermitageStep {
  enum Kind : uint8_t {
    Begin, Read, ReadForUpdate, Write, Commit, Abort,
    // Table cases: a predicate read; an insert; an update of one row by its key; a predicate
    // write: the matching rows, read with their locks, then each updated (value + amount) or
    // deleted.
    Select, Insert, Update, UpdateWhere, DeleteWhere,
  } kind;
  uint8_t session;  // 0: T1
  int64_t key;      // register cases: 0 is x, 1 is y; table cases: the row's id
  int64_t value;    // Write, Insert, Update; UpdateWhere: the amount added
  std::string predicate;  // Select, UpdateWhere, DeleteWhere: canonical (model/predicates.h)
};

struct HermitageCase {
  HermitageAnomaly anomaly;
  const char* variant;  // "" or "read-only" / "with writes" (Hermitage's R/O cells)
  Level level;          // the weakest level the anomaly's outcome fails
  const char* script;   // "T1 begin; T2 begin; T1 write x 1; ..." (parse_hermitage_script)
  const char* what;     // the anomaly in this script, for people
  bool table = false;   // on Hermitage's table (kHermitageRows), not the registers x and y
};
// The rows of Hermitage's table at the start of a table case: (id, value).
inline constexpr std::pair<int64_t, int64_t> kHermitageRows[] = {{1, 10}, {2, 20}};
// Every case, in column order.
const std::vector<HermitageCase>& hermitage_cases();
// "G0", "G-single (read-only)": the anomaly and its variant.
std::string hermitage_case_name(const HermitageCase& c);
// "T1" for session 0: what the scripts, histories and reports call a session.
std::string hermitage_session_name(uint32_t session);
// The steps of a script: "T<n> begin|commit|abort", "T<n> read x", "T<n> read-for-update x",
// "T<n> write x VALUE", separated by ';'; in table cases "T<n> select PREDICATE", "T<n> insert
// ID VALUE", "T<n> update ID VALUE", "T<n> update-where PREDICATE add N", "T<n> delete-where
// PREDICATE". False with error on anything else.
bool parse_hermitage_script(const char* script, std::vector<HermitageStep>& steps, std::string& error);

// What a session's transaction did, as recorded: its operations (a write; a read and the value
// it returned; a predicate read and the rows it returned), how it ended, when (ns from the
// case's start).
struct HermitageOp {
  enum Kind : uint8_t { Read, Write, Select } kind;
  int64_t key = 0;               // Read, Write: 0 is x, 1 is y; in table cases, the row's id
  std::optional<int64_t> value;  // nullopt: no row (a delete's write, a read that found none)
  std::string predicate;         // Select
  std::vector<std::pair<int64_t, int64_t>> rows;  // Select: what it returned
};
// What a predicate write (UpdateWhere, DeleteWhere) recorded, given the rows its locking read
// returned: that read, and the write of each row.
void record_predicate_write(const HermitageStep& s, const std::vector<std::pair<int64_t, int64_t>>& rows,
                            std::vector<HermitageOp>& ops);
struct HermitageTxn {
  std::vector<HermitageOp> ops;
  TxnStatus status = TxnStatus::Unknown;  // one the script left open: it may have committed
  int64_t start_ns = 0, end_ns = 0;
};
// The isoscope JSON of a case's outcome (a session's transactions in its order): keys "x" and
// "y" (a table case: the rows' ids, and the table's rows at the start), transactions named T1,
// T2 (T3.1, T3.2 for a session's several), recorded_by naming the case.
std::string hermitage_history_json(const HermitageCase& c, const std::vector<std::vector<HermitageTxn>>& sessions);

// A step that waited: which session, which step of the script, and for whom (empty: the
// database could not say).
struct HermitageWait {
  uint32_t step;
  uint8_t session;
  std::vector<uint8_t> waited_for;
};

struct HermitageRun {
  const HermitageCase* c = nullptr;
  std::string history_json;  // isoscope JSON: keys "x" and "y", transactions named T1, T2, ...
  std::vector<HermitageWait> waits;
  std::vector<std::string> refusals;  // "T2: could not serialize access ..." (the database's words)
  std::vector<uint32_t> skipped;      // steps skipped: their transaction had been refused
  std::string error;                  // the case could not run (the history is incomplete)
};

// Runs one case against db (which opens connections at the isolation to test).
// lock_pause_ms: how long a step runs before it counts as blocked where the database has no
// lock view.
// interrupted: when it becomes true, the case stops (its error says so).
// table: the case's table (the schema's registers table); row_locks: the database has SELECT ...
// FOR UPDATE (not SQLite, whose writer holds the whole database).
struct HermitageTable {
  std::string name;
  bool row_locks = true;
};
HermitageRun run_hermitage_case(Database& db, const HermitageCase& c, const HermitageTable& table, uint32_t lock_pause_ms,
                                const std::atomic<bool>* interrupted = nullptr);

// How a cell came out.
// Undecided: a case of the cell could not run or its verdict was unknown (the row says why).
enum class CellResult : uint8_t { Prevented, Occurs, ReadOnlyPrevented, NotTested, Undecided };
const char* cell_result_mark(CellResult r);  // "✓", "—", "R/O", "n/a", "?"

}  // namespace isoscope::runner
