// Candidate commit orders: a guess at a solution, checked by verify_order in O(reads log writers)
// before any polygraph is built. Histories that hold usually come with their own commit order:
//   timestamps  a transaction's writes take effect at its end (whole transactions, write halves)
//               and its reads at its start (read halves): the commit order of the databases
//               that the timestamps were recorded from (and of every simulator engine);
//   replay      without timestamps, the history executed again one transaction at a time
//               against a store, choosing next a transaction whose reads see the current
//               values and whose writes overwrite no value still to be read.
// A guess that does not verify costs little and decides nothing: the polygraph follows. One that
// verifies is a pass with its witness (the commit order) at no cost of saturation or search.
#include <algorithm>
#include <cmath>
#include <deque>

#include "checkers/strong/internal.h"

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

std::vector<uint32_t> replay_order(const Problem& p, bool force) {
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
  // Readers still to run of each (writer, key) (index into p.outs), and the reads of each writer.
  std::vector<uint32_t> pending(p.outs.size());
  for (size_t i = 0; i < p.outs.size(); ++i) pending[i] = p.outs[i].count;
  // p.outs is sorted by key within each writer: a binary search (the initial transaction has an
  // entry for every key read from it, thousands in TPC-C).
  auto out_index = [&](uint32_t w, uint32_t key) {
    const auto first = p.outs.begin() + p.obeg[w], last = p.outs.begin() + p.obeg[w + 1];
    const auto it = std::lower_bound(first, last, key, [](const Problem::Out& o, uint32_t k) { return o.key < k; });
    return it != last && it->key == key ? static_cast<uint32_t>(it - p.outs.begin()) : kNone;
  };
  std::vector<uint32_t> rwbeg(n + 1, 0), rw(p.reads.size()), reader(p.reads.size());
  for (uint32_t v = 1; v < n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) reader[i] = v;
  for (const Problem::Read& r : p.reads) ++rwbeg[r.writer + 1];
  for (uint32_t v = 0; v < n; ++v) rwbeg[v + 1] += rwbeg[v];
  {
    std::vector<uint32_t> at(rwbeg.begin(), rwbeg.end() - 1);
    for (uint32_t i = 0; i < p.reads.size(); ++i) rw[at[p.reads[i].writer]++] = i;
  }
  // Each writer's reads by key, so that the readers of one (writer, key) are a range.
  for (uint32_t v = 0; v < n; ++v)
    std::sort(rw.begin() + rwbeg[v], rw.begin() + rwbeg[v + 1],
              [&](uint32_t a, uint32_t b) { return p.reads[a].key < p.reads[b].key; });
  auto readers_of = [&](uint32_t w, uint32_t key) {
    const auto first = rw.begin() + rwbeg[w], last = rw.begin() + rwbeg[w + 1];
    const auto lo = std::lower_bound(first, last, key, [&](uint32_t i, uint32_t k) { return p.reads[i].key < k; });
    const auto hi = std::upper_bound(lo, last, key, [&](uint32_t k, uint32_t i) { return k < p.reads[i].key; });
    return std::pair{lo, hi};
  };
  auto writes = [&](uint32_t u, uint32_t x) {
    for (uint32_t q = p.wbeg[u]; q < p.wbeg[u + 1]; ++q)
      if (p.wkeys[q] == x) return true;
    return false;
  };
  std::vector<char> placed(n, 0), queued(n, 0);
  std::vector<uint32_t> latest(p.num_keys, 0), mark(n, 0), stack;
  uint32_t epoch = 0;
  // The readers of each key's current value (latest[key]'s write of it): a range of rw, set
  // whenever latest changes; at first the initial transaction's, one pass over its reads.
  std::vector<std::pair<uint32_t, uint32_t>> current_readers(p.num_keys, {0, 0});
  for (uint32_t j = rwbeg[0]; j < rwbeg[1];) {
    const uint32_t key = p.reads[rw[j]].key;
    uint32_t e = j;
    while (e < rwbeg[1] && p.reads[rw[e]].key == key) ++e;
    current_readers[key] = {j, e};
    j = e;
  }
  // Whether another unplaced writer of x must run before r (it reaches r along the known edges,
  // so it cannot come after v's write that r reads, nor between it and r): a backward search
  // from r through the unplaced nodes, bounded (beyond the bound, assumed not). Most searches
  // find nothing and run to the bound: at 256 nodes they took 96% of SER on VeriStrong's
  // PostgreSQL histories (2,000 transactions: 2.5 s of CPU; 0.14 s at 16) with the same
  // verdicts, and no generate shape tried needed more.
  auto writer_before = [&](uint32_t r, uint32_t x, uint32_t v) {
    constexpr uint32_t kBound = 16;
    ++epoch;
    stack.assign(1, r);
    mark[r] = epoch;
    uint32_t seen = 0;
    while (!stack.empty() && seen < kBound) {
      const uint32_t w = stack.back();
      stack.pop_back();
      ++seen;
      if (w != r && writes(w, x)) return true;
      auto visit = [&](uint32_t u) {
        if (u != v && !placed[u] && mark[u] != epoch) mark[u] = epoch, stack.push_back(u);
      };
      visit(p.chain_pred(w));
      for (uint32_t i = p.rbeg[w]; i < p.rbeg[w + 1]; ++i) visit(p.reads[i].writer);
      // w overwrites the current value of each key it writes: that value's readers go first.
      for (uint32_t q = p.wbeg[w]; q < p.wbeg[w + 1]; ++q) {
        const uint32_t y = p.wkeys[q];
        for (uint32_t j = current_readers[y].first; j < current_readers[y].second; ++j) visit(reader[rw[j]]);
      }
    }
    return false;
  };
  // Whether v can run now without a violation: its reads see the latest writes, no value it
  // overwrites has a reader still to run (other than v itself), and no reader of its writes
  // depends on another write of the key still to run. blocked_on: a key to wait on (v may run
  // once it changes), or kNone when v can never run cleanly.
  auto clean = [&](uint32_t v, uint32_t& blocked_on) {
    blocked_on = kNone;
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i)
      if (latest[p.reads[i].key] != p.reads[i].writer) return false;
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) {
      const uint32_t x = p.wkeys[i], w = latest[x];
      const uint32_t oi = out_index(w, x);
      if (oi == kNone) continue;
      uint32_t left = pending[oi];
      for (uint32_t j = p.rbeg[v]; j < p.rbeg[v + 1]; ++j)
        if (p.reads[j].key == x && p.reads[j].writer == w) --left;
      if (left > 0) {
        blocked_on = x;
        return false;
      }
    }
    for (uint32_t j = rwbeg[v]; j < rwbeg[v + 1]; ++j)
      if (writer_before(reader[rw[j]], p.reads[rw[j]].key, v)) {
        blocked_on = p.reads[rw[j]].key;
        return false;
      }
    return true;
  };
  // Transactions that write nothing never stand in another's way: they run first.
  std::deque<uint32_t> ready_readers, ready_writers;
  std::vector<std::vector<uint32_t>> waiting(p.num_keys);  // blocked on a key
  std::vector<uint32_t> blocked;  // known predecessors placed, in that order (the last resort)
  size_t next_blocked = 0;
  auto consider = [&](uint32_t v) {
    uint32_t key;
    blocked.push_back(v);
    if (clean(v, key)) {
      queued[v] = 1;
      (p.wbeg[v] == p.wbeg[v + 1] ? ready_readers : ready_writers).push_back(v);
    } else if (key != kNone) {
      waiting[key].push_back(v);
    }  // else it reads an overwritten value: it can never run cleanly
  };
  std::vector<uint32_t> order;
  order.reserve(n);
  std::vector<uint32_t> wake;
  auto place = [&](uint32_t v) {
    placed[v] = 1;
    order.push_back(v);
    wake.clear();
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      const uint32_t oi = out_index(p.reads[i].writer, p.reads[i].key);
      if (oi != kNone && --pending[oi] <= 1) wake.push_back(p.reads[i].key);
    }
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) {
      const uint32_t x = p.wkeys[i];
      latest[x] = v;
      const auto [lo, hi] = readers_of(v, x);
      current_readers[x] = {static_cast<uint32_t>(lo - rw.begin()), static_cast<uint32_t>(hi - rw.begin())};
      wake.push_back(x);
    }
    for (uint32_t e = sbeg[v]; e < sbeg[v + 1]; ++e)
      if (--indeg[succ[e]] == 0) consider(succ[e]);
    for (size_t k = 0; k < wake.size(); ++k) {
      std::vector<uint32_t> w;
      w.swap(waiting[wake[k]]);
      for (uint32_t u : w)
        if (!placed[u] && !queued[u]) consider(u);
    }
  };
  place(0);
  while (order.size() < n) {
    std::deque<uint32_t>& q = !ready_readers.empty() ? ready_readers : ready_writers;
    if (!q.empty()) {
      const uint32_t v = q.front();
      q.pop_front();
      if (placed[v]) continue;
      queued[v] = 0;
      uint32_t key;
      if (clean(v, key)) place(v);  // still clean: an earlier placement may have changed that
      else consider(v);
      continue;
    }
    // Nothing runs cleanly: run the transaction blocked longest anyway (a guess that violates;
    // the lazy polygraph repairs it), or give up when asked for a clean replay only.
    if (!force) return {};
    while (next_blocked < blocked.size() && placed[blocked[next_blocked]]) ++next_blocked;
    if (next_blocked == blocked.size()) return {};  // cannot happen: the known edges are acyclic
    place(blocked[next_blocked++]);
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
