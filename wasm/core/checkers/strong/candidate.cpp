// Candidate commit orders: a guess at a solution, checked by verify_order in O(reads log writers)
// before any polygraph is built. Histories that hold usually come with their own commit order:
//   timestamps  a transaction's writes take effect at its end (whole transactions, write halves)
//               and its reads at its start (read halves): the commit order of the databases
//               that the timestamps were recorded from (and of every simulator engine);
//   replay      without timestamps, the history executed again one transaction at a time
//               against a store, choosing next a transaction whose reads see the current
//               values and whose writes overwrite no value still to be read: a search that
//               prefers the transaction with the longest chain of known edges still after it,
//               and at a dead end learns which of its placements must turn around and
//               backjumps there (within a budget).
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

std::vector<uint32_t> replay_order(const Problem& p, bool force, const CheckBudget* budget, size_t max_guesses) {
  const uint32_t n = p.n;
  if (n < 2) return {};
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
    // A small budget: a clean that looks far is called for every node of the front after each
    // backjump (256 made VeriStrong's PostgreSQL runs 5x slower; the learning makes up for
    // what a short look misses). Not too small either: the order found is the repeated-value
    // solver's first guess, and 16 made it twice as slow on VeriStrong's HD-10k.
    uint32_t left = 32;
    for (uint32_t j = rwbeg[v]; j < rwbeg[v + 1] && lookahead && left > 0; ++j)
      if (writer_before(reader[rw[j]], p.reads[rw[j]].key, v, left)) {
        blocked_on = p.reads[rw[j]].key;
        return false;
      }
    return true;
  };
  std::vector<uint32_t> order, at(n, kNone);  // at: each placed node's place in order
  order.reserve(n);
  // The nodes whose known predecessors are all placed (an indexed set).
  std::vector<uint32_t> front, front_at(n, kNone);
  auto enter = [&](uint32_t u) {
    if (front_at[u] != kNone) return;
    front_at[u] = static_cast<uint32_t>(front.size());
    front.push_back(u);
  };
  auto leave = [&](uint32_t u) {
    if (front_at[u] == kNone) return;
    front_at[front.back()] = front_at[u];
    front[front_at[u]] = front.back();
    front.pop_back();
    front_at[u] = kNone;
  };
  // Learned edges (the conflict analysis below): `to` runs only after one of `froms` (most often
  // one node), for as long as the placements the conflict rested on stay (guard: the place of the
  // last of them; kNone: for good). An edge adds one to indeg[to] while none of its froms is placed.
  struct Learned {
    uint32_t to, guard, fbeg, fend, placed_froms;
    bool active;
  };
  std::vector<Learned> learned;
  std::vector<uint32_t> learned_froms;
  std::vector<uint32_t> out_head(n, kNone), in_head(n, kNone);  // per node: lists of links
  struct Link {
    uint32_t edge, next;
  };
  std::vector<Link> links;
  std::priority_queue<std::pair<uint32_t, uint32_t>> guarded;  // (guard, edge) of those active
  // The active edges none of whose froms is placed (those holding a node back), an indexed set:
  // the analysis lists them at some dead ends, and a scan of every edge learned made those
  // quadratic on 10^6 transactions.
  std::vector<uint32_t> holding, holding_at;
  auto hold = [&](uint32_t e) {
    holding_at[e] = static_cast<uint32_t>(holding.size());
    holding.push_back(e);
  };
  auto release = [&](uint32_t e) {
    holding_at[holding.back()] = holding_at[e];
    holding[holding_at[e]] = holding.back();
    holding.pop_back();
    holding_at[e] = kNone;
  };
  auto each_out = [&](uint32_t v, auto&& f) {
    for (uint32_t l = out_head[v]; l != kNone; l = links[l].next)
      if (learned[links[l].edge].active) f(learned[links[l].edge], links[l].edge);
  };
  std::deque<uint32_t> ready_free;
  std::priority_queue<std::pair<uint32_t, uint32_t>> ready_writers;  // (height, node)
  std::vector<std::vector<uint32_t>> waiting(p.num_keys);           // blocked on a key
  // Known predecessors placed (the last resort), the longest path left first.
  std::priority_queue<std::pair<uint32_t, uint32_t>> blocked;
  // Transactions none of whose writes is read (readers among them) never stand in another's
  // way: they run first. Then the writers, the one with the longest path left first (in node
  // order, a blind write whose readers lie far ahead would freeze its keys until they run).
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
  auto unblock = [&](uint32_t u) {
    if (--indeg[u] == 0) enter(u), consider(u);
  };
  auto block = [&](uint32_t u) {
    if (indeg[u]++ == 0) leave(u);
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
    at[v] = static_cast<uint32_t>(order.size());
    order.push_back(v);
    leave(v);
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
    for (uint32_t e = sbeg[v]; e < sbeg[v + 1]; ++e) unblock(succ[e]);
    each_out(v, [&](Learned& l, uint32_t e) {
      if (l.placed_froms++ == 0) release(e), unblock(l.to);
    });
    wake_keys();
  };
  // Undoes the last placement (the queues are rebuilt after a backjump).
  auto undo = [&]() {
    const uint32_t v = order.back();
    order.pop_back();
    placed[v] = 0;
    at[v] = kNone;
    enter(v);
    for (uint32_t e = sbeg[v]; e < sbeg[v + 1]; ++e) block(succ[e]);
    each_out(v, [&](Learned& l, uint32_t e) {
      if (--l.placed_froms == 0) hold(e), block(l.to);
    });
    for (uint32_t i = p.wbeg[v + 1]; i-- > p.wbeg[v];) {
      const uint32_t x = p.wkeys[i];
      cur_out[x] = saved_latest.back();
      saved_latest.pop_back();
      latest[x] = saved_latest.back();
      saved_latest.pop_back();
      refresh(x);
    }
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      if (read_out[i] != kNone) ++pending[read_out[i]];
      refresh(p.reads[i].key);
    }
  };
  // The writers the present waits on: a value still to be read pins its key until its readers
  // run, so their unplaced predecessors (visit_before) come next. Among those whose known
  // predecessors are all placed, the clean one with the longest path left; kNone when none.
  std::vector<uint32_t> dmark(n, 0), dstack;
  uint32_t depoch = 0;
  auto demanded = [&]() {
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
          clean(u, key, false))
        best = u;
      visit_before(u, visit);
    }
    return best;
  };
  // Whether u, taken from a queue, may run now (else it leaves the queue).
  auto takes = [&](uint32_t u) {
    if (placed[u] || indeg[u] != 0) {
      queued[u] = 0;
      return false;
    }
    return true;
  };

  // Conflict analysis (nogood learning). At a dead end every node of the front (the unplaced
  // nodes whose predecessors are all placed) is held up by a key it writes: the current value,
  // written by U (placed), has a reader r still to run, and r waits along known and learned edges
  // for some nodes of the front. Closing this over the front from one node gives a set S of
  // nodes none of which can run first among S (it would overwrite a value before its reader,
  // which waits for another node of S), so none can ever run: in every order that extends the
  // present one, some V of S runs before its U (or a condition a learned edge rests on fails).
  // The search backjumps to just before the last placed of those U and learns that it waits for
  // its V, for as long as the other placements of the reason stay. Undoing only the last choice
  // (the previous search) never reached the mistakes, often hundreds of places back: serial
  // histories of 1,000 sessions on 8 keys replay now, with about one conflict per two
  // transactions. Each search of the analysis is bounded; a dead end it cannot explain ends the
  // clean replay (the order is verified before use in any case).
  // A condition (V, U): U placed while V is not.
  using Cond = std::pair<uint32_t, uint32_t>;
  std::vector<Cond> cond_pool;  // the conditions of each learned edge: [cbeg, cend) by edge
  std::vector<std::pair<uint32_t, uint32_t>> cond_range;
  auto append_conds = [&](uint32_t e, std::vector<Cond>& out) {
    out.insert(out.end(), cond_pool.begin() + cond_range[e].first, cond_pool.begin() + cond_range[e].second);
  };
  std::vector<uint32_t> fbeg(n + 1, 0), fpred;  // predecessors by the fixed edges (CSR)
  for (const Problem::Edge& e : p.fixed) ++fbeg[e.to + 1];
  for (uint32_t v = 0; v < n; ++v) fbeg[v + 1] += fbeg[v];
  fpred.resize(p.fixed.size());
  {
    std::vector<uint32_t> fat(fbeg.begin(), fbeg.end() - 1);
    for (const Problem::Edge& e : p.fixed) fpred[fat[e.to]++] = e.from;
  }
  constexpr uint32_t kSearchBound = 256;  // nodes a search of the analysis visits
  std::vector<uint32_t> cmark(n, 0), parent(n), via(n), in_set(n, 0), cstack;
  uint32_t cepoch = 0;
  // Nodes of the front one of which must run before r (r itself when it is there), the
  // conditions of the learned edges it went through appended to conds: one known (or learned)
  // predecessor is followed where there is one, else every from of a learned edge with several.
  // False beyond the bound.
  auto before_set = [&](uint32_t r, std::vector<uint32_t>& out, std::vector<Cond>& conds) {
    ++cepoch;
    cstack.assign(1, r);
    cmark[r] = cepoch;
    uint32_t seen = 0;
    while (!cstack.empty()) {
      if (seen++ >= kSearchBound) return false;
      const uint32_t w = cstack.back();
      cstack.pop_back();
      if (indeg[w] == 0) {
        out.push_back(w);
        continue;
      }
      uint32_t hard = kNone, multi = kNone;
      auto open = [&](uint32_t u) { return u != kNone && !placed[u]; };
      if (open(p.chain_pred(w))) hard = p.chain_pred(w);
      for (uint32_t i = p.rbeg[w]; i < p.rbeg[w + 1] && hard == kNone; ++i)
        if (open(p.reads[i].writer)) hard = p.reads[i].writer;
      for (uint32_t i = fbeg[w]; i < fbeg[w + 1] && hard == kNone; ++i)
        if (open(fpred[i])) hard = fpred[i];
      for (uint32_t l = in_head[w]; l != kNone && hard == kNone; l = links[l].next) {
        const uint32_t e = links[l].edge;
        if (!learned[e].active || learned[e].placed_froms != 0) continue;
        if (learned[e].fend - learned[e].fbeg == 1) hard = learned_froms[learned[e].fbeg], append_conds(e, conds);
        else multi = e;
      }
      if (hard != kNone) {
        if (cmark[hard] != cepoch) cmark[hard] = cepoch, cstack.push_back(hard);
        continue;
      }
      if (multi == kNone) return false;  // cannot happen: indeg counts an unplaced predecessor
      append_conds(multi, conds);
      for (uint32_t i = learned[multi].fbeg; i < learned[multi].fend; ++i) {
        const uint32_t f = learned_froms[i];
        if (cmark[f] != cepoch) cmark[f] = cepoch, cstack.push_back(f);
      }
    }
    return true;
  };
  // Drops the learned edges whose conditions no longer hold (a placement they rest on undone).
  auto drop_stale = [&]() {
    while (!guarded.empty() && guarded.top().first >= order.size()) {
      const uint32_t e = guarded.top().second;
      Learned& l = learned[e];
      guarded.pop();
      l.active = false;
      if (l.placed_froms == 0) release(e);
      if (l.placed_froms == 0 && --indeg[l.to] == 0 && !placed[l.to]) enter(l.to);
    }
  };
  // Whether a path of known and learned edges runs from u to v among the nodes a backjump to
  // `last` leaves unplaced (learned edges that outlive it only); the conditions of the learned
  // edges on it are appended to conds.
  auto path_to = [&](uint32_t u, uint32_t v, uint32_t last, std::vector<Cond>& conds) {
    ++cepoch;
    cstack.assign(1, u);
    cmark[u] = cepoch;
    via[u] = kNone;
    uint32_t seen = 0;
    auto open = [&](uint32_t w) { return at[w] == kNone || at[w] > last; };
    // Short: the paths found are (on serial 10^5-transaction histories, and VeriStrong's) within
    // 16 nodes, and the searches that find none were a third of the replay at 256.
    constexpr uint32_t kPathBound = 32;
    while (!cstack.empty() && seen++ < kPathBound) {
      const uint32_t w = cstack.back();
      cstack.pop_back();
      if (w == v) {
        for (uint32_t x = v; x != u; x = parent[x])
          if (via[x] != kNone) append_conds(via[x], conds);
        return true;
      }
      auto push = [&](uint32_t x, uint32_t edge) {
        if (open(x) && cmark[x] != cepoch) {
          cmark[x] = cepoch, parent[x] = w, via[x] = edge;
          cstack.push_back(x);
        }
      };
      for (uint32_t e = sbeg[w]; e < sbeg[w + 1]; ++e) push(succ[e], kNone);
      for (uint32_t l = out_head[w]; l != kNone; l = links[l].next) {
        const Learned& e = learned[links[l].edge];
        if (e.active && e.fend - e.fbeg == 1 && (e.guard == kNone || e.guard < last)) push(e.to, links[l].edge);
      }
    }
    return false;
  };
  std::vector<Cond> lits, conds;
  std::vector<uint32_t> seq, root_marked;
  std::vector<char> in_root(n, 0);
  // Backjumps to just before the last placed U of clause, which then waits for its V.
  auto backjump_and_learn = [&](std::vector<Cond>& clause) {
    // The last placed U of the clause waits for its V, unless some path of known and learned edges
    // (those that outlive the backjump) already runs from U to V: that V is ruled out, and the
    // clause rests on the path's conditions instead, maybe on an earlier U.
    uint32_t last = 0, u_last = 0;
    while (true) {
      std::sort(clause.begin(), clause.end());
      clause.erase(std::unique(clause.begin(), clause.end()), clause.end());
      last = 0;
      for (const Cond& c : clause) last = std::max(last, at[c.second]);
      if (last == 0 || last == kNone) return false;  // no order extends the initial values
      u_last = order[last];
      size_t keep = 0;
      const size_t before = clause.size();
      for (size_t i = 0; i < before; ++i)
        if (clause[i].second != u_last || !path_to(u_last, clause[i].first, last, clause)) clause[keep++] = clause[i];
        else clause[keep++] = {kNone, kNone};  // ruled out (dropped below)
      clause.erase(std::remove(clause.begin(), clause.end(), Cond{kNone, kNone}), clause.end());
      if (std::any_of(clause.begin(), clause.end(), [&](const Cond& c) { return c.second == u_last; })) break;
    }
    // Backjump to just before u_last; it waits for one of the V it was paired with.
    while (order.size() > last) undo();
    drop_stale();
    Learned l{u_last, kNone, static_cast<uint32_t>(learned_froms.size()), 0, 0, true};
    const uint32_t cbeg = static_cast<uint32_t>(cond_pool.size());
    for (const Cond& c : clause) {
      if (c.second == u_last) {
        if (std::find(learned_froms.begin() + l.fbeg, learned_froms.end(), c.first) == learned_froms.end())
          learned_froms.push_back(c.first);
      } else {
        cond_pool.push_back(c);
        l.guard = l.guard == kNone ? at[c.second] : std::max(l.guard, at[c.second]);
      }
    }
    l.fend = static_cast<uint32_t>(learned_froms.size());
    const uint32_t id = static_cast<uint32_t>(learned.size());
    cond_range.push_back({cbeg, static_cast<uint32_t>(cond_pool.size())});
    for (uint32_t i = l.fbeg; i < l.fend; ++i) {
      links.push_back({id, out_head[learned_froms[i]]});
      out_head[learned_froms[i]] = static_cast<uint32_t>(links.size() - 1);
    }
    links.push_back({id, in_head[u_last]});
    in_head[u_last] = static_cast<uint32_t>(links.size() - 1);
    learned.push_back(l);
    holding_at.push_back(kNone);
    hold(id);
    if (l.guard != kNone) guarded.push({l.guard, id});
    block(u_last);  // its froms are all unplaced: each ran after the last U of the clause
    return true;
  };
  // Analyses the dead end; on success backjumps and learns (true).
  auto learn = [&]() {
    // Whatever runs next is a node of the front, kept there by the learned edges that keep the
    // others out: their conditions are part of any reason.
    auto blocking_conds = [&](std::vector<Cond>& clause) {
      for (uint32_t e : holding) append_conds(e, clause);
    };
    std::vector<Cond> clause;
    if (front.empty()) {
      // Learned edges close a cycle (one the checks below could not see): one of their
      // conditions must go.
      blocking_conds(clause);
      return backjump_and_learn(clause);
    }
    // S: nodes of the front, each held up by a value whose reader r waits for nodes of S. None of S
    // can run first among them (it would overwrite the value before r reads it), and so none
    // can ever run: some (V, U) of S must turn around (or a condition of the learned edges the
    // waits went through).
    std::vector<uint32_t> best, trial;
    std::vector<Cond> best_conds, trial_conds;
    // S closed from one seed; false when some node of it is not held up so (or a search ran
    // beyond its bound).
    auto close_from = [&](uint32_t seed) {
      lits.clear(), conds.clear(), seq.clear();
      bool closed = true;
      seq.push_back(seed);
      in_set[seed] = 1;
      for (size_t i = 0; i < seq.size() && closed; ++i) {
        const uint32_t v = seq[i];
        uint32_t key;
        if (clean(v, key, false) || key == kNone || !p.writes(v, key)) {
          closed = false;  // not held up by a write
          break;
        }
        const uint32_t o = cur_out[key];
        best.clear(), best_conds.clear();
        bool found = false;
        for (uint32_t j = orbeg[o]; j < orbeg[o + 1]; ++j) {
          const uint32_t r = reader[oreads[j]];
          if (placed[r] || r == v) continue;
          trial.clear(), trial_conds.clear();
          if (!before_set(r, trial, trial_conds) || (found && trial.size() >= best.size())) continue;
          found = true;
          best.swap(trial), best_conds.swap(trial_conds);
          if (best.size() == 1) break;
        }
        if (!found) {
          closed = false;
          break;
        }
        lits.push_back({v, latest[key]});
        conds.insert(conds.end(), best_conds.begin(), best_conds.end());
        for (uint32_t u : best)
          if (!in_set[u]) in_set[u] = 1, seq.push_back(u);
      }
      for (uint32_t u : seq) in_set[u] = 0;
      return closed;
    };
    // An S whose every U is the initial transaction cannot turn around (a write skew among
    // transactions that read initial values: the history violates SER there); it stays stuck
    // whatever runs before it, and another seed may explain the rest of the front. Without
    // that, the forced replay guessed from here and scrambled the rest of the history (the
    // lazy polygraph then needed 7 rounds on 10^6 transactions).
    bool closed = false;
    size_t seeds = 0;
    for (uint32_t seed : front) {
      if (in_root[seed]) continue;
      if (seeds++ == 8 || !(closed = close_from(seed))) break;
      clause = lits;
      clause.insert(clause.end(), conds.begin(), conds.end());
      if (std::any_of(clause.begin(), clause.end(), [&](const Cond& c) { return at[c.second] != 0; })) break;
      for (uint32_t u : seq) in_root[u] = 1, root_marked.push_back(u);
      closed = false;
    }
    for (uint32_t u : root_marked) in_root[u] = 0;
    root_marked.clear();
    if (!closed) {
      // S not closed (a search beyond its bound): the plain reason of the dead end. Whatever runs
      // next is a node of the front, and none can run while each keeps its U and the learned
      // edges that keep the others out of the front hold.
      clause.clear();
      for (uint32_t u : front) {
        uint32_t key;
        if (clean(u, key, false) || key == kNone || !p.writes(u, key)) return false;
        clause.push_back({u, latest[key]});
      }
      blocking_conds(clause);
    }
    return backjump_and_learn(clause);
  };
  // After a backjump the queues start again from the front.
  auto rebuild = [&]() {
    for (uint32_t u : ready_free) queued[u] = 0;
    ready_free.clear();
    for (; !ready_writers.empty(); ready_writers.pop()) queued[ready_writers.top().second] = 0;
    blocked = {};
    for (auto& w : waiting) w.clear();
    for (uint32_t u : front) consider(u);
  };
  size_t conflicts = 0, guesses = 0;
  const size_t max_conflicts = static_cast<size_t>(n) * 4 + 1024;
  place(0);
  while (order.size() < n) {
    uint32_t v = kNone;
    while (!ready_free.empty() && v == kNone) {
      const uint32_t u = ready_free.front();
      ready_free.pop_front();
      if (takes(u)) v = u;
    }
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
    // None is clean by the lookahead's guess: one clean without it, the longest path left first.
    for (uint32_t u : front) {
      uint32_t key;
      if ((v == kNone || height[u] > height[v]) && clean(u, key, false)) v = u;
    }
    if (v != kNone) {
      place(v);
      continue;
    }
    // Out of time: no order (a forced one would be of no use to a polygraph out of time too).
    if (conflicts < max_conflicts && (++conflicts & 15) == 0 && budget && budget->expired()) return {};
    if (conflicts < max_conflicts && learn()) {
      rebuild();
      continue;
    }
    // Nothing runs cleanly: run what the present waits on anyway, else the transaction with the
    // longest path left (a guess that violates; the lazy polygraph repairs it), or give up when
    // asked for a clean replay only.
    if (!force) return {};
    if (!learned.empty()) {
      // The guesses below may break what the learned edges rest on, and those edges may close
      // cycles among themselves: from here on only the known edges hold.
      for (Learned& l : learned)
        if (l.active && (l.active = false, l.placed_froms == 0) && --indeg[l.to] == 0 && !placed[l.to]) enter(l.to);
      learned.clear(), learned_froms.clear(), cond_pool.clear(), cond_range.clear();
      holding.clear(), holding_at.clear();
      std::fill(out_head.begin(), out_head.end(), kNone);
      std::fill(in_head.begin(), in_head.end(), kNone);
      links.clear();
      guarded = {};
      rebuild();
      conflicts = max_conflicts;
    }
    if (++guesses > max_guesses || ((guesses & 1023) == 0 && budget && budget->expired())) return {};
    if ((v = demanded()) != kNone) {
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

std::vector<uint32_t> split_order(const std::vector<uint32_t>& whole) {
  std::vector<uint32_t> order;
  if (whole.empty()) return order;
  order.reserve(2 * whole.size() - 1);
  order.push_back(0);
  for (uint32_t v : whole)
    if (v != 0) order.push_back(2 * v - 1), order.push_back(2 * v);
  return order;
}

std::vector<uint32_t> snapshot_order(const Problem& ser, const std::vector<uint32_t>& whole) {
  if (whole.empty()) return {};
  const uint32_t n = ser.n;
  std::vector<uint32_t> pos(n, kNone);
  for (uint32_t i = 0; i < whole.size(); ++i) pos[whole[i]] = i;
  // The places of each key's writes, in order (CSR by key).
  std::vector<uint32_t> kbeg(ser.num_keys + 1, 0), kpos(ser.wkeys.size());
  for (uint32_t q = 0; q < ser.wkeys.size(); ++q) ++kbeg[ser.wkeys[q] + 1];
  for (uint32_t x = 0; x < ser.num_keys; ++x) kbeg[x + 1] += kbeg[x];
  {
    std::vector<uint32_t> at(kbeg.begin(), kbeg.end() - 1);
    for (uint32_t i = 0; i < whole.size(); ++i)
      for (uint32_t q = ser.wbeg[whole[i]]; q < ser.wbeg[whole[i] + 1]; ++q) kpos[at[ser.wkeys[q]]++] = i;
  }
  auto next_write = [&](uint32_t x, uint32_t after) {  // the first write of x placed after `after`
    const auto b = kpos.begin() + kbeg[x], e = kpos.begin() + kbeg[x + 1];
    const auto it = std::upper_bound(b, e, after);
    return it == e ? kNone : *it;
  };
  // Each transaction's snapshot: after the commit at place snap_of[t] (0: the initial one).
  const uint32_t m = static_cast<uint32_t>(whole.size());
  std::vector<uint32_t> sbeg(m + 1, 0), snap_of(n, 0);
  for (uint32_t i = 1; i < m; ++i) {
    const uint32_t t = whole[i];
    uint32_t hi = i;  // before its commit, and before the first overwrite of a value it read
    for (uint32_t r = ser.rbeg[t]; r < ser.rbeg[t + 1]; ++r)
      hi = std::min(hi, next_write(ser.reads[r].key, pos[ser.reads[r].writer]));
    snap_of[t] = hi - 1;  // the latest such place: it sees the most (verify_order judges)
    ++sbeg[hi];
  }
  for (uint32_t i = 0; i < m; ++i) sbeg[i + 1] += sbeg[i];
  std::vector<uint32_t> snaps(sbeg[m]);
  {
    std::vector<uint32_t> at(sbeg.begin(), sbeg.end() - 1);
    for (uint32_t i = 1; i < m; ++i) snaps[at[snap_of[whole[i]]]++] = whole[i];
  }
  std::vector<uint32_t> order;
  order.reserve(2 * whole.size() - 1);
  order.push_back(0);
  for (uint32_t i = 0; i < whole.size(); ++i) {
    if (i > 0) order.push_back(2 * whole[i]);
    for (uint32_t j = sbeg[i]; j < sbeg[i + 1]; ++j) order.push_back(2 * snaps[j] - 1);
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
