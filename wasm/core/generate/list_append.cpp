#include "generate/list_append.h"

#include <algorithm>
#include <numeric>

namespace isoscope {

Expected<History> generate_list_append_history(GenParams p) {
  const bool keep_times = p.timestamps;
  p.mode = GenMode::Serial;
  p.timestamps = true;  // start = the step at which the transaction executed
  Expected<History> serial = generate_history(p);
  if (!serial) return serial;
  const History& h = *serial;

  // Replay in execution order: per key, the list of committed appends so far. A key that has
  // taken kMaxAppendsPerKey appends is retired and a fresh one takes its place (Elle's
  // workloads bound the writes per key alike): the lists, and the history, stay linear in the
  // transactions (without, 10^5 transactions on 8 keys read lists of 15,000 elements: 4 GB).
  std::vector<uint32_t> order(h.txns.size() - 1);
  std::iota(order.begin(), order.end(), 1u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return h.times[a].start < h.times[b].start; });
  std::vector<std::vector<uint32_t>> lists(h.keys.size());
  std::vector<std::vector<uint32_t>> read_lists(h.ops.size());  // the list each read sees
  int64_t fresh = 0;                                            // the next key name never used
  for (uint32_t k = 0; k < h.keys.size(); ++k) fresh = std::max(fresh, h.keys.as_int(k) + 1);
  std::vector<int64_t> current(h.keys.size()), op_key(h.ops.size());  // the key name in use
  for (uint32_t k = 0; k < h.keys.size(); ++k) current[k] = h.keys.as_int(k);
  for (uint32_t t : order) {
    const Txn& x = h.txns[t];
    std::vector<std::pair<uint32_t, uint32_t>> own;  // (key, value) appended by t so far
    for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
      const Op& o = h.ops[i];
      op_key[i] = current[o.key];
      if (o.is_write()) {
        own.push_back({o.key, o.value});
        continue;
      }
      std::vector<uint32_t>& seen = read_lists[i];
      seen = lists[o.key];
      for (const auto& [k, v] : own)
        if (k == o.key) seen.push_back(v);
    }
    if (!x.committed) continue;
    for (const auto& [k, v] : own) lists[k].push_back(v);
    for (const auto& [k, v] : own)
      if (lists[k].size() >= kMaxAppendsPerKey) {
        lists[k].clear();
        current[k] = fresh++;
      }
  }

  // Write it out with the same sessions, transactions and values.
  HistoryBuilder b;
  b.set_initial(b.values().intern_int(0));
  std::vector<uint32_t> vals;
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    b.begin_session();
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      const Txn& x = h.txns[t];
      b.begin_txn();
      for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
        const Op& o = h.ops[i];
        const uint32_t key = b.keys().intern_int(op_key[i]);
        if (o.is_write()) {
          b.append(key, b.values().intern_int(h.values.as_int(o.value)));
        } else {
          vals.clear();
          for (uint32_t v : read_lists[i]) vals.push_back(b.values().intern_int(h.values.as_int(v)));
          b.list_read(key, vals);
        }
      }
      if (x.status != TxnStatus::Committed) b.set_status(x.status);
      if (x.label != kNone) b.set_label(h.labels[x.label]);
      if (keep_times && x.has_time()) b.set_time(h.times[t].start, h.times[t].end);
      b.end_txn();
    }
  }
  return b.finish("generated");
}

}  // namespace isoscope
