// The prefix search of Biswas & Enea Alg. 2 (checkSER), iterative, over a SER problem whose
// known edges come from saturation; the biconnected-component split of Sec. 5; and the
// verification of every commit order before it is reported.
//
// A state is a prefix of the chains (the per-chain positions: an antichain of session order).
// A node t extends prefix P (P ▷ P ⊎ {t}) when its predecessors are in P, and for every key x it
// writes no transaction outside P ⊎ {t} reads x from a writer in P (pending[x], the number of
// such reads, minus t's own, is 0). SI adds: a write half may not be placed while the read half
// of another transaction writing a common key is placed and its write half is not (open[x]).
// Failed prefixes are memoised exactly (the position vector, compared in full).
//
// Partial-order reduction: a node that extends P validly, whose writes nobody reads, and that
// does not open a conflict (an SI read half with writes) is placed without branching. Placing
// it earlier never hurts another node: it adds nothing to pending or open, it removes its own
// reads from pending, and it satisfies predecessors. So a solution from P exists iff one from
// P ⊎ {t} does. Under SI a valid write half is always safe as well (see safe()).
#include <algorithm>

#include "checkers/strong/internal.h"
#include "graph/digraph.h"

namespace isoscope::strong {

namespace {

constexpr size_t kMaxMemoBytes = size_t(384) << 20;

// Failed frontiers, stored exactly.
class Memo {
 public:
  explicit Memo(uint32_t k) : k_(k) { table_.assign(1024, kEmpty); }
  bool contains(const std::vector<uint32_t>& pos) const {
    const uint64_t h = hash(pos);
    for (size_t i = h & (table_.size() - 1);; i = (i + 1) & (table_.size() - 1)) {
      const uint32_t e = table_[i];
      if (e == kEmpty) return false;
      if (hashes_[e] == h && std::equal(pos.begin(), pos.end(), data_.begin() + size_t(e) * k_)) return true;
    }
  }
  void insert(const std::vector<uint32_t>& pos) {
    if ((hashes_.size() + 1) * 2 > table_.size()) grow();
    const uint64_t h = hash(pos);
    size_t i = h & (table_.size() - 1);
    while (table_[i] != kEmpty) i = (i + 1) & (table_.size() - 1);
    table_[i] = static_cast<uint32_t>(hashes_.size());
    hashes_.push_back(h);
    data_.insert(data_.end(), pos.begin(), pos.end());
  }
  size_t bytes() const {
    return data_.capacity() * 4 + hashes_.capacity() * 8 + table_.capacity() * 4;
  }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  uint64_t hash(const std::vector<uint32_t>& pos) const {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (uint32_t x : pos) {
      h ^= x;
      h *= 0xFF51AFD7ED558CCDULL;
      h ^= h >> 32;
    }
    return h;
  }
  void grow() {
    std::vector<uint32_t> t(table_.size() * 2, kEmpty);
    for (uint32_t e = 0; e < hashes_.size(); ++e) {
      size_t i = hashes_[e] & (t.size() - 1);
      while (t[i] != kEmpty) i = (i + 1) & (t.size() - 1);
      t[i] = e;
    }
    table_.swap(t);
  }
  uint32_t k_;
  std::vector<uint32_t> table_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> data_;
};

class Searcher {
 public:
  Searcher(const Problem& p, const std::vector<Problem::Edge>& edges,
           const std::vector<uint32_t>& rank, bool reduce)
      : p_(p), rank_(rank), reduce_(reduce), memo_(p.k) {
    // Predecessors: every known edge that the chains do not already imply.
    std::vector<uint32_t> cnt(p.n + 1, 0);
    auto needed = [&](const Problem::Edge& e) {
      if (e.from == 0 || e.from == e.to) return e.from == e.to;
      return !(p.chain[e.from] == p.chain[e.to] && e.from < e.to);
    };
    for (const Problem::Edge& e : edges)
      if (needed(e)) ++cnt[e.to + 1];
    for (uint32_t v = 0; v < p.n; ++v) cnt[v + 1] += cnt[v];
    pbeg_ = cnt;
    preds_.resize(cnt[p.n]);
    for (const Problem::Edge& e : edges)
      if (needed(e)) preds_[cnt[e.to]++] = e.from;
    placed_.assign(p.n, 0);
    placed_[0] = 1;
    pending_.assign(p.num_keys, 0);
    open_.assign(p.num_keys, 0);
    pos_.assign(p.k, 0);
    for (uint32_t i = p.obeg[0]; i < p.obeg[1]; ++i) pending_[p.outs[i].key] += p.outs[i].count;
    seq_.push_back(0);
  }

  SearchResult run(const CheckBudget& budget) {
    SearchResult res;
    struct Frame {
      uint32_t forced_begin, last_rank, child;
    };
    std::vector<Frame> stack;
    std::vector<uint32_t> forced;
    closure(forced);
    if (seq_.size() == p_.n) return success(res);
    stack.push_back({0, kNone, kNone});
    size_t steps = 0;
    while (!stack.empty()) {
      if ((++steps & 1023) == 0) {
        if (budget.expired()) {
          res.verdict = Verdict::Unknown;
          res.reason = "budget ran out during the search";
          return res;
        }
        if (memo_.bytes() > kMaxMemoBytes) {
          res.verdict = Verdict::Unknown;
          res.reason = "the search needs more memory than allowed";
          return res;
        }
      }
      Frame& f = stack.back();
      if (f.child != kNone) {
        unplace(f.child);
        f.child = kNone;
      }
      // The untried candidate of least rank that extends the prefix validly.
      uint32_t v = kNone;
      while (true) {
        uint32_t best = kNone, best_rank = kNone;
        for (uint32_t c = 0; c < p_.k; ++c) {
          const uint32_t u = p_.chain_begin[c] + pos_[c];
          if (u >= p_.chain_begin[c + 1]) continue;
          const uint32_t r = rank_[u];
          if (f.last_rank != kNone && r <= f.last_rank) continue;
          if (best == kNone || r < best_rank) best = u, best_rank = r;
        }
        if (best == kNone) break;
        f.last_rank = best_rank;
        if (try_place(best)) {
          v = best;
          break;
        }
      }
      if (v == kNone) {  // every extension fails: this prefix is not serializable
        memo_.insert(pos_);
        while (forced.size() > f.forced_begin) {
          unplace(forced.back());
          forced.pop_back();
        }
        stack.pop_back();
        continue;
      }
      f.child = v;
      const uint32_t fb = static_cast<uint32_t>(forced.size());
      closure(forced);
      if (seq_.size() == p_.n) return success(res);
      if (memo_.contains(pos_)) {
        ++res.memo_hits;
        while (forced.size() > fb) {
          unplace(forced.back());
          forced.pop_back();
        }
        continue;
      }
      ++res.states;
      stack.push_back({fb, kNone, kNone});
    }
    res.verdict = Verdict::Fail;
    return res;
  }

 private:
  SearchResult& success(SearchResult& res) {
    res.verdict = Verdict::Pass;
    res.order = seq_;
    return res;
  }
  bool try_place(uint32_t v) {
    for (uint32_t i = pbeg_[v]; i < pbeg_[v + 1]; ++i)
      if (!placed_[preds_[i]]) return false;
    for (uint32_t i = p_.rbeg[v]; i < p_.rbeg[v + 1]; ++i) --pending_[p_.reads[i].key];
    bool ok = true;
    for (uint32_t i = p_.wbeg[v]; i < p_.wbeg[v + 1] && ok; ++i) ok = pending_[p_.wkeys[i]] == 0;
    if (ok && p_.si && p_.part[v] == Part::Write)
      for (uint32_t i = p_.wbeg[v]; i < p_.wbeg[v + 1] && ok; ++i) ok = open_[p_.wkeys[i]] == 1;
    if (!ok) {
      for (uint32_t i = p_.rbeg[v]; i < p_.rbeg[v + 1]; ++i) ++pending_[p_.reads[i].key];
      return false;
    }
    for (uint32_t i = p_.obeg[v]; i < p_.obeg[v + 1]; ++i) pending_[p_.outs[i].key] += p_.outs[i].count;
    if (p_.si) {
      if (p_.part[v] == Part::Read)
        for (uint32_t i = p_.wbeg[v + 1]; i < p_.wbeg[v + 2]; ++i) ++open_[p_.wkeys[i]];
      else if (p_.part[v] == Part::Write)
        for (uint32_t i = p_.wbeg[v]; i < p_.wbeg[v + 1]; ++i) --open_[p_.wkeys[i]];
    }
    placed_[v] = 1;
    ++pos_[p_.chain[v]];
    seq_.push_back(v);
    return true;
  }
  void unplace(uint32_t v) {
    seq_.pop_back();
    --pos_[p_.chain[v]];
    placed_[v] = 0;
    if (p_.si) {
      if (p_.part[v] == Part::Read)
        for (uint32_t i = p_.wbeg[v + 1]; i < p_.wbeg[v + 2]; ++i) --open_[p_.wkeys[i]];
      else if (p_.part[v] == Part::Write)
        for (uint32_t i = p_.wbeg[v]; i < p_.wbeg[v + 1]; ++i) ++open_[p_.wkeys[i]];
    }
    for (uint32_t i = p_.obeg[v]; i < p_.obeg[v + 1]; ++i) pending_[p_.outs[i].key] -= p_.outs[i].count;
    for (uint32_t i = p_.rbeg[v]; i < p_.rbeg[v + 1]; ++i) ++pending_[p_.reads[i].key];
  }
  bool safe(uint32_t v) const {
    // SI: a valid write half is always safe. Between its read half and any later place, no
    // write half of a conflicting transaction can be placed (the open rule), and nobody else
    // writes its keys; its validity now means no pending reader of those keys is left.
    if (p_.si && p_.part[v] == Part::Write) return true;
    if (p_.obeg[v] != p_.obeg[v + 1]) return false;
    if (p_.si && p_.part[v] == Part::Read && p_.wbeg[v + 1] != p_.wbeg[v + 2]) return false;
    return true;
  }
  void closure(std::vector<uint32_t>& forced) {
    if (!reduce_) return;
    bool any = true;
    while (any) {
      any = false;
      for (uint32_t c = 0; c < p_.k; ++c) {
        while (true) {
          const uint32_t u = p_.chain_begin[c] + pos_[c];
          if (u >= p_.chain_begin[c + 1] || !safe(u) || !try_place(u)) break;
          forced.push_back(u);
          any = true;
        }
      }
    }
  }

  const Problem& p_;
  const std::vector<uint32_t>& rank_;
  bool reduce_;
  Memo memo_;
  std::vector<uint32_t> pbeg_, preds_;
  std::vector<char> placed_;
  std::vector<int32_t> pending_, open_;
  std::vector<uint32_t> pos_, seq_;
};

// Biconnected components of the communication graph (sessions; an edge when two sessions
// access a common key), iteratively (Hopcroft-Tarjan with an edge stack). Isolated sessions
// are components of their own.
std::vector<std::vector<uint32_t>> biconnected_components(const Problem& p) {
  const uint32_t k = p.k;
  std::vector<std::vector<uint32_t>> adj(k);
  {
    std::vector<uint32_t> kstamp(p.num_keys, kNone);
    std::vector<std::vector<uint32_t>> by_key(p.num_keys);
    for (uint32_t c = 0; c < k; ++c)
      for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v) {
        for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i)
          if (kstamp[p.reads[i].key] != c) kstamp[p.reads[i].key] = c, by_key[p.reads[i].key].push_back(c);
        for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i)
          if (kstamp[p.wkeys[i]] != c) kstamp[p.wkeys[i]] = c, by_key[p.wkeys[i]].push_back(c);
      }
    std::vector<char> m(static_cast<size_t>(k) * k, 0);
    for (const std::vector<uint32_t>& cs : by_key)
      for (size_t i = 0; i < cs.size(); ++i)
        for (size_t j = i + 1; j < cs.size(); ++j) {
          const uint32_t a = cs[i], b = cs[j];
          if (m[size_t(a) * k + b]) continue;
          m[size_t(a) * k + b] = m[size_t(b) * k + a] = 1;
          adj[a].push_back(b);
          adj[b].push_back(a);
        }
  }
  std::vector<std::vector<uint32_t>> comps;
  std::vector<uint32_t> disc(k, kNone), low(k, 0), parent(k, kNone), mark(k, kNone);
  struct F {
    uint32_t v, i;
  };
  std::vector<F> st;
  std::vector<std::pair<uint32_t, uint32_t>> es;
  uint32_t time = 0;
  for (uint32_t r = 0; r < k; ++r) {
    if (disc[r] != kNone) continue;
    if (adj[r].empty()) {
      disc[r] = time++;
      comps.push_back({r});
      continue;
    }
    disc[r] = low[r] = time++;
    st.push_back({r, 0});
    while (!st.empty()) {
      F& f = st.back();
      const uint32_t v = f.v;
      if (f.i < adj[v].size()) {
        const uint32_t w = adj[v][f.i++];
        if (disc[w] == kNone) {
          parent[w] = v;
          es.push_back({v, w});
          disc[w] = low[w] = time++;
          st.push_back({w, 0});
        } else if (w != parent[v] && disc[w] < disc[v]) {
          low[v] = std::min(low[v], disc[w]);
          es.push_back({v, w});
        }
        continue;
      }
      st.pop_back();
      if (st.empty()) break;
      const uint32_t u = st.back().v;
      low[u] = std::min(low[u], low[v]);
      if (low[v] >= disc[u]) {
        std::vector<uint32_t> comp;
        const uint32_t id = static_cast<uint32_t>(comps.size());
        while (!es.empty()) {
          const auto e = es.back();
          es.pop_back();
          for (uint32_t x : {e.first, e.second})
            if (mark[x] != id) mark[x] = id, comp.push_back(x);
          if (e.first == u && e.second == v) break;
        }
        std::sort(comp.begin(), comp.end());
        comps.push_back(std::move(comp));
      }
    }
  }
  return comps;
}

std::vector<uint32_t> ranks(const Problem& p, const Saturation& sat) {
  // The search tries candidates in the order of a topological order of the saturated graph.
  // For split problems a transaction's two halves get adjacent ranks (at its write half's
  // place), so the search tries to commit a transaction right after its snapshot: an open read
  // half blocks conflicting writers under SI.
  std::vector<uint32_t> rank(p.n, 0);
  if (sat.order.size() == p.n)
    for (uint32_t i = 0; i < p.n; ++i) rank[sat.order[i]] = i;
  else
    for (uint32_t v = 0; v < p.n; ++v) rank[v] = v;
  const bool split = p.n > 1 && p.part[1] == Part::Read;
  if (split)
    for (uint32_t v = 1; v + 1 < p.n; v += 2) {
      rank[v] = 2 * rank[v + 1];
      rank[v + 1] = 2 * rank[v + 1] + 1;
    }
  return rank;
}

SearchResult search_whole(const Problem& p, const std::vector<Problem::Edge>& edges,
                          const std::vector<uint32_t>& rank, const StrongOptions& opts,
                          const CheckBudget& budget) {
  Searcher s(p, edges, rank, opts.reduce);
  SearchResult r = s.run(budget);
  r.components = 1;
  return r;
}

}  // namespace

SearchResult search(const Problem& p, const Saturation& sat, const StrongOptions& opts,
                    const CheckBudget& budget) {
  const std::vector<uint32_t> rank = ranks(p, sat);
  std::vector<std::vector<uint32_t>> comps;
  if (opts.decompose && p.level != Level::SSER && p.k > 1 && p.k <= 4096)
    comps = biconnected_components(p);
  if (comps.size() <= 1) {
    SearchResult r = search_whole(p, sat.edges, rank, opts, budget);
    if (r.verdict == Verdict::Fail) r.failed_chains.assign(p.k, 1);
    return r;
  }
  // Thm 5.2: h satisfies the level iff every component's projection does. Known edges between
  // nodes of one component stay (they hold in every solution); the others are dropped.
  SearchResult total;
  total.components = comps.size();
  std::vector<std::vector<uint32_t>> orders;
  // Components with the fewest sessions first: a violation there is cheap to find.
  std::sort(comps.begin(), comps.end(),
            [](const auto& a, const auto& b) { return a.size() < b.size(); });
  for (const std::vector<uint32_t>& comp : comps) {
    std::vector<char> keep(p.k, 0);
    for (uint32_t c : comp) keep[c] = 1;
    std::vector<uint32_t> map;
    Problem q = sub_problem(p, keep, map);
    std::vector<Problem::Edge> edges;
    for (const Problem::Edge& e : sat.edges)
      if (map[e.from] != kNone && map[e.to] != kNone) {
        Problem::Edge f = e;
        f.from = map[e.from];
        f.to = map[e.to];
        edges.push_back(f);
      }
    std::vector<uint32_t> qrank(q.n, 0), back(q.n, 0);
    for (uint32_t v = 0; v < p.n; ++v)
      if (map[v] != kNone) qrank[map[v]] = rank[v], back[map[v]] = v;
    Searcher s(q, edges, qrank, opts.reduce);
    SearchResult r = s.run(budget);
    total.states += r.states;
    total.memo_hits += r.memo_hits;
    if (r.verdict == Verdict::Fail) {
      total.verdict = Verdict::Fail;
      total.failed_chains = keep;
      return total;
    }
    if (r.verdict != Verdict::Pass) {
      total.verdict = r.verdict;
      total.reason = r.reason;
      return total;
    }
    for (uint32_t& v : r.order) v = back[v];
    orders.push_back(std::move(r.order));
  }
  // A commit order for the whole history: a linearization of the union of the components'
  // orders (acyclic by Thm 5.2) and the chains.
  DigraphBuilder b(p.n);
  for (uint32_t c = 0; c < p.k; ++c)
    for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v)
      b.add(v == p.chain_begin[c] ? 0 : v - 1, v);
  for (const std::vector<uint32_t>& o : orders)
    for (size_t i = 1; i < o.size(); ++i) b.add(o[i - 1], o[i]);
  total.order = topological_order(b.build());
  total.verdict = Verdict::Pass;
  if (total.order.empty()) {  // cannot happen (Thm 5.2); search the whole problem instead
    SearchResult r = search_whole(p, sat.edges, rank, opts, budget);
    if (r.verdict == Verdict::Fail) r.failed_chains.assign(p.k, 1);
    return r;
  }
  return total;
}

bool verify_order(const Problem& p, const std::vector<Problem::Edge>& edges,
                  const std::vector<uint32_t>& order) {
  if (order.size() != p.n || order.empty() || order[0] != 0) return false;
  std::vector<uint32_t> pos(p.n, kNone);
  for (uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] >= p.n || pos[order[i]] != kNone) return false;
    pos[order[i]] = i;
  }
  for (uint32_t c = 0; c < p.k; ++c)
    for (uint32_t v = p.chain_begin[c] + 1; v < p.chain_begin[c + 1]; ++v)
      if (pos[v - 1] > pos[v]) return false;
  for (const Problem::Edge& e : edges)
    if (pos[e.from] >= pos[e.to]) return false;
  for (const Problem::Edge& e : p.fixed)
    if (pos[e.from] >= pos[e.to]) return false;
  // Writer positions per key (node 0 writes every key, at position 0).
  std::vector<std::vector<uint32_t>> wpos(p.num_keys);
  for (uint32_t v = 1; v < p.n; ++v)
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) wpos[p.wkeys[i]].push_back(pos[v]);
  for (auto& w : wpos) std::sort(w.begin(), w.end());
  for (uint32_t v = 1; v < p.n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      const Problem::Read& r = p.reads[i];
      const uint32_t a = pos[r.writer], b = pos[v];
      if (a >= b) return false;
      const auto& w = wpos[r.key];
      auto it = std::upper_bound(w.begin(), w.end(), a);
      if (it != w.end() && *it < b) return false;  // a writer between the write and the read
    }
  if (p.si)
    for (uint32_t v = 1; v < p.n; ++v) {
      if (p.part[v] != Part::Write) continue;
      for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) {
        const auto& w = wpos[p.wkeys[i]];
        auto it = std::upper_bound(w.begin(), w.end(), pos[v - 1]);
        if (it != w.end() && *it < pos[v]) return false;  // committed inside v's snapshot window
      }
    }
  return true;
}

}  // namespace isoscope::strong
