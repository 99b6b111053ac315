// LIN of non-transactional object histories (model/registers.h): Wing & Gong's search with
// Lowe's memoisation, per object where objects are independent (P-compositionality).
#pragma once
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// Decides LIN for h (h.registers non-empty). On pass, commit_order holds a linearization per
// object (the History transactions of the operations that took effect, object after object,
// each object's in its order). On fail, the NotLinearizable anomaly of the first failing object found,
// and lin_prefix its longest linearizable prefix.
LevelResult check_object_lin(const History& h, const CheckBudget& budget);

// One object's search, for tests and the reference comparison: ops indexes into
// h.registers.ops (all of one object). Returns pass / fail / unknown.
struct ObjectSearchResult {
  Verdict verdict = Verdict::Unknown;
  std::vector<uint32_t> order;   // pass: the linearization (indexes into h.registers.ops)
  std::vector<uint32_t> prefix;  // fail: the longest linearizable prefix found
  uint32_t blocked = kNone;      // fail: the operation that cannot follow it
  std::vector<uint32_t> candidates;  // fail: operations that could have taken effect before it
  bool out_of_memory = false;        // unknown because the cache outgrew the memory
};
// max_steps: give up (unknown) after this many steps of the search; 0: no limit.
// spec: the model to search with (one made for h when null; check_object_lin shares one).
class ObjectSpec;
ObjectSearchResult search_object(const History& h, const std::vector<uint32_t>& ops, const CheckBudget& budget,
                                 uint64_t max_steps = 0, ObjectSpec* spec = nullptr);

}  // namespace isoscope
