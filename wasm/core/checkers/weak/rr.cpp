// Repeatable Read, as Plume and IsoVista define it: Read Committed plus repeatable reads (a
// committed transaction reads each key, before writing it, from one writer). A transaction
// that reads two versions of a key is reported as a NonRepeatableRead; the Read Committed
// saturation (AWDIT Alg. 1) then decides the rest.
#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"

namespace isoscope {

LevelResult check_rr(const History& h, const CheckBudget& budget) {
  if (!h.ambiguous.empty()) return unresolved_reads();  // checker_for routes them
  const weak::Reads reads = weak::collect_reads(h);
  LevelResult res = weak::begin_result(h);
  weak::report_non_repeatable(h, reads, res, nullptr, /*phantoms=*/true);
  return weak::decide_rc(h, reads, std::move(res), budget);
}

}  // namespace isoscope
