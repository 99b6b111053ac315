#include "checkers/result.h"

#include <cctype>
#include <chrono>

namespace isoscope {

namespace {
constexpr const char* kLevelNames[kNumLevels] = {"RC",  "RR",   "RA",  "CC",  "PC", "SI",
                                                 "SER", "SSER", "WCC", "CCv", "CM", "LIN"};
}

const char* level_name(Level l) { return kLevelNames[static_cast<int>(l)]; }

bool parse_level(std::string_view name, Level& out) {
  for (int i = 0; i < kNumLevels; ++i) {
    std::string_view n = kLevelNames[i];
    if (n.size() != name.size()) continue;
    bool same = true;
    for (size_t j = 0; j < n.size() && same; ++j)
      same = std::toupper(static_cast<unsigned char>(n[j])) ==
             std::toupper(static_cast<unsigned char>(name[j]));
    if (same) {
      out = static_cast<Level>(i);
      return true;
    }
  }
  return false;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::Unknown: return "unknown";
    case Verdict::NotApplicable: return "n/a";
  }
  return "unknown";
}

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

}  // namespace isoscope
