// The command line's exit statuses (docs/cli.md), shared by `check` and `run`.
#pragma once
#include "checkers/check.h"

namespace isoscope {

constexpr int kExitPass = 0, kExitFail = 1, kExitInput = 2, kExitUnknown = 3;

// 1 when some checked level fails, else 3 when some is unknown, else 0.
inline int exit_status(const CheckReport& report) {
  bool any_fail = false, any_unknown = false;
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i]) continue;
    any_fail |= report.results[i].verdict == Verdict::Fail;
    any_unknown |= report.results[i].verdict == Verdict::Unknown;
  }
  return any_fail ? kExitFail : any_unknown ? kExitUnknown : kExitPass;
}

}  // namespace isoscope
