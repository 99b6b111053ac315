#include "checkers/lin/model.h"

namespace isoscope {

std::string ObjectSpec::op_text(const RegOp& op) const {
  const Interner& v = h_.values;
  auto val = [&](uint32_t x) { return x == RegOp::kUnobserved ? std::string("?") : v.display(x); };
  switch (op.fn) {
    case ObjFn::Read: return "read " + val(op.a);
    case ObjFn::Write: return "write " + val(op.a);
    case ObjFn::Cas: return "cas " + val(op.a) + " -> " + val(op.b);
    case ObjFn::Append: return "append " + val(op.a);
    case ObjFn::Acquire: return "acquire";
    case ObjFn::Release: return "release";
    case ObjFn::Txn: {
      std::string s = "txn [";
      for (uint32_t m = op.micro_begin; m < op.micro_end; ++m) {
        const ObjMicro& o = h_.registers.micro[m];
        s += (m > op.micro_begin ? " " : "") + std::string(o.write ? "w " : "r ") + h_.keys.display(o.key) + " " + val(o.value);
      }
      return s + "]";
    }
  }
  return "?";
}

std::unique_ptr<ObjectSpec> make_spec(const History& h) {
  switch (h.registers.model) {
    case ObjectModel::None: return nullptr;
    case ObjectModel::Register:
    case ObjectModel::CasRegister: return make_register_spec(h);
    case ObjectModel::KeyValue: return make_kv_spec(h);
    case ObjectModel::MultiRegister: return make_multi_register_spec(h);
    case ObjectModel::Mutex: return make_mutex_spec(h);
  }
  return nullptr;
}

}  // namespace isoscope
