#include "generate/mt_history.h"

#include "generate/sim_common.h"
#include "generate/workload.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace isoscope {

namespace {

using namespace sim;

// A committed version of a key: its value and the commit event that installed it.
struct Version {
  uint64_t ts;
  int64_t value;
};

}  // namespace

void generate_mt_history(const MtGenParams& p, GenSink& sink) {
  Rng rng(p.seed);
  WorkloadParams wp;
  wp.kind = WorkloadKind::MiniTxn;
  wp.key = p.key;
  wp.read_only_ratio = p.read_only_ratio;
  wp.two_key_ratio = p.two_key_ratio;
  const WorkloadPlanner planner(wp);
  const uint32_t nk = planner.num_keys(), ns = p.sessions;
  std::vector<GSession> sessions(ns);
  std::vector<std::vector<Version>> versions(nk, std::vector<Version>{{0, 0}});
  int64_t next_value = 1;
  uint64_t clock = 0;

  // Per session: the transaction in progress.
  struct Active {
    bool open = false;
    TxnProgram program;
    size_t step = 0;
    uint64_t snapshot = 0;
    bool abort = false;
  };
  std::vector<Active> act(ns);
  std::vector<uint32_t> live;  // sessions with work left
  for (uint32_t s = 0; s < ns; ++s)
    if (p.txns_per_session > 0) live.push_back(s);
  for (GSession& gs : sessions) {
    gs.txns.reserve(p.txns_per_session);
    gs.ops.reserve(static_cast<size_t>(p.txns_per_session) * 3);
  }

  // The value a read of key k returns for session s now.
  auto read_value = [&](const Active& a, uint32_t k) -> int64_t {
    const std::vector<Version>& v = versions[k];
    switch (p.engine) {
      case MtEngine::SnapshotIsolation: {
        auto it = std::upper_bound(v.begin(), v.end(), a.snapshot,
                                   [](uint64_t ts, const Version& x) { return ts < x.ts; });
        return std::prev(it)->value;
      }
      case MtEngine::Stale:
        if (v.size() > 1 && rng.chance(p.stale_ratio)) return v[rng.below(static_cast<uint32_t>(v.size() - 1))].value;
        return v.back().value;
      default: return v.back().value;
    }
  };

  while (!live.empty()) {
    const uint32_t li = rng.below(static_cast<uint32_t>(live.size()));
    const uint32_t s = live[li];
    Active& a = act[s];
    GSession& gs = sessions[s];
    ++clock;
    if (!a.open) {  // begin
      a.open = true;
      a.step = 0;
      a.snapshot = clock;
      a.abort = rng.chance(p.abort_ratio);
      planner.plan(rng, a.program);
      GTxn t;
      t.start = Time::integer(static_cast<int64_t>(clock));
      t.op_begin = t.op_end = static_cast<uint32_t>(gs.ops.size());
      gs.txns.push_back(t);
      if (p.engine != MtEngine::Serial && p.engine != MtEngine::Stale) continue;
      // Serial / Stale: the ops run at the commit event; nothing happens until then.
      continue;
    }
    const TxnProgram& steps = a.program;
    GTxn& t = gs.txns.back();
    const bool at_commit_engine = p.engine == MtEngine::Serial || p.engine == MtEngine::Stale;
    if (!at_commit_engine && a.step < steps.size()) {  // one operation per event
      const ProgramStep st = steps[a.step++];
      const bool write = st.kind == StepKind::Write;
      gs.ops.push_back({write, st.key, write ? next_value++ : read_value(a, st.key)});
      t.op_end = static_cast<uint32_t>(gs.ops.size());
      continue;
    }
    // Commit event.
    if (at_commit_engine) {
      for (const ProgramStep& st : steps) {
        const bool write = st.kind == StepKind::Write;
        gs.ops.push_back({write, st.key, write ? next_value++ : read_value(a, st.key)});
      }
      t.op_end = static_cast<uint32_t>(gs.ops.size());
    }
    bool commit = !a.abort;
    if (commit && p.engine == MtEngine::SnapshotIsolation)
      for (uint32_t o = t.op_begin; o < t.op_end; ++o)
        if (gs.ops[o].write && versions[gs.ops[o].key].back().ts > a.snapshot) commit = false;
    if (commit) {
      for (uint32_t o = t.op_begin; o < t.op_end; ++o)
        if (gs.ops[o].write) versions[gs.ops[o].key].push_back({clock, gs.ops[o].value});
    } else {
      t.status = TxnStatus::Aborted;
    }
    t.end = Time::integer(static_cast<int64_t>(clock));
    a.open = false;
    if (gs.txns.size() == p.txns_per_session) {
      live[li] = live.back();
      live.pop_back();
    }
  }
  emit(sessions, p.timestamps, sink);
}

Expected<History> generate_mt_history(const MtGenParams& p) {
  const size_t n = static_cast<size_t>(p.sessions) * p.txns_per_session;
  return collect_history(p, n, n * 3, [](const MtGenParams& q, GenSink& s) { generate_mt_history(q, s); });
}

void generate_lwt_history(const LwtGenParams& p, GenSink& sink) {
  Rng rng(p.seed);
  KeyPicker keys(p.key);
  const uint32_t nk = keys.size(), ns = p.sessions;
  std::vector<GSession> sessions(ns);
  // Per key: committed values, oldest first (empty: absent; value 0 is the initial value).
  std::vector<std::vector<int64_t>> versions(nk);
  if (!p.inserts)
    for (auto& v : versions) v.push_back(0);
  int64_t next_value = 1;
  std::vector<uint32_t> live, left(ns, p.ops_per_session);
  for (uint32_t s = 0; s < ns; ++s)
    if (p.ops_per_session > 0) live.push_back(s);
  // The sequential execution: operation i takes effect at time 4 * (i + 1).
  std::vector<std::vector<double>> points(ns);
  double point = 0;
  while (!live.empty()) {
    const uint32_t li = rng.below(static_cast<uint32_t>(live.size()));
    const uint32_t s = live[li];
    GSession& gs = sessions[s];
    point += 4;
    const uint32_t k = keys.pick(rng);
    std::vector<int64_t>& v = versions[k];
    GTxn t;
    t.op_begin = static_cast<uint32_t>(gs.ops.size());
    const bool abort = rng.chance(p.abort_ratio);
    const bool read_only = rng.chance(p.read_ratio);
    auto seen = [&]() -> int64_t {  // the value a read sees (0 when absent)
      if (v.empty()) return 0;
      if (v.size() > 1 && rng.chance(p.stale_ratio)) return v[rng.below(static_cast<uint32_t>(v.size() - 1))];
      return v.back();
    };
    if (read_only) {
      gs.ops.push_back({false, k, seen()});
    } else if (v.empty()) {  // insert-if-not-exists
      gs.ops.push_back({true, k, next_value++});
      if (!abort) v.push_back(gs.ops.back().value);
    } else {
      const int64_t old = seen();
      gs.ops.push_back({false, k, old});
      gs.ops.push_back({true, k, next_value++});
      if (!abort) v.push_back(gs.ops.back().value);
    }
    t.op_end = static_cast<uint32_t>(gs.ops.size());
    if (abort) t.status = TxnStatus::Aborted;
    gs.txns.push_back(t);
    points[s].push_back(point);
    if (--left[s] == 0) {
      live[li] = live.back();
      live.pop_back();
    }
  }
  // Intervals around the points: sequential per session, each containing its point.
  const double stretch = 4.0 * p.latency;
  for (uint32_t s = 0; s < ns; ++s) {
    GSession& gs = sessions[s];
    double prev_end = -1e300;
    for (size_t i = 0; i < gs.txns.size(); ++i) {
      const double pt = points[s][i];
      const double lo = std::max(prev_end + 1, pt - rng.uniform() * stretch);
      double hi = pt + rng.uniform() * stretch;
      if (i + 1 < gs.txns.size()) hi = std::min(hi, points[s][i + 1] - 2);
      // Points are whole numbers (multiples of 4), so are the interval's ends.
      const double start = std::min(std::floor(lo), pt), end = std::max(std::ceil(hi), pt);
      gs.txns[i].start = Time::integer(static_cast<int64_t>(start));
      gs.txns[i].end = Time::integer(static_cast<int64_t>(end));
      prev_end = end;
    }
  }
  emit(sessions, true, sink);
}

Expected<History> generate_lwt_history(const LwtGenParams& p) {
  const size_t n = static_cast<size_t>(p.sessions) * p.ops_per_session;
  return collect_history(p, n, n * 2, [](const LwtGenParams& q, GenSink& s) { generate_lwt_history(q, s); });
}

}  // namespace isoscope
