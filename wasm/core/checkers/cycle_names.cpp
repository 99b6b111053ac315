#include "checkers/cycle_names.h"

#include <algorithm>

namespace isoscope {

namespace {

// Two transactions that read one version of a key and both overwrite it.
bool lost_update(const History& h, uint32_t t1, uint32_t t2) {
  if (t1 == kInitialTxn || t2 == kInitialTxn) return false;
  for (uint32_t a = h.txns[t1].op_begin; a < h.txns[t1].op_end; ++a) {
    if (!h.ops[a].is_read()) continue;
    for (uint32_t b = h.txns[t2].op_begin; b < h.txns[t2].op_end; ++b)
      if (h.ops[b].is_read() && h.ops[b].key == h.ops[a].key && h.writer_txn(a) == h.writer_txn(b) &&
          h.last_write_of(t1, h.ops[a].key) != kNone && h.last_write_of(t2, h.ops[a].key) != kNone)
        return true;
  }
  return false;
}

}  // namespace

AnomalyKind classify_cycle(const History& h, const std::vector<AnomalyEdge>& cycle) {
  using K = AnomalyKind;
  const size_t k = cycle.size();
  std::vector<uint32_t> txns;
  size_t so = 0, wr = 0, anti = 0, rt = 0, co = 0;
  bool adjacent_anti = false;
  // A write-write edge of a black-box history is inferred from a read (a reader of one write
  // that the other cannot precede): it counts with the anti-dependencies, never as a G0.
  auto is_anti = [](const AnomalyEdge& e) { return e.type == EdgeType::RW || e.type == EdgeType::WW; };
  for (size_t i = 0; i < k; ++i) {
    const AnomalyEdge& e = cycle[i];
    if (std::find(txns.begin(), txns.end(), e.from_txn) == txns.end()) txns.push_back(e.from_txn);
    so += e.type == EdgeType::SO;
    wr += e.type == EdgeType::WR;
    anti += is_anti(e);
    rt += e.type == EdgeType::RT;
    co += e.type == EdgeType::CO;
    adjacent_anti = adjacent_anti || (is_anti(e) && is_anti(cycle[(i + 1) % k]));
  }
  if (rt > 0) return rt == 1 && anti == 1 && txns.size() == 2 ? K::StaleRead : K::RealTimeViolation;
  if (txns.size() == 2 && lost_update(h, txns[0], txns[1])) return K::LostUpdate;
  if (co > 0) return K::WriteConflict;
  if (anti == 0) return so > 0 ? K::CausalityCycle : wr > 0 ? K::G1c : K::G0;
  if (anti >= 2) {
    if (adjacent_anti) return K::WriteSkew;  // two anti-dependencies in a row: what SI allows
    return wr + so == anti ? K::LongFork : K::G2;
  }
  // One anti-dependency.
  if (so + 1 == k) return K::SessionGuaranteeViolation;
  if (k == 2 && wr == 1) {
    // W -WR(y)-> R -RW(x)-> W: R sees W's y but an older x. Reading W's y first and the older x
    // later is non-monotonic; the other way round, R saw only part of W (fractured).
    const AnomalyEdge& w = cycle[0].type == EdgeType::WR ? cycle[0] : cycle[1];
    const AnomalyEdge& r = cycle[0].type == EdgeType::WR ? cycle[1] : cycle[0];
    return w.to_op < r.from_op ? K::NonMonotonicRead : K::FracturedRead;
  }
  if (wr + so + 1 == k) return K::CausalityViolation;  // an effect seen without its cause
  return K::GSingle;
}

}  // namespace isoscope
