// Which function decides which level: every level has one.
#include "checkers/check.h"
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
  // (Their linear-time checks rely on unique values.)
  return h.ambiguous.empty() && is_mini_transaction_history(h) ? mt(h, budget) : general(h, budget);
}
// LIN: object histories (Jepsen registers, key-value stores) by the Wing & Gong search;
// lightweight transactions by MTC's Alg. 2.
LevelResult lin_of(const History& h, const CheckBudget& budget) {
  return h.registers.empty() ? check_lin(h, budget) : check_object_lin(h, budget);
}
}  // namespace

LevelChecker checker_for(Level l, bool general_only) {
  switch (l) {
    case Level::RC: return check_rc;
    case Level::RR: return check_rr;
    case Level::RA: return check_ra;
    case Level::CC: return check_cc;
    case Level::PC: return check_pc;
    case Level::SI: return general_only ? check_si : mt_or_general<check_si_mt, check_si>;
    case Level::SER: return general_only ? check_ser : mt_or_general<check_ser_mt, check_ser>;
    case Level::SSER: return general_only ? check_sser : mt_or_general<check_sser_mt, check_sser>;
    case Level::WCC: return check_wcc;
    case Level::CCv: return check_ccv;
    case Level::CM: return check_cm;
    case Level::LIN: return general_only ? nullptr : lin_of;
  }
  return nullptr;
}

}  // namespace isoscope
