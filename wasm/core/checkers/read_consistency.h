// Read consistency (AWDIT Def. 2.3, Alg. 4) and the so ∪ wr causality check: the axioms every
// isolation level requires. They report every violating read, not just the first.
#pragma once
#include <optional>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// Every read of a committed transaction that breaks read consistency: ThinAirRead,
// AbortedRead, FutureRead, NotMyOwnWrite, NotMyLastWrite, IntermediateRead; and, for list
// histories, list reads of a key that disagree on its append order (IncompatibleOrder).
std::vector<Anomaly> check_read_consistency(const History& h);

// Cycles of so ∪ wr among committed transactions: one short cycle per strongly connected
// component, named CausalityCycle (Adya's G1c when it is a pure wr cycle).
std::vector<Anomaly> find_causality_cycles(const History& h, size_t max_cycles);

}  // namespace isoscope
