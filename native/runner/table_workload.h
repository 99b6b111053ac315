// The table workload of `isoscope run --predicates`: random transactions over a table whose rows
// (k, v) come and go, so that random runs meet phantoms and predicate write skew
// (docs/testing-a-database.md, "The table workload"). What is pure lives here: the table at the
// start, the transaction programs, the predicates (model/predicates.h's language) and the SQL
// of each statement; runner.cpp executes the programs and records what each statement observed
// (docs/formats.md, "Rows that come and go").
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "generate/random_history.h"

namespace isoscope::runner {

struct TableWorkloadParams {
  KeyParams key;                    // keys 0 .. keys-1, and how a step picks one
  uint32_t min_ops = 1, max_ops = 4;  // steps per transaction, uniform in [min, max]
  double read_ratio = 0.5;          // a step reads (a select, a read by key) with this probability
};

// One statement of a transaction program.
//   Select       SELECT k, v FROM t WHERE predicate ORDER BY k
//   Read         SELECT k, v FROM t WHERE k = key
//   Insert       INSERT INTO t (k, v) VALUES (key, fresh value), of a key the transaction saw
//                absent: the runner reads a key it has not seen first (a read by key), and
//                updates one it saw present instead
//   Update       UPDATE t SET v = fresh value WHERE k = key
//   Delete       DELETE FROM t WHERE k = key
//   UpdateWhere  UPDATE t SET v = v + delta WHERE predicate (delta: fresh, a multiple of
//                kPredicateUpdateStep)
//   DeleteWhere  DELETE FROM t WHERE predicate
struct TableStep {
  enum Kind : uint8_t { Select, Read, Insert, Update, Delete, UpdateWhere, DeleteWhere } kind;
  uint32_t key = 0;       // Read, Insert, Update, Delete
  std::string predicate;  // Select, UpdateWhere, DeleteWhere: canonical (model/predicates.h)
};
using TableProgram = std::vector<TableStep>;
const char* table_step_name(TableStep::Kind k);  // "select", "read", "insert", ...
bool table_step_writes(TableStep::Kind k);        // every kind but Select and Read

// A predicate update adds delta = (a fresh value of the run's counter) x kPredicateUpdateStep to
// each row it matches. Values written by key are the counter's own (below the step in any run
// of fewer than a million values), so what a predicate update writes never equals them, and
// its own writes grow along each row: every value written to a key is unique, as the checkers
// need, and the value a row had before is the one RETURNING gives minus delta.
inline constexpr int64_t kPredicateUpdateStep = 1000000;

// The table at the start, chosen by the seed: half the keys (rounded up, at least one), each
// with a value of 1 .. rows (a permutation), sorted by key. The run's value counter starts above.
std::vector<std::pair<int64_t, int64_t>> initial_table_rows(uint32_t keys, uint64_t seed);

// What a predicate is used for: a select's may match any part of the table (`true` included);
// an update's does not say `true` alone; a delete's matches a few rows at most (one or two keys,
// two adjacent keys, or a third or a quarter of the values), so that the table does not empty.
enum class PredicateUse : uint8_t { Select, Update, Delete };
// A random predicate over keys 0 .. keys-1 (anchored at keys the picker draws), in canonical form.
std::string random_predicate(Rng& rng, const KeyPicker& keys, PredicateUse use);

class TablePlanner {
 public:
  explicit TablePlanner(const TableWorkloadParams& p) : p_(p), keys_(p.key) {}
  // The next transaction's program (replaces out's contents). A select or a predicate update
  // after a select sometimes reuses that select's predicate, and an insert after a select on
  // keys mostly goes among them (the shapes of phantoms and predicate write skew: select, then
  // select again, or write, over the same rows).
  void plan(Rng& rng, TableProgram& out) const;

 private:
  TableWorkloadParams p_;
  KeyPicker keys_;
};

// The SQL of a predicate over the columns k (the row's key) and v (its value).
std::string predicate_sql(const std::string& predicate);

// The statements over `table` (columns k, v). `returning`: the statement returns the rows it
// changed as (k, v) (UPDATE: their new values; DELETE: the deleted ones). `for_update`: the
// select locks the rows it returns (SELECT ... FOR UPDATE).
std::string select_sql(const std::string& table, const std::string& predicate, bool for_update = false);
std::string read_sql(const std::string& table, int64_t key);
std::string insert_sql(const std::string& table, int64_t key, int64_t value);
std::string update_sql(const std::string& table, int64_t key, int64_t value);
std::string add_sql(const std::string& table, int64_t key, int64_t delta);  // v = v + delta, by key
std::string delete_sql(const std::string& table, int64_t key);
std::string update_where_sql(const std::string& table, const std::string& predicate, int64_t delta, bool returning);
std::string delete_where_sql(const std::string& table, const std::string& predicate, bool returning);
// The statements that replace the table's rows by `rows` (a DELETE, then INSERTs of at most
// 1000 rows each).
std::vector<std::string> fill_table_sql(const std::string& table, const std::vector<std::pair<int64_t, int64_t>>& rows);

}  // namespace isoscope::runner
