// Entry point of the checking core: runs the requested levels on a history and returns one
// result per level. The CLI, the wasm bindings and the tests all go through here.
//
// Where each level's checker lives:
//   read consistency       checkers/read_consistency.cpp  (required by every level)
//   RC RR RA CC            checkers/weak/*.cpp
//   PC SI SER SSER         checkers/strong/*.cpp
//   SI SER SSER, LIN       checkers/mtc/*.cpp  (SI SER SSER: histories of mini-transactions
//                                               only, chosen by checker_for in registry.cpp)
//   WCC CCv CM             checkers/causal/*.cpp
//   the table below        checkers/registry.cpp
#pragma once
#include <functional>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

struct CheckOptions {
  std::vector<Level> levels;  // empty: every level that applies to the history
  double budget_ms = 0;       // per level; 0 = no limit
  size_t max_anomalies = 32;  // per level, in the report
  bool (*cancelled)(void*) = nullptr;
  void* cancelled_ctx = nullptr;
  // Called after each level is decided (the web worker reports progress through this).
  std::function<void(Level, const LevelResult&)> on_level;
  // Called from inside a long level (the strong solver) with its progress: constraints
  // settled and still open. Called at most every few milliseconds.
  std::function<void(Level, size_t settled, size_t open)> on_progress;
  // Where the levels count their work (CheckBudget::stats), or nullptr.
  CheckStats* stats = nullptr;
};

// Runs one level's checker alone (no lattice shortcuts). Tests use it for differential checks.
using LevelChecker = LevelResult (*)(const History&, const CheckBudget&);
// Every level has one (registry.cpp): a history with ambiguous reads goes through the choice
// layer (choice.h), the others to the level's checker, with MTC's checks for histories of
// mini-transactions.
LevelChecker checker_for(Level l);
// The level's own general checker, for histories without ambiguous reads (nullptr for LIN,
// which the choice layer does not decide): what the choice layer decides each choice with.
LevelChecker leaf_checker(Level l);

// Whether a level applies at all (WCC/CCv/CM: one op per transaction; LIN: lightweight
// transactions with timestamps; SSER: timestamps). Sets reason when it does not.
bool level_applies(const History& h, Level l, std::string& reason);

// The order in which levels are best decided (check_history's; the web worker's through
// levels()): the weak levels weakest first, then the strong ones strongest first.
std::vector<Level> check_order(const History& h);

// Runs the levels in check_order. The lattice (docs/formats.md) works both ways: a failure of a
// weaker level implies the failure of every stronger one, a pass of a stronger level the pass
// of every weaker one; both are reported as such (implied_by).
CheckReport check_history(const History& h, const CheckOptions& opts);

// Decides one level given the levels already decided in `report` (a failing weaker level or a
// passing stronger one there decides this one) and stores the result in it. When it passes,
// the failing levels decided before it are named again (cycle_names.h: no anomaly of a kind a
// passing level forbids), so their results in `report` may change. check_history calls this in
// check_order; the web worker calls it level by level to report progress.
const LevelResult& decide_level(const History& h, Level l, const CheckOptions& opts, CheckReport& report);


}  // namespace isoscope
