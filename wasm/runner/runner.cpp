#include "runner/runner.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "util/json.h"

namespace isoscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

class Session {
 public:
  // stop: roll back the transaction in progress and end; finish: end after it.
  Session(Database& db, const RunParams& p, uint32_t index, Clock::time_point t0, std::atomic<bool>& stop,
          std::atomic<bool>& finish, std::atomic<int64_t>& next_value, RunCounts& counts, std::atomic<int64_t>& server_id)
      : db_(db), p_(p), planner_(p.workload), rng_(p.seed * 0x9E3779B97F4A7C15ull + index + 1), t0_(t0),
        stop_(stop), finish_(finish), next_value_(next_value), counts_(counts), server_id_(server_id) {}

  // Runs the session's transactions; false with error_ set on a failure that ends the run.
  bool run() {
    if (!reconnect()) return false;
    TxnProgram program;
    for (uint32_t i = 0; i < p_.txns_per_session && !stop_.load(std::memory_order_relaxed) &&
                         !finish_.load(std::memory_order_relaxed);) {
      planner_.plan(rng_, program);
      switch (execute(program)) {
        case Next::Done: ++i; break;
        case Next::Retry: break;  // the connection was gone before the transaction began
        case Next::Fail: return false;
      }
    }
    return true;
  }

  RecordedSession& record() { return rec_; }
  const std::string& error() const { return error_; }

 private:
  enum class Next { Done, Retry, Fail };

  int64_t now() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count(); }

  bool reconnect() {
    conn_.reset();
    server_id_.store(-1);
    for (int attempt = 0;; ++attempt) {
      std::string err;
      conn_ = db_.connect(err);
      if (conn_) break;
      if (attempt >= 50 || stop_.load()) {  // five seconds
        error_ = err;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    server_id_.store(conn_->server_id());
    return true;
  }

  Next execute(const TxnProgram& program) {
    bool writes = false;
    for (const ProgramStep& s : program) writes |= s.kind != StepKind::Read && s.kind != StepKind::ReadList;
    RecordedTxn t{static_cast<uint32_t>(rec_.ops.size()), 0, TxnStatus::Committed, now(), 0};
    Status st = conn_->begin(writes);
    if (st.outcome == Outcome::Lost) return reconnect() ? Next::Retry : Next::Fail;
    for (size_t i = 0; st.ok() && i < program.size(); ++i) {
      if (stop_.load(std::memory_order_relaxed)) {
        st = {Outcome::Aborted, "stopped"};  // rolled back below
        break;
      }
      st = step(program[i]);
    }
    if (st.ok()) st = conn_->commit();
    t.end_ns = now();
    t.op_end = static_cast<uint32_t>(rec_.ops.size());
    switch (st.outcome) {
      case Outcome::Ok: counts_.committed.fetch_add(1, std::memory_order_relaxed); break;
      case Outcome::Aborted:
        conn_->rollback();
        t.status = TxnStatus::Aborted;
        counts_.aborted.fetch_add(1, std::memory_order_relaxed);
        break;
      case Outcome::Lost:
        t.status = TxnStatus::Unknown;
        counts_.unknown.fetch_add(1, std::memory_order_relaxed);
        break;
      case Outcome::Failed:
        conn_->rollback();
        t.status = TxnStatus::Aborted;
        error_ = st.message;
        break;
    }
    // A transaction that did nothing before it ended is not part of the history.
    if (t.op_end > t.op_begin) rec_.txns.push_back(t);
    if (st.outcome == Outcome::Failed) return Next::Fail;
    if (st.outcome == Outcome::Lost) {
      counts_.reconnects.fetch_add(1, std::memory_order_relaxed);
      if (!reconnect()) return Next::Fail;
    }
    return Next::Done;
  }

  Status step(const ProgramStep& s) {
    switch (s.kind) {
      case StepKind::Read: {
        int64_t v = 0;
        Status st = conn_->read(s.key, v);
        if (st.ok()) {
          rec_.ops.push_back({RecordedOp::Read, s.key, v, 0, 0});
          last_seen_[s.key] = v;
        }
        return st;
      }
      case StepKind::Write: {
        const int64_t v = next_value_.fetch_add(1, std::memory_order_relaxed);
        Status st = conn_->write(s.key, v);
        if (st.ok()) rec_.ops.push_back({RecordedOp::Write, s.key, v, 0, 0});
        return st;
      }
      case StepKind::Append: {
        const int64_t v = next_value_.fetch_add(1, std::memory_order_relaxed);
        Status st = conn_->append(s.key, v);
        if (st.ok()) rec_.ops.push_back({RecordedOp::Append, s.key, v, 0, 0});
        return st;
      }
      case StepKind::ReadList: {
        Status st = conn_->read_list(s.key, list_);
        if (st.ok()) {
          const auto b = static_cast<uint32_t>(rec_.list_values.size());
          rec_.list_values.insert(rec_.list_values.end(), list_.begin(), list_.end());
          rec_.ops.push_back({RecordedOp::ReadList, s.key, 0, b, static_cast<uint32_t>(rec_.list_values.size())});
        }
        return st;
      }
      case StepKind::CompareAndSet: {
        // Compare-and-set against the value this session last saw of the key (0 at first).
        int64_t cur = 0;
        Status st = conn_->read_for_update(s.key, cur);
        if (!st.ok()) return st;
        rec_.ops.push_back({RecordedOp::Read, s.key, cur, 0, 0});
        const auto seen = last_seen_.find(s.key);
        const int64_t expected = seen == last_seen_.end() ? 0 : seen->second;
        last_seen_[s.key] = cur;
        if (cur != expected) return st;  // the compare failed: a read
        const int64_t v = next_value_.fetch_add(1, std::memory_order_relaxed);
        st = conn_->write(s.key, v);
        if (st.ok()) {
          rec_.ops.push_back({RecordedOp::Write, s.key, v, 0, 0});
          last_seen_[s.key] = v;
        }
        return st;
      }
    }
    return {};
  }

  Database& db_;
  const RunParams& p_;
  WorkloadPlanner planner_;
  Rng rng_;
  Clock::time_point t0_;
  std::atomic<bool>& stop_;
  std::atomic<bool>& finish_;
  std::atomic<int64_t>& next_value_;
  RunCounts& counts_;
  std::atomic<int64_t>& server_id_;
  std::unique_ptr<Connection> conn_;
  RecordedSession rec_;
  std::unordered_map<uint32_t, int64_t> last_seen_;
  std::vector<int64_t> list_;
  std::string error_;
};

}  // namespace

RunResult run_sessions(Database& db, const RunParams& p, std::atomic<bool>& stop, RunCounts& counts,
                       const std::function<void()>& tick) {
  RunResult result;
  const Clock::time_point t0 = Clock::now();
  std::atomic<int64_t> next_value{1};
  std::atomic<uint32_t> running{p.sessions};
  std::atomic<bool> failed{false};
  std::atomic<bool> stop_sessions{stop.load()};  // the caller's stop
  std::atomic<bool> timed_out{false};            // the duration's end: sessions finish their transaction
  std::vector<std::atomic<int64_t>> server_ids(p.sessions);
  for (auto& id : server_ids) id.store(-1);
  std::vector<std::unique_ptr<Session>> sessions;
  for (uint32_t s = 0; s < p.sessions; ++s)
    sessions.push_back(std::make_unique<Session>(db, p, s, t0, stop_sessions, timed_out, next_value, counts, server_ids[s]));
  std::vector<std::thread> threads;
  for (uint32_t s = 0; s < p.sessions; ++s)
    threads.emplace_back([&, s] {
      if (!sessions[s]->run()) {
        failed = true;
        stop_sessions = true;  // one failure ends the run; the others roll back and stop
      }
      running.fetch_sub(1);
    });
  Rng nemesis_rng(p.seed ^ 0x6E656D65736973ull);
  auto last_kill = Clock::now();
  while (running.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (stop.load()) stop_sessions = true;
    if (p.duration_s > 0 && std::chrono::duration<double>(Clock::now() - t0).count() >= p.duration_s)
      timed_out = true;
    if (p.nemesis_kill && !stop_sessions.load() && !timed_out.load() &&
        Clock::now() - last_kill >= std::chrono::milliseconds(p.nemesis_interval_ms)) {
      last_kill = Clock::now();
      const int64_t id = server_ids[nemesis_rng.below(p.sessions)].load();
      if (id >= 0 && db.kill(id)) counts.kills.fetch_add(1);
    }
    if (tick) tick();
  }
  for (std::thread& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& s : sessions) {
    if (result.error.empty() && !s->error().empty()) result.error = s->error();
    result.sessions.push_back(std::move(s->record()));
  }
  result.interrupted = stop_sessions.load() || failed.load();
  return result;
}

std::string history_json(const RunResult& r, bool lists, const std::string& recorded_by_json) {
  std::string out;
  out.reserve(1 << 16);
  out += "{\"format\": \"isoscope/1\", \"initial\": ";
  out += lists ? "null" : "0";
  out += ",\n \"recorded_by\": " + recorded_by_json + ",\n \"sessions\": [";
  for (size_t s = 0; s < r.sessions.size(); ++s) {
    const RecordedSession& rs = r.sessions[s];
    out += s ? ",\n  [" : "\n  [";
    for (size_t i = 0; i < rs.txns.size(); ++i) {
      const RecordedTxn& t = rs.txns[i];
      out += i ? ",\n   {\"ops\": [" : "\n   {\"ops\": [";
      for (uint32_t o = t.op_begin; o < t.op_end; ++o) {
        const RecordedOp& op = rs.ops[o];
        if (o > t.op_begin) out += ", ";
        const std::string key = std::to_string(op.key);
        switch (op.kind) {
          case RecordedOp::Read: out += "[\"r\", " + key + ", " + std::to_string(op.value) + "]"; break;
          case RecordedOp::Write: out += "[\"w\", " + key + ", " + std::to_string(op.value) + "]"; break;
          case RecordedOp::Append: out += "[\"append\", " + key + ", " + std::to_string(op.value) + "]"; break;
          case RecordedOp::ReadList:
            out += "[\"r\", " + key + ", [";
            for (uint32_t v = op.list_begin; v < op.list_end; ++v) {
              if (v > op.list_begin) out += ", ";
              out += std::to_string(rs.list_values[v]);
            }
            out += "]]";
            break;
        }
      }
      out += "], \"status\": \"";
      out += t.status == TxnStatus::Committed ? "committed" : t.status == TxnStatus::Aborted ? "aborted" : "unknown";
      out += "\", \"start\": " + std::to_string(t.start_ns) + ", \"end\": " + std::to_string(t.end_ns) + "}";
    }
    out += "]";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace isoscope::runner
