// WCC, CCv and CM: the bad patterns of Bouajjani et al. (CausalC Tables 2 and 3) decided by
// direct graph algorithms. See causal.h for the overview; the comments below give, for each
// pattern, why the reduced search finds exactly the patterns the definitions name.
#include "checkers/causal/causal.h"

#include <algorithm>

#include "model/anomaly_kinds.h"
#include "checkers/causal/context.h"

namespace isoscope {

namespace {

using causal::Ctx;

enum class Model { WCC, CCv, CM };

// WriteCOInitRead: a read of the initial value of x with a write of x in its causal past.
// WriteCORead (Table 2's WriteCOWrite): r reads x from w1, and a write w2 != w1 of x has
// w1 co w2 co r. Per writing process q, the co-latest write of x of q in r's causal past
// suffices: if an earlier write w2' of q qualifies, w1 co w2' po w2 co r, and that latest write
// cannot be w1 itself (w2' po w1 co w2' would be a cycle of co).
void write_co_patterns(Ctx& c, std::vector<char>& init_flagged) {
  const History& h = c.h;
  size_t total = 0;
  for (uint32_t r = 0; r < c.n; ++r) {
    const uint32_t s = c.src[r];
    if (s == kNone || s == kThinAir) continue;
    if (c.expired()) break;
    const uint32_t x = h.ops[r].key;
    const std::string X = h.keys.display(x);
    if (s == kReadsInitial) {
      uint32_t w = kNone;
      for (uint32_t gi = c.gbeg[x]; gi < c.gbeg[x + 1] && w == kNone; ++gi)
        w = c.last_write_upto(c.groups[gi], c.bound(r, c.groups[gi].proc));
      if (w == kNone) continue;
      ++total;
      init_flagged[r] = 1;
      if (!c.take_detail()) continue;
      Anomaly a;
      a.kind = AnomalyKind::WriteCOInitRead;
      c.add_ops(a, {w, r});
      a.edges = c.co_path(w, r);
      c.add_path_txns(a, a.edges);
      a.explanation = c.name(r) + " reads the initial value of " + X + ", but " + c.name(w) +
                      ", a write of " + X + ", causally precedes it (" + Ctx::path_text(a.edges) +
                      "): in the read's causal past " + X + " no longer holds its initial value";
      c.res.anomalies.push_back(std::move(a));
    } else {
      uint32_t w2 = kNone;
      for (uint32_t gi = c.gbeg[x]; gi < c.gbeg[x + 1] && w2 == kNone; ++gi) {
        const uint32_t cand = c.last_write_upto(c.groups[gi], c.bound(r, c.groups[gi].proc));
        if (cand != kNone && cand != s && c.before_eq(s, cand)) w2 = cand;
      }
      if (w2 == kNone) continue;
      ++total;
      if (!c.take_detail()) continue;
      Anomaly a;
      a.kind = AnomalyKind::WriteCORead;
      c.add_ops(a, {s, w2, r});
      std::vector<AnomalyEdge> p1 = c.co_path(s, w2), p2 = c.co_path(w2, r);
      a.edges.push_back(c.wr_edge(s, r));
      for (auto* p : {&p1, &p2})
        for (AnomalyEdge& e : *p) a.edges.push_back(e);
      c.add_path_txns(a, a.edges);
      a.explanation = c.name(r) + " reads " + X + " from " + c.name(s) + ", but " + c.name(w2) +
                      " also writes " + X + ", causally follows that write (" +
                      Ctx::path_text(p1) + ") and causally precedes the read (" +
                      Ctx::path_text(p2) +
                      "): the read returns a value that its causal past has overwritten";
      c.res.anomalies.push_back(std::move(a));
    }
  }
  c.res.anomalies_total += total;
}

// CyclicCF: cf(w1, w2) iff w1 != w2 write x, some read r of x reads from w2 and w1 co r.
// Reduced: per read r and writing process q only the co-latest write L of x of q in r's
// causal past (earlier ones reach L by po). cf ∪ co is cyclic iff po ∪ wr ∪ reduced cf is.
void cyclic_cf(Ctx& c) {
  const History& h = c.h;
  struct Cf {
    uint32_t r, L;
  };
  std::vector<Cf> cf;
  DigraphBuilder b(c.n);
  c.add_po_wr(b);
  for (uint32_t r = 0; r < c.n; ++r) {
    const uint32_t w = c.src[r];
    if (w >= kThinAir) continue;
    if (c.expired()) return;
    const uint32_t x = h.ops[r].key;
    for (uint32_t gi = c.gbeg[x]; gi < c.gbeg[x + 1]; ++gi) {
      const uint32_t L = c.last_write_upto(c.groups[gi], c.bound(r, c.groups[gi].proc));
      if (L == kNone || L == w) continue;
      b.add(L, w, static_cast<uint32_t>(cf.size()));
      cf.push_back({r, L});
    }
  }
  const Digraph g = b.build();
  if (!topological_order(g).empty()) return;
  c.report_cycles(
      g, AnomalyKind::CyclicCF,
      "cf ∪ co (causal convergence needs one arbitration order of all writes that extends the "
      "causal order co and puts every write a read could have seen before the write it read)",
      [&](uint32_t tag, uint32_t from, uint32_t to) {
        const Cf& f = cf[tag];
        AnomalyEdge e = c.write_order_edge(from, to, h.ops[f.r].key);
        e.why = c.short_name(from) + " causally precedes " + c.short_name(f.r) + " (" +
                Ctx::path_text(c.co_path(from, f.r)) + "), which reads " +
                h.keys.display(e.key) + " from " + c.short_name(to) +
                ": the two writes conflict (cf), so " + c.short_name(from) +
                " must be arbitrated before " + c.short_name(to);
        return e;
      });
}

// CM (CausalC's CM_2): for the last operation o of each process p, hb_o is the smallest
// transitive relation containing co restricted to CausalPast(o) and (w1, w2) whenever w1 hb_o r
// for a read r of p reading x from w2 != w1 (w1 writes x). Violations: hb_o cyclic
// (CyclicHB), or a write of x hb_o-before a read of the initial value of x by p
// (WriteHBInitRead).
//
// The hb_o-past of any operation is co-downward closed, so it is a vector clock. With p's reads
// r_1 <po ... <po r_m, let T_j be the hb_o-past of r_j (nested: T_i ⊆ T_j for i < j). A rule
// from r_i with i <= j adds nothing to T_j (its writes already lie in T_i ⊆ T_j), so
//     T_j = closure of clock(r_j) under: if w(r_i) ∈ T_j for some i > j, then every write of
//           x_i in T_i (and its causal past) is in T_j,
// which a backward sweep computes: rule i is stored, once T_i is known, as the join R_i of
// the clocks of the latest write of x_i of each process in T_i, in a prefix-max Fenwick tree
// of the writer's process at the writer's index; the closure of a clock queries each
// process's tree at the clock's entry until nothing grows. The cycle search then runs on
// co|CausalPast(o) ∪ {(L, w(r_j)) : L the latest write of x_j of a process in T_j}.
void cm_patterns(Ctx& c, const std::vector<char>& init_flagged) {
  const History& h = c.h;
  const uint32_t W = c.width;
  std::vector<uint32_t> foff(static_cast<size_t>(W) + 1, 0), flen(W, 0);
  for (uint32_t p = 0; p < c.k; ++p)
    if (c.dim[p] != kNone) flen[c.dim[p]] = c.pbeg[p + 1] - c.pbeg[p];
  for (uint32_t d = 0; d < W; ++d) foff[d + 1] = foff[d] + flen[d];
  std::vector<int32_t> fen(static_cast<size_t>(foff[W]) * W);
  auto fen_update = [&](uint32_t d, int32_t pos, const int32_t* R) {
    for (uint32_t i = static_cast<uint32_t>(pos) + 1; i <= flen[d]; i += i & (0u - i)) {
      int32_t* F = fen.data() + static_cast<size_t>(foff[d] + i - 1) * W;
      for (uint32_t e = 0; e < W; ++e) F[e] = std::max(F[e], R[e]);
    }
  };
  auto fen_query = [&](uint32_t d, int32_t pos, int32_t* Q) {
    std::fill_n(Q, W, -1);
    for (uint32_t i = static_cast<uint32_t>(pos) + 1; i > 0; i -= i & (0u - i)) {
      const int32_t* F = fen.data() + static_cast<size_t>(foff[d] + i - 1) * W;
      for (uint32_t e = 0; e < W; ++e) Q[e] = std::max(Q[e], F[e]);
    }
  };

  std::vector<int32_t> T, S(W), Q(W), R(W);
  std::vector<uint32_t> reads, stack;
  std::vector<char> inq(W, 0);
  struct Hb {
    uint32_t r, L;
  };
  std::vector<Hb> hb;
  for (uint32_t p = 0; p < c.k && !c.stopped; ++p) {
    if (c.pbeg[p] == c.pbeg[p + 1]) continue;
    reads.clear();
    bool any = false;
    for (uint32_t i = c.pbeg[p]; i < c.pbeg[p + 1]; ++i) {
      const uint32_t o = c.pops[i];
      if (!h.ops[o].is_read()) continue;
      reads.push_back(o);
      any = any || c.src[o] < kThinAir || c.src[o] == kReadsInitial;
    }
    if (!any) continue;  // no read of p constrains its view
    const uint32_t o_p = c.pops[c.pbeg[p + 1] - 1];
    std::fill(fen.begin(), fen.end(), -1);
    const uint32_t m = static_cast<uint32_t>(reads.size());
    T.assign(static_cast<size_t>(m) * W, -1);
    for (uint32_t j = m; j-- > 0;) {
      if (c.expired()) return;
      const uint32_t r = reads[j];
      std::copy_n(c.clock(r), W, S.data());
      stack.clear();
      for (uint32_t d = 0; d < W; ++d)
        if (S[d] >= 0) {
          stack.push_back(d);
          inq[d] = 1;
        }
      while (!stack.empty()) {
        const uint32_t d = stack.back();
        stack.pop_back();
        inq[d] = 0;
        fen_query(d, S[d], Q.data());
        for (uint32_t e = 0; e < W; ++e)
          if (Q[e] > S[e]) {
            S[e] = Q[e];
            if (!inq[e]) {
              inq[e] = 1;
              stack.push_back(e);
            }
          }
      }
      std::copy_n(S.data(), W, T.data() + static_cast<size_t>(j) * W);
      const uint32_t w = c.src[r];
      if (w >= kThinAir) continue;
      const uint32_t x = h.ops[r].key;
      std::fill(R.begin(), R.end(), -1);
      bool rule = false;
      for (uint32_t gi = c.gbeg[x]; gi < c.gbeg[x + 1]; ++gi) {
        const uint32_t L = c.last_write_upto(c.groups[gi], S[c.dim[c.groups[gi].proc]]);
        if (L == kNone || L == w) continue;
        const int32_t* V = c.clock(L);
        for (uint32_t e = 0; e < W; ++e) R[e] = std::max(R[e], V[e]);
        rule = true;
      }
      if (rule) fen_update(c.dim[c.proc[w]], static_cast<int32_t>(c.idx[w]), R.data());
    }

    // WriteHBInitRead (reads already reported as WriteCOInitRead are not repeated).
    struct InitHit {
      uint32_t r, L;
    };
    std::vector<InitHit> init_hits;
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t r = reads[j];
      if (c.src[r] != kReadsInitial || init_flagged[r]) continue;
      const uint32_t x = h.ops[r].key;
      const int32_t* Tj = T.data() + static_cast<size_t>(j) * W;
      for (uint32_t gi = c.gbeg[x]; gi < c.gbeg[x + 1]; ++gi) {
        const uint32_t L = c.last_write_upto(c.groups[gi], Tj[c.dim[c.groups[gi].proc]]);
        if (L == kNone) continue;
        init_hits.push_back({r, L});
        break;
      }
    }

    // hb_o write-write edges and the graph co|CausalPast(o) ∪ those edges.
    hb.clear();
    DigraphBuilder b(c.n);
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t r = reads[j], w = c.src[r];
      if (w >= kThinAir) continue;
      const uint32_t x = h.ops[r].key;
      const int32_t* Tj = T.data() + static_cast<size_t>(j) * W;
      for (uint32_t gi = c.gbeg[x]; gi < c.gbeg[x + 1]; ++gi) {
        const uint32_t L = c.last_write_upto(c.groups[gi], Tj[c.dim[c.groups[gi].proc]]);
        if (L == kNone || L == w) continue;
        b.add(L, w, static_cast<uint32_t>(hb.size()));
        hb.push_back({r, L});
      }
    }
    if (hb.empty() && init_hits.empty()) continue;  // hb_o = co|CausalPast(o): acyclic
    for (uint32_t q = 0; q < c.k; ++q) {
      const int32_t lim = c.bound(o_p, q);
      for (int32_t i = 0; i <= lim; ++i) {
        const uint32_t o = c.op_at(q, i);
        if (i > 0) b.add(c.op_at(q, i - 1), o, causal::kTagPO);
        if (c.src[o] < kThinAir) b.add(c.src[o], o, causal::kTagWR | o);
      }
    }
    const Digraph g = b.build();
    const std::string view = "the view of process " + std::to_string(p) + " (hb_o for o = " +
                             c.short_name(o_p) + ", its last operation)";
    auto explain = [&](uint32_t tag, uint32_t from, uint32_t to) {
      const Hb& e0 = hb[tag];
      AnomalyEdge e = c.write_order_edge(from, to, h.ops[e0.r].key);
      std::string via;
      if (c.detailed <= 16) {
        std::vector<uint32_t> path = c.graph_path(g, from, e0.r);
        uint32_t u = from;
        for (uint32_t pe : path) {
          via += via.empty() ? " (" : ", then ";
          const uint32_t tg = g.tags[pe], v = g.targets[pe];
          if (causal::is_derived_tag(tg))
            via += c.short_name(u) + " before " + c.short_name(v) + " as derived for " +
                   c.short_name(hb[tg].r);
          else
            via += (causal::is_po_tag(tg) ? c.po_edge(u, v) : c.wr_edge(u, v)).why;
          u = v;
        }
        if (!via.empty()) via += ")";
      }
      e.why = c.short_name(from) + " happens before " + c.short_name(e0.r) + " in " + view + via +
              ", and " + c.short_name(e0.r) + " reads " + h.keys.display(e.key) + " from " +
              c.short_name(to) + ": so " + c.short_name(from) + " comes before " +
              c.short_name(to) + " in that view";
      return e;
    };
    for (const InitHit& hit : init_hits) {
      ++c.res.anomalies_total;
      if (!c.take_detail()) continue;
      Anomaly a;
      a.kind = AnomalyKind::WriteHBInitRead;
      c.add_ops(a, {hit.L, hit.r});
      std::vector<uint32_t> path = c.graph_path(g, hit.L, hit.r);
      uint32_t u = hit.L;
      for (uint32_t pe : path) {
        a.edges.push_back(c.graph_edge(g, pe, u, explain));
        u = g.targets[pe];
      }
      c.add_path_txns(a, a.edges);
      std::string why;
      for (size_t i = 0; i < a.edges.size(); ++i) why += (i ? "; " : "") + a.edges[i].why;
      const std::string X = h.keys.display(h.ops[hit.r].key);
      a.explanation = c.name(hit.r) + " reads the initial value of " + X + ", but " +
                      c.name(hit.L) + " writes " + X + " and happens before it in " + view +
                      " (" + why + "): the process cannot order its causal past so that the "
                      "read still sees the initial value";
      c.res.anomalies.push_back(std::move(a));
    }
    if (hb.empty() || !topological_order(g).empty()) continue;
    c.report_cycles(g, AnomalyKind::CyclicHB,
                    view + " (causal memory: each process orders its causal past in one order "
                           "that explains all its own reads)",
                    explain);
  }
}

LevelResult run(const History& h, const CheckBudget& budget, Model model) {
  if (!h.ambiguous.empty()) return unresolved_reads();  // checker_for routes them
  Ctx c(h, budget);
  if (c.build_co()) {
    std::vector<char> init_flagged(c.n, 0);
    write_co_patterns(c, init_flagged);
    if (!c.stopped && model == Model::CCv) cyclic_cf(c);
    if (!c.stopped && model == Model::CM) cm_patterns(c, init_flagged);
  }
  return c.finish();
}

}  // namespace

LevelResult check_wcc(const History& h, const CheckBudget& budget) { return run(h, budget, Model::WCC); }
LevelResult check_ccv(const History& h, const CheckBudget& budget) { return run(h, budget, Model::CCv); }
LevelResult check_cm(const History& h, const CheckBudget& budget) { return run(h, budget, Model::CM); }

}  // namespace isoscope
