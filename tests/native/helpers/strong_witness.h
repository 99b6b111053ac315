// Independent checks of the strong checkers' witnesses (test code):
//  - a pass's commit order is a total order of the committed transactions, initial first,
//    extending so ∪ wr (and real time for SSER), that satisfies the level's axiom literally;
//  - a violation has an anomaly; a cycle's edges close; a core violates the level according to
//    the brute-force reference (and, when called minimal, dropping any transaction of it
//    removes the violation).
#pragma once
#include <string>
#include <vector>

#include "checkers/strong/strong.h"

namespace isoscope {

// "" when the order is a valid witness of level for h.
std::string verify_commit_order(const History& h, Level level, const std::vector<uint32_t>& order);

// The sub-history of the given transactions (reads from the others dropped).
History project_history(const History& h, const std::vector<uint32_t>& txns);

// "" when the report's witnesses are valid. check_cores: run the reference on cores
// (only for small histories).
std::string verify_strong_report(const History& h, Level level, const StrongReport& r,
                                 bool check_cores);

}  // namespace isoscope
