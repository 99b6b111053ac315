// Which function decides which level. A level whose row is nullptr has no checker yet: it is
// reported as failing when read consistency or causality already fails, and unknown otherwise.
#include "checkers/check.h"

namespace isoscope {

LevelChecker checker_for(Level l) {
  switch (l) {
    case Level::RC: return nullptr;
    case Level::RR: return nullptr;
    case Level::RA: return nullptr;
    case Level::CC: return nullptr;
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
