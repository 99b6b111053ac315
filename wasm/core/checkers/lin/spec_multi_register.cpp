// Knossos's multi-register: transactions of reads and writes over several registers, all
// starting nil (or with the value check --initial gives). The state is the tuple of every register's value, interned to an id.
#include <map>
#include <vector>

#include "checkers/lin/model.h"

namespace isoscope {
namespace {

class MultiRegisterSpec final : public ObjectSpec {
 public:
  explicit MultiRegisterSpec(const History& h) : ObjectSpec(h) {
    for (const ObjMicro& m : h.registers.micro) {
      if (m.key >= slot_.size()) slot_.resize(m.key + 1, kNoState);
      if (slot_[m.key] == kNoState) {
        slot_[m.key] = static_cast<uint32_t>(keys_.size());
        keys_.push_back(m.key);
      }
    }
    const uint32_t nil = h.initial ? *h.initial : kNoState;
    initial_ = intern(std::vector<uint32_t>(keys_.size(), h.registers.initial != RegOp::kUnobserved ? h.registers.initial : nil));
  }
  uint32_t initial() override { return initial_; }
  uint32_t step(uint32_t s, const RegOp& op) override {
    if (op.fn != ObjFn::Txn) return kNoState;
    scratch_ = states_[s];
    for (uint32_t m = op.micro_begin; m < op.micro_end; ++m) {
      const ObjMicro& o = h_.registers.micro[m];
      uint32_t& v = scratch_[slot_[o.key]];
      if (o.write) v = o.value;
      else if (o.value != RegOp::kUnobserved && o.value != v) return kNoState;
    }
    return intern(scratch_);
  }
  bool read_only(const RegOp& op) const override {
    for (uint32_t m = op.micro_begin; m < op.micro_end; ++m)
      if (h_.registers.micro[m].write) return false;
    return op.fn == ObjFn::Txn;
  }
  std::string state_text(uint32_t s) const override {
    std::string t = "{";
    for (size_t i = 0; i < keys_.size(); ++i)
      t += (i ? ", " : "") + h_.keys.display(keys_[i]) + "=" +
           (states_[s][i] == h_.initial ? std::string("nil") : h_.values.display(states_[s][i]));
    return t + "}";
  }

 private:
  uint32_t intern(const std::vector<uint32_t>& v) {
    auto it = ids_.find(v);
    if (it != ids_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(states_.size());
    states_.push_back(v);
    ids_.emplace(v, id);
    return id;
  }
  std::vector<uint32_t> slot_, keys_, scratch_;
  std::vector<std::vector<uint32_t>> states_;
  std::map<std::vector<uint32_t>, uint32_t> ids_;
  uint32_t initial_;
};

}  // namespace

std::unique_ptr<ObjectSpec> make_multi_register_spec(const History& h) {
  return std::make_unique<MultiRegisterSpec>(h);
}

}  // namespace isoscope
