// A serial schedule by search over the keys' values (see serial_schedule.h).
#include "checkers/choice/serial_schedule.h"

#include <algorithm>
#include <set>

#include "checkers/choice/schedule_search.h"
#include "util/flat_map.h"
#include "util/hash.h"

namespace isoscope {

namespace {

class Search {
 public:
  Search(const History& h, bool real_time, const CheckBudget& budget, size_t max_steps, bool backjump, size_t stall_steps)
      : h_(h), real_time_(real_time), backjump_(backjump), budget_(budget), max_steps_(max_steps), stall_steps_(stall_steps) {}

  SerialSchedule run();

 private:
  // The writer read op o sees when its transaction runs now: its transaction's own last write
  // of the key before it (in local), else the key's current one.
  uint32_t writer_seen(uint32_t o) const {
    const uint32_t k = h_.ops[o].key;
    for (auto it = local_.rbegin(); it != local_.rend(); ++it)
      if (it->first == k) return it->second;
    return writer_[k];
  }
  bool may_read(uint32_t o, uint32_t w) const {
    const uint32_t rf = h_.read_from[o];
    if (rf != kAmbiguous) return rf == w;
    const std::span<const uint32_t> c = h_.ambiguous.candidates_at(amb_of_[o]);
    return std::binary_search(c.begin(), c.end(), w);
  }
  // Whether transaction t can run on the current values (and, with real time, now).
  bool can_run(uint32_t t) {
    if (real_time_ && h_.txns[t].has_time()) {
      const Time& start = h_.times[t].start;
      for (uint32_t s = 0; s < seq_.size(); ++s)
        if (pos_[s] < seq_[s].size() && min_end_[s][pos_[s]] < start) return false;
    }
    local_.clear();
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      if (h_.ops[o].is_write()) local_.push_back({h_.ops[o].key, o});
      else if (h_.ops[o].is_read() && !may_read(o, writer_seen(o))) return false;
    }
    return !strands_reads(t);
  }
  uint64_t key_hash(uint32_t k, uint32_t w) const {
    return mix64((uint64_t(k) << 32) ^ (w == kReadsInitial ? 0xFFFFFFFFull : h_.ops[w].value) ^ 0x5A17u);
  }
  uint64_t place_hash(uint32_t s, uint32_t p) const { return mix64((uint64_t(p) << 32) | s); }
  double priority(uint32_t s) const {
    const uint32_t t = seq_[s][pos_[s]];
    if (by_time_) return noise_[t] + (writes_begin_[t] == writes_begin_[t + 1] ? h_.times[t].start.approx() : h_.times[t].end.approx());
    return noise_[t] + static_cast<double>(pos_[s]) / static_cast<double>(seq_[s].size());
  }
  void place(uint32_t s, bool forced);
  void undo();

  const History& h_;
  bool real_time_;
  bool backjump_;
  const CheckBudget& budget_;
  size_t max_steps_;
  size_t stall_steps_;
  size_t total_ = 0;
  // Past stall_steps, a search that never placed half the transactions stops: stuck that far
  // from the end, it is not a few more steps from a schedule.
  bool out_of_steps() const {
    return out_.steps > max_steps_ || (out_.steps > stall_steps_ && out_.deepest * 2 < total_) ||
           ((out_.steps & 1023) == 0 && budget_.expired());
  }
  bool by_time_ = false;
  uint32_t initial_ = kNone;  // the initial value (kNone: none)
  std::vector<std::vector<uint32_t>> seq_;      // per session, its committed transactions
  std::vector<std::vector<Time>> min_end_;      // real time: per session, the least end from each place on
  std::vector<uint32_t> pos_;                   // per session, how many are placed
  std::vector<uint32_t> writer_;                // per key, the write its value comes from
  std::vector<uint32_t> amb_of_;                // per op, its index in History::ambiguous
  std::vector<std::pair<uint32_t, uint32_t>> local_;
  std::vector<std::pair<uint32_t, uint32_t>> undo_;  // (key, previous writer)
  struct Frame {
    uint32_t session, undo, lost;
    bool forced;
    bool partial;  // a backjump skipped part of the subtree of the state it made: not known dead
  };
  // Per session, the frame whose step last moved a key off a value its next transaction reads
  // (kNone: none since the session's last step), with a trail to undo it.
  std::vector<uint32_t> lost_at_;
  std::vector<std::pair<uint32_t, uint32_t>> lost_trail_;
  bool root_partial_ = false, jumped_ = false;
  void set_lost(uint32_t s, uint32_t v) {
    lost_trail_.push_back({s, lost_at_[s]});
    lost_at_[s] = v;
  }
  std::vector<Frame> stack_;
  std::set<std::pair<double, uint32_t>> ready_;  // (priority, session) of the sessions not done
  std::vector<uint32_t> order_;
  // The (key, value) pairs read or written, and per pair how many transactions not yet placed
  // read it (each read before their own write of the key) and write it last: once a key leaves
  // a value that is still to be read and that nobody will write again, those reads cannot run.
  FlatMap64 pair_id_{1024};
  std::vector<uint32_t> readers_, writers_;
  std::vector<uint32_t> state_pair_;           // per key, the pair of its current value
  std::vector<uint32_t> reads_begin_, reads_;  // per transaction, the pairs its reads need
  std::vector<uint32_t> writes_begin_;         // per transaction, its last write of each key:
  std::vector<std::pair<uint32_t, uint32_t>> writes_;  // (key, pair)
  uint32_t pair_of(uint32_t k, uint32_t value) {
    return pair_id_.insert((uint64_t(k) << 32) | value, static_cast<uint32_t>(pair_id_.size()));
  }
  void count(uint32_t t, int d) {
    for (uint32_t i = reads_begin_[t]; i < reads_begin_[t + 1]; ++i) readers_[reads_[i]] += d;
    for (uint32_t i = writes_begin_[t]; i < writes_begin_[t + 1]; ++i) writers_[writes_[i].second] += d;
  }
  // Whether running t would move a key off a value still to be read and never written again.
  bool strands_reads(uint32_t t) const {
    for (uint32_t i = writes_begin_[t]; i < writes_begin_[t + 1]; ++i) {
      const uint32_t cur = state_pair_[writes_[i].first];
      if (cur == writes_[i].second || writers_[cur] != 0) continue;
      uint32_t own = 0;
      for (uint32_t j = reads_begin_[t]; j < reads_begin_[t + 1]; ++j) own += reads_[j] == cur;
      if (readers_[cur] > own) return true;
    }
    return false;
  }
  uint64_t hash_ = 0;
  SerialSchedule out_;
  std::vector<double> noise_;
};

void Search::place(uint32_t s, bool forced) {
  const uint32_t t = seq_[s][pos_[s]];
  const uint32_t frame = static_cast<uint32_t>(stack_.size());
  stack_.push_back({s, static_cast<uint32_t>(undo_.size()), static_cast<uint32_t>(lost_trail_.size()), forced, false});
  // The sessions whose next transaction reads a value this step moves a key off (backjumps).
  for (uint32_t i = writes_begin_[t]; i < writes_begin_[t + 1]; ++i) {
    const uint32_t was = state_pair_[writes_[i].first];
    if (was == writes_[i].second || readers_[was] == 0) continue;
    for (uint32_t s2 = 0; s2 < seq_.size(); ++s2) {
      if (s2 == s || pos_[s2] == seq_[s2].size() || lost_at_[s2] == frame) continue;
      const uint32_t t2 = seq_[s2][pos_[s2]];
      for (uint32_t j = reads_begin_[t2]; j < reads_begin_[t2 + 1]; ++j)
        if (reads_[j] == was) {
          set_lost(s2, frame);
          break;
        }
    }
  }
  if (lost_at_[s] != kNone) set_lost(s, kNone);
  local_.clear();
  for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
    if (h_.ops[o].is_write()) {
      local_.push_back({h_.ops[o].key, o});
    } else if (h_.ops[o].is_read() && amb_of_[o] != kNone) {
      out_.choice[amb_of_[o]] = writer_seen(o);
    }
  }
  for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
    if (!h_.ops[o].is_write()) continue;
    const uint32_t k = h_.ops[o].key;
    undo_.push_back({k, writer_[k]});
    hash_ ^= key_hash(k, writer_[k]) ^ key_hash(k, o);
    writer_[k] = o;
  }
  for (uint32_t i = writes_begin_[t]; i < writes_begin_[t + 1]; ++i) state_pair_[writes_[i].first] = writes_[i].second;
  count(t, -1);
  ready_.erase({priority(s), s});
  hash_ ^= place_hash(s, pos_[s]) ^ place_hash(s, pos_[s] + 1);
  ++pos_[s];
  if (pos_[s] < seq_[s].size()) ready_.insert({priority(s), s});
  order_.push_back(t);
}

void Search::undo() {
  const Frame f = stack_.back();
  stack_.pop_back();
  while (lost_trail_.size() > f.lost) {
    lost_at_[lost_trail_.back().first] = lost_trail_.back().second;
    lost_trail_.pop_back();
  }
  if (f.partial) (stack_.empty() ? root_partial_ : stack_.back().partial) = true;
  while (undo_.size() > f.undo) {
    const auto [k, w] = undo_.back();
    undo_.pop_back();
    hash_ ^= key_hash(k, writer_[k]) ^ key_hash(k, w);
    writer_[k] = w;
  }
  const uint32_t s = f.session;
  const uint32_t t = order_.back();
  count(t, +1);
  for (uint32_t i = writes_begin_[t]; i < writes_begin_[t + 1]; ++i) {
    const uint32_t k = writes_[i].first, w = writer_[k];
    state_pair_[k] = pair_of(k, w == kReadsInitial ? initial_ : h_.ops[w].value);
  }
  if (pos_[s] < seq_[s].size()) ready_.erase({priority(s), s});
  hash_ ^= place_hash(s, pos_[s]) ^ place_hash(s, pos_[s] - 1);
  --pos_[s];
  ready_.insert({priority(s), s});
  order_.pop_back();
}

SerialSchedule Search::run() {
  size_t total = 0;
  if (h_.has_lists || !schedule_search::committed_sessions(h_, seq_, total, by_time_)) return out_;
  const uint32_t k = static_cast<uint32_t>(seq_.size());
  if (real_time_) {
    min_end_.resize(k);
    for (uint32_t s = 0; s < k; ++s) {
      min_end_[s].assign(seq_[s].size() + 1, Time::above_all());
      for (size_t i = seq_[s].size(); i-- > 0;) {
        const uint32_t t = seq_[s][i];
        min_end_[s][i] = min_end_[s][i + 1];
        if (h_.txns[t].has_time()) min_end_[s][i] = std::min(min_end_[s][i], h_.times[t].end);
      }
    }
  }
  amb_of_.assign(h_.ops.size(), kNone);
  for (uint32_t i = 0; i < h_.ambiguous.size(); ++i) amb_of_[h_.ambiguous.op[i]] = i;
  out_.choice.assign(h_.ambiguous.size(), kNone);
  noise_.assign(h_.txns.size(), 0.0);
  writer_.assign(h_.keys.size(), kReadsInitial);
  initial_ = h_.initial ? *h_.initial : kNone;
  state_pair_.resize(h_.keys.size());
  for (uint32_t key = 0; key < state_pair_.size(); ++key) state_pair_[key] = pair_of(key, initial_);
  reads_begin_.assign(h_.txns.size() + 1, 0);
  writes_begin_.assign(h_.txns.size() + 1, 0);
  std::vector<uint32_t> wrote(h_.keys.size(), kNone), last(h_.keys.size(), kNone);
  for (uint32_t t = 1; t < h_.txns.size(); ++t) {
    reads_begin_[t] = static_cast<uint32_t>(reads_.size());
    writes_begin_[t] = static_cast<uint32_t>(writes_.size());
    if (h_.txns[t].status != TxnStatus::Committed) continue;
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      const uint32_t key = h_.ops[o].key;
      if (h_.ops[o].is_write()) {
        if (wrote[key] != t) wrote[key] = t, writes_.push_back({key, 0});
        last[key] = o;
      } else if (h_.ops[o].is_read() && wrote[key] != t) {
        reads_.push_back(pair_of(key, h_.ops[o].value));
      }
    }
    for (uint32_t i = writes_begin_[t]; i < writes_.size(); ++i)
      writes_[i].second = pair_of(writes_[i].first, h_.ops[last[writes_[i].first]].value);
  }
  total_ = total;
  reads_begin_.back() = static_cast<uint32_t>(reads_.size());
  writes_begin_.back() = static_cast<uint32_t>(writes_.size());
  readers_.assign(pair_id_.size(), 0);
  writers_.assign(pair_id_.size(), 0);
  for (uint32_t t = 1; t < h_.txns.size(); ++t)
    if (h_.txns[t].status == TxnStatus::Committed) count(t, +1);
  pos_.assign(k, 0);
  lost_at_.assign(k, kNone);
  for (uint32_t s = 0; s < k; ++s) {
    hash_ ^= place_hash(s, 0);
    if (!seq_[s].empty()) ready_.insert({priority(s), s});
  }
  for (uint32_t key = 0; key < writer_.size(); ++key) hash_ ^= key_hash(key, kReadsInitial);
  order_.reserve(total);
  FlatMap64 dead(1024);
  const double scale = schedule_search::jitter_scale(h_, seq_, total, by_time_);
  // Restarts (Luby's sequence of lengths, 4 placements per transaction each unit), each with
  // the priorities jittered by up to a typical duration: a bad early step dooms a whole subtree
  // that depth-first search would otherwise exhaust. The dead states stay dead across them.
  uint64_t rng = 0x1234567ull;
  size_t restart = 0, restart_at = 0;
  constexpr size_t kRestartUnit = 4;
  using schedule_search::luby;
  bool fresh = true;  // a state entered for the first time (else: returned to by an undo)
  std::pair<double, uint32_t> resume{};
  restart_at = kRestartUnit * total * luby(0);
  while (order_.size() < total) {
    if (out_.steps >= restart_at) {
      while (!stack_.empty()) undo();
      ++restart;
      restart_at = out_.steps + kRestartUnit * total * luby(restart);
      ready_.clear();
      schedule_search::rejitter(noise_, scale, rng);
      for (uint32_t s = 0; s < k; ++s)
        if (!seq_[s].empty()) ready_.insert({priority(s), s});
      fresh = true;
    }
    // A read-only transaction that can run is run at once, with no alternative: running it
    // later changes no value that any other reads, so a schedule from here has one that
    // runs it now.
    bool moved = false, dead_here = fresh && dead.find(hash_) != FlatMap64::kAbsent;
    if (fresh && !dead_here)
      for (auto it = ready_.begin(); it != ready_.end(); ++it) {
        const uint32_t s = it->second, t = seq_[s][pos_[s]];
        if (writes_begin_[t] != writes_begin_[t + 1] || !can_run(t)) continue;
        if (++out_.steps, out_of_steps()) return out_;
        place(s, /*forced=*/true);  // erases it from ready_: no ++it after it
        moved = true;
        break;
      }
    if (!dead_here && !moved)
      for (auto it = fresh ? ready_.begin() : ready_.upper_bound(resume); it != ready_.end(); ++it) {
        const uint32_t s = it->second;
        if (!can_run(seq_[s][pos_[s]])) continue;
        if (++out_.steps, out_of_steps()) return out_;
        place(s, /*forced=*/false);
        moved = true;
        break;
      }
    if (moved) {
      out_.deepest = std::max(out_.deepest, order_.size());
      fresh = true;
      continue;
    }
    // A dead end. Backjump: a session left waiting lost a value its next transaction reads to
    // an earlier step; the steps since then are not why (a guess: what is skipped is not known
    // dead). Then undo to the last step that had alternatives (the states undone are dead).
    if (!dead_here && !(stack_.empty() ? root_partial_ : stack_.back().partial)) dead.insert(hash_, 0);
    uint32_t jump = kNone;
    for (uint32_t s = 0; s < k; ++s)
      if (pos_[s] < seq_[s].size() && lost_at_[s] != kNone && (jump == kNone || lost_at_[s] > jump)) jump = lost_at_[s];
    if (backjump_ && jump != kNone && jump + 1 < stack_.size()) {
      jumped_ = true;
      while (stack_.size() > jump + 1) undo();
      stack_.back().partial = true;
    }
    while (true) {
      if (!(stack_.empty() ? root_partial_ : stack_.back().partial)) dead.insert(hash_, 0);
      if (stack_.empty()) {  // no schedule (up to hash collisions)
        out_.exhausted = !root_partial_ && !jumped_;
        return out_;
      }
      const Frame f = stack_.back();
      undo();
      if (f.forced) continue;
      resume = {priority(f.session), f.session};
      fresh = false;
      break;
    }
  }
  out_.found = true;
  out_.order = std::move(order_);
  return out_;
}

}  // namespace

bool serial_order_holds(const History& h, const std::vector<uint32_t>& order) {
  if (!schedule_search::committed_in_session_order(h, order)) return false;
  std::vector<uint32_t> writer(h.keys.size(), kReadsInitial), mine(h.keys.size(), kNone);
  std::vector<uint32_t> stamp(h.keys.size(), kNone);  // the transaction that set mine[key]
  for (const uint32_t t : order) {
    const Txn& x = h.txns[t];
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      const Op& op = h.ops[o];
      if (op.kind == OpKind::Write) {
        mine[op.key] = o, stamp[op.key] = t;
      } else if (op.kind == OpKind::Read) {
        if (h.read_from[o] != (stamp[op.key] == t ? mine[op.key] : writer[op.key])) return false;
      } else {
        return false;
      }
    }
    for (uint32_t o = x.op_begin; o < x.op_end; ++o)
      if (h.ops[o].kind == OpKind::Write) writer[h.ops[o].key] = mine[h.ops[o].key];
  }
  return true;
}

SerialSchedule find_serial_schedule(const History& h, bool real_time, const CheckBudget& budget,
                                    size_t max_steps, bool backjump, size_t stall_steps) {
  return Search(h, real_time, budget, max_steps, backjump, stall_steps).run();
}

}  // namespace isoscope
