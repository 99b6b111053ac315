// The replay (replay.h): its indexes, the store it replays against, the front and the queues of
// runnable transactions, and the main loop; the conflict analysis is in replay_learn.cpp.
#include "checkers/strong/replay.h"

#include <algorithm>

#include "util/flat_map.h"

namespace isoscope::strong {

Replay::Replay(const Problem& p, bool force, const CheckBudget* budget, size_t max_guesses)
    : p_(p), n_(p.n), force_(force), budget_(budget), max_guesses_(max_guesses), by_writer_(p) {
  const uint32_t n = n_;
  // Successors along the known edges (CSR) and the count of unplaced predecessors.
  indeg_.assign(n, 0);
  sbeg_.assign(n + 1, 0);
  for (uint32_t v = 1; v < n; ++v) {
    ++indeg_[v], ++sbeg_[p.chain_pred(v) + 1];
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) ++indeg_[v], ++sbeg_[p.reads[i].writer + 1];
  }
  for (const Problem::Edge& e : p.fixed) ++indeg_[e.to], ++sbeg_[e.from + 1];
  for (uint32_t v = 0; v < n; ++v) sbeg_[v + 1] += sbeg_[v];
  succ_.resize(sbeg_[n]);
  {
    std::vector<uint32_t> at(sbeg_.begin(), sbeg_.end() - 1);
    for (uint32_t v = 1; v < n; ++v) {
      succ_[at[p.chain_pred(v)]++] = v;
      for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) succ_[at[p.reads[i].writer]++] = v;
    }
    for (const Problem::Edge& e : p.fixed) succ_[at[e.from]++] = e.to;
  }
  // Predecessors by the fixed edges (CSR).
  fbeg_.assign(n + 1, 0);
  for (const Problem::Edge& e : p.fixed) ++fbeg_[e.to + 1];
  for (uint32_t v = 0; v < n; ++v) fbeg_[v + 1] += fbeg_[v];
  fpred_.resize(p.fixed.size());
  {
    std::vector<uint32_t> fat(fbeg_.begin(), fbeg_.end() - 1);
    for (const Problem::Edge& e : p.fixed) fpred_[fat[e.to]++] = e.from;
  }
  // The outs, the out of each read and of each write, and the current value of each key.
  pending_.resize(p.outs.size());
  for (size_t i = 0; i < p.outs.size(); ++i) pending_[i] = p.outs[i].count;
  read_out_.resize(p.reads.size());
  wout_.assign(p.wkeys.size(), kNone);
  cur_out_.assign(p.num_keys, kNone);
  {
    FlatMap64 outs(p.outs.size() * 2 + 16);
    for (uint32_t w = 0; w < n; ++w)
      for (uint32_t i = p.obeg[w]; i < p.obeg[w + 1]; ++i) outs.insert((uint64_t(w) << 32) | p.outs[i].key, i);
    for (uint32_t i = 0; i < p.reads.size(); ++i) {
      const uint32_t oi = outs.find((uint64_t(p.reads[i].writer) << 32) | p.reads[i].key);
      read_out_[i] = oi == FlatMap64::kAbsent ? kNone : oi;
    }
    for (uint32_t v = 1; v < n; ++v)
      for (uint32_t q = p.wbeg[v]; q < p.wbeg[v + 1]; ++q) {
        const uint32_t oi = outs.find((uint64_t(v) << 32) | p.wkeys[q]);
        wout_[q] = oi == FlatMap64::kAbsent ? kNone : oi;
      }
    for (uint32_t i = p.obeg[0]; i < p.obeg[1]; ++i) cur_out_[p.outs[i].key] = i;
  }
  orbeg_.assign(p.outs.size() + 1, 0);
  oreads_.resize(p.reads.size());
  for (uint32_t i = 0; i < p.reads.size(); ++i)
    if (read_out_[i] != kNone) ++orbeg_[read_out_[i] + 1];
  for (size_t o = 0; o < p.outs.size(); ++o) orbeg_[o + 1] += orbeg_[o];
  {
    std::vector<uint32_t> at(orbeg_.begin(), orbeg_.end() - 1);
    for (uint32_t i = 0; i < p.reads.size(); ++i)
      if (read_out_[i] != kNone) oreads_[at[read_out_[i]]++] = i;
  }
  reader_.resize(p.reads.size());
  for (uint32_t v = 1; v < n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) reader_[i] = v;
  live_at_.assign(p.num_keys, kNone);
  for (uint32_t x = 0; x < p.num_keys; ++x) refresh(x);
  // The longest path of known edges from each node to the end: on a history that ran serially,
  // a transaction's reads-from chains reach about as far as the history runs after it, so the
  // one with the longest path left is the likeliest next (list scheduling by critical path).
  height_.assign(n, 0);
  {
    std::vector<uint32_t> deg(indeg_), topo;
    topo.reserve(n);
    for (uint32_t v = 0; v < n; ++v)
      if (deg[v] == 0) topo.push_back(v);
    for (size_t i = 0; i < topo.size(); ++i)
      for (uint32_t e = sbeg_[topo[i]]; e < sbeg_[topo[i] + 1]; ++e)
        if (--deg[succ_[e]] == 0) topo.push_back(succ_[e]);
    for (size_t i = topo.size(); i-- > 0;) {
      const uint32_t v = topo[i];
      for (uint32_t e = sbeg_[v]; e < sbeg_[v + 1]; ++e) height_[v] = std::max(height_[v], height_[succ_[e]] + 1);
    }
  }
  placed_.assign(n, 0);
  queued_.assign(n, 0);
  latest_.assign(p.num_keys, 0);
  mark_.assign(n, 0);
  at_.assign(n, kNone);
  order_.reserve(n);
  front_at_.assign(n, kNone);
  out_head_.assign(n, kNone);
  in_head_.assign(n, kNone);
  waiting_.resize(p.num_keys);
  dmark_.assign(n, 0);
  cmark_.assign(n, 0);
  parent_.resize(n);
  via_.resize(n);
  in_set_.assign(n, 0);
  in_root_.assign(n, 0);
}

void Replay::refresh(uint32_t x) {
  const bool on = cur_out_[x] != kNone && pending_[cur_out_[x]] > 0;
  if (on && live_at_[x] == kNone) {
    live_at_[x] = static_cast<uint32_t>(live_.size());
    live_.push_back(x);
  } else if (!on && live_at_[x] != kNone) {
    live_at_[live_.back()] = live_at_[x];
    live_[live_at_[x]] = live_.back();
    live_.pop_back();
    live_at_[x] = kNone;
  }
}

void Replay::enter(uint32_t u) {
  if (front_at_[u] != kNone) return;
  front_at_[u] = static_cast<uint32_t>(front_.size());
  front_.push_back(u);
}

void Replay::leave(uint32_t u) {
  if (front_at_[u] == kNone) return;
  front_at_[front_.back()] = front_at_[u];
  front_[front_at_[u]] = front_.back();
  front_.pop_back();
  front_at_[u] = kNone;
}

template <class Visit>
void Replay::visit_before(uint32_t u, Visit&& visit) {
  visit(p_.chain_pred(u));
  for (uint32_t i = p_.rbeg[u]; i < p_.rbeg[u + 1]; ++i) visit(p_.reads[i].writer);
  for (uint32_t q = p_.wbeg[u]; q < p_.wbeg[u + 1]; ++q) {
    const uint32_t o = cur_out_[p_.wkeys[q]];
    if (o != kNone && pending_[o] > 0)
      for (uint32_t j = orbeg_[o]; j < orbeg_[o + 1]; ++j) visit(reader_[oreads_[j]]);
  }
}

bool Replay::writer_before(uint32_t r, uint32_t x, uint32_t v, uint32_t& left) {
  ++epoch_;
  stack_.assign(1, r);
  mark_[r] = epoch_;
  while (!stack_.empty() && left > 0) {
    const uint32_t w = stack_.back();
    stack_.pop_back();
    --left;
    if (w != r && p_.writes(w, x)) return true;
    visit_before(w, [&](uint32_t u) {
      if (u != v && !placed_[u] && mark_[u] != epoch_) mark_[u] = epoch_, stack_.push_back(u);
    });
  }
  return false;
}

bool Replay::clean(uint32_t v, uint32_t& blocked_on, bool lookahead) {
  blocked_on = kNone;
  // A read already overwritten stays so: when a guess is asked for, that violation is taken
  // and the rest of v judged as usual (else its session would wait behind it to the end).
  // Without, v waits for the key (a backtrack may undo the write that overwrote it).
  for (uint32_t i = p_.rbeg[v]; i < p_.rbeg[v + 1]; ++i)
    if (latest_[p_.reads[i].key] != p_.reads[i].writer && !force_) {
      blocked_on = p_.reads[i].key;
      return false;
    }
  for (uint32_t i = p_.wbeg[v]; i < p_.wbeg[v + 1]; ++i) {
    const uint32_t x = p_.wkeys[i], w = latest_[x];
    const uint32_t oi = cur_out_[x];
    if (oi == kNone) continue;
    uint32_t left = pending_[oi];
    for (uint32_t j = p_.rbeg[v]; j < p_.rbeg[v + 1]; ++j)
      if (p_.reads[j].key == x && p_.reads[j].writer == w) --left;
    if (left > 0) {
      blocked_on = x;
      return false;
    }
  }
  // A small budget: a clean that looks far is called for every node of the front after each
  // backjump (a large one made VeriStrong's PostgreSQL runs several times slower; the learning
  // makes up for what a short look misses). Not too small either: the order found is the
  // repeated-value solver's first guess, and a very small budget slowed VeriStrong's HD-10k.
  const std::vector<uint32_t>& rwbeg = by_writer_.beg;
  const std::vector<uint32_t>& rw = by_writer_.reads;
  uint32_t left = 32;
  for (uint32_t j = rwbeg[v]; j < rwbeg[v + 1] && lookahead && left > 0; ++j)
    if (writer_before(reader_[rw[j]], p_.reads[rw[j]].key, v, left)) {
      blocked_on = p_.reads[rw[j]].key;
      return false;
    }
  return true;
}

// Transactions none of whose writes is read (readers among them) never stand in another's
// way: they run first. Then the writers, the one with the longest path left first (in node
// order, a blind write whose readers lie far ahead would freeze its keys until they run).
void Replay::consider(uint32_t v) {
  uint32_t key;
  blocked_.push({height_[v], v});
  if (clean(v, key)) {
    queued_[v] = 1;
    if (by_writer_.beg[v] == by_writer_.beg[v + 1]) ready_free_.push_back(v);
    else ready_writers_.push({height_[v], v});
  } else {
    waiting_[key].push_back(v);
  }
}

void Replay::unblock(uint32_t u) {
  if (--indeg_[u] == 0) enter(u), consider(u);
}

void Replay::block(uint32_t u) {
  if (indeg_[u]++ == 0) leave(u);
}

void Replay::wake_keys() {
  for (size_t k = 0; k < wake_.size(); ++k) {
    std::vector<uint32_t> w;
    w.swap(waiting_[wake_[k]]);
    for (uint32_t u : w)
      if (!placed_[u] && !queued_[u] && indeg_[u] == 0) consider(u);
  }
}

template <class F>
void Replay::each_out(uint32_t v, F&& f) {
  for (uint32_t l = out_head_[v]; l != kNone; l = links_[l].next)
    if (learned_[links_[l].edge].active) f(learned_[links_[l].edge], links_[l].edge);
}

void Replay::place(uint32_t v) {
  placed_[v] = 1;
  queued_[v] = 0;
  at_[v] = static_cast<uint32_t>(order_.size());
  order_.push_back(v);
  leave(v);
  wake_.clear();
  for (uint32_t i = p_.rbeg[v]; i < p_.rbeg[v + 1]; ++i) {
    const uint32_t oi = read_out_[i];
    if (oi != kNone && --pending_[oi] <= 1) wake_.push_back(p_.reads[i].key);
    refresh(p_.reads[i].key);
  }
  for (uint32_t i = p_.wbeg[v]; i < p_.wbeg[v + 1]; ++i) {
    const uint32_t x = p_.wkeys[i];
    saved_latest_.push_back(latest_[x]);
    saved_latest_.push_back(cur_out_[x]);
    latest_[x] = v;
    cur_out_[x] = wout_[i];
    refresh(x);
    wake_.push_back(x);
  }
  for (uint32_t e = sbeg_[v]; e < sbeg_[v + 1]; ++e) unblock(succ_[e]);
  each_out(v, [&](Learned& l, uint32_t e) {
    if (l.placed_froms++ == 0) release(e), unblock(l.to);
  });
  wake_keys();
}

void Replay::undo() {
  const uint32_t v = order_.back();
  order_.pop_back();
  placed_[v] = 0;
  at_[v] = kNone;
  enter(v);
  for (uint32_t e = sbeg_[v]; e < sbeg_[v + 1]; ++e) block(succ_[e]);
  each_out(v, [&](Learned& l, uint32_t e) {
    if (--l.placed_froms == 0) hold(e), block(l.to);
  });
  for (uint32_t i = p_.wbeg[v + 1]; i-- > p_.wbeg[v];) {
    const uint32_t x = p_.wkeys[i];
    cur_out_[x] = saved_latest_.back();
    saved_latest_.pop_back();
    latest_[x] = saved_latest_.back();
    saved_latest_.pop_back();
    refresh(x);
  }
  for (uint32_t i = p_.rbeg[v]; i < p_.rbeg[v + 1]; ++i) {
    if (read_out_[i] != kNone) ++pending_[read_out_[i]];
    refresh(p_.reads[i].key);
  }
}

uint32_t Replay::demanded() {
  constexpr uint32_t kBound = 512;
  ++depoch_;
  dstack_.clear();
  uint32_t best = kNone, seen = 0;
  auto visit = [&](uint32_t w) {
    if (!placed_[w] && dmark_[w] != depoch_) dmark_[w] = depoch_, dstack_.push_back(w);
  };
  // Seeds: the readers still to run of the live values, no more than the search can expand
  // (histories that read thousands of keys from the initial transaction have thousands).
  for (size_t k = 0; k < live_.size() && dstack_.size() < kBound; ++k) {
    const uint32_t x = live_[k];
    for (uint32_t j = orbeg_[cur_out_[x]]; j < orbeg_[cur_out_[x] + 1] && dstack_.size() < kBound; ++j)
      visit(reader_[oreads_[j]]);
  }
  while (!dstack_.empty() && seen++ < kBound) {
    const uint32_t u = dstack_.back();
    dstack_.pop_back();
    uint32_t key;
    if (indeg_[u] == 0 && p_.wbeg[u] != p_.wbeg[u + 1] && (best == kNone || height_[u] > height_[best]) &&
        clean(u, key, false))
      best = u;
    visit_before(u, visit);
  }
  return best;
}

bool Replay::takes(uint32_t u) {
  if (placed_[u] || indeg_[u] != 0) {
    queued_[u] = 0;
    return false;
  }
  return true;
}

void Replay::rebuild() {
  for (uint32_t u : ready_free_) queued_[u] = 0;
  ready_free_.clear();
  for (; !ready_writers_.empty(); ready_writers_.pop()) queued_[ready_writers_.top().second] = 0;
  blocked_ = {};
  for (auto& w : waiting_) w.clear();
  for (uint32_t u : front_) consider(u);
}

std::vector<uint32_t> Replay::run() {
  size_t conflicts = 0, guesses = 0;
  const size_t max_conflicts = static_cast<size_t>(n_) * 4 + 1024;
  place(0);
  while (order_.size() < n_) {
    uint32_t v = kNone;
    while (!ready_free_.empty() && v == kNone) {
      const uint32_t u = ready_free_.front();
      ready_free_.pop_front();
      if (takes(u)) v = u;
    }
    while (!ready_writers_.empty() && v == kNone) {
      const uint32_t u = ready_writers_.top().second;
      ready_writers_.pop();
      if (takes(u)) v = u;
    }
    if (v != kNone) {
      queued_[v] = 0;
      uint32_t key;
      if (clean(v, key)) place(v);  // still clean: an earlier placement may have changed that
      else consider(v);
      continue;
    }
    // None is clean by the lookahead's guess: one clean without it, the longest path left first.
    for (uint32_t u : front_) {
      uint32_t key;
      if ((v == kNone || height_[u] > height_[v]) && clean(u, key, false)) v = u;
    }
    if (v != kNone) {
      place(v);
      continue;
    }
    // Out of time: no order (a forced one would be of no use to a polygraph out of time too).
    if (conflicts < max_conflicts && (++conflicts & 15) == 0 && budget_ && budget_->expired()) return {};
    if (conflicts < max_conflicts && learn()) {
      rebuild();
      continue;
    }
    // Nothing runs cleanly: run what the present waits on anyway, else the transaction with the
    // longest path left (a guess that violates; the lazy polygraph repairs it), or give up when
    // asked for a clean replay only.
    if (!force_) return {};
    if (!learned_.empty()) {
      // The guesses below may break what the learned edges rest on, and those edges may close
      // cycles among themselves: from here on only the known edges hold.
      forget_learned();
      rebuild();
      conflicts = max_conflicts;
    }
    if (++guesses > max_guesses_ || ((guesses & 1023) == 0 && budget_ && budget_->expired())) return {};
    if ((v = demanded()) != kNone) {
      place(v);
      continue;
    }
    while (!blocked_.empty() && (placed_[blocked_.top().second] || indeg_[blocked_.top().second] != 0))
      blocked_.pop();
    if (blocked_.empty()) return {};  // cannot happen: the known edges are acyclic
    v = blocked_.top().second;
    blocked_.pop();
    place(v);
  }
  return std::move(order_);
}

std::vector<uint32_t> replay_order(const Problem& p, bool force, const CheckBudget* budget, size_t max_guesses) {
  if (p.n < 2) return {};
  return Replay(p, force, budget, max_guesses).run();
}

}  // namespace isoscope::strong
