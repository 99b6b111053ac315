// What a checker returns: a verdict per level and, for a failure, anomalies that a person can
// follow: the transactions involved, the edges between them with their justification, and an
// explanation in plain words.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/anomaly_kinds.h"
#include "model/history.h"
#include "model/levels.h"

namespace isoscope {


enum class EdgeType : uint8_t {
  SO,  // session order
  WR,  // write-read: the target reads a value the source wrote
  WW,  // write-write: the source's write precedes the target's in the commit order
  RW,  // read-write (anti-dependency): the source read a value the target overwrote
  RT,  // real time: the source ended before the target started
  CO,  // commit order inferred by an isolation axiom
};
const char* edge_type_name(EdgeType t);

struct AnomalyEdge {
  uint32_t from_txn, to_txn;  // transaction ids (History::txns index)
  EdgeType type;
  uint32_t key = kNone;      // KeyId for WR/WW/RW/CO edges
  uint32_t from_op = kNone;  // op id anchoring the edge at the source, when one does
  uint32_t to_op = kNone;    // op id anchoring the edge at the target
  std::string why;           // justification, e.g. "T2 reads x = 1 from T1; T3 also writes x"
};

struct Anomaly {
  AnomalyKind kind = AnomalyKind::ReadConsistency;  // kind_name(kind) in the JSON: "LostUpdate", ...
  std::vector<uint32_t> txns;     // transaction ids, in the order the explanation uses
  std::vector<uint32_t> ops;      // op ids singled out (the offending read, ...)
  std::vector<AnomalyEdge> edges;  // for cycles: in cycle order
  std::string explanation;        // Elle style: "T1 < T2 because ...; however ...: a contradiction"
};

// One kind of anomaly a failing level found: how many (a lower bound when the checker stops
// at the first counterexample or the list was cut), and which anomaly is its smallest example.
struct KindCount {
  AnomalyKind kind = AnomalyKind::ReadConsistency;
  size_t count = 0;
  bool lower_bound = false;
  size_t example = kNone;  // index into LevelResult::anomalies; kNone when cut off
};

struct LevelResult {
  Verdict verdict = Verdict::Unknown;
  double ms = 0;
  std::string reason;  // for n/a and unknown; for an implied verdict, which level implied it
  // A verdict decided by the lattice: on a failure, the weaker level whose violation implies
  // this one; on a pass, the stronger level whose pass implies it.
  std::optional<Level> implied_by;
  std::vector<Anomaly> anomalies;
  size_t anomalies_total = 0;  // before truncation to the reported ones
  // A failure's kinds of anomaly, most specific first (checkers/cycle_names.h).
  std::vector<KindCount> kinds;
  // A pass's witness where the checker has one: committed transaction ids in a commit order
  // that satisfies the level (strong levels).
  std::vector<uint32_t> commit_order;
  // LIN of an object history that fails: the longest linearizable prefix of the first failing
  // object, as transaction ids in its order (its anomaly names the operation that cannot follow).
  std::vector<uint32_t> lin_prefix;
};

// Work one level leaves for the levels checked after it in one check of one history.
struct ConcurrentSchedule;  // checkers/choice/concurrent_schedule.h
struct LevelMemo {
  const void* history = nullptr;      // the History it was made from (nullptr: nothing yet)
  std::vector<uint32_t> ser_replay;   // SER's forced replay (strong/candidate.cpp): PC and SI
                                      // start from it too, where each replayed the history again
  bool ser_replay_gave_up = false;    // it guessed too much: the levels after do not try again
  // With repeated values, the search for an engine's run (checkers/choice/schedules.cpp), per
  // ScheduleModel, with the steps it was given and its stall limit: every level from RC to SI
  // asks for the same one, which costs up to a second when it finds nothing. One cut short by
  // the budget is not kept.
  struct Schedule {
    std::shared_ptr<const ConcurrentSchedule> result;
    size_t max_steps = 0, stall_steps = 0;
  };
  std::array<Schedule, 2> schedules;
};

// Budget and cancellation shared by every checker. Long-running checkers call expired()
// from time to time and return Verdict::Unknown when it says so.

// Counts of the work a check did, for whoever asks (tests count them; nothing else reads them).
struct CheckStats {
  size_t cc_runs = 0;  // times the causal-consistency check ran (not taken from another level)
  // What the strong levels' pruning of reads-from candidates by the known edges removed
  // (checkers/choice/solver_bridge.cpp): candidates the reader reaches, candidates overwritten by a writer
  // between them and the reader, and reads left with one candidate.
  size_t pruned_reader_reaches = 0, pruned_overwritten = 0, pruned_fixed = 0;
};

struct CheckBudget {
  double deadline_ms = 0;  // absolute time (now_ms clock) after which to give up; 0 = none
  bool (*cancelled)(void*) = nullptr;
  void* cancelled_ctx = nullptr;
  // Progress inside a level (the strong solver: constraints settled so far / still open).
  void (*progress)(void* ctx, size_t settled, size_t open) = nullptr;
  void* progress_ctx = nullptr;
  // Set by check_history when CC (and so read consistency) already passed on this history: the
  // strong levels, which imply CC, then skip running it again.
  bool cc_holds = false;
  // Set by check_history when CC ran out of its budget on this history: the strong levels,
  // which need CC to hold first, would only run it again to the same end (each as long as
  // the first), so they are unknown at once.
  bool cc_unknown = false;
  // Set when SER already failed on this history: PC and SI then skip their SER attempt.
  bool ser_fails = false;
  // The check's memo (check_history's; nullptr for a level checked alone). Only for the history
  // the check is of, never a sub-history of it.
  LevelMemo* memo = nullptr;
  // Where to count the work done, or nullptr.
  CheckStats* stats = nullptr;
  bool expired() const;
  // A copy that runs out once `fraction` of the time left has passed (none when this has no
  // deadline): a slice for an attempt that decides nothing when it fails.
  CheckBudget share(double fraction) const;
  // The result of a check stopped by expired(): unknown, "budget ran out".
  static LevelResult ran_out();
  void report_progress(size_t settled, size_t open) const {
    if (progress) progress(progress_ctx, settled, open);
  }
};
double now_ms();

// A leaf checker's answer for a history with ambiguous reads (History::ambiguous), which only
// the choice layer decides (checker_for routes such histories there): unknown, saying so.
LevelResult unresolved_reads();
// A level left undecided, and why (for people: "budget ran out", "needs more memory than ...").
LevelResult unknown_result(std::string reason);

// The levels asked for and each one's result (check.h: check_history, decide_level).
struct CheckReport {
  std::array<bool, kNumLevels> requested{};
  std::array<LevelResult, kNumLevels> results{};
  std::shared_ptr<LevelMemo> memo = std::make_shared<LevelMemo>();  // for the levels to come
};

}  // namespace isoscope
