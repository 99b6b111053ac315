// Which function decides which level. A level whose row is nullptr has no checker yet: it is
// reported as failing when read consistency or causality already fails, and unknown otherwise.
#include "checkers/check.h"
#include "checkers/weak/weak.h"

namespace isoscope {

LevelChecker checker_for(Level l) {
  switch (l) {
    case Level::RC: return check_rc;
    case Level::RR: return check_rr;
    case Level::RA: return check_ra;
    case Level::CC: return check_cc;
    case Level::PC: return nullptr;
    case Level::SI: return nullptr;
    case Level::SER: return nullptr;
    case Level::SSER: return nullptr;
    case Level::WCC: return nullptr;
    case Level::CCv: return nullptr;
    case Level::CM: return nullptr;
    case Level::LIN: return nullptr;
  }
  return nullptr;
}

}  // namespace isoscope
