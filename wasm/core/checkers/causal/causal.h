// Non-transactional causal consistency (Bouajjani et al., POPL'17, as checked by CausalC,
// Zennou et al.) for histories whose transactions each hold one operation: every session is a
// process, every operation an event.
//
//   WCC  weak causal consistency (the papers' "CC"): no CyclicCO, ThinAirRead, WriteCOInitRead,
//        WriteCORead (Table 2's WriteCOWrite)
//   CCv  causal convergence: WCC and no CyclicCF (cf ∪ co acyclic)
//   CM   causal memory: WCC and, for the last operation o of each process (CausalC's CM_2),
//        no WriteHBInitRead and no CyclicHB in hb_o
//
// co = (po ∪ wr)+ over the operations that took effect (committed, or unknown and read). A
// read of the initial value reads from the implicit initial write of its key, which precedes
// every operation; a read whose value was written only by an aborted operation, or by nobody,
// is a ThinAirRead. List histories are read as registers (append = write, a list read reads
// the writer of its last element).
//
// Each violation is reported as its bad pattern, with the operations involved and, for a
// causal (co) or happens-before (hb_o) relation, the chain of po / wr / derived edges that
// justifies it. Direct graph algorithms instead of Datalog:
//   co reachability      vector clocks over the writing processes (one per operation)
//   WriteCO*             per read and per writing process, the co-latest write of the key
//   CyclicCF             cf reduced to one edge per (read, process) + po ∪ wr, then a cycle
//                        search (O(n*k) edges)
//   CM                   per process, the hb_o-pasts of its reads by one backward sweep with
//                        prefix-max Fenwick trees of clocks; then a cycle search over
//                        co|CausalPast(o) ∪ (hb_o write-write edges, one per read and process)
// Everything is iterative; memory is O(n * k) for k writing processes.
#pragma once
#include "checkers/result.h"

namespace isoscope {

LevelResult check_wcc(const History& h, const CheckBudget& budget);
LevelResult check_ccv(const History& h, const CheckBudget& budget);
LevelResult check_cm(const History& h, const CheckBudget& budget);

}  // namespace isoscope
