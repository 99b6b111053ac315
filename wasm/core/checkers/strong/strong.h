// The strong isolation levels:
//   PC   Prefix Consistency      Biswas & Enea: PC(h)  iff SER(h_R|W)   (Thm 4.8)
//   SI   Snapshot Isolation      Biswas & Enea: SI(h)  iff SER(h^c_R|W) (Thm 4.10)
//   SER  Serializability         the polygraph (Cobra, PolySI) decided by CDCL + acyclicity
//   SSER Strict serializability  SER whose commit order also extends real time (T1.end < T2.start)
//
// Every level runs the same pipeline (checkers/strong/*.cpp):
//   1. check_cc (checkers/weak): read consistency and causal consistency, which all four levels
//      imply; a CC failure is reported with its witnesses.
//   2. The level's SER problem: transactions (PC, SI: split into a read half and a write half)
//      laid out in chains (sessions), with the write-read, real-time (SSER) and SI-conflict
//      constraints. A candidate commit order (candidate.cpp: the timestamps' commit order, or a
//      replay of the history, a search with nogood learning over whole transactions that PC
//      and SI take split, and over PC's halves where SER fails) that verifies is a pass at once.
//   2b. Problems too large for saturation's reachability (nodes x sessions), when the history
//      has timestamps or saturation cannot hold them: the lazy polygraph (lazy.cpp), which
//      gives the solver only the constraints its candidate orders violate, round after round.
//   3. Saturation: the orderings every solution must contain (so ∪ wr ∪ rt, then the forced
//      WW / RW edges of the polygraph, as Cobra and PolySI prune; the first round already
//      contains the CC saturation), to a fixpoint. Only the constraints that reachability
//      leaves open are generated. A cycle is a violation (and the witness); when every
//      constraint is settled, a topological order is the commit order.
//   4. Otherwise the polygraph solver (solver.cpp): CDCL over the open choices with an
//      incremental acyclicity theory (Pearce-Kelly). It decides histories of 100 sessions and
//      10^5 transactions in seconds. The session-antichain search of Alg. 2 (search.cpp:
//      memoised frontiers, partial-order reduction, biconnected components) remains only for
//      problems whose constraints exceed the generation cap, and as an ablation in the tests.
//   5. A violation found by the solver is cut down to the transactions of its conflict cycles
//      (or, found by search, to its component) and shrunk to a minimal violating core
//      (dropping transactions while the violation persists), then named (LostUpdate,
//      WriteSkew, LongFork, G-single, G2, ...). A pass carries the commit order, verified
//      before it is reported.
// Budget and cancellation: CheckBudget::expired() is polled; running out gives Unknown.
#pragma once
#include <cstdint>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

LevelResult check_pc(const History& h, const CheckBudget& budget);
LevelResult check_si(const History& h, const CheckBudget& budget);
LevelResult check_ser(const History& h, const CheckBudget& budget);
LevelResult check_sser(const History& h, const CheckBudget& budget);

struct StrongOptions {
  bool candidate = true;    // first try the commit order of the timestamps or of a replay
  bool lazy = true;         // the lazy polygraph (lazy.cpp) instead of saturation when
  size_t lazy_above = size_t(4) << 20;  // nodes x sessions exceed this (0: always), and the
  size_t lazy_untimed_above = SIZE_MAX;  // history has timestamps or they exceed this too (or
                                         // saturation's reachability limit)
  bool saturate = true;     // polygraph pruning before the search
  bool force = true;        // saturation forces the edges whose alternative closes a cycle
  size_t long_tail_reach = size_t(1) << 20;  // above this many nodes x sessions, saturation
                                             // stops once a round forces little
  bool decompose = true;    // biconnected components of the communication graph
  bool reduce = true;       // partial-order reduction in the search
  bool solver = true;       // the polygraph solver decides what saturation leaves open (the
                            // session-antichain search only when the constraints were capped)
  bool ser_first = true;    // PC, SI: try SER first (a SER order is a PC / SI witness)
  double ser_first_ms = 500;  // time cap of that attempt (and at most 30% of the budget left)
  bool minimize = true;     // shrink a violation found by search to a minimal core
  double minimize_ms = 2000;  // time cap for shrinking (within the budget); the core found by
                             // then is reported (it still violates the level). Shrinking may
                             // start from the whole history, whose first halvings take the most
                             // time: a cap of a fraction of a second left cores of hundreds of
                             // transactions on a loaded machine where a dozen suffice
};

struct StrongStats {
  size_t nodes = 0, chains = 0;       // of the SER problem
  size_t constraints = 0;             // polygraph constraints generated
  size_t forced_edges = 0;            // edges saturation added
  size_t rounds = 0;                  // saturation rounds
  bool settled_by_saturation = false;  // cycle found, or every constraint settled
  bool by_solver = false;             // decided by the polygraph solver
  size_t solver_vars = 0, conflicts = 0;
  size_t components = 0;              // searched components
  size_t states = 0;                  // search states expanded
  size_t memo_hits = 0;
  size_t core_size = 0;               // transactions of the minimal core (violations by search)
};

struct StrongReport {
  LevelResult result;  // on a pass, result.commit_order is the verified commit order
  StrongStats stats;
};

// PC, SI, SER or SSER (other levels: Unknown).
StrongReport check_strong(const History& h, Level level, const CheckBudget& budget,
                          const StrongOptions& opts = {});

}  // namespace isoscope

namespace isoscope {

// Repeated values (checkers/choice/): a strong level decided with the choice of reads-from
// inside the polygraph solver (VeriStrong's hyper-polygraph; internal.h, Hyper). h has every
// read resolved but ops[i], whose read_from must be kThinAir (the instance leaves them out);
// cands[i] are its candidates (write ops of committed transactions, or kReadsInitial), the
// preferred one first. Every transaction of h is committed or aborted (none unknown). first,
// when not empty, is a commit order (History transaction ids) to start from, e.g. one that
// satisfies every read but ops.
struct ChoiceOutcome {
  Verdict verdict = Verdict::Unknown;
  std::string reason;
  std::vector<uint32_t> choice;  // Pass: the candidate each read reads from
  // Pass: a commit order (History transaction ids, as LevelResult::commit_order) verified
  // against h with the choice applied, as check_strong verifies a candidate order (empty when
  // it did not verify: then the caller verifies the choice with the level's checker).
  std::vector<uint32_t> commit_order;
  std::vector<char> core;        // Fail: the History transactions the refutation used
  size_t rounds = 0, constraints = 0;
};
ChoiceOutcome decide_choices(const History& h, Level level, const std::vector<uint32_t>& ops,
                             const std::vector<std::vector<uint32_t>>& cands, const CheckBudget& budget,
                             const std::vector<uint32_t>& first = {});

}  // namespace isoscope
