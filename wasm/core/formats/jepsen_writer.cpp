// Object histories back to Jepsen EDN (formats/jepsen.cpp reads them): one invocation and one
// completion per operation, in time order (invocations first at equal times, as they are
// concurrent); an :info operation's completion comes last, since it may take effect any time.
#include <algorithm>
#include <string>
#include <vector>

#include "formats/writers.h"
#include "model/history.h"
#include "util/json.h"

namespace isoscope {

std::string write_jepsen_edn(const History& h) {
  const Registers& regs = h.registers;
  struct Rec {
    int64_t t;
    bool done;
    uint32_t op;
  };
  std::vector<Rec> recs;
  recs.reserve(regs.ops.size() * 2);
  int64_t last = 0;
  // The status, not ret == kNever, says an operation has no return: a completion may be
  // recorded at the int64 maximum (then :info completions share that time, after it).
  for (const RegOp& o : regs.ops) last = std::max(last, o.indeterminate() ? o.call : o.ret);
  const int64_t after_last = last == INT64_MAX ? last : last + 1;
  for (uint32_t i = 0; i < regs.ops.size(); ++i) {
    recs.push_back({regs.ops[i].call, false, i});
    recs.push_back({regs.ops[i].indeterminate() ? after_last : regs.ops[i].ret, true, i});
  }
  std::stable_sort(recs.begin(), recs.end(), [](const Rec& a, const Rec& b) { return a.t != b.t ? a.t < b.t : a.done < b.done; });
  auto val = [&](uint32_t v) -> std::string {
    if (v == RegOp::kUnobserved || (h.initial && v == *h.initial)) return "nil";
    if (h.values.kind(v) == Interner::Kind::Str) return json_quote(h.values.as_str(v));
    return h.values.display(v);
  };
  auto key = [&](uint32_t k) -> std::string {
    return h.keys.kind(k) == Interner::Kind::Str ? json_quote(h.keys.as_str(k)) : h.keys.display(k);
  };
  const bool kv = regs.model == ObjectModel::KeyValue;
  std::string out = "[\n";
  for (const Rec& r : recs) {
    const RegOp& o = regs.ops[r.op];
    const char* type = !r.done ? ":invoke" : o.ok() ? ":ok" : o.failed() ? ":fail" : ":info";
    const char* f = "";
    switch (o.fn) {
      case ObjFn::Read: f = kv ? ":get" : ":read"; break;
      case ObjFn::Write: f = kv ? ":put" : ":write"; break;
      case ObjFn::Cas: f = ":cas"; break;
      case ObjFn::Append: f = ":append"; break;
      case ObjFn::Acquire: f = ":acquire"; break;
      case ObjFn::Release: f = ":release"; break;
      case ObjFn::Txn: f = ":txn"; break;
    }
    out += "{:type ";
    out += type;
    out += ", :f ";
    out += f;
    out += ", :process " + std::to_string(o.process);
    if (kv) out += ", :key " + key(o.key);
    std::string v;
    switch (o.fn) {
      case ObjFn::Read: v = r.done && o.ok() ? val(o.a) : "nil"; break;
      case ObjFn::Write:
      case ObjFn::Append: v = val(o.a); break;
      case ObjFn::Cas: v = "[" + val(o.a) + " " + val(o.b) + "]"; break;
      case ObjFn::Txn:
        v = "[";
        for (uint32_t m = o.micro_begin; m < o.micro_end; ++m) {
          const ObjMicro& mo = regs.micro[m];
          v += (m > o.micro_begin ? " [" : "[") + std::string(mo.write ? ":write " : ":read ") + key(mo.key) + " " +
               (mo.write || (r.done && o.ok()) ? val(mo.value) : "nil") + "]";
        }
        v += "]";
        break;
      default: break;
    }
    if (!v.empty()) {
      if (regs.keyed && !kv && o.fn != ObjFn::Txn) v = "[" + key(o.key) + " " + v + "]";
      out += ", :value " + v;
    }
    if (regs.timed) out += ", :time " + std::to_string(r.t);
    if (h.txns[o.txn].label != kNone) out += ", :index " + std::string(h.labels[h.txns[o.txn].label]);
    out += "}\n";
  }
  out += "]\n";
  return out;
}

}  // namespace isoscope
