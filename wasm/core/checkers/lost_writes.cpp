#include "checkers/lost_writes.h"

#include <algorithm>
#include <string>
#include <unordered_set>

namespace isoscope {

namespace {

struct TimedWrite {
  Time end;
  uint32_t txn, op;  // the transaction's last write of the key
};

// The crash whose start is the latest one no later than t (nullptr: none).
const FaultSpan* crash_before(const std::vector<const FaultSpan*>& crashes, const Time& t) {
  const auto it = std::upper_bound(crashes.begin(), crashes.end(), t, [](const Time& x, const FaultSpan* f) { return x < f->start; });
  return it == crashes.begin() ? nullptr : *(it - 1);
}

std::string crash_text(const FaultSpan& f) {
  std::string s = "the crash";
  if (!f.node.empty()) (s += " of ") += f.node;
  (s += " at ") += f.start.text();
  ((s += " (back at ") += f.end.text()) += ")";
  return s;
}

}  // namespace

std::vector<Anomaly> lost_writes(const History& h, size_t max, size_t& total) {
  total = 0;
  std::vector<Anomaly> out;
  std::vector<const FaultSpan*> crashes;
  for (const FaultSpan& f : h.faults)
    if (f.kind == "crash") crashes.push_back(&f);
  if (crashes.empty() || !h.has_timestamps) return out;
  std::sort(crashes.begin(), crashes.end(), [](const FaultSpan* a, const FaultSpan* b) { return a->start < b->start; });
  const auto timed_committed = [&](uint32_t t) { return t != kInitialTxn && h.txns[t].committed && h.txns[t].has_time(); };

  // Per key, the writers acknowledged as committed (not those of unknown outcome that a read
  // shows committed: their end is when the client gave up, no acknowledgement), timed, by end,
  // each with its last write of the key.
  std::vector<std::vector<TimedWrite>> writers(h.keys.size());
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    if (!timed_committed(t) || h.txns[t].status != TxnStatus::Committed) continue;
    for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o) {
      const Op& op = h.ops[o];
      if (!op.is_write()) continue;
      auto& w = writers[op.key];
      if (!w.empty() && w.back().txn == t) w.back().op = o;  // a later write of the key in the same transaction
      else w.push_back({h.times[t].end, t, o});
    }
  }
  for (auto& w : writers) std::sort(w.begin(), w.end(), [](const TimedWrite& a, const TimedWrite& b) { return a.end < b.end; });

  std::unordered_set<uint32_t> reported;  // write ops already shown lost
  constexpr int kLookBack = 64;  // writers examined per read, latest first
  for (uint32_t r = 1; r < h.txns.size(); ++r) {
    if (!timed_committed(r)) continue;
    const Time& r_start = h.times[r].start;
    const FaultSpan* crash = crash_before(crashes, r_start);
    if (!crash) continue;
    for (uint32_t o = h.txns[r].op_begin; o < h.txns[r].op_end; ++o) {
      const Op& op = h.ops[o];
      if (!op.is_read() || op.in_predicate()) continue;
      // The transaction's first access of the key, a read: what it saw of the others.
      bool first = true;
      for (uint32_t p = h.txns[r].op_begin; p < o && first; ++p) first = h.ops[p].key != op.key;
      if (!first) continue;
      const uint32_t from = h.writer_txn(o);
      if (from == kThinAir) continue;  // ambiguous, or written by no one
      if (from != kInitialTxn && !timed_committed(from)) continue;
      // A list read holds its writers' elements: a write it misses is an element it lacks.
      std::unordered_set<uint32_t> elements;
      if (op.kind == OpKind::ListRead) {
        const ListSpan& l = h.lists[op.list];
        elements.insert(h.list_values.begin() + l.begin, h.list_values.begin() + l.begin + l.size);
      }
      const auto& ws = writers[op.key];
      // Writers acknowledged before the crash began, latest first.
      auto it = std::lower_bound(ws.begin(), ws.end(), crash->start, [](const TimedWrite& w, const Time& t) { return w.end < t; });
      int looked = 0;
      for (; it != ws.begin() && looked < kLookBack; ++looked) {
        const TimedWrite& w = *--it;
        if (w.txn == r || w.txn == from) continue;
        bool lost;
        if (op.kind == OpKind::ListRead) {
          lost = !elements.count(h.ops[w.op].value);
        } else {
          // Began after the version read was written: the read's version is older than w's.
          lost = from == kInitialTxn || h.times[from].end < h.times[w.txn].start;
        }
        if (!lost) continue;
        if (!reported.insert(w.op).second) break;
        ++total;
        if (out.size() < max) {
          Anomaly a;
          a.kind = AnomalyKind::LostWrite;
          a.txns = {w.txn, r};
          if (from != kInitialTxn) a.txns.push_back(from);
          a.ops = {w.op, o};
          // The cycle every real-time order meets: W ended before R began, and R read the
          // version W overwrote (W's predecessor ended before W began).
          a.edges.push_back({w.txn, r, EdgeType::RT, kNone, w.op, o, h.txn_name(w.txn) + " ended before the crash, and " + h.txn_name(r) + " began after it"});
          a.edges.push_back({r, w.txn, EdgeType::RW, op.key, o, w.op, h.txn_name(r) + " read " + h.op_text(o) + ", a version older than " + h.op_text(w.op)});
          std::string e = h.txn_name(w.txn) + " wrote " + h.op_text(w.op) + " and committed, acknowledged at " +
                          h.times[w.txn].end.text() + "; then came " + crash_text(*crash) + "; " + h.txn_name(r) +
                          ", which began at " + r_start.text() + ", after the crash, read " + h.op_text(o);
          if (op.kind == OpKind::ListRead) {
            (e += ", without the element ") += h.values.display(h.ops[w.op].value);
          } else if (from == kInitialTxn) {
            e += ", the initial value";
          } else {
            (e += " from ") += h.txn_name(from);
            (e += ", which had ended (at ") += h.times[from].end.text();
            (e += ") before ") += h.txn_name(w.txn);
            ((e += " began (at ") += h.times[w.txn].start.text()) += ")";
          }
          e += ": the committed write was lost";
          a.explanation = std::move(e);
          out.push_back(std::move(a));
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace isoscope
