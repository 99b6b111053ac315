// Delta debugging over the transactions of a failing history: the one shrinking loop behind the
// strong checkers' cores and the counterexamples of share links.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

enum class Trial { Fails, Passes, Unknown };

// keep[t] marks the transactions of a history that fails; drops chunks of them, then single
// ones, as long as trial(keep) still Fails (every accepted step keeps the failure; transaction 0
// is never dropped). Returns true when the result is minimal: no single transaction can go.
// Stops early, not minimal, when the budget runs out or a trial is Unknown.
bool shrink_failing(std::vector<char>& keep, const CheckBudget& budget,
                    const std::function<Trial(const std::vector<char>&)>& trial);

}  // namespace isoscope
