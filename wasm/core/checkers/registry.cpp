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
// Mini-transaction histories have an almost unique dependency graph, so MTC's linear-time
// checks decide SI, SER and SSER there; other histories go to the general search.
template <LevelChecker mt, LevelChecker general>
LevelResult mt_or_general(const History& h, const CheckBudget& budget) {
  return is_mini_transaction_history(h) ? mt(h, budget) : general(h, budget);
}
// LIN: object histories (Jepsen registers, key-value stores) by the Wing & Gong search;
// lightweight transactions by MTC's Alg. 2.
LevelResult lin_of(const History& h, const CheckBudget& budget) {
  return h.registers.empty() ? check_lin(h, budget) : check_object_lin(h, budget);
}
// A level whose leaf checker needs the reads resolved: the choice layer decides the histories
// with ambiguous reads, with the general leaf (the MT checks rely on unique values).
template <Level level, LevelChecker leaf, LevelChecker general = leaf>
LevelResult routed(const History& h, const CheckBudget& budget) {
  return h.ambiguous.empty() ? leaf(h, budget) : check_with_choices(h, level, general, budget);
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
    case Level::RC: return routed<Level::RC, check_rc>;
    case Level::RR: return routed<Level::RR, check_rr>;
    case Level::RA: return routed<Level::RA, check_ra>;
    case Level::CC: return routed<Level::CC, check_cc>;
    case Level::PC: return routed<Level::PC, check_pc>;
    case Level::SI: return routed<Level::SI, mt_or_general<check_si_mt, check_si>, check_si>;
    case Level::SER: return routed<Level::SER, mt_or_general<check_ser_mt, check_ser>, check_ser>;
    case Level::SSER: return routed<Level::SSER, mt_or_general<check_sser_mt, check_sser>, check_sser>;
    case Level::WCC: return routed<Level::WCC, check_wcc>;
    case Level::CCv: return routed<Level::CCv, check_ccv>;
    case Level::CM: return routed<Level::CM, check_cm>;
    case Level::LIN: return lin_of;
  }
  return nullptr;
}

}  // namespace isoscope
