#include "checkers/counterexample.h"

#include "checkers/shrink.h"

#include <algorithm>

#include "checkers/check.h"

namespace isoscope {

History project_history(const History& h, const std::vector<char>& keep, const std::vector<char>* drop,
                        AmbiguousProjection ambiguous) {
  HistoryBuilder b;
  b.keys() = h.keys;
  b.values() = h.values;
  b.set_initial(h.initial);
  for (uint32_t k = 0; k < h.initial_rows.size(); ++k)
    if (h.initial_rows[k] != kNone) b.set_initial_row(k, h.initial_rows[k]);
  for (uint32_t p = 0; p < h.predicates.size(); ++p) b.add_predicate(h.predicates[p]);
  if (h.table) b.set_table();
  std::vector<Op> members;
  // An object history's operations repeat values and read from no one in particular: its
  // reads stay (LIN judges them on the Registers, which keep the kept operations).
  const bool objects = !h.registers.empty();
  std::vector<uint32_t> new_txn(objects ? h.txns.size() : 0, 0);
  uint32_t kept_txns = 0;
  auto writer_kept = [&](uint32_t op) {
    if (drop && (*drop)[op]) return false;
    if (objects) return true;
    if (h.read_from[op] == kAmbiguous) {
      if (ambiguous == AmbiguousProjection::AsIs) return true;
      for (uint32_t c : h.ambiguous.candidates(op))
        if (c != kReadsInitial && !keep[h.candidate_txn(c)]) return false;
      return true;
    }
    // A thin-air read stays one (it reads nobody's write in the whole history either).
    const uint32_t w = h.writer_txn(op);
    return w == kInitialTxn || w == kThinAir || keep[w];
  };
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    bool any = false;
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (!keep[t]) continue;
      if (!any) b.begin_session();
      any = true;
      b.begin_txn();
      ++kept_txns;
      if (objects) new_txn[t] = kept_txns;
      const Txn& x = h.txns[t];
      for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
        const Op& op = h.ops[o];
        if (op.in_predicate()) {  // a predicate read, with the reads kept as a read is
          const PredicateRead& p = h.predicate_reads[op.list];
          members.clear();
          for (uint32_t m = p.op_begin; m < p.op_end; ++m)
            if (writer_kept(m)) members.push_back(h.ops[m]);
          b.predicate_read_of(p.predicate, members);
          o = p.op_end - 1;
          continue;
        }
        switch (op.kind) {
          case OpKind::Read:
            if (writer_kept(o)) b.read(op.key, op.value);
            break;
          case OpKind::ListRead:
            if (writer_kept(o)) {
              const ListSpan& l = h.lists[op.list];
              b.list_read(op.key, std::span<const uint32_t>(h.list_values.data() + l.begin, l.size));
            }
            break;
          case OpKind::Write: b.write(op.key, op.value); break;
          case OpKind::Append: b.append(op.key, op.value); break;
        }
      }
      if (x.status != TxnStatus::Committed) b.set_status(x.status);
      if (x.has_time()) b.set_time(h.times[t].start, h.times[t].end);
      if (x.label != kNone) b.set_label(h.labels[x.label]);
      b.end_txn();
    }
  }
  if (objects) {
    Registers regs;
    regs.model = h.registers.model;
    regs.timed = h.registers.timed;
    regs.keyed = h.registers.keyed;
    regs.initial = h.registers.initial;
    regs.micro = h.registers.micro;
    for (const RegOp& o : h.registers.ops)  // invocation order, as in h
      if (keep[o.txn]) {
        regs.ops.push_back(o);
        regs.ops.back().txn = new_txn[o.txn];
      }
    b.set_registers(std::move(regs));
  }
  Expected<History> r = b.finish(h.format);
  if (r.ok()) {
    // The kept transactions keep their identities (their number, session and position in h, or
    // in h's own original when h is a counterexample already).
    History& p = *r;
    p.faults = h.faults;  // a lost write stays a lost write in its counterexample
    p.origin_txns = h.has_origin() ? h.origin_txns : h.num_txns();
    p.origin.reserve(p.txns.size());
    p.origin.push_back({});
    for (uint32_t t = 1; t < h.txns.size(); ++t)
      if (keep[t]) p.origin.push_back(h.shown(t));
    return std::move(p);
  }
  return History();  // cannot happen: a projection keeps the unique writes
}

namespace {

// Whether the projection on keep fails the level.
bool fails(const History& h, const std::vector<char>& keep, Level level, const CheckBudget& budget) {
  const History p = project_history(h, keep);
  if (p.txns.empty()) return false;
  std::string reason;
  if (!level_applies(p, level, reason)) return false;
  const LevelChecker checker = checker_for(level);
  return checker && checker(p, budget).verdict == Verdict::Fail;
}

// An object history's operations a counterexample may leave out, so that its failure still
// says that h fails LIN: reads, and operations that failed (they constrain nothing); an
// operation that may have changed its object (a write, cas, append, acquire, release or
// multi-register transaction, also of unknown outcome) only with every other operation of its
// object (objects are independent: LIN is per object). Leaving out a write alone could make a
// read of its value unexplained, a failure h does not have. Group: the object, or the whole
// history when one operation spans several (multi-register) or the model is a mutex.
struct ObjectGroups {
  std::vector<uint32_t> group;  // per transaction (0: none)
  std::vector<char> changes;    // per transaction: an operation that may have changed its object
  uint32_t groups = 0;
};

ObjectGroups object_groups(const History& h) {
  ObjectGroups g;
  g.group.assign(h.txns.size(), 0);
  g.changes.assign(h.txns.size(), 0);
  const bool one = h.registers.model == ObjectModel::MultiRegister || h.registers.model == ObjectModel::Mutex;
  uint32_t max_key = 0;
  for (const RegOp& o : h.registers.ops) {
    g.group[o.txn] = one ? 1 : o.key + 1;
    max_key = std::max(max_key, g.group[o.txn]);
    g.changes[o.txn] = o.fn != ObjFn::Read && !o.failed();
  }
  g.groups = max_key + 1;
  return g;
}

// Keeps every operation that changes an object of which keep holds some operation; returns
// whether keep already did.
bool close_objects(const ObjectGroups& g, std::vector<char>& keep) {
  std::vector<char> used(g.groups, 0);
  for (size_t t = 1; t < keep.size(); ++t)
    if (keep[t]) used[g.group[t]] = 1;
  bool closed = true;
  for (size_t t = 1; t < keep.size(); ++t)
    if (!keep[t] && g.changes[t] && used[g.group[t]]) keep[t] = 1, closed = false;
  return closed;
}

void add_readers_writers(const History& h, std::vector<char>& keep) {
  std::vector<uint32_t> writers;
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    if (!keep[t]) continue;
    for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o) {
      if (!h.ops[o].is_read()) continue;
      if (h.read_from[o] == kAmbiguous) {  // every candidate, so that the read stays
        for (uint32_t c : h.ambiguous.candidates(o))
          if (h.candidate_txn(c) != kInitialTxn) writers.push_back(h.candidate_txn(c));
        continue;
      }
      const uint32_t w = h.writer_txn(o);
      if (w != kInitialTxn && w != kThinAir) writers.push_back(w);
    }
  }
  for (uint32_t w : writers) keep[w] = 1;
}

}  // namespace

Counterexample make_counterexample(const History& h, Level level, const Anomaly& a,
                                   const CheckBudget& budget) {
  Counterexample c;
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  std::vector<char> keep(n, 0);
  auto mark = [&](uint32_t t) {
    if (t != kInitialTxn && t < n) keep[t] = 1;
  };
  for (uint32_t t : a.txns) mark(t);
  for (uint32_t op : a.ops)
    if (op < h.ops.size()) mark(h.op_txn[op]);
  for (const AnomalyEdge& e : a.edges) {
    mark(e.from_txn);
    mark(e.to_txn);
    if (e.from_op < h.ops.size()) mark(h.op_txn[e.from_op]);
    if (e.to_op < h.ops.size()) mark(h.op_txn[e.to_op]);
  }
  const bool objects = !h.registers.empty();
  ObjectGroups groups;
  if (objects) {
    groups = object_groups(h);
    close_objects(groups, keep);
  } else {
    add_readers_writers(h, keep);
  }
  bool ok = fails(h, keep, level, budget);
  if (!ok && !budget.expired() && objects) {
    std::fill(keep.begin() + 1, keep.end(), 1);
    ok = fails(h, keep, level, budget);
  } else if (!ok && !budget.expired()) {
    // Widen to the transactions that share keys with it, transitively, then to everything:
    // the level fails on the whole history, so the shrinking below always starts from a
    // failing history.
    std::vector<char> key_used(h.keys.size(), 0);
    for (bool grew = true; grew;) {
      grew = false;
      for (uint32_t t = 1; t < n; ++t)
        if (keep[t])
          for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o) key_used[h.ops[o].key] = 1;
      for (uint32_t t = 1; t < n; ++t)
        for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end && !keep[t]; ++o)
          if (key_used[h.ops[o].key]) keep[t] = 1, grew = true;
      add_readers_writers(h, keep);
    }
    ok = fails(h, keep, level, budget);
    if (!ok && !budget.expired()) {
      std::fill(keep.begin() + 1, keep.end(), 1);
      ok = fails(h, keep, level, budget);
    }
  }
  if (ok) {
    // Shrink (checkers/shrink.h); every accepted step fails.
    // (an object history: only what can be left out, above; minimal then means that no
    // single operation of those can go)
    c.minimal = shrink_failing(keep, budget, [&](const std::vector<char>& trial) {
      if (objects) {
        std::vector<char> closed = trial;
        if (!close_objects(groups, closed)) return Trial::Passes;
      }
      return fails(h, trial, level, budget) ? Trial::Fails : Trial::Passes;
    });
  }
  c.reproduces = ok;
  for (uint32_t t = 1; t < n; ++t)
    if (keep[t]) c.txns.push_back(t);
  c.history = project_history(h, keep);
  return c;
}

}  // namespace isoscope
