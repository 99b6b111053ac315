// Brute-force reference for the non-transactional causal models WCC, CCv and CM (Bouajjani et
// al. POPL'17 as restated by CausalC, Defs. 1-3 and Table 1), for histories whose transactions
// each hold one operation. Obviously correct, not fast: it searches for the causal order and
// the arbitration order the definitions quantify over. Independent of the checkers: it works
// from the operations' values, not from History::read_from.
//
// Events are the operations that took effect (committed transactions, and unknown ones a
// committed transaction reads from). po: the order of a session's events. A read of (x, v)
// reads from the event that writes (x, v); if a transaction that did not take effect writes it,
// or nobody writes it and v is not the initial value, the read can never be explained. A read
// of the initial value is explained by a sequence with no write of x before it (rule 3 of
// S_RW). Given a strict partial order co ⊇ po:
//   WCC  every read o: some linearization of CausalPast(o) (co restricted to it) explains o
//   CCv  some total order arb ⊇ co such that, for every read o, CausalPast(o) ordered by arb
//        explains o
//   CM   every operation o: some linearization of CausalPast(o) explains every read of
//        POPast(o) (o's process up to o)
// and the level holds iff some co does.
#pragma once
#include "checkers/result.h"
#include "model/history.h"

namespace isoscope {

enum class CausalSearch {
  // Every strict partial order co ⊇ po (at most 5 events; Unknown beyond).
  AllOrders,
  // Only co = (po ∪ wr)+ (at most 10 events, 12 for WCC and CM; Unknown beyond). Enough because every admissible
  // co contains po and wr (a read needs its writer in its causal past) and every definition is
  // monotone: an admissible co' ⊇ co restricted to co's causal pasts stays admissible. The
  // AllOrders search checks this claim on tiny histories.
  Minimal,
};

// Pass / Fail for WCC, CCv, CM; NotApplicable when some transaction does not hold exactly one
// operation; Unknown when the history is too large for the search or l is another level.
Verdict causal_reference_check(const History& h, Level l, CausalSearch search = CausalSearch::Minimal);

// The bad patterns of CausalC's Tables 2 and 3 evaluated literally, with co = (po ∪ wr)+, cf
// and hb_o as explicit relations (bit matrices): polynomial, for histories of up to ~400
// events. For CM, hb_o (Def. 4, the smallest transitive relation closed under its two rules)
// is computed for every operation o when all_ops (CM_1; up to ~80 events), else only for the
// last operation of each process (CM_2). Same events and read-from resolution as above.
Verdict causal_patterns_reference(const History& h, Level l, bool all_ops);

}  // namespace isoscope
