// The replay's conflict analysis (replay.h): nogood learning at a dead end, the backjump, and the
// learned edges that hold a transaction back while the placements they rest on stay.
//
// At a dead end every node of the front (the unplaced nodes whose predecessors are all placed) is
// held up by a key it writes: the current value, written by U (placed), has a reader r still to
// run, and r waits along known and learned edges for some nodes of the front. Closing this over
// the front from one node gives a set S of nodes none of which can run first among S (it would
// overwrite a value before its reader, which waits for another node of S), so none can ever run:
// in every order that extends the present one, some V of S runs before its U (or a condition a
// learned edge rests on fails). The search backjumps to just before the last placed of those U
// and learns that it waits for its V, for as long as the other placements of the reason stay.
// Undoing only the last choice (the previous search) never reached the mistakes, often hundreds
// of places back: serial histories of 1,000 sessions on 8 keys replay now, with about one
// conflict per two transactions. Each search of the analysis is bounded; a dead end it cannot
// explain ends the clean replay (the order is verified before use in any case).
#include <algorithm>

#include "checkers/strong/replay.h"

namespace isoscope::strong {

void Replay::hold(uint32_t e) {
  holding_at_[e] = static_cast<uint32_t>(holding_.size());
  holding_.push_back(e);
}

void Replay::release(uint32_t e) {
  holding_at_[holding_.back()] = holding_at_[e];
  holding_[holding_at_[e]] = holding_.back();
  holding_.pop_back();
  holding_at_[e] = kNone;
}

void Replay::append_conds(uint32_t e, std::vector<Cond>& out) {
  out.insert(out.end(), cond_pool_.begin() + cond_range_[e].first, cond_pool_.begin() + cond_range_[e].second);
}

bool Replay::before_set(uint32_t r, std::vector<uint32_t>& out, std::vector<Cond>& conds) {
  ++cepoch_;
  cstack_.assign(1, r);
  cmark_[r] = cepoch_;
  constexpr uint32_t kSearchBound = 256;  // nodes a search of the analysis visits
  uint32_t seen = 0;
  while (!cstack_.empty()) {
    if (seen++ >= kSearchBound) return false;
    const uint32_t w = cstack_.back();
    cstack_.pop_back();
    if (indeg_[w] == 0) {
      out.push_back(w);
      continue;
    }
    uint32_t hard = kNone, multi = kNone;
    auto open = [&](uint32_t u) { return u != kNone && !placed_[u]; };
    if (open(p_.chain_pred(w))) hard = p_.chain_pred(w);
    for (uint32_t i = p_.rbeg[w]; i < p_.rbeg[w + 1] && hard == kNone; ++i)
      if (open(p_.reads[i].writer)) hard = p_.reads[i].writer;
    for (uint32_t i = fbeg_[w]; i < fbeg_[w + 1] && hard == kNone; ++i)
      if (open(fpred_[i])) hard = fpred_[i];
    for (uint32_t l = in_head_[w]; l != kNone && hard == kNone; l = links_[l].next) {
      const uint32_t e = links_[l].edge;
      if (!learned_[e].active || learned_[e].placed_froms != 0) continue;
      if (learned_[e].fend - learned_[e].fbeg == 1) hard = learned_froms_[learned_[e].fbeg], append_conds(e, conds);
      else multi = e;
    }
    if (hard != kNone) {
      if (cmark_[hard] != cepoch_) cmark_[hard] = cepoch_, cstack_.push_back(hard);
      continue;
    }
    if (multi == kNone) return false;  // cannot happen: indeg counts an unplaced predecessor
    append_conds(multi, conds);
    for (uint32_t i = learned_[multi].fbeg; i < learned_[multi].fend; ++i) {
      const uint32_t f = learned_froms_[i];
      if (cmark_[f] != cepoch_) cmark_[f] = cepoch_, cstack_.push_back(f);
    }
  }
  return true;
}

void Replay::drop_stale() {
  while (!guarded_.empty() && guarded_.top().first >= order_.size()) {
    const uint32_t e = guarded_.top().second;
    Learned& l = learned_[e];
    guarded_.pop();
    l.active = false;
    if (l.placed_froms == 0) release(e);
    if (l.placed_froms == 0 && --indeg_[l.to] == 0 && !placed_[l.to]) enter(l.to);
  }
}

bool Replay::path_to(uint32_t u, uint32_t v, uint32_t last, std::vector<Cond>& conds) {
  ++cepoch_;
  cstack_.assign(1, u);
  cmark_[u] = cepoch_;
  via_[u] = kNone;
  uint32_t seen = 0;
  auto open = [&](uint32_t w) { return at_[w] == kNone || at_[w] > last; };
  // Short: the paths found are (on serial 10^5-transaction histories, and VeriStrong's) within
  // 16 nodes, and the searches that find none were a third of the replay at 256.
  constexpr uint32_t kPathBound = 32;
  while (!cstack_.empty() && seen++ < kPathBound) {
    const uint32_t w = cstack_.back();
    cstack_.pop_back();
    if (w == v) {
      for (uint32_t x = v; x != u; x = parent_[x])
        if (via_[x] != kNone) append_conds(via_[x], conds);
      return true;
    }
    auto push = [&](uint32_t x, uint32_t edge) {
      if (open(x) && cmark_[x] != cepoch_) {
        cmark_[x] = cepoch_, parent_[x] = w, via_[x] = edge;
        cstack_.push_back(x);
      }
    };
    for (uint32_t e = sbeg_[w]; e < sbeg_[w + 1]; ++e) push(succ_[e], kNone);
    for (uint32_t l = out_head_[w]; l != kNone; l = links_[l].next) {
      const Learned& e = learned_[links_[l].edge];
      if (e.active && e.fend - e.fbeg == 1 && (e.guard == kNone || e.guard < last)) push(e.to, links_[l].edge);
    }
  }
  return false;
}

bool Replay::backjump_and_learn(std::vector<Cond>& clause) {
  // The last placed U of the clause waits for its V, unless some path of known and learned edges
  // (those that outlive the backjump) already runs from U to V: that V is ruled out, and the
  // clause rests on the path's conditions instead, maybe on an earlier U.
  uint32_t last = 0, u_last = 0;
  while (true) {
    std::sort(clause.begin(), clause.end());
    clause.erase(std::unique(clause.begin(), clause.end()), clause.end());
    last = 0;
    for (const Cond& c : clause) last = std::max(last, at_[c.second]);
    if (last == 0 || last == kNone) return false;  // no order extends the initial values
    u_last = order_[last];
    size_t keep = 0;
    const size_t before = clause.size();
    for (size_t i = 0; i < before; ++i)
      if (clause[i].second != u_last || !path_to(u_last, clause[i].first, last, clause)) clause[keep++] = clause[i];
      else clause[keep++] = {kNone, kNone};  // ruled out (dropped below)
    clause.erase(std::remove(clause.begin(), clause.end(), Cond{kNone, kNone}), clause.end());
    if (std::any_of(clause.begin(), clause.end(), [&](const Cond& c) { return c.second == u_last; })) break;
  }
  // Backjump to just before u_last; it waits for one of the V it was paired with.
  while (order_.size() > last) undo();
  drop_stale();
  Learned l{u_last, kNone, static_cast<uint32_t>(learned_froms_.size()), 0, 0, true};
  const uint32_t cbeg = static_cast<uint32_t>(cond_pool_.size());
  for (const Cond& c : clause) {
    if (c.second == u_last) {
      if (std::find(learned_froms_.begin() + l.fbeg, learned_froms_.end(), c.first) == learned_froms_.end())
        learned_froms_.push_back(c.first);
    } else {
      cond_pool_.push_back(c);
      l.guard = l.guard == kNone ? at_[c.second] : std::max(l.guard, at_[c.second]);
    }
  }
  l.fend = static_cast<uint32_t>(learned_froms_.size());
  const uint32_t id = static_cast<uint32_t>(learned_.size());
  cond_range_.push_back({cbeg, static_cast<uint32_t>(cond_pool_.size())});
  for (uint32_t i = l.fbeg; i < l.fend; ++i) {
    links_.push_back({id, out_head_[learned_froms_[i]]});
    out_head_[learned_froms_[i]] = static_cast<uint32_t>(links_.size() - 1);
  }
  links_.push_back({id, in_head_[u_last]});
  in_head_[u_last] = static_cast<uint32_t>(links_.size() - 1);
  learned_.push_back(l);
  holding_at_.push_back(kNone);
  hold(id);
  if (l.guard != kNone) guarded_.push({l.guard, id});
  block(u_last);  // its froms are all unplaced: each ran after the last U of the clause
  return true;
}

bool Replay::close_from(uint32_t seed) {
  lits_.clear(), conds_.clear(), seq_.clear();
  bool closed = true;
  seq_.push_back(seed);
  in_set_[seed] = 1;
  for (size_t i = 0; i < seq_.size() && closed; ++i) {
    const uint32_t v = seq_[i];
    uint32_t key;
    if (clean(v, key, false) || key == kNone || !p_.writes(v, key)) {
      closed = false;  // not held up by a write
      break;
    }
    const uint32_t o = cur_out_[key];
    best_.clear(), best_conds_.clear();
    bool found = false;
    for (uint32_t j = orbeg_[o]; j < orbeg_[o + 1]; ++j) {
      const uint32_t r = reader_[oreads_[j]];
      if (placed_[r] || r == v) continue;
      trial_.clear(), trial_conds_.clear();
      if (!before_set(r, trial_, trial_conds_) || (found && trial_.size() >= best_.size())) continue;
      found = true;
      best_.swap(trial_), best_conds_.swap(trial_conds_);
      if (best_.size() == 1) break;
    }
    if (!found) {
      closed = false;
      break;
    }
    lits_.push_back({v, latest_[key]});
    conds_.insert(conds_.end(), best_conds_.begin(), best_conds_.end());
    for (uint32_t u : best_)
      if (!in_set_[u]) in_set_[u] = 1, seq_.push_back(u);
  }
  for (uint32_t u : seq_) in_set_[u] = 0;
  return closed;
}

bool Replay::learn() {
  // Whatever runs next is a node of the front, kept there by the learned edges that keep the
  // others out: their conditions are part of any reason.
  auto blocking_conds = [&](std::vector<Cond>& clause) {
    for (uint32_t e : holding_) append_conds(e, clause);
  };
  std::vector<Cond> clause;
  if (front_.empty()) {
    // Learned edges close a cycle (one the checks below could not see): one of their
    // conditions must go.
    blocking_conds(clause);
    return backjump_and_learn(clause);
  }
  // An S whose every U is the initial transaction cannot turn around (a write skew among
  // transactions that read initial values: the history violates SER there); it stays stuck
  // whatever runs before it, and another seed may explain the rest of the front. Without
  // that, the forced replay guessed from here and scrambled the rest of the history (the
  // lazy polygraph then needed 7 rounds on 10^6 transactions).
  bool closed = false;
  size_t seeds = 0;
  for (uint32_t seed : front_) {
    if (in_root_[seed]) continue;
    if (seeds++ == 8 || !(closed = close_from(seed))) break;
    clause = lits_;
    clause.insert(clause.end(), conds_.begin(), conds_.end());
    if (std::any_of(clause.begin(), clause.end(), [&](const Cond& c) { return at_[c.second] != 0; })) break;
    for (uint32_t u : seq_) in_root_[u] = 1, root_marked_.push_back(u);
    closed = false;
  }
  for (uint32_t u : root_marked_) in_root_[u] = 0;
  root_marked_.clear();
  if (!closed) {
    // S not closed (a search beyond its bound): the plain reason of the dead end. Whatever runs
    // next is a node of the front, and none can run while each keeps its U and the learned
    // edges that keep the others out of the front hold.
    clause.clear();
    for (uint32_t u : front_) {
      uint32_t key;
      if (clean(u, key, false) || key == kNone || !p_.writes(u, key)) return false;
      clause.push_back({u, latest_[key]});
    }
    blocking_conds(clause);
  }
  return backjump_and_learn(clause);
}

void Replay::forget_learned() {
  for (Learned& l : learned_)
    if (l.active && (l.active = false, l.placed_froms == 0) && --indeg_[l.to] == 0 && !placed_[l.to]) enter(l.to);
  learned_.clear(), learned_froms_.clear(), cond_pool_.clear(), cond_range_.clear();
  holding_.clear(), holding_at_.clear();
  std::fill(out_head_.begin(), out_head_.end(), kNone);
  std::fill(in_head_.begin(), in_head_.end(), kNone);
  links_.clear();
  guarded_ = {};
}

}  // namespace isoscope::strong
