// Writes the plume text format: one `r(key,value,session,txn)` / `w(...)` line per operation.
#include "formats/formats.h"

namespace isoscope {

Expected<std::string> write_plume(const History& h) {
  auto fail = [](std::string msg) {
    InputError e;
    e.message = std::move(msg);
    return e;
  };
  auto is_int = [](const Interner& in, uint32_t id) { return in.kind(id) == Interner::Kind::Int; };
  if (h.has_lists) return fail("plume has no list operations (append / list reads)");
  for (size_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].status == TxnStatus::Unknown)
      return fail("plume cannot express a transaction of unknown outcome (" + h.txn_name(static_cast<uint32_t>(t)) + ")");
  const bool initial_is_zero = h.initial && is_int(h.values, *h.initial) && h.values.as_int(*h.initial) == 0;
  std::string out;
  out.reserve(h.ops.size() * 20);
  char buf[128];
  for (uint32_t op = 0; op < h.ops.size(); ++op) {
    const Op& o = h.ops[op];
    if (!is_int(h.keys, o.key) || !is_int(h.values, o.value))
      return fail("plume keys and values are integers; " + h.op_text(op) + " is not");
    if (h.read_from[op] == kReadsInitial && !initial_is_zero)
      return fail("plume's initial value is 0, but " + h.op_text(op) + " reads another initial value");
    const Txn& x = h.txns[h.op_txn[op]];
    long long txn = x.status == TxnStatus::Aborted ? -1 : static_cast<long long>(h.op_txn[op]);
    std::snprintf(buf, sizeof buf, "%c(%lld,%lld,%u,%lld)\n", o.is_write() ? 'w' : 'r',
                  static_cast<long long>(h.keys.as_int(o.key)),
                  static_cast<long long>(h.values.as_int(o.value)), x.session, txn);
    out += buf;
  }
  return out;
}

}  // namespace isoscope
