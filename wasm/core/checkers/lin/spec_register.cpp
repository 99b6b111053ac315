// Register and cas-register: the state is the value held (a ValueId; nil when absent). A read
// returns it; a write replaces it; cas a -> b replaces a by b, and cannot take effect when the
// register holds anything else (a failed cas never took effect and is not checked).
#include "checkers/lin/model.h"

namespace isoscope {
namespace {

class RegisterSpec final : public ObjectSpec {
 public:
  explicit RegisterSpec(const History& h)
      : ObjectSpec(h),
        nil_(h.initial ? *h.initial : kNoState),
        start_(h.registers.initial != RegOp::kUnobserved ? h.registers.initial : nil_) {}
  uint32_t initial() override { return start_; }
  uint32_t step(uint32_t s, const RegOp& op) override {
    switch (op.fn) {
      case ObjFn::Read: return op.a == s ? s : kNoState;
      case ObjFn::Write: return op.a;
      case ObjFn::Cas: return op.a == s ? op.b : kNoState;
      default: return kNoState;
    }
  }
  std::string state_text(uint32_t s) const override { return s == nil_ ? "nil" : h_.values.display(s); }

 private:
  uint32_t nil_, start_;
};

}  // namespace

std::unique_ptr<ObjectSpec> make_register_spec(const History& h) { return std::make_unique<RegisterSpec>(h); }

}  // namespace isoscope
