// Which function decides which level: every level has one. A history with ambiguous reads
// (History::ambiguous: a value written more than once) goes to the choice layer first
// (choice.h), which decides it with the level's leaf checker; the others go straight to it.
#include "checkers/check.h"
#include "checkers/choice/choice.h"
#include "checkers/lin/object_lin.h"
#include "checkers/mtc/mtc.h"
#include "checkers/strong/strong.h"
#include "checkers/causal/causal.h"
#include "checkers/weak/weak.h"

namespace isoscope {

namespace {
// LIN: object histories (Jepsen registers, key-value stores) by the Wing & Gong search;
// lightweight transactions by MTC's Alg. 2.
LevelResult lin_of(const History& h, const CheckBudget& budget) {
  return h.registers.empty() ? check_lin(h, budget) : check_object_lin(h, budget);
}
// Mini-transaction histories have an almost unique dependency graph, so MTC's linear-time
// checks decide SI, SER and SSER there (they rely on unique values); nullptr for other levels.
LevelChecker mt_checker(Level l) {
  switch (l) {
    case Level::SI: return check_si_mt;
    case Level::SER: return check_ser_mt;
    case Level::SSER: return check_sser_mt;
    default: return nullptr;
  }
}
// A level decided through its leaf checker: the choice layer decides the histories with
// ambiguous reads, with that leaf; MTC's checks the mini-transaction ones; the leaf the rest.
template <Level level>
LevelResult routed(const History& h, const CheckBudget& budget) {
  if (!h.ambiguous.empty()) return check_with_choices(h, level, leaf_checker(level), budget);
  if (const LevelChecker mt = mt_checker(level); mt && is_mini_transaction_history(h)) return mt(h, budget);
  return leaf_checker(level)(h, budget);
}
}  // namespace

LevelChecker leaf_checker(Level l) {
  switch (l) {
    case Level::RC: return check_rc;
    case Level::RR: return check_rr;
    case Level::RA: return check_ra;
    case Level::CC: return check_cc;
    case Level::PC: return check_pc;
    case Level::SI: return check_si;
    case Level::SER: return check_ser;
    case Level::SSER: return check_sser;
    case Level::WCC: return check_wcc;
    case Level::CCv: return check_ccv;
    case Level::CM: return check_cm;
    case Level::LIN: return nullptr;
  }
  return nullptr;
}

LevelChecker checker_for(Level l) {
  switch (l) {
    case Level::RC: return routed<Level::RC>;
    case Level::RR: return routed<Level::RR>;
    case Level::RA: return routed<Level::RA>;
    case Level::CC: return routed<Level::CC>;
    case Level::PC: return routed<Level::PC>;
    case Level::SI: return routed<Level::SI>;
    case Level::SER: return routed<Level::SER>;
    case Level::SSER: return routed<Level::SSER>;
    case Level::WCC: return routed<Level::WCC>;
    case Level::CCv: return routed<Level::CCv>;
    case Level::CM: return routed<Level::CM>;
    case Level::LIN: return lin_of;
  }
  return nullptr;
}

}  // namespace isoscope
