#include "weak_witness.h"

#include <vector>

namespace isoscope {

namespace {

uint32_t writer_of(const History& h, uint32_t r) {
  const uint32_t w = h.read_from[r];
  if (w == kReadsInitial) return kInitialTxn;
  if (w >= kThinAir) return kNone;
  return h.op_txn[w];
}

bool writes(const History& h, uint32_t t, uint32_t key) {
  if (t == kInitialTxn) return true;
  for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o)
    if (h.ops[o].is_write() && h.ops[o].key == key) return true;
  return false;
}

bool so(const History& h, uint32_t a, uint32_t b) {
  if (a == b || b == kInitialTxn) return false;
  if (a == kInitialTxn) return true;
  return h.txns[a].session == h.txns[b].session && h.txns[a].index < h.txns[b].index;
}

// External reads of committed transaction t that read from another committed transaction.
bool wr(const History& h, uint32_t a, uint32_t b) {
  if (!h.txns[b].committed) return false;
  for (uint32_t o = h.txns[b].op_begin; o < h.txns[b].op_end; ++o)
    if (h.ops[o].is_read() && writer_of(h, o) == a && a != b) return true;
  return false;
}

// (so ∪ wr)+ by BFS (small or moderate histories).
bool hb(const History& h, uint32_t a, uint32_t b) {
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  std::vector<char> seen(n, 0);
  std::vector<uint32_t> q{a};
  seen[a] = 1;
  for (size_t i = 0; i < q.size(); ++i) {
    uint32_t u = q[i];
    for (uint32_t v = 1; v < n; ++v) {
      if (seen[v] || !h.txns[v].committed) continue;
      if (so(h, u, v) || wr(h, u, v)) {
        if (v == b) return true;
        seen[v] = 1;
        q.push_back(v);
      }
    }
  }
  return false;
}

// Does the level's axiom force t2 -co-> t1 on key x through some reader t3?
bool forced(const History& h, Level l, uint32_t t2, uint32_t t1, uint32_t x) {
  if (t1 == t2 || !writes(h, t2, x) || !writes(h, t1, x)) return false;
  for (uint32_t t3 = 1; t3 < h.txns.size(); ++t3) {
    const Txn& tx = h.txns[t3];
    if (!tx.committed) continue;
    for (uint32_t a = tx.op_begin; a < tx.op_end; ++a) {
      if (!h.ops[a].is_read() || h.ops[a].key != x || writer_of(h, a) != t1 || t1 == t3) continue;
      switch (l) {
        case Level::RC:
        case Level::RR:
          for (uint32_t b = tx.op_begin; b < a; ++b)
            if (h.ops[b].is_read() && writer_of(h, b) == t2 && t2 != t3) return true;
          break;
        case Level::RA:
          if (so(h, t2, t3) || wr(h, t2, t3)) return true;
          break;
        case Level::CC:
          if (hb(h, t2, t3)) return true;
          break;
        default: break;
      }
    }
  }
  return false;
}

}  // namespace

std::string verify_weak_witnesses(const History& h, Level l, const LevelResult& r) {
  for (size_t ai = 0; ai < r.anomalies.size(); ++ai) {
    const Anomaly& a = r.anomalies[ai];
    const std::string where = "anomaly " + std::to_string(ai) + " (" + std::string(kind_name(a.kind)) + "): ";
    if (a.explanation.empty()) return where + "no explanation";
    if (a.kind == AnomalyKind::NonRepeatableRead) {
      if (a.ops.size() != 2) return where + "expects two reads";
      const uint32_t r1 = a.ops[0], r2 = a.ops[1];
      if (h.op_txn[r1] != h.op_txn[r2] || h.ops[r1].key != h.ops[r2].key ||
          writer_of(h, r1) == writer_of(h, r2))
        return where + "the two reads are not a non-repeatable read";
      continue;
    }
    const bool cycle_kind = a.kind == AnomalyKind::CausalityCycle || a.kind == AnomalyKind::G1c ||
                            a.kind == AnomalyKind::NonMonotonicRead || a.kind == AnomalyKind::FracturedRead ||
                            a.kind == AnomalyKind::SessionGuaranteeViolation ||
                            a.kind == AnomalyKind::CausalityViolation;
    if (!cycle_kind) continue;  // read-consistency anomalies: checked by the lead's tests
    if (a.edges.empty()) return where + "a cycle without edges";
    for (size_t i = 0; i < a.edges.size(); ++i) {
      const AnomalyEdge& e = a.edges[i];
      const AnomalyEdge& next = a.edges[(i + 1) % a.edges.size()];
      if (e.to_txn != next.from_txn) return where + "edges do not form a cycle";
      if (e.why.empty()) return where + "edge without justification";
      if (e.from_txn != kInitialTxn && !h.txns[e.from_txn].committed)
        return where + "uncommitted transaction in a cycle";
      switch (e.type) {
        case EdgeType::SO:
          if (!so(h, e.from_txn, e.to_txn)) return where + "SO edge is not session order";
          break;
        case EdgeType::WR:
          if (e.to_op == kNone || h.op_txn[e.to_op] != e.to_txn ||
              writer_of(h, e.to_op) != e.from_txn || h.ops[e.to_op].key != e.key)
            return where + "WR edge is not a write-read pair";
          if (e.from_txn != kInitialTxn && h.read_from[e.to_op] != e.from_op)
            return where + "WR edge names the wrong write";
          break;
        case EdgeType::CO:
          if (!forced(h, l, e.from_txn, e.to_txn, e.key))
            return where + "CO edge T" + std::to_string(e.from_txn) + " -> T" +
                   std::to_string(e.to_txn) + " is not forced by the axiom";
          break;
        default: return where + "unexpected edge type";
      }
    }
  }
  return "";
}

}  // namespace isoscope
