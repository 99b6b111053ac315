#include "generate/inject.h"

#include <algorithm>
#include <cstring>

#include "model/anomaly_kinds.h"

namespace isoscope {

namespace {
// Which anomalies can be planted; their names and the levels that forbid them come from the
// anomaly vocabulary (model/anomaly_kinds.h).
struct Plantable {
  AnomalyKind kind;
  uint32_t sessions;
  bool needs_timestamps;
};
constexpr Plantable kPlantable[] = {
    {AnomalyKind::ThinAirRead, 1, false},
    {AnomalyKind::AbortedRead, 2, false},
    {AnomalyKind::FutureRead, 1, false},
    {AnomalyKind::IntermediateRead, 2, false},
    {AnomalyKind::NonMonotonicRead, 2, false},
    {AnomalyKind::NonRepeatableRead, 3, false},
    {AnomalyKind::FracturedRead, 2, false},
    {AnomalyKind::SessionGuaranteeViolation, 1, false},
    {AnomalyKind::CausalityViolation, 3, false},
    {AnomalyKind::LongFork, 4, false},
    {AnomalyKind::LostUpdate, 2, false},
    {AnomalyKind::WriteSkew, 2, false},
    {AnomalyKind::StaleRead, 2, true},
};
}  // namespace

std::span<const InjectableAnomaly> injectable_anomalies() {
  static const std::vector<InjectableAnomaly> all = [] {
    std::vector<InjectableAnomaly> v;
    for (const Plantable& p : kPlantable)
      v.push_back({kind_name(p.kind), kind_info(p.kind).weakest, p.sessions, p.needs_timestamps});
    return v;
  }();
  return all;
}

const InjectableAnomaly* find_injectable(std::string_view name) {
  for (const InjectableAnomaly& a : injectable_anomalies())
    if (name == a.name) return &a;
  return nullptr;
}

std::vector<PatternTxn> anomaly_pattern(const InjectableAnomaly& what, int64_t key_base,
                                        int64_t value_base) {
  std::vector<PatternTxn> pattern;
  const int64_t x = key_base, y = key_base + 1;
  const int64_t v1 = value_base, v2 = value_base + 1;
  auto txn = [&](uint32_t role, std::vector<PatternOp> ops, TxnStatus st = TxnStatus::Committed, int rt = -1) {
    pattern.push_back({role, std::move(ops), st, rt});
  };
  auto r = [](int64_t k, int64_t v) { return PatternOp{false, k, v}; };
  auto w = [](int64_t k, int64_t v) { return PatternOp{true, k, v}; };
  const std::string_view n = what.name;
  if (n == "ThinAirRead") txn(0, {r(x, v1)});
  else if (n == "AbortedRead") txn(0, {w(x, v1)}, TxnStatus::Aborted), txn(1, {r(x, v1)});
  else if (n == "FutureRead") txn(0, {r(x, v1), w(x, v1)});
  else if (n == "IntermediateRead") txn(0, {w(x, v1), w(x, v2)}), txn(1, {r(x, v1)});
  else if (n == "NonMonotonicRead") txn(0, {w(x, v1)}), txn(0, {w(x, v2), w(y, v2)}), txn(1, {r(y, v2), r(x, v1)});
  else if (n == "NonRepeatableRead") txn(0, {w(x, v1)}), txn(1, {w(x, v2)}), txn(2, {r(x, v1), r(x, v2)});
  else if (n == "FracturedRead") txn(0, {w(x, v1), w(y, v1)}), txn(1, {r(y, 0), r(x, v1)});
  else if (n == "SessionGuaranteeViolation") txn(0, {w(x, v1)}), txn(0, {r(x, 0)});
  else if (n == "CausalityViolation") txn(0, {w(x, v1)}), txn(1, {r(x, v1), w(y, v1)}), txn(2, {r(y, v1), r(x, 0)});
  else if (n == "LongFork") txn(0, {w(x, v1)}), txn(1, {w(y, v1)}), txn(2, {r(x, v1), r(y, 0)}), txn(3, {r(x, 0), r(y, v1)});
  else if (n == "LostUpdate") txn(0, {r(x, 0), w(x, v1)}), txn(1, {r(x, 0), w(x, v2)});
  else if (n == "WriteSkew") txn(0, {r(x, 0), r(y, 0), w(x, v1)}), txn(1, {r(x, 0), r(y, 0), w(y, v1)});
  else if (n == "StaleRead") txn(0, {w(x, v1)}, TxnStatus::Committed, 0), txn(1, {r(x, 0)}, TxnStatus::Committed, 1);
  return pattern;
}

std::vector<uint32_t> pick_role_sessions(uint32_t sessions, uint32_t roles, uint64_t seed) {
  Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<uint32_t> all(sessions);
  for (uint32_t i = 0; i < sessions; ++i) all[i] = i;
  for (uint32_t i = 0; i < sessions; ++i) std::swap(all[i], all[i + rng.below(sessions - i)]);
  all.resize(std::min(roles, sessions));
  return all;
}

InjectingSink::InjectingSink(GenSink& out, const InjectableAnomaly& what, const GenParams& p)
    : out_(out),
      what_(what),
      // The generator's times are execution steps: every generated interval ends before this.
      time_base_(static_cast<int64_t>(p.sessions) * p.txns_per_session + p.overlap + 2) {
  const uint32_t sessions = p.sessions;
  const int64_t key_base = p.keys, value_base = int64_t{1} << 40;
  session_of_role_ = pick_role_sessions(sessions, what.sessions, p.seed);

  pattern_ = anomaly_pattern(what, key_base, value_base);
}

void InjectingSink::begin_session() {
  if (started_) flush_session(current_++);
  started_ = true;
  next_index_ = 0;
  out_.begin_session();
}

void InjectingSink::begin_txn(uint32_t session, uint32_t index) {
  out_.begin_txn(session, index);
  next_index_ = index + 1;
}

void InjectingSink::flush_session(uint32_t s) {
  for (const PatternTxn& t : pattern_) {
    if (t.role >= session_of_role_.size() || session_of_role_[t.role] != s) continue;
    out_.begin_txn(s, next_index_++);
    for (const PatternOp& o : t.ops) o.write ? out_.write(o.key, o.value) : out_.read(o.key, o.value);
    // Real-time slots come after every generated transaction and do not overlap.
    const int64_t start = time_base_ + 2 * int64_t{t.rt_slot};
    out_.end_txn(t.status, t.rt_slot >= 0, Time::integer(start), Time::integer(start + 1));
  }
}

void InjectingSink::finish() {
  if (started_) flush_session(current_);
}

void generate_with_anomaly(const GenParams& p, const InjectableAnomaly* inject, GenSink& sink) {
  if (!inject) {
    generate_history(p, sink);
    return;
  }
  InjectingSink injecting(sink, *inject, p);
  generate_history(p, injecting);
  injecting.finish();
}

}  // namespace isoscope
