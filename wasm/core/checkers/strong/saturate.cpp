// Saturation: the orderings every solution of a SER problem must contain.
//
// Known edges: chains (session order; for PC/SI also read half -> write half), write-read,
// real time (SSER). Constraints (the polygraph, as in Cobra and PolySI):
//   serialization  t3 reads x from t1, t2 != t1 writes x:  t2 -> t1 (WW)  or  t3 -> t2 (RW)
//                  (t1 = the initial transaction: t3 -> t2 outright)
//   SI conflict    t1, t2 write a common key:  W_t2 -> R_t1  or  W_t1 -> W_t2
// Each round computes reachability of the known graph (per node, the first reachable position
// of every chain: O(nodes * chains) memory) and settles every constraint one side of which
// already holds or whose other side would close a cycle. The first round contains the CC
// saturation: t2 (so ∪ wr)+ t3 forces t2 -> t1. Rounds repeat until nothing changes.
#include <algorithm>

#include "checkers/strong/internal.h"
#include "graph/digraph.h"
#include "util/flat_map.h"

namespace isoscope::strong {

namespace {

constexpr uint32_t kInf = 0xFFFFFFFFu;
constexpr size_t kMaxConstraints = size_t(12) << 20;  // 12 M (96 MB); beyond: partial pruning

}  // namespace

Saturation saturate(const Problem& p, bool polygraph, bool force, const CheckBudget& budget,
                    size_t long_tail_reach) {
  Saturation s;
  std::vector<Problem::Edge>& E = s.edges;
  const uint32_t n = p.n, k = p.k;
  for (uint32_t c = 0; c < k; ++c)
    for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v)
      E.push_back({v == p.chain_begin[c] ? 0u : v - 1, v, EdgeType::SO});
  {
    std::vector<uint32_t> seen(n, kNone);
    for (uint32_t v = 1; v < n; ++v)
      for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
        const Problem::Read& r = p.reads[i];
        if (seen[r.writer] == v) continue;
        seen[r.writer] = v;
        E.push_back({r.writer, v, EdgeType::WR, r.key, r.op});
      }
  }
  for (const Problem::Edge& e : p.fixed) E.push_back(e);

  // Writers of each key (nodes, in node order).
  std::vector<uint32_t> kbeg(p.num_keys + 1, 0), writers;
  for (uint32_t v = 1; v < n; ++v)
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) ++kbeg[p.wkeys[i] + 1];
  for (uint32_t x = 0; x < p.num_keys; ++x) kbeg[x + 1] += kbeg[x];
  writers.resize(kbeg[p.num_keys]);
  {
    std::vector<uint32_t> at(kbeg.begin(), kbeg.end() - 1);
    for (uint32_t v = 1; v < n; ++v)
      for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) writers[at[p.wkeys[i]]++] = v;
  }
  std::vector<uint32_t>& reader = s.reader;
  reader.resize(p.reads.size());
  for (uint32_t v = 1; v < n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) reader[i] = v;

  // Reads of the initial transaction's value: every writer of the key comes after the reader.
  if (polygraph)
    for (uint32_t i = 0; i < p.reads.size(); ++i) {
      const Problem::Read& r = p.reads[i];
      if (r.writer != 0) continue;
      for (uint32_t j = kbeg[r.key]; j < kbeg[r.key + 1]; ++j)
        if (writers[j] != reader[i]) {
          E.push_back({reader[i], writers[j], EdgeType::RW, r.key, 0, r.op});
          ++s.forced;
        }
    }

  const size_t width = static_cast<size_t>(k) + 1;
  // Two reachability tables over the known graph, per node and chain: the first position of
  // the chain the node reaches, and (one past) the last position that reaches the node.
  const bool use_reach = polygraph && static_cast<size_t>(n) * width <= kMaxReachEntries;
  std::vector<Constraint>& C = s.open;
  bool& complete = s.complete;
  complete = true;
  auto push = [&](Constraint c) {
    if (C.size() >= kMaxConstraints) return complete = false;
    C.push_back(c);
    return true;
  };
  auto pos_of = [&](uint32_t v) { return v == 0 ? 0u : v - p.chain_begin[p.chain[v]]; };
  auto chain_of = [&](uint32_t v) { return v == 0 ? k : p.chain[v]; };
  std::vector<uint32_t> reach, back;
  std::vector<uint32_t> first_in(width, 0), first_stamp(width, 0);
  uint32_t stamp_epoch = 0;
  if (use_reach) {
    reach.assign(static_cast<size_t>(n) * width, kInf);
    back.assign(static_cast<size_t>(n) * width, 0);
  }
  auto reaches = [&](uint32_t u, uint32_t v) {
    if (u == v) return true;
    if (v == 0) return false;
    return reach[static_cast<size_t>(u) * width + p.chain[v]] <= pos_of(v);
  };

  // Without reachability (too large a problem), every constraint is generated up front.
  if (polygraph && !use_reach) {
    for (uint32_t i = 0; i < p.reads.size() && complete; ++i) {
      const Problem::Read& r = p.reads[i];
      if (r.writer == 0) continue;
      for (uint32_t j = kbeg[r.key]; j < kbeg[r.key + 1] && complete; ++j)
        if (writers[j] != r.writer && writers[j] != reader[i]) push({i, writers[j]});
    }
    if (p.si && complete) {
      FlatMap64 seen;
      for (uint32_t x = 0; x < p.num_keys && complete; ++x)
        for (uint32_t a = kbeg[x]; a < kbeg[x + 1] && complete; ++a)
          for (uint32_t b = kbeg[x]; b < kbeg[x + 1] && complete; ++b) {
            const uint32_t w1 = writers[a], w2 = writers[b];
            if (w1 != w2 && seen.insert((uint64_t(w1) << 32) | w2, 1) == 1)
              push({w1, w2 | kConflictFlag});
          }
    }
  } else if (!polygraph) {
    complete = p.reads.empty() && !p.si;
  }
  bool generated = !use_reach;
  s.constraints = C.size();

  // With reachability, constraints are generated after the first round and only where the
  // known graph leaves them open: for a read of x by t3 from t1 and a chain c, the writers of
  // x in c that reach t1 or that t3 reaches are settled, so only a window of positions in
  // between is enumerated (and likewise for SI's conflicts).
  auto generate_open = [&]() {
    // The writers of each key grouped by chain: [gbeg[x], gbeg[x+1]) index groups of
    // (chain, first index into writers, end index).
    struct Group {
      uint32_t chain, begin, end;
    };
    std::vector<uint32_t> gbeg(p.num_keys + 1, 0);
    std::vector<Group> groups;
    for (uint32_t x = 0; x < p.num_keys; ++x) {
      gbeg[x] = static_cast<uint32_t>(groups.size());
      for (uint32_t j = kbeg[x]; j < kbeg[x + 1];) {
        uint32_t e = j;
        while (e < kbeg[x + 1] && p.chain[writers[e]] == p.chain[writers[j]]) ++e;
        groups.push_back({p.chain[writers[j]], j, e});
        j = e;
      }
    }
    gbeg[p.num_keys] = static_cast<uint32_t>(groups.size());
    // Writers of group g in positions strictly between lo (exclusive: below it they reach
    // `to`) and hi (from it on `from` reaches them).
    auto window = [&](const Group& g, uint32_t below, uint32_t from_pos, auto&& emit) {
      const uint32_t base = p.chain_begin[g.chain];
      auto first = std::lower_bound(writers.begin() + g.begin, writers.begin() + g.end, base + below);
      for (auto it = first; it != writers.begin() + g.end && *it - base < from_pos; ++it)
        if (!emit(*it)) return false;
      return true;
    };
    for (uint32_t i = 0; i < p.reads.size() && complete; ++i) {
      if ((i & 0xFFFF) == 0xFFFF && budget.expired()) return false;
      const Problem::Read& r = p.reads[i];
      const uint32_t t1 = r.writer, t3 = reader[i];
      if (t1 == 0) continue;
      const uint32_t* R = reach.data() + static_cast<size_t>(t3) * width;
      const uint32_t* B = back.data() + static_cast<size_t>(t1) * width;
      for (uint32_t gi = gbeg[r.key]; gi < gbeg[r.key + 1] && complete; ++gi) {
        const Group& g = groups[gi];
        window(g, B[g.chain], R[g.chain], [&](uint32_t t2) {
          return t2 == t1 || t2 == t3 || push({i, t2});
        });
      }
    }
    if (p.si) {
      // Conflict (w1, w2): settled when W_w2 reaches R_w1 or W_w1 reaches R_w2 (= w2 - 1).
      FlatMap64 seen;
      for (uint32_t x = 0; x < p.num_keys && complete; ++x)
        for (uint32_t a = kbeg[x]; a < kbeg[x + 1] && complete; ++a) {
          const uint32_t w1 = writers[a];
          const uint32_t* R = reach.data() + static_cast<size_t>(w1) * width;
          const uint32_t* B = back.data() + static_cast<size_t>(w1 - 1) * width;
          for (uint32_t gi = gbeg[x]; gi < gbeg[x + 1] && complete; ++gi) {
            const Group& g = groups[gi];
            // w2 - 1 reached from W_w1: pos(w2) - 1 >= R[c], i.e. pos(w2) > R[c].
            const uint32_t hi = R[g.chain] == kInf ? kInf : R[g.chain] + 1;
            window(g, B[g.chain], hi, [&](uint32_t w2) {
              if (w2 == w1 || seen.insert((uint64_t(w1) << 32) | w2, 1) != 1) return true;
              return push({w1, w2 | kConflictFlag});
            });
          }
        }
    }
    return true;
  };

  bool last_round = false;
  while (true) {
    ++s.rounds;
    if (budget.expired()) {
      s.outcome = Saturation::Unknown;
      return s;
    }
    DigraphBuilder b(n);
    b.reserve(E.size());
    for (uint32_t i = 0; i < E.size(); ++i) b.add(E[i].from, E[i].to, i);
    Digraph g = b.build();
    std::vector<uint32_t> order = topological_order(g);
    if (order.empty()) {
      s.outcome = Saturation::Cycle;  // the witness (witness.cpp) looks for its shortest cycle
      return s;
    }
    s.order = std::move(order);
    if (last_round) break;
    if (!use_reach) break;
    std::fill(reach.begin(), reach.end(), kInf);
    for (size_t oi = s.order.size(); oi-- > 0;) {
      const uint32_t u = s.order[oi];
      uint32_t* R = reach.data() + static_cast<size_t>(u) * width;
      // Of u's successors in one chain, the first reaches the others (session order): only it
      // is merged (forced edges give hot-key nodes hundreds of successors in each chain).
      ++stamp_epoch;
      for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
        const uint32_t t = g.targets[e], c = chain_of(t);
        if (first_stamp[c] != stamp_epoch || pos_of(t) < pos_of(first_in[c]))
          first_stamp[c] = stamp_epoch, first_in[c] = t;
      }
      for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
        const uint32_t t = g.targets[e], c = chain_of(t);
        if (first_in[c] != t || first_stamp[c] != stamp_epoch) continue;
        first_stamp[c] = 0;  // merged once
        const uint32_t* S = reach.data() + static_cast<size_t>(t) * width;
        for (size_t c2 = 0; c2 < width; ++c2) R[c2] = std::min(R[c2], S[c2]);
      }
      R[chain_of(u)] = std::min(R[chain_of(u)], pos_of(u));
    }
    if (!generated) {
      std::fill(back.begin(), back.end(), 0);
      for (const uint32_t u : s.order) {
        uint32_t* B = back.data() + static_cast<size_t>(u) * width;
        B[chain_of(u)] = std::max(B[chain_of(u)], pos_of(u) + 1);
        for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
          uint32_t* T = back.data() + static_cast<size_t>(g.targets[e]) * width;
          for (size_t c = 0; c < width; ++c) T[c] = std::max(T[c], B[c]);
        }
      }
      if (!generate_open()) {
        s.outcome = Saturation::Unknown;
        return s;
      }
      generated = true;
      s.constraints = C.size();
      back = {};
    }
    const size_t before = E.size();
    size_t keep = 0;
    for (size_t ci = 0; ci < C.size(); ++ci) {
      if ((ci & 0xFFFF) == 0xFFFF && budget.expired()) {
        s.outcome = Saturation::Unknown;
        return s;
      }
      const Constraint c = C[ci];
      // Either a -> b or c2 -> d.
      uint32_t a, bb, c2, d;
      if (c.y & kConflictFlag) {
        const uint32_t w1 = c.x, w2 = c.y & ~kConflictFlag;
        a = w2, bb = w1 - 1, c2 = w1, d = w2;
      } else {
        const uint32_t t3 = reader[c.x], t1 = p.reads[c.x].writer, t2 = c.y;
        a = t2, bb = t1, c2 = t3, d = t2;
      }
      if (reaches(a, bb) || reaches(c2, d)) continue;  // settled
      const bool first_cycles = reaches(bb, a), second_cycles = reaches(d, c2);
      if (!force || (!first_cycles && !second_cycles)) {
        C[keep++] = c;
        continue;
      }
      // Force the side that does not close a cycle (both: the next round finds the cycle).
      if (c.y & kConflictFlag) {
        const uint32_t w1 = c.x, w2 = c.y & ~kConflictFlag;
        if (first_cycles) E.push_back({w1, w2, EdgeType::CO, kNone, w2 - 1, kNone, static_cast<uint32_t>(before)});
        if (second_cycles) E.push_back({w2, w1 - 1, EdgeType::CO, kNone, w1, kNone, static_cast<uint32_t>(before)});
      } else {
        const Problem::Read& r = p.reads[c.x];
        const uint32_t t3 = reader[c.x], t1 = r.writer, t2 = c.y;
        if (first_cycles) E.push_back({t3, t2, EdgeType::RW, r.key, t1, r.op, static_cast<uint32_t>(before)});
        if (second_cycles) E.push_back({t2, t1, EdgeType::WW, r.key, t3, r.op, static_cast<uint32_t>(before)});
      }
    }
    C.resize(keep);
    s.forced += E.size() - before;
    if (E.size() == before) break;
    // On large problems the rounds reach a long tail (serial hot-key histories: 57 rounds, the
    // last 50 of them forcing under 1% of what is open, each costing nodes x sessions): when a
    // round forces under 1/16 of the open constraints, the solver takes what is left.
    // (The next round still orders the known edges, or finds the cycle they close.)
    if (static_cast<size_t>(n) * width > long_tail_reach && s.rounds >= 3 && (E.size() - before) * 16 < C.size())
      last_round = true;
  }
  s.outcome = complete && C.empty() ? Saturation::Settled : Saturation::Open;
  return s;
}

}  // namespace isoscope::strong
