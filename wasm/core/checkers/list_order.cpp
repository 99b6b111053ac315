#include "checkers/list_order.h"

#include <algorithm>

#include "model/anomaly_kinds.h"
#include "util/flat_map.h"

namespace isoscope {

namespace {

std::string list_text(const History& h, const ListSpan& l) {
  std::string s = "[";
  for (uint32_t i = 0; i < l.size; ++i) {
    if (i) s += ' ';
    s += h.values.display(h.list_values[l.begin + i]);
  }
  return s + "]";
}

}  // namespace

std::vector<Anomaly> check_list_prefixes(const History& h) {
  std::vector<Anomaly> out;
  if (!h.has_lists || h.lists.empty()) return out;
  // List reads of committed transactions, grouped by key (counting sort: no per-key vectors).
  const size_t n_keys = h.keys.size();
  std::vector<uint32_t> begin(n_keys + 1, 0);
  size_t n_reads = 0;
  for (uint32_t op = 0; op < h.ops.size(); ++op) {
    const Op& o = h.ops[op];
    if (o.kind != OpKind::ListRead || !h.txns[h.op_txn[op]].committed) continue;
    ++begin[o.key + 1];
    ++n_reads;
  }
  for (size_t k = 0; k < n_keys; ++k) begin[k + 1] += begin[k];
  std::vector<uint32_t> reads(n_reads);
  {
    std::vector<uint32_t> cur(begin.begin(), begin.end() - 1);
    for (uint32_t op = 0; op < h.ops.size(); ++op) {
      const Op& o = h.ops[op];
      if (o.kind != OpKind::ListRead || !h.txns[h.op_txn[op]].committed) continue;
      reads[cur[o.key]++] = op;
    }
  }
  for (uint32_t k = 0; k < n_keys; ++k) {
    if (begin[k] == begin[k + 1]) continue;
    // The longest read of the key; every other read must be a prefix of it.
    uint32_t longest = reads[begin[k]];
    for (uint32_t i = begin[k]; i < begin[k + 1]; ++i)
      if (h.lists[h.ops[reads[i]].list].size > h.lists[h.ops[longest].list].size) longest = reads[i];
    const ListSpan& L = h.lists[h.ops[longest].list];
    const uint32_t* lv = h.list_values.data() + L.begin;
    // Duplicates within the longest read (they would make every order ambiguous).
    {
      FlatMap64 dup(L.size + 16);
      for (uint32_t i = 0; i < L.size; ++i)
        if (dup.insert(lv[i], i) != i) {
          Anomaly a;
          a.kind = AnomalyKind::DuplicateElements;
          uint32_t t = h.op_txn[longest];
          a.txns = {t};
          a.ops = {longest};
          a.explanation = h.txn_name(t) + " reads " + h.keys.display(k) + " = " + list_text(h, L) +
                          ", which holds " + h.values.display(lv[i]) +
                          " twice; each value is appended at most once";
          out.push_back(std::move(a));
          break;
        }
    }
    for (uint32_t i = begin[k]; i < begin[k + 1]; ++i) {
      uint32_t op = reads[i];
      const ListSpan& R = h.lists[h.ops[op].list];
      const uint32_t* rv = h.list_values.data() + R.begin;
      uint32_t j = 0;
      while (j < R.size && rv[j] == lv[j]) ++j;
      if (j == R.size) continue;
      uint32_t t1 = h.op_txn[op], t2 = h.op_txn[longest];
      Anomaly a;
      a.kind = AnomalyKind::IncompatibleOrder;
      a.txns = {t1, t2};
      a.ops = {op, longest};
      a.explanation = h.txn_name(t1) + " reads " + h.keys.display(k) + " = " + list_text(h, R) + " and " +
                      h.txn_name(t2) + " reads " + h.keys.display(k) + " = " + list_text(h, L) +
                      ": they differ at position " + std::to_string(j) + " (" +
                      h.values.display(rv[j]) + " vs " + h.values.display(lv[j]) +
                      "), so neither is a prefix of the other and no single order of the appends "
                      "to " + h.keys.display(k) + " explains both reads";
      out.push_back(std::move(a));
      break;  // one anomaly per key
    }
  }
  return out;
}

}  // namespace isoscope
