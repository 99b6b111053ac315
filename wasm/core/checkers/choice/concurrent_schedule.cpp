// A concurrent schedule by search over the keys' values (see concurrent_schedule.h).
#include "checkers/choice/concurrent_schedule.h"

#include <algorithm>

#include "checkers/choice/schedule_search.h"
#include "util/flat_map.h"
#include "util/hash.h"

namespace isoscope {

namespace {

class Search {
 public:
  Search(const History& h, ScheduleModel model, const CheckBudget& budget, size_t max_steps, size_t stall_steps)
      : h_(h), si_(model == ScheduleModel::SnapshotIsolation), budget_(budget), max_steps_(max_steps), stall_steps_(stall_steps) {}

  ConcurrentSchedule run();

 private:
  struct Write {
    uint32_t key, op, pair;  // a transaction's last write of key, and its (key, value)'s id
  };
  struct Frame {
    uint32_t trail;      // the trail's size before the commit that made this state
    uint64_t hash;       // the state's hash before it
    uint32_t next, end;  // its candidate sessions still to try: pool_[next, end)
    bool partial;        // some of its subtree was skipped by a backjump: not known dead
  };

  bool setup();
  uint32_t current(uint32_t s) const { return pos_[s] < seq_[s].size() ? seq_[s][pos_[s]] : kNone; }
  bool may_read(uint32_t o, uint32_t w) const {
    const uint32_t rf = h_.read_from[o];
    if (rf != kAmbiguous) return rf == w;
    const std::span<const uint32_t> c = h_.ambiguous.candidates_at(amb_of_[o]);
    return std::binary_search(c.begin(), c.end(), w);
  }
  bool sees(uint32_t o) const { return may_read(o, writer_[h_.ops[o].key]); }
  std::span<const uint32_t> ext(uint32_t t) const { return {ext_.data() + ext_begin_[t], ext_begin_[t + 1] - ext_begin_[t]}; }
  std::span<const Write> writes(uint32_t t) const { return {wr_.data() + wr_begin_[t], wr_begin_[t + 1] - wr_begin_[t]}; }

  // Every change to the state goes through set, so that undo can restore it.
  void set(uint32_t& at, uint32_t v) {
    trail_.push_back({&at, at});
    at = v;
  }
  uint64_t session_hash(uint32_t s) const { return mix64((uint64_t(pos_[s]) << 40) ^ (uint64_t(prog_[s]) << 20) ^ s); }
  uint64_t key_hash(uint32_t k, uint32_t pair) const { return mix64((uint64_t(k) << 32) ^ pair ^ 0x5A17000000000000ull); }
  void set_place(uint32_t s, uint32_t pos, uint32_t prog) {
    hash_ ^= session_hash(s);
    set(pos_[s], pos);
    set(prog_[s], prog);
    hash_ ^= session_hash(s);
  }
  void take(uint32_t o) {  // read o sees the key's current value
    set(readers_[pair_of_op_[o]], readers_[pair_of_op_[o]] - 1);
    if (amb_of_[o] != kNone) set(choice_[amb_of_[o]], writer_[h_.ops[o].key]);
  }
  void snapshot(uint32_t s) {
    for (uint32_t o : ext(current(s))) take(o);
    set_place(s, pos_[s], 1);
  }
  void drop_snapshot(uint32_t s) {
    for (uint32_t o : ext(current(s))) set(readers_[pair_of_op_[o]], readers_[pair_of_op_[o]] + 1);
    set_place(s, pos_[s], 0);
    set(lost_at_[s], static_cast<uint32_t>(stack_.size()));
  }
  // The reads session s's transaction still waits for (none when it holds a snapshot).
  std::span<const uint32_t> pending(uint32_t s) const {
    const uint32_t t = current(s);
    if (t == kNone || (si_ && prog_[s] == 1)) return {};
    return ext(t).subspan(si_ ? 0 : prog_[s]);
  }
  bool ready(uint32_t s) const {
    const uint32_t t = current(s);
    return t != kNone && prog_[s] == (si_ ? 1u : ext_begin_[t + 1] - ext_begin_[t]);
  }
  void commit(uint32_t s);
  // Takes every read (or snapshot) session s's transaction can take now, and commits it (and
  // the next ones) while it is read-only and done.
  void settle(uint32_t s);
  // Whether committing session s's transaction would move a key off a value that a read still
  // to be taken needs and that no transaction still to commit writes.
  bool strands(uint32_t s) const {
    for (const Write& w : writes(current(s))) {
      const uint32_t cur = state_pair_[w.key];
      if (cur != w.pair && writers_[cur] == 0 && readers_[cur] > 0) return true;
    }
    return false;
  }
  double priority(uint32_t s) const {
    const uint32_t t = current(s);
    if (by_time_) return noise_[t] + h_.times[t].end.approx();
    const uint32_t len = h_.session_begin[s + 1] - h_.session_begin[s];
    return noise_[t] + static_cast<double>(h_.txns[t].index) / static_cast<double>(len);
  }
  // Pushes the sessions whose transaction may commit now (and writes) onto pool_, in priority order.
  void candidates();
  void undo_to(uint32_t mark) {
    while (trail_.size() > mark) {
      *trail_.back().first = trail_.back().second;
      trail_.pop_back();
    }
  }
  uint32_t pair_of(uint32_t k, uint32_t value) {
    return pair_id_.insert((uint64_t(k) << 32) | value, static_cast<uint32_t>(pair_id_.size()));
  }

  const History& h_;
  const bool si_;
  const CheckBudget& budget_;
  const size_t max_steps_;
  const size_t stall_steps_;  // past it, a search that never committed half the transactions stops
  size_t deepest_ = 0;        // the most transactions committed at once
  bool by_time_ = false;
  size_t total_ = 0;
  std::vector<std::vector<uint32_t>> seq_;  // per session, its committed transactions
  std::vector<uint32_t> amb_of_;            // per op, its index in History::ambiguous
  std::vector<uint32_t> ext_begin_, ext_;   // per transaction, its reads of keys it has not written yet
  std::vector<uint32_t> wr_begin_;          // per transaction, its last write of each key
  std::vector<Write> wr_;
  std::vector<uint32_t> pair_of_op_;        // per external read, its (key, value)'s id
  FlatMap64 pair_id_{1024};
  // The state (changed only through set).
  std::vector<uint32_t> pos_, prog_;        // per session: transactions committed; reads taken (SI: 1 = a snapshot)
  std::vector<uint32_t> writer_, state_pair_;  // per key: the write its value comes from, and its pair
  std::vector<uint32_t> readers_, writers_;  // per pair: reads still to take; transactions still to commit writing it last
  std::vector<uint32_t> choice_;            // per ambiguous read
  std::vector<uint32_t> order_;             // commits, order_[0, done_)
  uint32_t done_ = 0;
  uint64_t hash_ = 0;
  std::vector<std::pair<uint32_t*, uint32_t>> trail_;
  std::vector<uint32_t> pool_;
  std::vector<Frame> stack_;
  std::vector<double> noise_;
  std::vector<uint32_t> key_mark_;  // scratch: the keys the committing transaction writes
  // Per session, the frame whose commit last took from its waiting transaction a value it needs
  // (moved a key it is still to read off that value, or cost it its snapshot), or kNone.
  std::vector<uint32_t> lost_at_;
  bool jumped_ = false;  // a backjump skipped alternatives: exhaustion proves nothing
  ConcurrentSchedule out_;
};

void Search::commit(uint32_t s) {
  const uint32_t t = current(s);
  // The waiting transactions this commit takes a value from (for the backjump).
  for (const Write& w : writes(t)) {
    const uint32_t was = state_pair_[w.key];
    if (was == w.pair) continue;
    for (uint32_t s2 = 0; s2 < seq_.size(); ++s2) {
      if (s2 == s || lost_at_[s2] == stack_.size()) continue;
      for (uint32_t o : pending(s2))
        if (pair_of_op_[o] == was) {
          set(lost_at_[s2], static_cast<uint32_t>(stack_.size()));
          break;
        }
    }
  }
  set(lost_at_[s], kNone);
  for (const Write& w : writes(t)) {
    hash_ ^= key_hash(w.key, state_pair_[w.key]) ^ key_hash(w.key, w.pair);
    set(writers_[w.pair], writers_[w.pair] - 1);
    set(writer_[w.key], w.op);
    set(state_pair_[w.key], w.pair);
    key_mark_[w.key] = t;
  }
  set(order_[done_], t);
  set(done_, done_ + 1);
  set_place(s, pos_[s] + 1, 0);
  if (!si_ || writes(t).empty()) return;
  // Snapshots taken before this commit by transactions that write one of its keys are lost
  // (first committer wins): they wait for a snapshot after it.
  for (uint32_t s2 = 0; s2 < seq_.size(); ++s2) {
    if (prog_[s2] != 1) continue;
    for (const Write& w : writes(current(s2)))
      if (key_mark_[w.key] == t) {
        drop_snapshot(s2);
        break;
      }
  }
}

void Search::settle(uint32_t s) {
  for (uint32_t t = current(s); t != kNone; t = current(s)) {
    if (si_) {
      if (prog_[s] == 0) {
        for (uint32_t o : ext(t))
          if (!sees(o)) return;
        snapshot(s);
      }
    } else {
      const std::span<const uint32_t> e = ext(t);
      while (prog_[s] < e.size() && sees(e[prog_[s]])) {
        take(e[prog_[s]]);
        set_place(s, pos_[s], prog_[s] + 1);
      }
      if (prog_[s] < e.size()) return;
    }
    if (!writes(t).empty()) return;
    commit(s);
  }
}

void Search::candidates() {
  const size_t begin = pool_.size();
  for (uint32_t s = 0; s < seq_.size(); ++s)
    if (ready(s) && !writes(current(s)).empty()) pool_.push_back(s);
  std::sort(pool_.begin() + begin, pool_.end(), [&](uint32_t a, uint32_t b) { return priority(a) < priority(b); });
}

bool Search::setup() {
  if (h_.has_lists || !schedule_search::committed_sessions(h_, seq_, total_, by_time_)) return false;
  const uint32_t k = static_cast<uint32_t>(seq_.size());
  amb_of_.assign(h_.ops.size(), kNone);
  for (uint32_t i = 0; i < h_.ambiguous.size(); ++i) amb_of_[h_.ambiguous.op[i]] = i;
  choice_.assign(h_.ambiguous.size(), kNone);
  const uint32_t initial = h_.initial ? *h_.initial : kNone;
  writer_.assign(h_.keys.size(), kReadsInitial);
  state_pair_.resize(h_.keys.size());
  for (uint32_t key = 0; key < h_.keys.size(); ++key) state_pair_[key] = pair_of(key, initial);
  ext_begin_.assign(h_.txns.size() + 1, 0);
  wr_begin_.assign(h_.txns.size() + 1, 0);
  pair_of_op_.assign(h_.ops.size(), kNone);
  std::vector<uint32_t> last(h_.keys.size(), kNone), wrote(h_.keys.size(), kNone);
  for (uint32_t t = 1; t < h_.txns.size(); ++t) {
    ext_begin_[t] = static_cast<uint32_t>(ext_.size());
    wr_begin_[t] = static_cast<uint32_t>(wr_.size());
    if (h_.txns[t].status != TxnStatus::Committed) continue;
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      const uint32_t key = h_.ops[o].key;
      if (h_.ops[o].is_write()) {
        if (wrote[key] != t) wrote[key] = t, wr_.push_back({key, 0, 0});
        last[key] = o;
      } else if (h_.ops[o].is_read()) {
        if (wrote[key] != t) {
          ext_.push_back(o);
          pair_of_op_[o] = pair_of(key, h_.ops[o].value);
        } else if (!may_read(o, last[key])) {
          return false;  // a read of its own key that misses its own write: no schedule serves it
        } else if (amb_of_[o] != kNone) {
          choice_[amb_of_[o]] = last[key];
        }
      }
    }
    for (uint32_t i = wr_begin_[t]; i < wr_.size(); ++i)
      wr_[i].op = last[wr_[i].key], wr_[i].pair = pair_of(wr_[i].key, h_.ops[wr_[i].op].value);
  }
  ext_begin_.back() = static_cast<uint32_t>(ext_.size());
  wr_begin_.back() = static_cast<uint32_t>(wr_.size());
  readers_.assign(pair_id_.size(), 0);
  writers_.assign(pair_id_.size(), 0);
  for (uint32_t o : ext_) ++readers_[pair_of_op_[o]];
  for (const Write& w : wr_) ++writers_[w.pair];
  pos_.assign(k, 0);
  prog_.assign(k, 0);
  order_.assign(total_, kNone);
  key_mark_.assign(h_.keys.size(), kNone);
  lost_at_.assign(k, kNone);
  noise_.assign(h_.txns.size(), 0.0);
  for (uint32_t s = 0; s < k; ++s) hash_ ^= session_hash(s);
  for (uint32_t key = 0; key < h_.keys.size(); ++key) hash_ ^= key_hash(key, state_pair_[key]);
  return true;
}

ConcurrentSchedule Search::run() {
  if (!setup()) return out_;
  const uint32_t k = static_cast<uint32_t>(seq_.size());
  for (uint32_t s = 0; s < k; ++s) settle(s);
  // A typical duration (without times: a typical session's step), the scale of the jitter.
  const double scale = schedule_search::jitter_scale(h_, seq_, total_, by_time_);
  const uint32_t root_trail = static_cast<uint32_t>(trail_.size());
  const uint64_t root_hash = hash_;
  FlatMap64 dead(1024);
  // Restarts (Luby's sequence of lengths, 4 commits per transaction each unit), each with the
  // priorities jittered by up to a typical duration; the dead states stay dead across them.
  uint64_t rng = 0x2468ACEull;
  size_t restart = 0;
  constexpr size_t kRestartUnit = 4;
  using schedule_search::luby;
  size_t restart_at = kRestartUnit * total_ * luby(0);
  auto push_frame = [&](uint32_t trail, uint64_t hash) {
    const uint32_t begin = static_cast<uint32_t>(pool_.size());
    candidates();
    stack_.push_back({trail, hash, begin, static_cast<uint32_t>(pool_.size()), false});
  };
  push_frame(root_trail, root_hash);
  while (done_ < total_) {
    if (out_.steps >= restart_at) {
      undo_to(root_trail);
      hash_ = root_hash;
      stack_.clear();
      pool_.clear();
      ++restart;
      restart_at = out_.steps + kRestartUnit * total_ * luby(restart);
      schedule_search::rejitter(noise_, scale, rng);
      push_frame(root_trail, root_hash);
    }
    bool moved = false;
    while (!moved && stack_.back().next < stack_.back().end) {
      const uint32_t s = pool_[stack_.back().next++];
      if (strands(s)) continue;
      if (++out_.steps > max_steps_ || (out_.steps > stall_steps_ && deepest_ * 2 < total_)) return out_;
      if ((out_.steps & 255) == 0 && budget_.expired()) {
        out_.stopped = true;
        return out_;
      }
      const uint32_t mark = static_cast<uint32_t>(trail_.size());
      const uint64_t before = hash_;
      commit(s);
      for (uint32_t s2 = 0; s2 < k; ++s2) settle(s2);
      deepest_ = std::max<size_t>(deepest_, done_);
      if (done_ == total_) break;
      if (dead.find(hash_) != FlatMap64::kAbsent) {
        undo_to(mark);
        hash_ = before;
        continue;
      }
      push_frame(mark, before);
      moved = true;
    }
    if (moved || done_ == total_) continue;
    // Every commit from here was tried: the state is dead.
    // Every commit from here was tried: the state is dead (unless a backjump skipped some).
    if (!stack_.back().partial) dead.insert(hash_, 0);
    // Backjump: a transaction left waiting lost a value it needs to an earlier commit; the
    // commits since then are not why (a guess: what is skipped is not known dead).
    uint32_t jump = kNone;
    for (uint32_t s = 0; s < k; ++s)
      if (lost_at_[s] != kNone && !ready(s) && (jump == kNone || lost_at_[s] > jump)) jump = lost_at_[s];
    if (jump != kNone && jump >= 1 && jump + 1 < stack_.size()) {
      jumped_ = true;
      undo_to(stack_[jump].trail);
      hash_ = stack_[jump].hash;
      stack_.resize(jump);
      pool_.resize(stack_.back().end);
      stack_.back().partial = true;
      continue;
    }
    if (stack_.size() == 1) {
      out_.exhausted = !stack_.back().partial && !jumped_;
      return out_;
    }
    const Frame g = stack_.back();
    stack_.pop_back();
    pool_.resize(stack_.back().end);
    stack_.back().partial |= g.partial;
    undo_to(g.trail);
    hash_ = g.hash;
  }
  out_.found = true;
  out_.commits.assign(order_.begin(), order_.end());
  out_.choice = std::move(choice_);
  return out_;
}

}  // namespace

bool snapshot_order_holds(const History& h, const std::vector<uint32_t>& commits, bool no_conflict) {
  if (!schedule_search::committed_in_session_order(h, commits)) return false;
  // pos: each transaction's place in the commit order (1-based; 0: the initial transaction).
  std::vector<uint32_t> pos(h.txns.size(), kNone);
  pos[kInitialTxn] = 0;
  for (uint32_t i = 0; i < commits.size(); ++i) pos[commits[i]] = i + 1;
  // Per key, its versions in commit order: (place, the committing transaction's last write).
  std::vector<uint32_t> vbeg(h.keys.size() + 1, 0);
  std::vector<uint32_t> stamp(h.keys.size(), kNone);
  for (const uint32_t t : commits)
    for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o) {
      const Op& op = h.ops[o];
      if (op.kind != OpKind::Read && op.kind != OpKind::Write) return false;
      if (op.kind == OpKind::Write && stamp[op.key] != t) stamp[op.key] = t, ++vbeg[op.key + 1];
    }
  for (size_t k = 0; k < h.keys.size(); ++k) vbeg[k + 1] += vbeg[k];
  std::vector<std::pair<uint32_t, uint32_t>> vers(vbeg.back());
  std::vector<uint32_t> fill(vbeg.begin(), vbeg.end() - 1);
  std::fill(stamp.begin(), stamp.end(), kNone);
  for (const uint32_t t : commits)
    for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o) {
      const Op& op = h.ops[o];
      if (op.kind != OpKind::Write) continue;
      if (stamp[op.key] != t) stamp[op.key] = t, vers[fill[op.key]++] = {pos[t], o};
      else vers[fill[op.key] - 1].second = o;
    }
  std::fill(stamp.begin(), stamp.end(), kNone);
  std::vector<uint32_t> mine(h.keys.size(), kNone);
  std::vector<uint32_t> last(h.num_sessions(), 0);  // per session, its last commit's place
  for (const uint32_t t : commits) {
    const Txn& x = h.txns[t];
    // The snapshot: after the lo-th commit and before the hi-th (after the session's last one).
    const uint32_t p = pos[t];
    uint32_t lo = last[x.session], hi = p;
    last[x.session] = p;
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      const Op& op = h.ops[o];
      const uint32_t b = vbeg[op.key], e = vbeg[op.key + 1];
      if (op.kind == OpKind::Write) {
        if (stamp[op.key] != t && no_conflict) {
          // No writer of the key commits between the snapshot and this commit.
          const auto it = std::lower_bound(vers.begin() + b, vers.begin() + e, std::pair<uint32_t, uint32_t>{p, 0});
          if (it != vers.begin() + b) lo = std::max(lo, (it - 1)->first);
        }
        mine[op.key] = o, stamp[op.key] = t;
        continue;
      }
      const uint32_t w = h.read_from[o];
      if (stamp[op.key] == t) {  // after its own write: that write
        if (w != mine[op.key]) return false;
        continue;
      }
      // The version read: from its commit to the next version's.
      uint32_t from, until;
      if (w == kReadsInitial) {
        from = 0;
        until = b == e ? kNone : vers[b].first;
      } else {
        if (w >= h.ops.size() || h.ops[w].kind != OpKind::Write || h.ops[w].key != op.key) return false;
        const uint32_t u = h.op_txn[w];
        if (u == t || pos[u] == kNone) return false;
        const auto it = std::lower_bound(vers.begin() + b, vers.begin() + e, std::pair<uint32_t, uint32_t>{pos[u], 0});
        if (it == vers.begin() + e || it->first != pos[u] || it->second != w) return false;  // overwritten in its transaction
        from = pos[u];
        until = it + 1 == vers.begin() + e ? kNone : (it + 1)->first;
      }
      lo = std::max(lo, from);
      hi = std::min(hi, until);
    }
    if (lo >= hi) return false;
  }
  return true;
}

ConcurrentSchedule find_concurrent_schedule(const History& h, ScheduleModel model, const CheckBudget& budget,
                                            size_t max_steps, size_t stall_steps) {
  return Search(h, model, budget, max_steps, stall_steps).run();
}

}  // namespace isoscope
