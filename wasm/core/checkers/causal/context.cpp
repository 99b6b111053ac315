#include "checkers/causal/context.h"

#include <algorithm>

#include "model/anomaly_kinds.h"

namespace isoscope::causal {

namespace {
constexpr size_t kMaxClockBytes = size_t(1) << 30;  // 1 GB of clocks: beyond this, unknown
}

Ctx::Ctx(const History& hist, const CheckBudget& b) : h(hist), budget(b) {
  n = static_cast<uint32_t>(h.ops.size());
  k = static_cast<uint32_t>(h.num_sessions());
  live.assign(n, 0);
  proc.assign(n, kNone);
  idx.assign(n, 0);
  src.assign(n, kNone);
  thin_air_aborted.assign(n, 0);
  pbeg.assign(static_cast<size_t>(k) + 1, 0);
  pops.reserve(n);
  // Transactions are laid out session after session, operations transaction after
  // transaction: op ids increase along program order within a process.
  for (uint32_t p = 0; p < k; ++p) {
    pbeg[p] = static_cast<uint32_t>(pops.size());
    for (uint32_t t = h.session_begin[p]; t < h.session_begin[p + 1]; ++t) {
      const Txn& x = h.txns[t];
      if (!x.committed) continue;
      for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
        live[o] = 1;
        proc[o] = p;
        idx[o] = static_cast<uint32_t>(pops.size()) - pbeg[p];
        pops.push_back(o);
      }
    }
  }
  pbeg[k] = static_cast<uint32_t>(pops.size());
  for (uint32_t o = 0; o < n; ++o) {
    if (!live[o] || !h.ops[o].is_read()) continue;
    const uint32_t w = h.read_from[o];
    if (w == kReadsInitial) {
      src[o] = kReadsInitial;
    } else if (w == kThinAir || w == kNone) {
      src[o] = kThinAir;
    } else if (!live[w]) {
      src[o] = kThinAir;
      thin_air_aborted[o] = 1;
    } else {
      src[o] = w;
    }
  }
  // Writes per key, in op id order (grouped by process, in program order).
  const size_t nk = h.keys.size();
  std::vector<uint32_t> kbeg(nk + 1, 0);
  for (uint32_t o = 0; o < n; ++o)
    if (live[o] && h.ops[o].is_write()) ++kbeg[h.ops[o].key + 1];
  for (size_t x = 0; x < nk; ++x) kbeg[x + 1] += kbeg[x];
  wop.resize(kbeg[nk]);
  widx.resize(kbeg[nk]);
  {
    std::vector<uint32_t> pos(kbeg.begin(), kbeg.end() - 1);
    for (uint32_t o = 0; o < n; ++o)
      if (live[o] && h.ops[o].is_write()) {
        const uint32_t i = pos[h.ops[o].key]++;
        wop[i] = o;
        widx[i] = static_cast<int32_t>(idx[o]);
      }
  }
  gbeg.assign(nk + 1, 0);
  dim.assign(k, kNone);
  for (size_t x = 0; x < nk; ++x) {
    gbeg[x] = static_cast<uint32_t>(groups.size());
    for (uint32_t i = kbeg[x]; i < kbeg[x + 1]; ++i) {
      const uint32_t p = proc[wop[i]];
      if (i == kbeg[x] || groups.back().proc != p)
        groups.push_back({p, i, i + 1});
      else
        groups.back().end = i + 1;
      if (dim[p] == kNone) dim[p] = 0;  // numbered below
    }
  }
  gbeg[nk] = static_cast<uint32_t>(groups.size());
  for (uint32_t p = 0; p < k; ++p)
    if (dim[p] != kNone) dim[p] = width++;
}

bool Ctx::expired() {
  if ((++ticks_ & 4095) != 0) return stopped;
  if (!stopped && budget.expired()) {
    stopped = true;
    res.reason = "budget ran out";
  }
  return stopped;
}

LevelResult Ctx::finish() {
  if (res.anomalies_total < res.anomalies.size()) res.anomalies_total = res.anomalies.size();
  if (res.anomalies_total > 0) {
    res.verdict = Verdict::Fail;
    if (stopped) res.reason = "stopped early (" + res.reason + "); the anomalies found prove the failure";
  } else {
    res.verdict = stopped ? Verdict::Unknown : Verdict::Pass;
  }
  return std::move(res);
}

void Ctx::add_po_wr(DigraphBuilder& b) const {
  for (uint32_t p = 0; p < k; ++p)
    for (uint32_t i = pbeg[p] + 1; i < pbeg[p + 1]; ++i) b.add(pops[i - 1], pops[i], kTagPO);
  for (uint32_t o = 0; o < n; ++o)
    if (src[o] < kThinAir) b.add(src[o], o, kTagWR | o);
}

bool Ctx::build_co() {
  // ThinAirRead: a read of a value that no operation that took effect wrote.
  size_t thin = 0;
  for (uint32_t r = 0; r < n; ++r) {
    if (src[r] != kThinAir) continue;
    ++thin;
    if (!take_detail()) continue;
    Anomaly a;
    a.kind = AnomalyKind::ThinAirRead;
    a.txns = {h.op_txn[r]};
    a.ops = {r};
    const std::string X = h.keys.display(h.ops[r].key);
    if (thin_air_aborted[r]) {
      const uint32_t w = h.read_from[r];
      a.txns.push_back(h.op_txn[w]);
      a.explanation = name(r) + " reads a value of " + X + " that only " + name(w) +
                      " writes, and that operation's transaction did not take effect (aborted): "
                      "the read returns a value no operation of the history wrote";
    } else {
      a.explanation = name(r) + " reads a value of " + X +
                      " that no operation writes and that is not the initial value";
    }
    res.anomalies.push_back(std::move(a));
  }
  res.anomalies_total += thin;

  DigraphBuilder b(n);
  b.reserve(pops.size() * 2);
  add_po_wr(b);
  const Digraph g = b.build();
  const std::vector<uint32_t> order = topological_order(g);
  if (order.empty() && n > 0) {
    report_cycles(g, AnomalyKind::CyclicCO, "the causal order co = (po ∪ wr)+, which must be a strict partial order",
                  [&](uint32_t, uint32_t from, uint32_t to) { return po_edge(from, to); });
    return false;
  }
  if (static_cast<double>(n) * width * sizeof(int32_t) > static_cast<double>(kMaxClockBytes)) {
    stopped = true;
    res.reason = "the causal order needs more than 1 GB of vector clocks for this history (" +
                 std::to_string(width) + " writing processes)";
    return false;
  }
  vc.assign(static_cast<size_t>(n) * width, -1);
  for (uint32_t u : order) {
    if (!live[u]) continue;
    if (expired()) return false;
    int32_t* V = vc.data() + static_cast<size_t>(u) * width;
    const uint32_t p = proc[u];
    if (idx[u] > 0) std::copy_n(clock(op_at(p, static_cast<int32_t>(idx[u]) - 1)), width, V);
    if (src[u] < kThinAir) {
      const int32_t* W = clock(src[u]);
      for (uint32_t d = 0; d < width; ++d) V[d] = std::max(V[d], W[d]);
    }
    if (dim[p] != kNone) V[dim[p]] = static_cast<int32_t>(idx[u]);
  }
  return true;
}

uint32_t Ctx::last_write_upto(const Group& g, int32_t b) const {
  if (b < 0) return kNone;
  const int32_t* ib = widx.data() + g.begin;
  const int32_t* ie = widx.data() + g.end;
  const int32_t* p = std::upper_bound(ib, ie, b);
  if (p == ib) return kNone;
  return wop[g.begin + static_cast<uint32_t>(p - ib) - 1];
}

// ---- explanations ---------------------------------------------------------------------------

std::string Ctx::name(uint32_t op) const { return h.op_text(op) + " of " + h.txn_name(h.op_txn[op]); }

std::string Ctx::short_name(uint32_t op) const {
  if (op == kNone) return "?";
  return h.op_text(op) + "@T" + std::to_string(h.shown(h.op_txn[op]).txn);
}

AnomalyEdge Ctx::po_edge(uint32_t a, uint32_t b) const {
  AnomalyEdge e = op_edge(a, b, EdgeType::SO);
  e.why = short_name(a) + " precedes " + short_name(b) + " in process (session) " +
          std::to_string(proc[b]) + " (program order)";
  return e;
}

AnomalyEdge Ctx::op_edge(uint32_t from, uint32_t to, EdgeType type) const {
  AnomalyEdge e;
  e.from_txn = h.op_txn[from];
  e.to_txn = h.op_txn[to];
  e.type = type;
  e.from_op = from;
  e.to_op = to;
  return e;
}

AnomalyEdge Ctx::write_order_edge(uint32_t from, uint32_t to, uint32_t key) const {
  AnomalyEdge e = op_edge(from, to, EdgeType::WW);
  e.key = key;
  return e;
}

AnomalyEdge Ctx::wr_edge(uint32_t w, uint32_t r) const {
  AnomalyEdge e = op_edge(w, r, EdgeType::WR);
  e.key = h.ops[r].key;
  e.why = short_name(r) + " reads the value " + short_name(w) + " writes (write-read)";
  return e;
}

std::vector<AnomalyEdge> Ctx::co_path(uint32_t a, uint32_t b) const {
  // Walk back from b: a co* cur holds throughout. Take a write-read edge into cur when its
  // writer is still in a's causal future, else step back in program order (merged).
  std::vector<AnomalyEdge> rev;
  uint32_t cur = b;
  while (cur != a) {
    const uint32_t p = proc[cur];
    if (p == proc[a] && idx[a] < idx[cur]) {
      rev.push_back(po_edge(a, cur));
      break;
    }
    if (src[cur] < kThinAir && before_eq(a, src[cur])) {
      rev.push_back(wr_edge(src[cur], cur));
      cur = src[cur];
      continue;
    }
    // Step back along program order until an operation that a reaches other than by po.
    int32_t i = static_cast<int32_t>(idx[cur]) - 1;
    uint32_t c = kNone;
    for (; i >= 0; --i) {
      c = op_at(p, i);
      if (c == a || (src[c] < kThinAir && before_eq(a, src[c]))) break;
    }
    if (i < 0) break;  // cannot happen when a co+ b
    rev.push_back(po_edge(c, cur));
    cur = c;
  }
  std::reverse(rev.begin(), rev.end());
  return rev;
}

std::string Ctx::path_text(const std::vector<AnomalyEdge>& p) {
  std::string s;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i) s += ", then ";
    s += p[i].why;
  }
  return s;
}

void Ctx::add_ops(Anomaly& a, std::initializer_list<uint32_t> ops) const {
  for (uint32_t o : ops) {
    a.ops.push_back(o);
    a.txns.push_back(h.op_txn[o]);
  }
}

void Ctx::add_path_txns(Anomaly& a, const std::vector<AnomalyEdge>& p) const {
  for (const AnomalyEdge& e : p) {
    if (std::find(a.txns.begin(), a.txns.end(), e.from_txn) == a.txns.end()) a.txns.push_back(e.from_txn);
    if (std::find(a.txns.begin(), a.txns.end(), e.to_txn) == a.txns.end()) a.txns.push_back(e.to_txn);
  }
}

uint32_t Ctx::source_of(const Digraph& g, uint32_t e) {
  auto it = std::upper_bound(g.offsets.begin(), g.offsets.end(), e);
  return static_cast<uint32_t>(it - g.offsets.begin()) - 1;
}

std::vector<uint32_t> Ctx::graph_path(const Digraph& g, uint32_t a, uint32_t b) const {
  std::vector<uint32_t> parent(g.n, kNone), queue{a};
  std::vector<char> seen(g.n, 0);
  seen[a] = 1;
  for (size_t qi = 0; qi < queue.size() && !seen[b]; ++qi) {
    const uint32_t u = queue[qi];
    for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
      const uint32_t v = g.targets[e];
      if (seen[v]) continue;
      seen[v] = 1;
      parent[v] = e;
      queue.push_back(v);
    }
  }
  std::vector<uint32_t> p;
  if (!seen[b] || a == b) return p;
  for (uint32_t v = b; v != a; v = source_of(g, parent[v])) p.push_back(parent[v]);
  std::reverse(p.begin(), p.end());
  return p;
}

}  // namespace isoscope::causal
