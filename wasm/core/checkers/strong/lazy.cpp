// The lazy polygraph: the constraints a candidate order violates, and only those, go to the
// solver, whose solution is the next candidate (counterexample-guided, as lazy SMT solvers add
// the clauses a model breaks). Large histories with hot keys have hundreds of millions of
// polygraph constraints, nearly all of them satisfied by the history's own commit order; the
// saturation rounds that settle them need per-node reachability over every session (memory
// and time of nodes x sessions per round). Here a round costs O(reads log writers) plus the
// solver on the violated constraints.
//
// Sound both ways: a pass is an order that verifies against every constraint; a failure is a
// subset of the constraints (with the known edges) that no order satisfies.
#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

#include "checkers/strong/internal.h"
#include "graph/digraph.h"
#include "util/flat_map.h"

namespace isoscope::strong {

namespace {

// The writers of each key in the places of an order (pos: node -> place).
struct WritersByPlace {
  std::vector<uint32_t> kbeg, wat;
  const std::vector<uint32_t>& pos;
  WritersByPlace(const Problem& p, const std::vector<uint32_t>& order, const std::vector<uint32_t>& pos_)
      : kbeg(p.num_keys + 1, 0), pos(pos_) {
    for (uint32_t v = 1; v < p.n; ++v)
      for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) ++kbeg[p.wkeys[i] + 1];
    for (uint32_t x = 0; x < p.num_keys; ++x) kbeg[x + 1] += kbeg[x];
    wat.resize(kbeg[p.num_keys]);
    std::vector<uint32_t> at(kbeg.begin(), kbeg.end() - 1);
    for (uint32_t v : order)
      for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) wat[at[p.wkeys[i]]++] = v;
  }
  // f(w) for every writer w of x placed strictly between places a and b.
  template <class F>
  void between(uint32_t x, uint32_t a, uint32_t b, F&& f) const {
    const auto first = wat.begin() + kbeg[x], last = wat.begin() + kbeg[x + 1];
    auto it = std::upper_bound(first, last, a, [&](uint32_t q, uint32_t w) { return q < pos[w]; });
    for (; it != last && pos[*it] < b; ++it) f(*it);
  }
  // The last writer of x placed before place b (0, the initial transaction, when none).
  uint32_t last_before(uint32_t x, uint32_t b) const {
    const auto first = wat.begin() + kbeg[x], last = wat.begin() + kbeg[x + 1];
    auto it = std::lower_bound(first, last, b, [&](uint32_t w, uint32_t q) { return pos[w] < q; });
    return it == first ? 0 : *(it - 1);
  }
};

// Whether key is met for the first time (it is then added to seen).
bool first_time(FlatMap64& seen, uint64_t key) {
  const uint32_t id = static_cast<uint32_t>(seen.size());
  return seen.insert(key, id) == id;
}

// Calls emit(read index, t2) for every writer t2 of the read's key strictly between the read's
// writer and its reader in the order (pos: node -> place), and conflict(w1, w2) for SI write
// halves w2 committed inside w1's snapshot window; until stop() (asked every 1,024 reads or
// write halves: a far-off order breaks reads x writers constraints, and the budget must hold).
template <class Emit, class Conflict, class Stop>
void violations(const Problem& p, const WritersByPlace& W, const std::vector<uint32_t>& pos,
                const std::vector<uint32_t>& reader, Emit&& emit, Conflict&& conflict, Stop&& stop) {
  for (uint32_t i = 0; i < p.reads.size(); ++i) {
    if ((i & 1023) == 0 && stop()) return;
    const Problem::Read& r = p.reads[i];
    W.between(r.key, pos[r.writer], pos[reader[i]], [&](uint32_t t2) { emit(i, t2); });
  }
  if (p.si)
    for (uint32_t v = 1; v < p.n; ++v) {
      if ((v & 1023) == 0 && stop()) return;
      if (p.part[v] != Part::Write) continue;
      for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i)
        W.between(p.wkeys[i], pos[v - 1], pos[v], [&](uint32_t w2) { conflict(v, w2); });
    }
}

// Real time broken by the order (whole transactions): for each transaction, the one placed
// after it that ends first, when that one ends before it starts.
template <class Emit>
void real_time_violations(const Instance& in, const Problem& p, const std::vector<uint32_t>& order,
                          Emit&& emit) {
  Time min_end = Time::above_all();
  uint32_t arg = kNone;
  for (size_t i = order.size(); i-- > 1;) {
    const uint32_t v = order[i], t = p.txn[v];
    if (!in.timed[t]) continue;
    if (min_end < in.times[t].start) emit(arg, v);
    if (in.times[t].end < min_end) min_end = in.times[t].end, arg = v;
  }
}

// Rearranges order (every node once) into a topological order of the edges that keeps nodes as
// near their places as it can (Kahn's algorithm, earliest place first). On a cycle returns
// false and marks in core the nodes of a strongly connected component on it.
bool topological_near(uint32_t n, const std::vector<Problem::Edge>& edges, std::vector<uint32_t>& order,
                      std::vector<char>& core) {
  DigraphBuilder b(n);
  b.reserve(edges.size());
  for (uint32_t i = 0; i < edges.size(); ++i) b.add(edges[i].from, edges[i].to, i);
  const Digraph g = b.build();
  std::vector<uint32_t> place(n), indeg(n, 0);
  for (uint32_t i = 0; i < n; ++i) place[order[i]] = i;
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t e = g.begin(u); e < g.end(u); ++e) ++indeg[g.targets[e]];
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;  // places
  for (uint32_t u = 0; u < n; ++u)
    if (indeg[u] == 0) ready.push(place[u]);
  const std::vector<uint32_t> old = order;
  order.clear();
  while (!ready.empty()) {
    const uint32_t u = old[ready.top()];
    ready.pop();
    order.push_back(u);
    for (uint32_t e = g.begin(u); e < g.end(u); ++e)
      if (--indeg[g.targets[e]] == 0) ready.push(place[g.targets[e]]);
  }
  if (order.size() == n) return true;
  uint32_t count = 0;
  const std::vector<uint32_t> comp = strongly_connected_components(g, count);
  std::vector<uint32_t> size(count, 0);
  for (uint32_t u = 0; u < n; ++u) ++size[comp[u]];
  uint32_t best = kNone;
  for (uint32_t c = 0; c < count; ++c)
    if (size[c] >= 2 && (best == kNone || size[c] < size[best])) best = c;
  core.assign(n, 0);
  for (uint32_t u = 0; u < n; ++u) core[u] = best != kNone && comp[u] == best;
  return false;
}

}  // namespace

// Repeated values. A read whose last writer before it in the order is one of its candidates is
// satisfied by the order: that candidate becomes its choice (and one the solver sees). Else
// the choice constraints the order breaks for its current choice are added; a read whose
// choice is not among the candidates the solver saw gets more of them, nearest the reader in
// the order first (those placed before it, latest first, then those after), as many again as
// it has (at least 4). Returns how many constraints or candidates were added.
static size_t hyper_violations(const WritersByPlace& W, const std::vector<uint32_t>& pos, Hyper& hy,
                        FlatMap64& seen) {
  size_t added = 0;
  for (Hyper::Read& rd : hy.reads) {
    const uint32_t last = W.last_before(rd.key, pos[rd.reader]);
    bool satisfied = false;
    for (uint32_t ci = rd.cbeg; ci < rd.cend && !satisfied; ++ci) {
      if (hy.cands[ci] != last) continue;
      satisfied = true;
      if (ci >= rd.cbeg + rd.expanded) {  // bring it among those the solver sees
        std::swap(hy.cands[ci], hy.cands[rd.cbeg + rd.expanded]);
        ci = rd.cbeg + rd.expanded++;
      }
      rd.chosen = ci;
    }
    if (satisfied) continue;
    if (rd.chosen == kNone) {
      const uint32_t at = pos[rd.reader];
      const auto rest = hy.cands.begin() + rd.cbeg + rd.expanded, end = hy.cands.begin() + rd.cend;
      std::sort(rest, end, [&](uint32_t a, uint32_t b) {
        const bool ab = pos[a] < at, bb = pos[b] < at;
        if (ab != bb) return ab;
        return ab ? pos[a] > pos[b] : pos[a] < pos[b];
      });
      const uint32_t more = std::min<uint32_t>(std::max<uint32_t>(4, rd.expanded), static_cast<uint32_t>(end - rest));
      rd.expanded += more;
      added += more;
      continue;
    }
    const uint32_t c = hy.cands[rd.chosen];
    if (pos[c] > pos[rd.reader]) {  // the first order need not respect the choice's WR edge
      ++added;
      continue;
    }
    W.between(rd.key, pos[c], pos[rd.reader], [&](uint32_t t2) {
      if (t2 == rd.reader) return;
      if (!first_time(seen, (uint64_t(rd.chosen) << 32) | t2)) return;
      hy.open.push_back({rd.chosen, t2});
      ++added;
    });
  }
  return added;
}

SolveResult lazy_solve(const Problem& p, const Instance* real_time, std::vector<uint32_t> order,
                       const CheckBudget& budget, LazyStats& stats, Hyper* hyper) {
  SolveResult res;
  const uint32_t n = p.n;
  // The known edges: chains, write-read, real time (in p.fixed, or added as the candidates
  // break it when real_time is given); reads of the initial value add theirs (the reader before
  // every writer) as the candidates break them.
  Saturation sat;
  for (uint32_t c = 0; c < p.k; ++c)
    for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v)
      sat.edges.push_back({v == p.chain_begin[c] ? 0u : v - 1, v, EdgeType::SO});
  sat.reader.resize(p.reads.size());
  for (uint32_t v = 1; v < n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      sat.reader[i] = v;
      sat.edges.push_back({p.reads[i].writer, v, EdgeType::WR, p.reads[i].key, p.reads[i].op});
    }
  for (const Problem::Edge& e : p.fixed) sat.edges.push_back(e);
  FlatMap64 seen(1024), seen_hyper(1024);
  constexpr size_t kMaxPerRound = size_t(1) << 22;  // constraints a round generates at most
  std::vector<uint32_t> pos(n);
  std::vector<char> core;
  while (true) {
    ++stats.rounds;
    if (budget.expired()) {
      res.verdict = Verdict::Unknown;
      res.reason = "budget ran out in the lazy polygraph";
      return res;
    }
    // The known edges hold in every order checked: the candidate is made a topological order of
    // them, nearest its own (the solver's orders are already).
    if (stats.rounds == 1 && !topological_near(n, sat.edges, order, core)) {
      res.verdict = Verdict::Fail;  // the known edges alone close a cycle
      res.core_nodes = std::move(core);
      return res;
    }
    const size_t known = sat.edges.size();
    for (uint32_t i = 0; i < n; ++i) pos[order[i]] = i;
    size_t added = 0;
    const WritersByPlace W(p, order, pos);
    violations(
        p, W, pos, sat.reader,
        [&](uint32_t i, uint32_t t2) {
          const Problem::Read& r = p.reads[i];
          if (t2 == sat.reader[i] || !first_time(seen, (uint64_t(i) << 32) | t2)) return;
          ++added;
          if (r.writer == 0)  // the initial value: its reader precedes every writer
            sat.edges.push_back({sat.reader[i], t2, EdgeType::RW, r.key, 0, r.op});
          else
            sat.open.push_back({i, t2});
        },
        [&](uint32_t w1, uint32_t w2) {
          if (w1 == w2 || !first_time(seen, (uint64_t(w1) << 32) | w2 | kConflictFlag)) return;
          ++added;
          sat.open.push_back({w1, w2 | kConflictFlag});
        },
        // Enough for one round (the next finds the rest), or out of time.
        [&] { return added > kMaxPerRound || budget.expired(); });
    if (real_time)
      real_time_violations(*real_time, p, order, [&](uint32_t from, uint32_t to) {
        ++added;
        sat.edges.push_back({from, to, EdgeType::RT});
      });
    if (hyper) added += hyper_violations(W, pos, *hyper, seen_hyper);
    stats.constraints = sat.open.size() + (hyper ? hyper->open.size() : 0);
    if (budget.expired()) continue;  // (the round may be cut short: unknown at the top)
    if (added == 0) {
      // Nothing is violated: the order is a solution (verified apart all the same).
      if (verify_order(p, {}, order)) {
        res.verdict = Verdict::Pass;
        res.order = std::move(order);
      } else {
        res.verdict = Verdict::Unknown;
        res.reason = "internal error: the lazy polygraph's order does not verify";
      }
      return res;
    }
    if (sat.edges.size() > known && !topological_near(n, sat.edges, order, core)) {
      res.verdict = Verdict::Fail;
      res.core_nodes = std::move(core);
      return res;
    }
    sat.order = order;
    SolveResult s = solve(p, sat, budget, hyper);
    stats.vars = s.vars;
    stats.conflicts += s.conflicts;
    if (s.verdict != Verdict::Pass) return s;
    order = std::move(s.order);
  }
}

}  // namespace isoscope::strong
