// Counterexamples that reproduce: the part of a history that a reported anomaly needs, as a
// history of its own that fails the same level when checked again, shrunk so that no
// transaction can be left out. Share links and downloads carry this history, so whoever opens
// one sees the violation the page showed.
#pragma once
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// How a projection treats a read with several candidate writers (History::ambiguous):
//   EveryCandidate  it stays only when every candidate's transaction is kept: were one left
//                   out, a choice of h would be missing from the projection, whose failure
//                   would then say nothing of h (the read would even come from thin air when
//                   no candidate is kept);
//   AsIs            it stays; the caller has put in drop those that must go.
enum class AmbiguousProjection { EveryCandidate, AsIs };

// The transactions with keep[t], in their sessions and order, with their ids, statuses and
// timestamps, and their identities in h (History::origin). A read whose writer is left out is
// dropped too (it would otherwise read from thin air), and so is an ambiguous read with a
// candidate left out (see AmbiguousProjection); reads of the initial value and thin-air reads
// stay. The initial value is the history's. drop: reads to leave out as well (optional).
// Every level is closed under leaving out transactions and reads, so a projection that fails
// shows that h fails.
History project_history(const History& h, const std::vector<char>& keep,
                        const std::vector<char>* drop = nullptr,
                        AmbiguousProjection ambiguous = AmbiguousProjection::EveryCandidate);

struct Counterexample {
  History history;
  std::vector<uint32_t> txns;  // the kept transactions (ids of the original history)
  bool reproduces = false;     // checking `history` at the level fails
  bool minimal = false;        // leaving out any one transaction makes it pass
};

// Starts from the anomaly's transactions, the endpoints of its edges, the owners of its
// operations and the writers they read from; widens to the transactions sharing keys with them
// (transitively), then to the whole history, when that does not reproduce; then drops
// transactions while the level still fails (within the budget). level: the level whose checker reported the anomaly.
// An object history (History::registers) keeps its Registers for the kept operations; of its
// operations, only reads, failed ones and whole objects are left out (counterexample.cpp,
// ObjectGroups), so that the counterexample's failure is one of h's own.
Counterexample make_counterexample(const History& h, Level level, const Anomaly& a,
                                   const CheckBudget& budget);

}  // namespace isoscope
