#include "generate/db_sim.h"

#include <algorithm>

#include "generate/sim_common.h"

namespace isoscope {

namespace {

using namespace sim;

struct Version {
  uint64_t ts;  // the commit event that installed it
  int64_t value;
};

// The register workload of these parameters (generate/workload.h).
WorkloadParams register_workload(const DbSimParams& p) {
  WorkloadParams w;
  w.kind = WorkloadKind::Registers;
  w.min_ops = p.min_ops;
  w.max_ops = p.max_ops;
  w.key = p.key;
  w.read_ratio = p.read_ratio;
  w.mix = p.mix;
  return w;
}

// The transaction a session has open.
struct Open {
  bool active = false;
  bool client_abort = false;
  uint64_t snapshot = 0;
  TxnProgram plan;
  size_t step = 0;
  std::vector<std::pair<uint32_t, int64_t>> writes;  // own writes, latest last
  std::vector<uint32_t> read_keys;
};

class Simulator {
 public:
  explicit Simulator(const DbSimParams& p)
      : p_(p), rng_(p.seed), planner_(register_workload(p)), keys_(p.key), sessions_(p.sessions), open_(p.sessions),
        versions_(keys_.size(), std::vector<Version>{{0, 0}}) {
    for (GSession& gs : sessions_) {
      gs.txns.reserve(p.txns_per_session);
      gs.ops.reserve(static_cast<size_t>(p.txns_per_session) * (p.min_ops + p.max_ops) / 2);
    }
    if (p.inject) {
      roles_ = pick_role_sessions(p.sessions, p.inject->sessions, p.seed);
      reserved_.assign(p.sessions, 0);
      inject_after_ = static_cast<uint64_t>(p.sessions) * p.txns_per_session / 2;
    }
  }

  void run(GenSink& sink) {
    std::vector<uint32_t> live;
    for (uint32_t s = 0; s < p_.sessions; ++s)
      if (p_.txns_per_session > 0) live.push_back(s);
    while (!live.empty()) {
      if (reserving_ && !planted_ && roles_idle()) plant_pattern();
      const uint32_t li = rng_.below(static_cast<uint32_t>(live.size()));
      const uint32_t s = live[li];
      ++clock_;
      if (!open_[s].active) {
        if (!reserved_.empty() && reserved_[s]) continue;  // waits for the pattern
        begin(s);
        continue;
      }
      Open& o = open_[s];
      if (o.step < o.plan.size()) {
        operate(s, o.plan[o.step++]);
        continue;
      }
      commit(s);
      if (++finished_ == inject_after_ && p_.inject) reserve_roles();
      if (sessions_[s].txns.size() >= p_.txns_per_session) {
        live[li] = live.back();
        live.pop_back();
      }
    }
    if (p_.inject && !planted_) plant_pattern();  // a run too short to reach the middle
    emit(sessions_, true, sink);
  }

 private:
  bool roles_idle() const {
    for (uint32_t s : roles_)
      if (open_[s].active) return false;
    return true;
  }
  void reserve_roles() {
    reserving_ = true;
    for (uint32_t s : roles_) reserved_[s] = 1;
  }

  void begin(uint32_t s) {
    Open& o = open_[s];
    o.active = true;
    o.snapshot = clock_;
    o.step = 0;
    o.plan.clear();
    o.writes.clear();
    o.read_keys.clear();
    o.client_abort = rng_.chance(p_.abort_ratio);
    planner_.plan(rng_, o.plan);
    GSession& gs = sessions_[s];
    GTxn t;
    t.start = Time::integer(static_cast<int64_t>(clock_));
    t.op_begin = t.op_end = static_cast<uint32_t>(gs.ops.size());
    gs.txns.push_back(t);
  }

  int64_t read_value(const Open& o, uint32_t k) const {
    for (size_t i = o.writes.size(); i-- > 0;)
      if (o.writes[i].first == k) return o.writes[i].second;
    const std::vector<Version>& v = versions_[k];
    if (p_.engine == DbEngine::ReadCommitted) return v.back().value;
    // The snapshot taken at begin: the last version committed at or before it.
    auto it = std::upper_bound(v.begin(), v.end(), o.snapshot,
                               [](uint64_t ts, const Version& x) { return ts < x.ts; });
    return std::prev(it)->value;
  }

  void operate(uint32_t s, ProgramStep op) {
    Open& o = open_[s];
    GSession& gs = sessions_[s];
    if (op.kind == StepKind::Write) {
      const int64_t value = p_.value_range ? 1 + static_cast<int64_t>(rng_.below(p_.value_range)) : next_value_++;
      o.writes.emplace_back(op.key, value);
      gs.ops.push_back({true, op.key, value});
    } else {
      o.read_keys.push_back(op.key);
      gs.ops.push_back({false, op.key, read_value(o, op.key)});
    }
    gs.txns.back().op_end = static_cast<uint32_t>(gs.ops.size());
  }

  bool changed_since(uint32_t k, uint64_t snapshot) const { return versions_[k].back().ts > snapshot; }

  void commit(uint32_t s) {
    Open& o = open_[s];
    GTxn& t = sessions_[s].txns.back();
    bool ok = !o.client_abort;
    if (ok && p_.engine != DbEngine::ReadCommitted)
      for (const auto& [k, v] : o.writes) ok = ok && !changed_since(k, o.snapshot);
    if (ok && p_.engine == DbEngine::Serializable)
      for (uint32_t k : o.read_keys) ok = ok && !changed_since(k, o.snapshot);
    if (ok) {
      // Install each key's last write (earlier ones are intermediate).
      for (size_t i = 0; i < o.writes.size(); ++i) {
        bool last = true;
        for (size_t j = i + 1; j < o.writes.size() && last; ++j) last = o.writes[j].first != o.writes[i].first;
        if (last) versions_[o.writes[i].first].push_back({clock_, o.writes[i].second});
      }
    } else {
      t.status = TxnStatus::Aborted;
    }
    t.end = Time::integer(static_cast<int64_t>(clock_));
    o.active = false;
  }

  // The pattern's transactions on fresh keys: the j-th transaction of each role runs in
  // [c + 1 + 3j, c + 3 + 3j], overlapping the other roles' j-th ones; a real-time slot k runs
  // alone in [c + 1 + 3k, c + 2 + 3k].
  void plant_pattern() {
    planted_ = true;
    const std::vector<PatternTxn> pattern = anomaly_pattern(*p_.inject, keys_.size(), int64_t{1} << 40);
    const uint64_t c = clock_;
    std::vector<uint32_t> count(roles_.size(), 0);
    uint64_t last = c;
    for (const PatternTxn& pt : pattern) {
      const uint32_t s = roles_[pt.role];
      const uint32_t j = pt.rt_slot >= 0 ? static_cast<uint32_t>(pt.rt_slot) : count[pt.role];
      ++count[pt.role];
      GSession& gs = sessions_[s];
      GTxn t;
      t.start = Time::integer(static_cast<int64_t>(c + 1 + 3 * j));
      t.end = Time::integer(static_cast<int64_t>(c + (pt.rt_slot >= 0 ? 2 : 3) + 3 * j));
      t.status = pt.status;
      t.op_begin = static_cast<uint32_t>(gs.ops.size());
      for (const PatternOp& op : pt.ops)
        gs.ops.push_back({op.write, static_cast<uint32_t>(op.key), op.value});
      t.op_end = static_cast<uint32_t>(gs.ops.size());
      gs.txns.push_back(t);
      last = std::max(last, static_cast<uint64_t>(t.end.whole));
    }
    clock_ = last + 1;
    for (uint32_t s : roles_) reserved_[s] = 0;
  }

  const DbSimParams& p_;
  Rng rng_;
  WorkloadPlanner planner_;
  KeyPicker keys_;
  std::vector<GSession> sessions_;
  std::vector<Open> open_;
  std::vector<std::vector<Version>> versions_;
  uint64_t clock_ = 0, finished_ = 0, inject_after_ = 0;
  int64_t next_value_ = 1;
  std::vector<uint32_t> roles_;
  std::vector<char> reserved_;
  bool reserving_ = false, planted_ = false;
};

}  // namespace

void simulate_database(const DbSimParams& p, GenSink& sink) { Simulator(p).run(sink); }

Expected<History> simulate_database(const DbSimParams& p) {
  const size_t n = static_cast<size_t>(p.sessions) * p.txns_per_session;
  return collect_history(p, n, n * (p.min_ops + p.max_ops) / 2, [](const DbSimParams& q, GenSink& s) { simulate_database(q, s); });
}

}  // namespace isoscope
