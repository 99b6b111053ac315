#include "checkers/cycle_names.h"

#include <algorithm>
#include <unordered_map>

#include "checkers/lost_writes.h"

namespace isoscope {

namespace {

// Two transactions that read one version of a key and both overwrite it.
bool lost_update(const History& h, uint32_t t1, uint32_t t2) {
  if (t1 == kInitialTxn || t2 == kInitialTxn) return false;
  for (uint32_t a = h.txns[t1].op_begin; a < h.txns[t1].op_end; ++a) {
    if (!h.ops[a].is_read()) continue;
    for (uint32_t b = h.txns[t2].op_begin; b < h.txns[t2].op_end; ++b)
      if (h.ops[b].is_read() && h.ops[b].key == h.ops[a].key && h.writer_txn(a) == h.writer_txn(b) &&
          h.last_write_of(t1, h.ops[a].key) != kNone && h.last_write_of(t2, h.ops[a].key) != kNone)
        return true;
  }
  return false;
}

}  // namespace

AnomalyKind classify_cycle(const History& h, const std::vector<AnomalyEdge>& cycle) {
  using K = AnomalyKind;
  const size_t k = cycle.size();
  std::vector<uint32_t> txns;
  size_t so = 0, wr = 0, anti = 0, rt = 0, co = 0;
  bool adjacent_anti = false;
  // A write-write edge of a black-box history is inferred from a read (a reader of one write
  // that the other cannot precede): it counts with the anti-dependencies, never as a G0.
  auto is_anti = [](const AnomalyEdge& e) { return e.type == EdgeType::RW || e.type == EdgeType::WW; };
  for (size_t i = 0; i < k; ++i) {
    const AnomalyEdge& e = cycle[i];
    if (std::find(txns.begin(), txns.end(), e.from_txn) == txns.end()) txns.push_back(e.from_txn);
    so += e.type == EdgeType::SO;
    wr += e.type == EdgeType::WR;
    anti += is_anti(e);
    rt += e.type == EdgeType::RT;
    co += e.type == EdgeType::CO;
    adjacent_anti = adjacent_anti || (is_anti(e) && is_anti(cycle[(i + 1) % k]));
  }
  if (rt > 0) return rt == 1 && anti == 1 && txns.size() == 2 ? K::StaleRead : K::RealTimeViolation;
  if (txns.size() == 2 && lost_update(h, txns[0], txns[1])) return K::LostUpdate;
  if (co > 0) return K::WriteConflict;
  if (anti == 0) return so > 0 ? K::CausalityCycle : wr > 0 ? K::G1c : K::G0;
  if (anti >= 2) {
    // Two anti-dependencies in a row: what SI allows. Between two transactions it is the write
    // skew; longer cycles are Adya's G2 (the name Elle and Hermitage use for them).
    if (adjacent_anti) return txns.size() == 2 ? K::WriteSkew : K::G2;
    return wr + so == anti ? K::LongFork : K::G2;
  }
  // One anti-dependency.
  if (so + 1 == k) return K::SessionGuaranteeViolation;
  if (k == 2 && wr == 1) {
    // W -WR(y)-> R -RW(x)-> W: R sees W's y but an older x. Reading W's y first and the older x
    // later is non-monotonic; the other way round, R saw only part of W (fractured).
    const AnomalyEdge& w = cycle[0].type == EdgeType::WR ? cycle[0] : cycle[1];
    const AnomalyEdge& r = cycle[0].type == EdgeType::WR ? cycle[1] : cycle[0];
    return w.to_op < r.from_op ? K::NonMonotonicRead : K::FracturedRead;
  }
  if (wr + so + 1 == k) return K::CausalityViolation;  // an effect seen without its cause
  return K::GSingle;
}

namespace {

// Named patterns before the generic cycle and level names: a reader learns more from
// "LostUpdate" than from "SIViolation".
bool generic_kind(AnomalyKind k) {
  using K = AnomalyKind;
  switch (k) {
    case K::ReadConsistency: case K::G0: case K::G1c: case K::GSingle: case K::G2: case K::CausalityCycle:
    case K::SessionGuaranteeViolation: case K::CausalityViolation: case K::WriteConflict: case K::PCViolation:
    case K::SIViolation: case K::SERViolation: case K::RealTimeViolation: case K::SSERViolation:
      return true;
    default: return false;
  }
}

int specificity_rank(AnomalyKind kind) { return (generic_kind(kind) ? 100 : 0) + static_cast<int>(kind); }

// How many transactions an anomaly's cycle (or pattern) spans.
size_t cycle_length(const Anomaly& a) {
  if (a.edges.empty()) return a.txns.size();
  std::vector<uint32_t> t;
  for (const AnomalyEdge& e : a.edges)
    if (std::find(t.begin(), t.end(), e.from_txn) == t.end()) t.push_back(e.from_txn);
  return t.size();
}

// A level forbids a kind when it is the kind's weakest forbidding level or stronger.
bool forbids(Level level, AnomalyKind kind) {
  const Level weakest = kind_info(kind).weakest;
  return weakest == level || is_weaker(weakest, level);
}

// What `failing` adds over the levels that pass, for an anomaly misnamed by a passing level's kind.
AnomalyKind added_by(const History& h, Level failing, const Anomaly& a) {
  using K = AnomalyKind;
  switch (failing) {
    case Level::RR: return K::NonRepeatableRead;
    case Level::RA: return K::FracturedRead;
    case Level::CC: return K::CausalityViolation;
    case Level::PC: return K::PCViolation;
    case Level::SI: {
      std::vector<uint32_t> t;
      for (const AnomalyEdge& e : a.edges)
        if (std::find(t.begin(), t.end(), e.from_txn) == t.end()) t.push_back(e.from_txn);
      return t.size() == 2 && lost_update(h, t[0], t[1]) ? K::LostUpdate : K::WriteConflict;
    }
    case Level::SER: return cycle_length(a) == 2 ? K::WriteSkew : K::G2;
    case Level::SSER: return K::RealTimeViolation;
    default: return violation_of(failing);
  }
}

}  // namespace

void summarize_kinds(LevelResult& r, bool exhaustive) {
  r.kinds.clear();
  if (r.verdict != Verdict::Fail || r.anomalies.empty()) return;
  const bool cut = r.anomalies_total > r.anomalies.size();
  for (size_t i = 0; i < r.anomalies.size(); ++i) {
    const Anomaly& a = r.anomalies[i];
    auto it = std::find_if(r.kinds.begin(), r.kinds.end(), [&](const KindCount& k) { return k.kind == a.kind; });
    if (it == r.kinds.end()) {
      r.kinds.push_back({a.kind, 0, !exhaustive || cut, i});
      it = r.kinds.end() - 1;
    }
    ++it->count;
    if (a.txns.size() < r.anomalies[it->example].txns.size()) it->example = i;
  }
  std::stable_sort(r.kinds.begin(), r.kinds.end(),
                   [](const KindCount& x, const KindCount& y) { return specificity_rank(x.kind) < specificity_rank(y.kind); });
  // The examples first, in the kinds' order, then the rest in their order.
  std::vector<Anomaly> ordered;
  ordered.reserve(r.anomalies.size());
  std::vector<char> taken(r.anomalies.size(), 0);
  for (KindCount& k : r.kinds) {
    taken[k.example] = 1;
    ordered.push_back(std::move(r.anomalies[k.example]));
    k.example = ordered.size() - 1;
  }
  for (size_t i = 0; i < r.anomalies.size(); ++i)
    if (!taken[i]) ordered.push_back(std::move(r.anomalies[i]));
  r.anomalies = std::move(ordered);
}

std::vector<Anomaly> lost_updates(const History& h, size_t max, size_t& total) {
  std::vector<Anomaly> out;
  total = 0;
  if (h.has_lists) return out;
  // (key, version read) -> the first committed transaction that read it and then wrote the key.
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> first;  // -> (txn, read op)
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    if (h.txns[t].status != TxnStatus::Committed) continue;
    for (uint32_t a = h.txns[t].op_begin; a < h.txns[t].op_end; ++a) {
      const Op& op = h.ops[a];
      if (!op.is_read()) continue;
      // The transaction's first access to the key: a read of another transaction's version.
      bool first_access = true;
      for (uint32_t b = h.txns[t].op_begin; b < a && first_access; ++b) first_access = h.ops[b].key != op.key;
      if (!first_access) continue;
      const uint32_t version = h.read_from[a];
      if (version == kThinAir || version == kAmbiguous || version == kNone) continue;  // no one writer
      const uint32_t writer = h.writer_txn(a);
      if (writer != kInitialTxn && h.txns[writer].status != TxnStatus::Committed) continue;
      const uint32_t w = h.last_write_of(t, op.key);
      if (w == kNone) continue;
      const uint64_t slot = (static_cast<uint64_t>(op.key) << 32) | version;
      auto [it, inserted] = first.emplace(slot, std::pair(t, a));
      if (inserted) continue;
      ++total;
      if (out.size() >= max) continue;
      const uint32_t t1 = it->second.first, a1 = it->second.second, w1 = h.last_write_of(t1, op.key);
      Anomaly x;
      x.kind = AnomalyKind::LostUpdate;
      x.txns = {t1, t, writer};
      x.ops = {a1, w1, a, w};
      x.edges.push_back({t1, t, EdgeType::RW, op.key, a1, w,
                         h.txn_name(t1) + " read the version " + h.txn_name(t) + " overwrote"});
      x.edges.push_back({t, t1, EdgeType::RW, op.key, a, w1,
                         h.txn_name(t) + " read the version " + h.txn_name(t1) + " overwrote"});
      x.explanation = h.txn_name(t1) + " reads " + h.read_text(a1, writer) + " and writes " + h.op_text(w1) + "; " +
                      h.txn_name(t) + " also reads " + h.op_text(a) + " (the same version) and writes " + h.op_text(w) +
                      ": both committed, so whichever committed second overwrote an update it never saw (a lost "
                      "update: snapshot isolation lets only one of them commit)";
      out.push_back(std::move(x));
    }
  }
  return out;
}

// The predicate flavour of a kind, when one of the anomaly's reads is a predicate read's read of
// a key it did not return (its version of a row that was absent or did not match); else kind.
static AnomalyKind predicate_flavour(const History& h, const Anomaly& a) {
  using K = AnomalyKind;
  auto missed = [&](uint32_t op) { return op < h.ops.size() && h.ops[op].in_predicate() && h.ops[op].value == kNoRow; };
  bool any = std::any_of(a.ops.begin(), a.ops.end(), missed);
  for (const AnomalyEdge& e : a.edges) any = any || missed(e.from_op) || missed(e.to_op);
  if (!any) return a.kind;
  switch (a.kind) {
    case K::NonRepeatableRead: case K::FracturedRead: return K::Phantom;
    case K::GSingle: return K::GSinglePredicate;
    case K::G2: case K::WriteSkew: return K::G2Predicate;
    default: return a.kind;
  }
}

// After a scan's anomalies were merged into r and its kinds summarized again: `exact` counted
// as the scan counted it (`total`), every other kind as it was counted before (`before`); the
// anomalies cut to max_anomalies.
static void recount(LevelResult& r, const std::vector<KindCount>& before, AnomalyKind exact, size_t total, size_t max_anomalies) {
  for (KindCount& k : r.kinds) {
    if (k.kind == exact) {
      k.count = total;
      k.lower_bound = false;
      continue;
    }
    for (const KindCount& old : before)
      if (old.kind == k.kind) {
        k.count = std::max(k.count, old.count);
        k.lower_bound = old.lower_bound;
      }
  }
  if (r.anomalies.size() > max_anomalies) r.anomalies.resize(max_anomalies);
  for (KindCount& k : r.kinds)
    if (k.example >= r.anomalies.size()) k.example = kNone;
}

// The scan's lost updates in a failing level's anomalies (name_level).
static void merge_lost_updates(const History& h, LevelResult& r, Level level, size_t max_anomalies) {
  constexpr AnomalyKind lost_name = AnomalyKind::LostUpdate;
  if (!is_transactional(level) || !forbids(level, lost_name)) return;
  size_t lost_total = 0;
  std::vector<Anomaly> lost = lost_updates(h, max_anomalies, lost_total);
  if (lost_total == 0) return;
  for (const KindCount& k : r.kinds)
    if (k.kind == lost_name && !k.lower_bound && k.count == lost_total) return;  // merged already
  // The scan's lost updates replace any a search named, with the exact count.
  size_t searched = 0;
  std::vector<Anomaly> rest;
  for (Anomaly& a : r.anomalies) {
    if (a.kind == lost_name) ++searched;
    else rest.push_back(std::move(a));
  }
  std::vector<KindCount> kinds;
  for (const KindCount& k : r.kinds)
    if (k.kind != lost_name) kinds.push_back(k);
  r.anomalies = std::move(lost);
  for (Anomaly& a : rest) r.anomalies.push_back(std::move(a));
  r.anomalies_total = r.anomalies_total - std::min(searched, r.anomalies_total) + lost_total;
  // Recount: the lost updates exactly, the other kinds as they were counted.
  summarize_kinds(r, true);
  recount(r, kinds, lost_name, lost_total, max_anomalies);
}

// The lost writes (lost_writes.h) first among a failing SSER's or LIN's anomalies, counted
// exactly.
static void merge_lost_writes(const History& h, LevelResult& r, size_t max_anomalies) {
  if (h.faults.empty()) return;
  for (const KindCount& k : r.kinds)
    if (k.kind == AnomalyKind::LostWrite) return;  // merged already
  size_t total = 0;
  std::vector<Anomaly> lost = lost_writes(h, max_anomalies, total);
  if (total == 0) return;
  const std::vector<KindCount> kinds = r.kinds;
  const size_t before = r.anomalies_total;
  for (Anomaly& a : r.anomalies) lost.push_back(std::move(a));
  r.anomalies = std::move(lost);
  r.anomalies_total = before + total;
  summarize_kinds(r, true);
  // The lost write first, and its example first (what a person came to a crash test for).
  for (size_t i = 0; i < r.kinds.size(); ++i)
    if (r.kinds[i].kind == AnomalyKind::LostWrite) {
      std::rotate(r.kinds.begin(), r.kinds.begin() + static_cast<std::ptrdiff_t>(i), r.kinds.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      const size_t ex = r.kinds[0].example;
      if (ex != kNone && ex != 0) {
        std::swap(r.anomalies[0], r.anomalies[ex]);
        for (KindCount& k : r.kinds) k.example = k.example == 0 ? ex : k.example == ex ? 0 : k.example;
      }
      break;
    }
  recount(r, kinds, AnomalyKind::LostWrite, total, max_anomalies);
}

void name_level(const History& h, CheckReport& report, Level level, size_t max_anomalies) {
  const int i = static_cast<int>(level);
  if (!report.requested[i]) return;
  LevelResult& r = report.results[i];
  if (r.verdict != Verdict::Fail) return;
  bool changed = false;
  // Renaming: only a level's own anomalies (an implied failure repeats the weaker level's).
  if (!r.implied_by && is_transactional(level))
    for (Anomaly& a : r.anomalies) {
      bool misnamed = false;
      for (int j = 0; j < kNumLevels && !misnamed; ++j)
        misnamed = report.requested[j] && report.results[j].verdict == Verdict::Pass &&
                   is_transactional(static_cast<Level>(j)) && forbids(static_cast<Level>(j), a.kind);
      if (misnamed) {
        a.kind = added_by(h, level, a);
        changed = true;
      }
      if (!h.predicate_reads.empty() && predicate_flavour(h, a) != a.kind) {
        a.kind = predicate_flavour(h, a);
        changed = true;
      }
    }
  if (changed) {
    const bool exhaustive = std::all_of(r.kinds.begin(), r.kinds.end(), [](const KindCount& k) { return !k.lower_bound; });
    summarize_kinds(r, exhaustive);
  }
  merge_lost_updates(h, r, level, max_anomalies);
  if (level == Level::SSER || level == Level::LIN) merge_lost_writes(h, r, max_anomalies);
}

void name_anomalies(const History& h, CheckReport& report, size_t max_anomalies) {
  for (int i = 0; i < kNumLevels; ++i) name_level(h, report, static_cast<Level>(i), max_anomalies);
}

}  // namespace isoscope
