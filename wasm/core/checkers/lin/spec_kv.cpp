// Porcupine's key-value store, one key per partition: the state is the key's string (its
// own table of strings, since appends make new ones); absent reads as "". get returns it, put
// replaces it, append extends it.
#include <string>
#include <unordered_map>
#include <vector>

#include "checkers/lin/model.h"
#include "util/flat_map.h"

namespace isoscope {
namespace {

class KvSpec final : public ObjectSpec {
 public:
  explicit KvSpec(const History& h) : ObjectSpec(h) { empty_ = intern(""); }
  uint32_t initial() override { return empty_; }
  uint32_t step(uint32_t s, const RegOp& op) override {
    switch (op.fn) {
      case ObjFn::Read: return local(op.a) == s ? s : kNoState;
      case ObjFn::Write: return local(op.a);
      case ObjFn::Append: {
        // The search takes the same step again and again: remember where it leads.
        const uint64_t edge = (uint64_t{s} << 32) | local(op.a);
        const uint32_t known = appended_.find(edge);
        if (known != FlatMap64::kAbsent) return known;
        const uint32_t to = intern(strings_[s] + strings_[local(op.a)]);
        appended_.insert(edge, to);
        return to;
      }
      default: return kNoState;
    }
  }
  std::string state_text(uint32_t s) const override { return "\"" + strings_[s] + "\""; }

 private:
  std::string text(uint32_t v) const {
    if (v == h_.initial) return "";
    const Interner& in = h_.values;
    return in.kind(v) == Interner::Kind::Str ? in.as_str(v) : in.display(v);
  }
  // The state of a history value (cached: values repeat).
  uint32_t local(uint32_t v) {
    auto it = by_value_.find(v);
    if (it != by_value_.end()) return it->second;
    const uint32_t s = intern(text(v));
    by_value_.emplace(v, s);
    return s;
  }
  uint32_t intern(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(strings_.size());
    strings_.push_back(s);
    ids_.emplace(s, id);
    return id;
  }
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::unordered_map<uint32_t, uint32_t> by_value_;
  FlatMap64 appended_;  // (state, appended value's state) -> the state after
  uint32_t empty_;
};

}  // namespace

std::unique_ptr<ObjectSpec> make_kv_spec(const History& h) { return std::make_unique<KvSpec>(h); }

}  // namespace isoscope
