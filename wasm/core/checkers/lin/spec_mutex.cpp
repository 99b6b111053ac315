// A mutex: free (0) or held (1). acquire needs it free, release needs it held.
#include "checkers/lin/model.h"

namespace isoscope {
namespace {

class MutexSpec final : public ObjectSpec {
 public:
  explicit MutexSpec(const History& h) : ObjectSpec(h) {}
  uint32_t initial() override { return 0; }
  uint32_t step(uint32_t s, const RegOp& op) override {
    if (op.fn == ObjFn::Acquire) return s == 0 ? 1 : kNoState;
    if (op.fn == ObjFn::Release) return s == 1 ? 0 : kNoState;
    return kNoState;
  }
  std::string state_text(uint32_t s) const override { return s ? "held" : "free"; }
};

}  // namespace

std::unique_ptr<ObjectSpec> make_mutex_spec(const History& h) { return std::make_unique<MutexSpec>(h); }

}  // namespace isoscope
