// Candidate commit orders: a guess at a solution, checked by verify_order in O(reads log writers)
// before any polygraph is built. Histories that hold usually come with their own commit order:
//   timestamps  a transaction's writes take effect at its end (whole transactions, write halves)
//               and its reads at its start (read halves): the commit order of the databases
//               that the timestamps were recorded from (and of every simulator engine);
//   replay      without timestamps, the history executed again one transaction at a time
//               against a store, choosing next a transaction whose reads see the current
//               values and whose writes overwrite no value still to be read: a search that
//               prefers the transaction with the longest chain of known edges still after it
//               and undoes its last choices at a dead end (within a budget).
// A guess that does not verify costs little and decides nothing: the polygraph follows. One that
// verifies is a pass with its witness (the commit order) at no cost of saturation or search.
#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

#include "checkers/strong/internal.h"
#include "util/flat_map.h"

namespace isoscope::strong {

std::vector<uint32_t> timestamp_order(const Instance& in, const Problem& p) {
  if (in.n() < 2) return {};
  // Event times of the nodes: whole transactions and write halves at their end, read halves
  // at their start.
  std::vector<std::pair<Time, uint32_t>> ev;
  ev.reserve(p.n - 1);
  for (uint32_t v = 1; v < p.n; ++v) {
    const uint32_t t = p.txn[v];
    if (!in.timed[t]) return {};
    ev.push_back({p.part[v] == Part::Read ? in.times[t].start : in.times[t].end, v});
  }
  // Ties keep node order (session order, read half first).
  std::sort(ev.begin(), ev.end());
  std::vector<uint32_t> order;
  order.reserve(p.n);
  order.push_back(0);
  for (const auto& e : ev) order.push_back(e.second);
  return order;
}

bool respects_real_time(const Instance& in, const Problem& p, const std::vector<uint32_t>& order) {
  // Real time: T1.end < T2.start puts T1 first. Going backwards, the smallest end among the
  // transactions placed after a node must not be below its start.
  Time min_end = Time::above_all();
  for (size_t i = order.size(); i-- > 1;) {
    const uint32_t v = order[i];
    if (p.part[v] == Part::Read) continue;  // SSER has whole transactions only
    const uint32_t t = p.txn[v];
    if (!in.timed[t]) continue;  // no real-time edges
    if (min_end < in.times[t].start) return false;
    min_end = std::min(min_end, in.times[t].end);
  }
  return true;
}

std::vector<uint32_t> replay_order(const Problem& p, bool force, const CheckBudget* budget) {
  const uint32_t n = p.n;
  if (n < 2) return {};
  for (uint32_t v = 1; v < n; ++v)
    if (p.part[v] != Part::Whole) return {};
  // Successors along the known edges (CSR) and the count of unplaced predecessors.
  std::vector<uint32_t> indeg(n, 0), sbeg(n + 1, 0), succ;
  for (uint32_t v = 1; v < n; ++v) {
    ++indeg[v], ++sbeg[p.chain_pred(v) + 1];
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) ++indeg[v], ++sbeg[p.reads[i].writer + 1];
  }
  for (const Problem::Edge& e : p.fixed) ++indeg[e.to], ++sbeg[e.from + 1];
  for (uint32_t v = 0; v < n; ++v) sbeg[v + 1] += sbeg[v];
  succ.resize(sbeg[n]);
  {
    std::vector<uint32_t> at(sbeg.begin(), sbeg.end() - 1);
    for (uint32_t v = 1; v < n; ++v) {
      succ[at[p.chain_pred(v)]++] = v;
      for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) succ[at[p.reads[i].writer]++] = v;
    }
    for (const Problem::Edge& e : p.fixed) succ[at[e.from]++] = e.to;
  }
  // Readers still to run of each (writer, key) (index into p.outs, "out"); the out of each read
  // and of each write (kNone: not read), the reads of each out and of each writer.
  std::vector<uint32_t> pending(p.outs.size());
  for (size_t i = 0; i < p.outs.size(); ++i) pending[i] = p.outs[i].count;
  std::vector<uint32_t> read_out(p.reads.size()), wout(p.wkeys.size(), kNone);
  std::vector<uint32_t> cur_out(p.num_keys, kNone);  // the out of the current value of each key
  {
    FlatMap64 outs(p.outs.size() * 2 + 16);
    for (uint32_t w = 0; w < n; ++w)
      for (uint32_t i = p.obeg[w]; i < p.obeg[w + 1]; ++i) outs.insert((uint64_t(w) << 32) | p.outs[i].key, i);
    for (uint32_t i = 0; i < p.reads.size(); ++i) {
      const uint32_t oi = outs.find((uint64_t(p.reads[i].writer) << 32) | p.reads[i].key);
      read_out[i] = oi == FlatMap64::kAbsent ? kNone : oi;
    }
    for (uint32_t v = 1; v < n; ++v)
      for (uint32_t q = p.wbeg[v]; q < p.wbeg[v + 1]; ++q) {
        const uint32_t oi = outs.find((uint64_t(v) << 32) | p.wkeys[q]);
        wout[q] = oi == FlatMap64::kAbsent ? kNone : oi;
      }
    for (uint32_t i = p.obeg[0]; i < p.obeg[1]; ++i) cur_out[p.outs[i].key] = i;
  }
  std::vector<uint32_t> orbeg(p.outs.size() + 1, 0), oreads(p.reads.size());
  for (uint32_t i = 0; i < p.reads.size(); ++i)
    if (read_out[i] != kNone) ++orbeg[read_out[i] + 1];
  for (size_t o = 0; o < p.outs.size(); ++o) orbeg[o + 1] += orbeg[o];
  {
    std::vector<uint32_t> at(orbeg.begin(), orbeg.end() - 1);
    for (uint32_t i = 0; i < p.reads.size(); ++i)
      if (read_out[i] != kNone) oreads[at[read_out[i]]++] = i;
  }
  std::vector<uint32_t> reader(p.reads.size());
  for (uint32_t v = 1; v < n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) reader[i] = v;
  const ReadsByWriter by_writer(p);
  const std::vector<uint32_t>& rwbeg = by_writer.beg;
  const std::vector<uint32_t>& rw = by_writer.reads;
  // The keys whose current value still has readers to run (an indexed set).
  std::vector<uint32_t> live, live_at(p.num_keys, kNone);
  auto refresh = [&](uint32_t x) {
    const bool on = cur_out[x] != kNone && pending[cur_out[x]] > 0;
    if (on && live_at[x] == kNone) {
      live_at[x] = static_cast<uint32_t>(live.size());
      live.push_back(x);
    } else if (!on && live_at[x] != kNone) {
      live_at[live.back()] = live_at[x];
      live[live_at[x]] = live.back();
      live.pop_back();
      live_at[x] = kNone;
    }
  };
  for (uint32_t x = 0; x < p.num_keys; ++x) refresh(x);
  // The longest path of known edges from each node to the end: on a history that ran serially,
  // a transaction's reads-from chains reach about as far as the history runs after it, so the
  // one with the longest path left is the likeliest next (list scheduling by critical path).
  std::vector<uint32_t> height(n, 0);
  {
    std::vector<uint32_t> deg(indeg), topo;
    topo.reserve(n);
    for (uint32_t v = 0; v < n; ++v)
      if (deg[v] == 0) topo.push_back(v);
    for (size_t i = 0; i < topo.size(); ++i)
      for (uint32_t e = sbeg[topo[i]]; e < sbeg[topo[i] + 1]; ++e)
        if (--deg[succ[e]] == 0) topo.push_back(succ[e]);
    for (size_t i = topo.size(); i-- > 0;) {
      const uint32_t v = topo[i];
      for (uint32_t e = sbeg[v]; e < sbeg[v + 1]; ++e) height[v] = std::max(height[v], height[succ[e]] + 1);
    }
  }
  std::vector<char> placed(n, 0), queued(n, 0);
  std::vector<uint32_t> latest(p.num_keys, 0), mark(n, 0), stack;
  uint32_t epoch = 0;
  // Visits the unplaced nodes that must run before u along the known edges and the values
  // their writes would overwrite (the current value's readers go first).
  auto visit_before = [&](uint32_t u, auto&& visit) {
    visit(p.chain_pred(u));
    for (uint32_t i = p.rbeg[u]; i < p.rbeg[u + 1]; ++i) visit(p.reads[i].writer);
    for (uint32_t q = p.wbeg[u]; q < p.wbeg[u + 1]; ++q) {
      const uint32_t o = cur_out[p.wkeys[q]];
      if (o != kNone && pending[o] > 0)
        for (uint32_t j = orbeg[o]; j < orbeg[o + 1]; ++j) visit(reader[oreads[j]]);
    }
  };
  // Whether another unplaced writer of x must run before r (so it cannot come after v's write
  // that r reads, nor between it and r): a backward search from r through the unplaced nodes,
  // bounded: left is the nodes it may still visit, shared by the searches of one transaction's
  // readers (beyond it, assumed not: a value read by thousands would otherwise cost thousands of
  // searches each time its writer is considered).
  auto writer_before = [&](uint32_t r, uint32_t x, uint32_t v, uint32_t& left) {
    ++epoch;
    stack.assign(1, r);
    mark[r] = epoch;
    while (!stack.empty() && left > 0) {
      const uint32_t w = stack.back();
      stack.pop_back();
      --left;
      if (w != r && p.writes(w, x)) return true;
      visit_before(w, [&](uint32_t u) {
        if (u != v && !placed[u] && mark[u] != epoch) mark[u] = epoch, stack.push_back(u);
      });
    }
    return false;
  };
  // Whether v can run now without a violation: its reads see the latest writes, no value it
  // overwrites has a reader still to run (other than v itself), and no reader of its writes
  // depends on another write of the key still to run. blocked_on: a key to wait on (v may run
  // once it changes).
  auto clean = [&](uint32_t v, uint32_t& blocked_on, bool lookahead = true) {
    blocked_on = kNone;
    // A read already overwritten stays so: when a guess is asked for, that violation is taken
    // and the rest of v judged as usual (else its session would wait behind it to the end).
    // Without, v waits for the key (a backtrack may undo the write that overwrote it).
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i)
      if (latest[p.reads[i].key] != p.reads[i].writer && !force) {
        blocked_on = p.reads[i].key;
        return false;
      }
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) {
      const uint32_t x = p.wkeys[i], w = latest[x];
      const uint32_t oi = cur_out[x];
      if (oi == kNone) continue;
      uint32_t left = pending[oi];
      for (uint32_t j = p.rbeg[v]; j < p.rbeg[v + 1]; ++j)
        if (p.reads[j].key == x && p.reads[j].writer == w) --left;
      if (left > 0) {
        blocked_on = x;
        return false;
      }
    }
    uint32_t left = 256;
    for (uint32_t j = rwbeg[v]; j < rwbeg[v + 1] && lookahead && left > 0; ++j)
      if (writer_before(reader[rw[j]], p.reads[rw[j]].key, v, left)) {
        blocked_on = p.reads[rw[j]].key;
        return false;
      }
    return true;
  };
  std::vector<uint32_t> order;
  order.reserve(n);
  // Backtracking (a depth-first search over the choices, chronological): a node undone may not
  // take the same place again while the nodes before it stay. taboos: (place, node), by place.
  std::vector<std::pair<uint32_t, uint32_t>> taboos;
  auto allowed = [&](uint32_t v) {
    for (size_t i = taboos.size(); i-- > 0 && taboos[i].first == order.size();)
      if (taboos[i].second == v) return false;
    return true;
  };
  // Transactions none of whose writes is read (readers among them) never stand in another's
  // way: they run first. Then the writers the present waits on (demanded), then the others, the
  // one with the longest path left first (in node order, a blind write whose readers lie far
  // ahead would freeze its keys until they run: the replay of a history of 1,000 sessions got
  // stuck after a dozen transactions).
  std::deque<uint32_t> ready_free;
  std::priority_queue<std::pair<uint32_t, uint32_t>> ready_writers;  // (height, node)
  std::vector<std::vector<uint32_t>> waiting(p.num_keys);           // blocked on a key
  // Known predecessors placed (the last resort), the longest path left first.
  std::priority_queue<std::pair<uint32_t, uint32_t>> blocked;
  std::vector<uint32_t> deferred;  // taboo where they were met
  auto consider = [&](uint32_t v) {
    uint32_t key;
    blocked.push({height[v], v});
    if (clean(v, key)) {
      queued[v] = 1;
      if (rwbeg[v] == rwbeg[v + 1]) ready_free.push_back(v);
      else ready_writers.push({height[v], v});
    } else {
      waiting[key].push_back(v);
    }
  };
  std::vector<uint32_t> wake, saved_latest;
  auto wake_keys = [&]() {
    for (size_t k = 0; k < wake.size(); ++k) {
      std::vector<uint32_t> w;
      w.swap(waiting[wake[k]]);
      for (uint32_t u : w)
        if (!placed[u] && !queued[u] && indeg[u] == 0) consider(u);
    }
  };
  auto place = [&](uint32_t v) {
    placed[v] = 1;
    queued[v] = 0;
    order.push_back(v);
    wake.clear();
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      const uint32_t oi = read_out[i];
      if (oi != kNone && --pending[oi] <= 1) wake.push_back(p.reads[i].key);
      refresh(p.reads[i].key);
    }
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) {
      const uint32_t x = p.wkeys[i];
      saved_latest.push_back(latest[x]);
      saved_latest.push_back(cur_out[x]);
      latest[x] = v;
      cur_out[x] = wout[i];
      refresh(x);
      wake.push_back(x);
    }
    for (uint32_t e = sbeg[v]; e < sbeg[v + 1]; ++e)
      if (--indeg[succ[e]] == 0) consider(succ[e]);
    wake_keys();
    std::vector<uint32_t> d;
    d.swap(deferred);
    for (uint32_t u : d)
      if (!placed[u] && !queued[u] && indeg[u] == 0) consider(u);
  };
  // Undoes the last placement. Queue entries of nodes whose predecessors are no longer all
  // placed go stale (skipped when met); v and the waiters on the keys it touched are judged
  // again.
  auto undo = [&]() {
    const uint32_t v = order.back();
    order.pop_back();
    placed[v] = 0;
    wake.clear();
    for (uint32_t e = sbeg[v]; e < sbeg[v + 1]; ++e) ++indeg[succ[e]];
    for (uint32_t i = p.wbeg[v + 1]; i-- > p.wbeg[v];) {
      const uint32_t x = p.wkeys[i];
      cur_out[x] = saved_latest.back();
      saved_latest.pop_back();
      latest[x] = saved_latest.back();
      saved_latest.pop_back();
      refresh(x);
      wake.push_back(x);
    }
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      if (read_out[i] != kNone) ++pending[read_out[i]];
      refresh(p.reads[i].key);
      wake.push_back(p.reads[i].key);
    }
    return v;
  };
  // The writers the present waits on: a value still to be read pins its key until its readers
  // run, so their unplaced predecessors (visit_before) come next. Among those whose known
  // predecessors are all placed, the clean one with the longest path left; kNone when none.
  std::vector<uint32_t> dmark(n, 0), dstack;
  uint32_t depoch = 0;
  auto demanded = [&](bool lookahead) {
    constexpr uint32_t kBound = 512;
    ++depoch;
    dstack.clear();
    uint32_t best = kNone, seen = 0;
    auto visit = [&](uint32_t w) {
      if (!placed[w] && dmark[w] != depoch) dmark[w] = depoch, dstack.push_back(w);
    };
    // Seeds: the readers still to run of the live values, no more than the search can expand
    // (histories that read thousands of keys from the initial transaction have thousands).
    for (size_t k = 0; k < live.size() && dstack.size() < kBound; ++k) {
      const uint32_t x = live[k];
      for (uint32_t j = orbeg[cur_out[x]]; j < orbeg[cur_out[x] + 1] && dstack.size() < kBound; ++j)
        visit(reader[oreads[j]]);
    }
    while (!dstack.empty() && seen++ < kBound) {
      const uint32_t u = dstack.back();
      dstack.pop_back();
      uint32_t key;
      if (indeg[u] == 0 && p.wbeg[u] != p.wbeg[u + 1] && (best == kNone || height[u] > height[best]) &&
          allowed(u) && clean(u, key, lookahead))
        best = u;
      visit_before(u, visit);
    }
    return best;
  };
  // The search: a dead end undoes the last choice (chronologically), within a budget of undos.
  size_t undos = 0;
  const size_t max_undos = static_cast<size_t>(n) / 4 + 256;
  // Whether u, taken from a queue, may run now (else it leaves the queue, taboo ones deferred).
  auto takes = [&](uint32_t u) {
    if (placed[u] || indeg[u] != 0) {
      queued[u] = 0;
      return false;
    }
    if (!allowed(u)) {
      queued[u] = 0;
      deferred.push_back(u);
      return false;
    }
    return true;
  };
  place(0);
  while (order.size() < n) {
    uint32_t v = kNone;
    while (!ready_free.empty() && v == kNone) {
      const uint32_t u = ready_free.front();
      ready_free.pop_front();
      if (takes(u)) v = u;
    }
    if (v == kNone) v = demanded(true);
    while (!ready_writers.empty() && v == kNone) {
      const uint32_t u = ready_writers.top().second;
      ready_writers.pop();
      if (takes(u)) v = u;
    }
    if (v != kNone) {
      queued[v] = 0;
      uint32_t key;
      if (clean(v, key)) place(v);  // still clean: an earlier placement may have changed that
      else consider(v);
      continue;
    }
    if (undos < max_undos && order.size() > 1 && (undos & 63) == 0 && budget && budget->expired()) {
      if (!force) return {};
      undos = max_undos;  // out of time: no more undoing, the rest by the fallback below
    }
    if (undos < max_undos && order.size() > 1) {
      // Dead end: the last choice is undone and taboo in its place (those after it forgotten).
      ++undos;
      const uint32_t t = static_cast<uint32_t>(order.size() - 1);
      while (!taboos.empty() && taboos.back().first > t) taboos.pop_back();
      const uint32_t u = undo();
      taboos.push_back({t, u});
      deferred.push_back(u);
      wake_keys();
      continue;
    }
    // Nothing runs cleanly: run what the present waits on anyway, else the transaction with the
    // longest path left (a guess that violates; the lazy polygraph repairs it), or give up when
    // asked for a clean replay only.
    if (!force) return {};
    taboos.clear();
    if ((v = demanded(false)) != kNone) {
      place(v);
      continue;
    }
    while (!blocked.empty() && (placed[blocked.top().second] || indeg[blocked.top().second] != 0))
      blocked.pop();
    if (blocked.empty()) return {};  // cannot happen: the known edges are acyclic
    v = blocked.top().second;
    blocked.pop();
    place(v);
  }
  return order;
}

std::vector<uint32_t> progress_order(const Problem& p) {
  std::vector<std::pair<double, uint32_t>> at;
  at.reserve(p.n);
  for (uint32_t v = 1; v < p.n; ++v) {
    const uint32_t c = p.chain[v], b = p.chain_begin[c], len = p.chain_begin[c + 1] - b;
    at.push_back({static_cast<double>(v - b) / len, v});
  }
  std::sort(at.begin(), at.end());
  std::vector<uint32_t> order = {0};
  for (const auto& a : at) order.push_back(a.second);
  return order;
}

}  // namespace isoscope::strong
