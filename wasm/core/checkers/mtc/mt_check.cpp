// SER, SI and SSER on mini-transaction histories: MTC Alg. 1 with the Section IV-C optimisation
// (only the immediate version-order edges, no transitive closure). See mtc.h for the idea.
//
// The graph G^ over the transactions (node 0 is the initial transaction; it has no incoming
// edge, so edges out of it are left out):
//   SO  each committed transaction to the next committed one of its session
//   WR  writer -> reader, one per external read (a read before the reader's own write of the key)
//   WW  writer -> the transaction that read x from it and overwrote it: that is also a WR edge
//       of the same pair, so it is represented by the WR edge
//   RW  reader of W's x -> the transaction that overwrote W's x (W's unique successor on x)
// SER: G^ acyclic. SSER: G^ plus real time, through a chain of time points (one per
// transaction, sorted by end): T -> point(T) -> ... -> point(j) -> S when end(j) < start(S).
// SI: first the Divergence pattern, then (SO ∪ WR ∪ WW) ; RW? over G^ acyclic.
#include <algorithm>
#include <string>

#include "checkers/mtc/mtc.h"
#include "checkers/mtc/mtc_witness.h"
#include "checkers/read_consistency.h"
#include "graph/digraph.h"

namespace isoscope {

namespace {

constexpr size_t kMaxReported = 32;

// The forced dependency structure of an MT history: per transaction its external reads (at
// most two) and the keys it writes (at most two), and per written version its successor.
struct MtIndex {
  const History& h;
  std::vector<uint32_t> rd;          // 2 per txn: external read ops, kNone when absent
  std::vector<uint32_t> wkey;        // 2 per txn: keys written, kNone when absent
  std::vector<uint32_t> succ;        // 2 per txn: txn that read wkey from it and overwrote it
  std::vector<uint32_t> init_succ;   // per key: the same for the initial transaction
  std::vector<Anomaly> anomalies;    // NonRepeatableRead and LostUpdate (Divergence)
  size_t total = 0;

  explicit MtIndex(const History& hist) : h(hist) {}

  // The external read of key x in t (the first one), or kNone.
  uint32_t ext_read(uint32_t t, uint32_t x) const {
    for (int s = 0; s < 2; ++s)
      if (rd[2 * t + s] != kNone && h.ops[rd[2 * t + s]].key == x) return rd[2 * t + s];
    return kNone;
  }
  // The successor slot of W's version of x (W = 0: the initial transaction).
  uint32_t* succ_slot(uint32_t w, uint32_t x) {
    if (w == kInitialTxn) return &init_succ[x];
    for (int s = 0; s < 2; ++s)
      if (wkey[2 * w + s] == x) return &succ[2 * w + s];
    return nullptr;
  }
  uint32_t successor(uint32_t w, uint32_t x) const {
    if (w == kInitialTxn) return init_succ[x];
    for (int s = 0; s < 2; ++s)
      if (wkey[2 * w + s] == x) return succ[2 * w + s];
    return kNone;
  }

  void add(Anomaly a) {
    ++total;
    if (anomalies.size() < kMaxReported) anomalies.push_back(std::move(a));
  }

  void build() {
    const size_t n = h.txns.size();
    rd.assign(2 * n, kNone);
    wkey.assign(2 * n, kNone);
    succ.assign(2 * n, kNone);
    init_succ.assign(h.keys.size(), kNone);
    // Pass 1: external reads and written keys.
    for (uint32_t t = 1; t < n; ++t) {
      const Txn& x = h.txns[t];
      if (!x.committed) continue;
      int nr = 0, nw = 0;
      for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
        const Op& o = h.ops[i];
        const bool own = (wkey[2 * t] == o.key) || (wkey[2 * t + 1] == o.key);
        if (o.is_write()) {
          if (!own && nw < 2) wkey[2 * t + nw++] = o.key;
          continue;
        }
        if (own) continue;  // reads its own write (read consistency vouches for it)
        const uint32_t prev = ext_read(t, o.key);
        if (prev == kNone) {
          if (nr < 2) rd[2 * t + nr++] = i;
        } else if (h.writer_txn(prev) != h.writer_txn(i)) {
          add(non_repeatable_reads(h, prev, i));
        }
      }
    }
    // Pass 2: each writer's version comes right after the version it read.
    for (uint32_t t = 1; t < n; ++t) {
      if (!h.txns[t].committed) continue;
      for (int s = 0; s < 2; ++s) {
        const uint32_t x = wkey[2 * t + s];
        if (x == kNone) continue;
        const uint32_t r = ext_read(t, x);
        if (r == kNone) continue;  // not an MT (the precondition is checked before)
        const uint32_t w = h.writer_txn(r);
        uint32_t* slot = succ_slot(w, x);
        if (!slot) continue;  // impossible after read consistency
        if (*slot == kNone)
          *slot = t;
        else
          add(lost_update(h, w, ext_read(*slot, x), r));
      }
    }
  }
};

constexpr uint32_t kTagShift = 29;
constexpr uint32_t kOpMask = (1u << kTagShift) - 1;
uint32_t tag_of(EdgeKind k, uint32_t op) { return static_cast<uint32_t>(k) << kTagShift | (op & kOpMask); }
EdgeKind kind_of(uint32_t tag) { return static_cast<EdgeKind>(tag >> kTagShift); }
uint32_t op_of(uint32_t tag) { return tag & kOpMask; }

// G^ (see the header comment); with real time when rt is set (aux nodes from h.txns.size()).
Digraph build_graph(const MtIndex& ix, bool rt) {
  const History& h = ix.h;
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  std::vector<uint32_t> timed;
  if (rt)
    for (uint32_t t = 1; t < n; ++t)
      if (h.txns[t].committed && h.txns[t].has_time()) timed.push_back(t);
  const uint32_t m = static_cast<uint32_t>(timed.size());
  DigraphBuilder gb(n + m);
  gb.reserve(static_cast<size_t>(n) * 5 + 3 * static_cast<size_t>(m));
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    uint32_t prev = kNone;
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (!h.txns[t].committed) continue;
      if (prev != kNone) gb.add(prev, t, tag_of(EdgeKind::SO, 0));
      prev = t;
    }
  }
  for (uint32_t t = 1; t < n; ++t) {
    if (!h.txns[t].committed) continue;
    for (int s = 0; s < 2; ++s) {
      const uint32_t r = ix.rd[2 * t + s];
      if (r == kNone) continue;
      const uint32_t w = h.writer_txn(r);
      if (w != kInitialTxn) gb.add(w, t, tag_of(EdgeKind::WR, r));
      const uint32_t c = ix.successor(w, h.ops[r].key);
      if (c != kNone && c != t) gb.add(t, c, tag_of(EdgeKind::RW, r));
    }
  }
  if (m > 0) {
    // Time points sorted by end; point j -> S for the last j with end(j) < start(S).
    std::vector<uint32_t> by_end = timed, by_start = timed;
    std::sort(by_end.begin(), by_end.end(),
              [&](uint32_t a, uint32_t b) { return h.times[a].end < h.times[b].end; });
    std::sort(by_start.begin(), by_start.end(),
              [&](uint32_t a, uint32_t b) { return h.times[a].start < h.times[b].start; });
    for (uint32_t i = 0; i < m; ++i) {
      gb.add(by_end[i], n + i, tag_of(EdgeKind::Point, 0));
      if (i + 1 < m) gb.add(n + i, n + i + 1, tag_of(EdgeKind::Point, 0));
    }
    uint32_t j = 0;  // number of transactions that end before the current start
    for (uint32_t t : by_start) {
      while (j < m && h.times[by_end[j]].end < h.times[t].start) ++j;
      if (j > 0) gb.add(n + j - 1, t, tag_of(EdgeKind::Point, 0));
    }
  }
  return gb.build();
}

// The source node of every edge of g (CSR keeps only targets).
std::vector<uint32_t> edge_sources(const Digraph& g) {
  std::vector<uint32_t> src(g.num_edges());
  for (uint32_t u = 0; u < g.n; ++u)
    for (uint32_t e = g.begin(u); e < g.end(u); ++e) src[e] = u;
  return src;
}

// Turns a cycle of G^ edge ids into dependency edges between transactions (a run through the
// time points becomes one RT edge).
std::vector<DepEdge> to_dep_edges(const Digraph& g, const std::vector<uint32_t>& src,
                                  const std::vector<uint32_t>& cycle, uint32_t n) {
  // Rotate so that the cycle starts at a transaction.
  size_t start = 0;
  while (start < cycle.size() && src[cycle[start]] >= n) ++start;
  std::vector<DepEdge> out;
  if (start == cycle.size()) return out;
  uint32_t rt_from = kNone;
  for (size_t k = 0; k < cycle.size(); ++k) {
    const uint32_t e = cycle[(start + k) % cycle.size()];
    const uint32_t u = src[e], v = g.targets[e];
    const EdgeKind kind = kind_of(g.tags[e]);
    if (kind == EdgeKind::Point) {
      if (u < n) rt_from = u;
      if (v < n) out.push_back({rt_from, v, EdgeKind::RT, kNone});
      continue;
    }
    out.push_back({u, v, kind, kind == EdgeKind::SO ? kNone : op_of(g.tags[e])});
  }
  return out;
}

// Read consistency and the forced version order: a failure result, or nullopt to go on.
bool prechecks(const History& h, MtIndex& ix, LevelResult& r) {
  if (!is_mini_transaction_history(h)) {
    r = unknown_result("not a mini-transaction history");
    return false;
  }
  if (h.ops.size() > kOpMask) {
    r = unknown_result("history too large for the mini-transaction checker");
    return false;
  }
  r.anomalies = check_read_consistency(h);
  if (!r.anomalies.empty()) {
    r.verdict = Verdict::Fail;
    r.anomalies_total = r.anomalies.size();
    return false;
  }
  ix.build();
  if (!ix.anomalies.empty()) {
    r.verdict = Verdict::Fail;
    r.anomalies = std::move(ix.anomalies);
    r.anomalies_total = ix.total;
    return false;
  }
  return true;
}

LevelResult check_acyclic(const History& h, const CheckBudget& budget, bool rt, Level level) {
  LevelResult r;
  MtIndex ix(h);
  if (!prechecks(h, ix, r)) return r;
  if (budget.expired()) return unknown_result("budget ran out");
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const Digraph g = build_graph(ix, rt);
  if (budget.expired()) return unknown_result("budget ran out");
  const std::vector<std::vector<uint32_t>> cycles = cycles_per_component(g, kMaxReported);
  if (cycles.empty()) {
    r.verdict = Verdict::Pass;
    return r;
  }
  const std::vector<uint32_t> src = edge_sources(g);
  r.verdict = Verdict::Fail;
  for (const std::vector<uint32_t>& c : cycles)
    r.anomalies.push_back(cycle_anomaly(h, to_dep_edges(g, src, c, n), level));
  r.anomalies_total = r.anomalies.size();
  return r;
}

}  // namespace

LevelResult check_ser_mt(const History& h, const CheckBudget& budget) {
  return check_acyclic(h, budget, false, Level::SER);
}

LevelResult check_sser_mt(const History& h, const CheckBudget& budget) {
  if (!h.has_timestamps) {
    LevelResult r;
    r.verdict = Verdict::NotApplicable;
    r.reason = "no timestamps";
    return r;
  }
  return check_acyclic(h, budget, true, Level::SSER);
}

LevelResult check_si_mt(const History& h, const CheckBudget& budget) {
  LevelResult r;
  MtIndex ix(h);
  if (!prechecks(h, ix, r)) return r;  // includes the Divergence pattern (CheckSI line 2)
  if (budget.expired()) return unknown_result("budget ran out");
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const Digraph g = build_graph(ix, false);
  // The induced graph (SO ∪ WR ∪ WW) ; RW? : for every non-RW edge u -> m, u -> m itself and
  // u -> v for every RW edge m -> v. Its tag is the id of the first (non-RW) edge in g.
  DigraphBuilder ib(n);
  ib.reserve(g.num_edges() * 2);
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
      if (kind_of(g.tags[e]) == EdgeKind::RW) continue;
      const uint32_t m = g.targets[e];
      ib.add(u, m, e);
      for (uint32_t f = g.begin(m); f < g.end(m); ++f)
        if (kind_of(g.tags[f]) == EdgeKind::RW) ib.add(u, g.targets[f], e);
    }
  const Digraph gi = ib.build();
  if (budget.expired()) return unknown_result("budget ran out");
  const std::vector<std::vector<uint32_t>> cycles = cycles_per_component(gi, kMaxReported);
  if (cycles.empty()) {
    r.verdict = Verdict::Pass;
    return r;
  }
  const std::vector<uint32_t> src = edge_sources(g);
  r.verdict = Verdict::Fail;
  for (const std::vector<uint32_t>& c : cycles) {
    // Expand each induced edge into its g edges: the non-RW edge, then the RW edge if any.
    std::vector<uint32_t> expanded;
    for (size_t k = 0; k < c.size(); ++k) {
      const uint32_t e = gi.tags[c[k]], v = gi.targets[c[k]], m = g.targets[e];
      expanded.push_back(e);
      if (m == v) continue;
      for (uint32_t f = g.begin(m); f < g.end(m); ++f)
        if (kind_of(g.tags[f]) == EdgeKind::RW && g.targets[f] == v) {
          expanded.push_back(f);
          break;
        }
    }
    r.anomalies.push_back(cycle_anomaly(h, to_dep_edges(g, src, expanded, n), Level::SI));
  }
  r.anomalies_total = r.anomalies.size();
  return r;
}

}  // namespace isoscope
