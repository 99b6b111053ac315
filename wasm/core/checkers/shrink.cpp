#include "checkers/shrink.h"

#include <algorithm>

namespace isoscope {

bool shrink_failing(std::vector<char>& keep, const CheckBudget& budget,
                    const std::function<Trial(const std::vector<char>&)>& trial) {
  std::vector<uint32_t> items;
  for (uint32_t t = 1; t < keep.size(); ++t)
    if (keep[t]) items.push_back(t);
  size_t chunk = std::max<size_t>(1, items.size() / 2);
  while (true) {
    bool removed = false;
    for (size_t i = 0; i < items.size();) {
      if (budget.expired()) return false;
      const size_t e = std::min(items.size(), i + chunk);
      for (size_t j = i; j < e; ++j) keep[items[j]] = 0;
      const Trial r = trial(keep);
      if (r == Trial::Fails) {
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i), items.begin() + static_cast<std::ptrdiff_t>(e));
        removed = true;
        continue;
      }
      for (size_t j = i; j < e; ++j) keep[items[j]] = 1;
      if (r == Trial::Unknown) return false;
      i = e;
    }
    if (!removed && chunk == 1) return true;
    chunk = removed ? std::min(chunk, std::max<size_t>(1, items.size() / 2)) : std::max<size_t>(1, chunk / 2);
  }
}

}  // namespace isoscope
