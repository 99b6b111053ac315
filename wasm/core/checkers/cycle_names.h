// One classification of a dependency cycle by its edges, with the common names as refinements.
// The strong checkers and the mini-transaction checkers name their cycles here; the weak
// checkers name theirs by the axiom that produced the inferred edge (read committed: a
// non-monotonic read; read atomic: a fractured read or a session guarantee; causal: a causality
// violation), which is the same refinement seen from the axiom.
#pragma once
#include <vector>

#include "checkers/result.h"
#include "model/anomaly_kinds.h"

namespace isoscope {

// Edges of the cycle in order (each one's target is the next one's source).
AnomalyKind classify_cycle(const History& h, const std::vector<AnomalyEdge>& cycle);

}  // namespace isoscope
