// Checks that a weak checker's anomalies are real: every reported cycle is a closed cycle of
// transactions, SO edges are session order, WR edges are real write-read pairs, and every CO
// edge is an ordering the level's axiom forces (an axiom instance exists in the history).
#pragma once
#include <string>

#include "checkers/result.h"

namespace isoscope {

// Returns "" when every anomaly of r checks out, else what is wrong.
std::string verify_weak_witnesses(const History& h, Level l, const LevelResult& r);

}  // namespace isoscope
