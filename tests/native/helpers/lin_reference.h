// The brute-force reference for LIN on lightweight-transaction histories: obviously correct,
// not fast (histories of up to ~10 committed transactions).
#pragma once
#include "checkers/result.h"
#include "model/history.h"

namespace isoscope {

// Enumerates every total order of the committed transactions that respects real time
// (T1 before T2 whenever both are timed and T1.end < T2.start) and executes it against one
// register per key, which starts absent (holding the initial value, when the history has one):
//   a read passes iff the register holds the write it reads (h.read_from; kReadsInitial: absent),
//   a write sets the register; a transaction that is a single write is an insert-if-not-exists
//   and passes only on the absent register.
// Each transaction takes effect atomically (its ops in program order). Pass iff some order
// executes without a failed read or insert. Unknown for more than 11 committed transactions.
Verdict lin_reference_check(const History& h);

}  // namespace isoscope
