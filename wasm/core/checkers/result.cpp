#include "checkers/result.h"

#include <algorithm>
#include <chrono>

namespace isoscope {

const char* edge_type_name(EdgeType t) {
  switch (t) {
    case EdgeType::SO: return "SO";
    case EdgeType::WR: return "WR";
    case EdgeType::WW: return "WW";
    case EdgeType::RW: return "RW";
    case EdgeType::RT: return "RT";
    case EdgeType::CO: return "CO";
  }
  return "?";
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

bool CheckBudget::expired() const {
  if (cancelled && cancelled(cancelled_ctx)) return true;
  return deadline_ms > 0 && now_ms() > deadline_ms;
}

CheckBudget CheckBudget::share(double fraction) const {
  CheckBudget b = *this;
  if (deadline_ms > 0) {
    const double now = now_ms();
    b.deadline_ms = now + std::max(0.0, deadline_ms - now) * fraction;
  }
  return b;
}

LevelResult unknown_result(std::string reason) {
  LevelResult r;
  r.verdict = Verdict::Unknown;
  r.reason = std::move(reason);
  return r;
}

LevelResult CheckBudget::ran_out() { return unknown_result("budget ran out"); }

LevelResult unresolved_reads() {
  return unknown_result("reads with several candidate writers, which this checker does not choose between (checker_for decides them)");
}

}  // namespace isoscope
