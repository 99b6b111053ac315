// Wing & Gong's search for a linearization with Lowe's memoisation, iterative (the wasm stack
// is 5 MB), one object at a time.
//
// The calls and returns of one object's operations form a doubly linked list in real-time
// order (at equal times calls first: operations that touch at an instant are concurrent). The
// search walks it from the head: at a call it tries to let that operation take effect now (the
// model steps); if the pair (state, set of operations taken effect) is new it lifts the
// operation's call and return out of the list and starts again at the head; at a return it has
// met an operation that must already have taken effect and has not, so it undoes the last
// choice and tries the next call after it. The cache of (state, set) pairs makes each pair
// explored once. :info operations return "never": they may take effect anywhere after their
// call, and the search ends successfully once every completed operation has taken effect (the
// :info ones left over never did).
//
// The deepest point the search reaches gives the explanation of a failure: the operations
// taken effect there (the longest linearizable prefix) and the return it met (the operation
// that cannot follow), with the calls before that return (the operations concurrent with it).
#include "checkers/lin/object_lin.h"

#include "util/printable.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "checkers/lin/model.h"
#include "model/anomaly_kinds.h"
#include "util/hash.h"
#include "util/memory.h"

namespace isoscope {
namespace {

// The set of (state, operations taken effect) pairs seen: open addressing over a pool that
// holds each pair's bit set.
class Cache {
 public:
  // Empties it for an object of n operations, sized for them (a search visits at least n
  // pairs; most objects are small, and zeroing a large table per object was most of a small
  // history's check), keeping what was allocated unless it is large.
  void reset(size_t words, size_t n) {
    words_ = words;
    size_ = 0;
    out_of_memory = false;
    size_t slots = 16;
    while (slots < 2 * n + 2 && slots < 1024) slots *= 2;
    if (slots_.capacity() > (size_t{1} << 16)) std::vector<Slot>().swap(slots_);  // a big one is let go
    if (pool_.capacity() > (size_t{1} << 16)) std::vector<uint64_t>().swap(pool_);
    pool_.clear();
    slots_.assign(slots, Slot{});
    mask_ = slots - 1;
  }
  bool out_of_memory = false;

  // Inserts the pair; false when it was there already (or memory ran out: out_of_memory).
  bool insert(uint64_t set_hash, uint32_t state, const uint64_t* bits) {
    const uint64_t h = mix64(set_hash ^ (uint64_t{state} * 0xD6E8FEB86659FD93ull));
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.pool == kEmpty) {
        if ((size_ + 1) * 2 > slots_.size()) {
          if (!rehash(slots_.size() * 2)) return false;
          return insert(set_hash, state, bits);
        }
        if (pool_.size() + words_ > pool_.capacity()) {
          const size_t want = std::max(pool_.capacity() * 2, pool_.size() + words_ * 16);
          if (!can_allocate(want * 8)) {
            out_of_memory = true;
            return false;
          }
          pool_.reserve(want);
        }
        s.hash = h;
        s.state = state;
        s.pool = static_cast<uint32_t>(pool_.size() / std::max<size_t>(words_, 1));
        pool_.insert(pool_.end(), bits, bits + words_);
        ++size_;
        return true;
      }
      if (s.hash == h && s.state == state &&
          std::memcmp(pool_.data() + size_t{s.pool} * words_, bits, words_ * 8) == 0)
        return false;
    }
  }
  size_t bytes() const { return pool_.capacity() * 8 + slots_.capacity() * sizeof(Slot); }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    uint64_t hash = 0;
    uint32_t state = 0, pool = kEmpty;
  };
  bool rehash(size_t n) {
    if (!can_allocate(n * sizeof(Slot))) {
      out_of_memory = true;
      return false;
    }
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    for (const Slot& s : old)
      if (s.pool != kEmpty) {
        size_t i = s.hash & mask_;
        while (slots_[i].pool != kEmpty) i = (i + 1) & mask_;
        slots_[i] = s;
      }
    return true;
  }
  size_t words_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint64_t> pool_;
  size_t mask_ = 0, size_ = 0;
};

// Events in real-time order: entry 2i is op i's call, 2i+1 its return.
struct Ev {
  int64_t t;
  uint32_t entry;
};
struct Frame {
  uint32_t entry, state;
  bool forced;  // a step that left the state as it was: no alternative to try (see below)
};

// What a search allocates, kept from one object to the next: a history of many small objects
// (Porcupine's kv logs) would otherwise spend most of its check in the allocator.
struct Scratch {
  std::vector<Ev> evs;
  std::vector<uint32_t> next, prev;
  std::vector<uint64_t> bits;
  std::vector<Frame> stack;
  Cache cache;
};

ObjectSearchResult search_in(const History& h, const std::vector<uint32_t>& ops, const CheckBudget& budget,
                             uint64_t max_steps, ObjectSpec* spec, Scratch& sc) {
  ObjectSearchResult out;
  if (!spec) return out;
  const std::vector<RegOp>& R = h.registers.ops;
  const uint32_t n = static_cast<uint32_t>(ops.size());
  std::vector<Ev>& evs = sc.evs;
  evs.clear();
  evs.reserve(2 * size_t{n});
  for (uint32_t i = 0; i < n; ++i) {
    evs.push_back({R[ops[i]].call, 2 * i});
    evs.push_back({R[ops[i]].ret, 2 * i + 1});
  }
  std::sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) {
    if (a.t != b.t) return a.t < b.t;
    if ((a.entry & 1) != (b.entry & 1)) return (a.entry & 1) < (b.entry & 1);  // calls first
    return a.entry < b.entry;
  });
  const uint32_t head = 2 * n, tail = 2 * n + 1;
  std::vector<uint32_t>& next = sc.next;
  std::vector<uint32_t>& prev = sc.prev;
  next.assign(2 * size_t{n} + 2, 0);
  prev.assign(2 * size_t{n} + 2, 0);
  {
    uint32_t last = head;
    for (const Ev& e : evs) {
      next[last] = e.entry;
      prev[e.entry] = last;
      last = e.entry;
    }
    next[last] = tail;
    prev[tail] = last;
  }
  auto unlink = [&](uint32_t e) {
    next[prev[e]] = next[e];
    prev[next[e]] = prev[e];
  };
  auto relink = [&](uint32_t e) {
    next[prev[e]] = e;
    prev[next[e]] = e;
  };
  const size_t words = (size_t{n} + 63) / 64;
  std::vector<uint64_t>& bits = sc.bits;
  bits.assign(std::max<size_t>(words, 1), 0);
  Cache& cache = sc.cache;
  cache.reset(words, n);
  uint64_t set_hash = 0;
  auto zobrist = [](uint32_t i) { return mix64(0x5EEDull + i); };

  size_t ok_left = 0;
  for (uint32_t g : ops) ok_left += R[g].ok() ? 1 : 0;
  std::vector<Frame>& stack = sc.stack;
  stack.clear();
  stack.reserve(n);
  uint32_t state = spec->initial();
  uint32_t e = next[head];
  bool recorded = false;
  uint64_t steps = 0;
  while (true) {
    if (ok_left == 0) {
      out.verdict = Verdict::Pass;
      for (const Frame& f : stack) out.order.push_back(ops[f.entry / 2]);
      return out;
    }
    if ((++steps & 1023) == 0 && (budget.expired() || (max_steps && steps > max_steps))) return out;  // unknown
    bool dead_end = false;
    if (e != tail && (e & 1) == 0) {  // a call: try to let it take effect now
      const uint32_t i = e / 2;
      const uint32_t ns = spec->step(state, R[ops[i]]);
      if (ns != ObjectSpec::kNoState) {
        // A read-only operation (it changes no state, in any state) that may take effect now
        // can always take effect first: moving it to the front of any linearization from here
        // changes no state and breaks no real-time order (every operation that returned before
        // its call has taken effect, or the walk would have met that return first). So it is
        // not a choice: when what follows it fails, so does this point, and the search backs
        // up past it. (Not so for a write of the value held: later, it may change the state.)
        const bool forced = spec->read_only(R[ops[i]]);
        bits[i / 64] |= uint64_t{1} << (i % 64);
        set_hash ^= zobrist(i);
        if (cache.insert(set_hash, ns, bits.data())) {
          stack.push_back({e, state, forced});
          state = ns;
          ok_left -= R[ops[i]].ok() ? 1 : 0;
          unlink(e);
          unlink(e + 1);
          e = next[head];
          continue;
        }
        if (cache.out_of_memory) {
          out.out_of_memory = true;
          return out;  // unknown
        }
        bits[i / 64] &= ~(uint64_t{1} << (i % 64));
        set_hash ^= zobrist(i);
        dead_end = forced;  // explored before and failed: so does this point
      }
      if (!dead_end) {
        e = next[e];
        continue;
      }
    }
    // A return (the tail cannot come first while a completed operation is left): the operation
    // had to take effect before now and has not. The deepest such point explains a failure.
    if (!dead_end && (!recorded || stack.size() > out.prefix.size())) {
      recorded = true;
      out.prefix.clear();
      for (const Frame& f : stack) out.prefix.push_back(ops[f.entry / 2]);
      out.blocked = e == tail ? kNone : ops[e / 2];
      out.candidates.clear();
      for (uint32_t c = next[head]; c != e && c != tail && out.candidates.size() < 6; c = next[c])
        if ((c & 1) == 0) out.candidates.push_back(ops[c / 2]);
    }
    // Back up: undo the last choice and try the next call after it; forced steps are no choice.
    while (true) {
      if (stack.empty()) {
        out.verdict = Verdict::Fail;
        return out;
      }
      const Frame f = stack.back();
      stack.pop_back();
      const uint32_t i = f.entry / 2;
      relink(f.entry + 1);
      relink(f.entry);
      bits[i / 64] &= ~(uint64_t{1} << (i % 64));
      set_hash ^= zobrist(i);
      ok_left += R[ops[i]].ok() ? 1 : 0;
      state = f.state;
      e = next[f.entry];
      if (!f.forced) break;
    }
  }
}

}  // namespace

ObjectSearchResult search_object(const History& h, const std::vector<uint32_t>& ops, const CheckBudget& budget,
                                 uint64_t max_steps, ObjectSpec* shared_spec) {
  std::unique_ptr<ObjectSpec> own = shared_spec ? nullptr : make_spec(h);
  Scratch sc;
  return search_in(h, ops, budget, max_steps, shared_spec ? shared_spec : own.get(), sc);
}

namespace {

// Which operations the search considers: :fail ones never took effect, and a read that did not
// complete returned nothing to check.
bool constrains(const RegOp& op) {
  if (op.failed()) return false;
  if (op.fn == ObjFn::Read && (!op.ok() || op.a == RegOp::kUnobserved)) return false;
  return true;
}

// "process 3's read 5 (T12, index 85, invoked at 10 ns on line 127, returned at 14 ns on line
// 129)": where a person finds it in the file (its lines; Knossos's :index where the history has
// one) and when it ran. Without :time, positions among the records order the operations but mean
// nothing to a reader: the lines say where they are. The status, not the time, says whether it
// returned (a completion may be recorded at the int64 maximum, RegOp::kNever's value).
std::string op_name(const History& h, const ObjectSpec& spec, uint32_t g) {
  const RegOp& op = h.registers.ops[g];
  const bool timed = h.registers.timed;
  auto at = [&](int64_t t, uint32_t line) {
    std::string s;
    if (timed) s += " at " + std::to_string(t) + " ns";
    if (line) s += " on line " + std::to_string(line);
    else if (!timed) s += " at record " + std::to_string(t);  // a History no file gave lines
    return s;
  };
  std::string s = "process " + std::to_string(op.process) + "'s " + spec.op_text(op) + " (T" + std::to_string(op.txn);
  if (h.txns[op.txn].label != kNone) s += ", index " + shortened(h.labels[h.txns[op.txn].label]);
  s += ", invoked" + at(op.call, op.line) + ", ";
  if (op.indeterminate()) {
    s += "outcome unknown";
    if (op.completion_line) s += " (:info on line " + std::to_string(op.completion_line) + ")";
  } else {
    s += "returned" + at(op.ret, op.completion_line);
  }
  return s + ")";
}

Anomaly explain(const History& h, ObjectSpec& spec, uint32_t key, const ObjectSearchResult& r) {
  Anomaly a;
  a.kind = AnomalyKind::NotLinearizable;
  const std::vector<RegOp>& R = h.registers.ops;
  const bool per_key = h.registers.model != ObjectModel::MultiRegister && h.registers.model != ObjectModel::Mutex;
  const std::string obj = per_key ? "key " + h.keys.display(key) : std::string("the ") + object_model_name(h.registers.model);
  auto value_text = [&](uint32_t v) { return h.initial && v == *h.initial ? std::string("nil") : h.values.display(v); };
  uint32_t state = spec.initial();
  for (uint32_t g : r.prefix) state = spec.step(state, R[g]);
  std::string s = obj + " is not linearizable. ";
  if (r.prefix.empty()) {
    s += "The longest linearizable prefix is empty: not even the first operation can take effect, and " + obj +
         " starts as " + spec.state_text(state) + ". ";
  } else {
    s += "The longest linearizable prefix has " + std::to_string(r.prefix.size()) + " operation" +
         (r.prefix.size() == 1 ? "" : "s") + ", the last " + op_name(h, spec, r.prefix.back()) + "; after it " + obj +
         " holds " + spec.state_text(state) + ". ";
  }
  if (r.blocked != kNone) {
    const RegOp& b = R[r.blocked];
    s += "Next, " + op_name(h, spec, r.blocked) + " must take effect before it returns, and cannot";
    if (spec.step(state, b) == ObjectSpec::kNoState) {
      switch (b.fn) {
        case ObjFn::Read: s += ": it read " + value_text(b.a) + " where " + obj + " holds " + spec.state_text(state); break;
        case ObjFn::Cas: s += ": its compare-and-set expects " + value_text(b.a) + " where " + obj + " holds " + spec.state_text(state); break;
        case ObjFn::Acquire: s += ": the mutex is held"; break;
        case ObjFn::Release: s += ": the mutex is free"; break;
        default: s += " in state " + spec.state_text(state); break;
      }
    } else {
      s += ": taking effect now leaves the operations after it no linearization";
    }
    s += ". ";
    std::vector<uint32_t> others;
    for (uint32_t c : r.candidates)
      if (c != r.blocked) others.push_back(c);
    if (!others.empty()) {
      s += "The operation" + std::string(others.size() == 1 ? "" : "s") + " that could take effect before it (";
      for (size_t i = 0; i < others.size(); ++i) s += (i ? "; " : "") + op_name(h, spec, others[i]);
      s += ") lead to no state where it can, in any order.";
    } else {
      s += "No other operation could take effect before it.";
    }
    a.txns.push_back(b.txn);
    for (uint32_t op = h.txns[b.txn].op_begin; op < h.txns[b.txn].op_end; ++op) a.ops.push_back(op);
    for (uint32_t c : others) a.txns.push_back(R[c].txn);
  }
  if (!r.prefix.empty()) a.txns.push_back(R[r.prefix.back()].txn);
  a.explanation = s;
  return a;
}

}  // namespace

LevelResult check_object_lin(const History& h, const CheckBudget& budget) {
  LevelResult res;
  std::unique_ptr<ObjectSpec> spec = make_spec(h);
  if (!spec) {
    res.verdict = Verdict::NotApplicable;
    res.reason = "not an object history";
    return res;
  }
  const std::vector<RegOp>& R = h.registers.ops;
  const bool per_key = h.registers.model != ObjectModel::MultiRegister && h.registers.model != ObjectModel::Mutex;
  // Operations grouped by object (counting sort by key id), each object's in invocation order.
  const size_t nkeys = per_key ? std::max<size_t>(h.keys.size(), 1) : 1;
  if (per_key)
    for (const RegOp& op : R)
      if (constrains(op) && op.key >= nkeys) {
        // A keyed history in which some operation names no key (found by fuzzing): the jepsen
        // reader refuses it; a History built otherwise is not decided rather than guessed.
        res.verdict = Verdict::NotApplicable;
        res.reason = "some operations name no key in a history of independent keys";
        return res;
      }
  std::vector<uint32_t> begin(nkeys + 1, 0);
  for (const RegOp& op : R)
    if (constrains(op)) ++begin[(per_key ? op.key : 0) + 1];
  for (size_t k = 0; k < nkeys; ++k) begin[k + 1] += begin[k];
  std::vector<uint32_t> grouped(begin[nkeys]), fill(begin.begin(), begin.end() - 1);
  for (uint32_t g = 0; g < R.size(); ++g)
    if (constrains(R[g])) grouped[fill[per_key ? R[g].key : 0]++] = g;
  // Objects in rounds of growing step limits (x8 each round, from 1024), so an object that fails fast is
  // found before one whose search is long, at most a constant factor more work in all. One
  // failing object decides LIN: the search stops there (finishing its round cost Porcupine's
  // kv c10-bad log five times the work) and the objects still open are left undecided, as
  // Porcupine stops its other searches.
  std::vector<uint32_t> open;
  for (uint32_t k = 0; k < nkeys; ++k)
    if (begin[k] != begin[k + 1]) open.push_back(k);
  bool unknown = false, out_of_memory = false;
  size_t done = 0;
  double last_progress = budget.progress ? now_ms() : 0;  // (a clock read costs a call out of wasm)
  std::vector<uint32_t> part, still_open;
  Scratch scratch;
  for (uint64_t round_steps = 1 << 10; !open.empty() && res.anomalies.empty(); round_steps *= 8) {
    if (round_steps >= (uint64_t{1} << 40)) round_steps = 0;  // the last round: no limit
    still_open.clear();
    for (size_t n = 0; n < open.size(); ++n) {
      const uint32_t k = open[n];
      if (budget.expired()) {
        if (!res.anomalies.empty()) break;
        return CheckBudget::ran_out();
      }
      part.assign(grouped.begin() + begin[k], grouped.begin() + begin[k + 1]);
      spec->reset();  // the previous object's states are no use here: its tables stay small
      ObjectSearchResult r = search_in(h, part, budget, round_steps, spec.get(), scratch);
      if (r.verdict == Verdict::Pass) {
        for (uint32_t g : r.order) res.commit_order.push_back(R[g].txn);
      } else if (r.verdict == Verdict::Fail) {
        for (uint32_t g : r.prefix) res.lin_prefix.push_back(R[g].txn);
        res.anomalies_total = 1;
        res.anomalies.push_back(explain(h, *spec, k, r));
        break;
      } else if (r.out_of_memory || budget.expired() || round_steps == 0) {
        unknown = true;
        out_of_memory = out_of_memory || r.out_of_memory;
      } else {
        still_open.push_back(k);
        continue;
      }
      done += part.size();
      if (budget.progress && now_ms() - last_progress > 5) {
        last_progress = now_ms();
        budget.report_progress(done, grouped.size() - done);
      }
    }
    open.swap(still_open);
    if (round_steps == 0) break;
  }
  if (!res.anomalies.empty()) {
    res.verdict = Verdict::Fail;
    res.commit_order.clear();
  } else if (unknown) {
    LevelResult u = CheckBudget::ran_out();
    if (out_of_memory) u.reason = "the search's cache of explored states needs more memory than is available";
    return u;
  } else {
    res.verdict = Verdict::Pass;
  }
  return res;
}

}  // namespace isoscope
