// The driver of a Hermitage case (hermitage.h): a thread and a connection per session, steps
// handed out in the script's order, a step that blocks left waiting while the others go on.
#include "runner/hermitage.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "runner/table_workload.h"
#include "util/json.h"

namespace isoscope::runner {

namespace {

using Clock = std::chrono::steady_clock;


// One session: its connection, its thread, the steps handed to it and not yet done.
class SessionWorker {
 public:
  SessionWorker(uint8_t index, std::unique_ptr<Connection> conn, const HermitageTable& table, Clock::time_point t0)
      : index_(index), conn_(std::move(conn)), table_(table), t0_(t0), server_id_(conn_->server_id()), thread_([this] { loop(); }) {}
  ~SessionWorker() { stop(); }
  // Ends the thread once its current statement returns (the caller ends a statement that waits
  // for ever: Database::kill); what it recorded stays readable.
  void stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  // Hands a step (its index in the script; writes: the step's transaction writes).
  void give(uint32_t index, const HermitageStep& s, bool writes) {
    {
      std::lock_guard<std::mutex> l(mu_);
      queue_.push_back({index, s, writes});
      busy_since_ = queue_.size() == 1 && !running_ ? Clock::now() : busy_since_;
    }
    cv_.notify_all();
  }
  // Whether every step handed to it is done; else since when its current step runs.
  bool idle(Clock::time_point& since, uint32_t& step) {
    std::lock_guard<std::mutex> l(mu_);
    since = busy_since_;
    step = running_ || queue_.empty() ? current_ : queue_.front().index;
    return queue_.empty() && !running_;
  }
  bool idle() {
    std::lock_guard<std::mutex> l(mu_);
    return queue_.empty() && !running_;
  }
  int64_t server_id() const { return server_id_; }
  uint8_t index() const { return index_; }
  // After the worker is idle: what it recorded.
  std::vector<HermitageTxn>& txns() { return txns_; }
  bool open() const { return !txns_.empty() && open_; }
  std::vector<std::string>& refusals() { return refusals_; }
  std::vector<uint32_t>& skipped() { return skipped_; }
  std::string error() {
    std::lock_guard<std::mutex> l(mu_);
    return error_;
  }

 private:
  struct Job {
    uint32_t index;
    HermitageStep step;
    bool writes;
  };
  int64_t now() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count(); }

  void loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return quit_ || !queue_.empty(); });
        if (quit_) return;
        job = queue_.front();
        queue_.pop_front();
        running_ = true;
        current_ = job.index;
        busy_since_ = Clock::now();
      }
      run(job);
      {
        std::lock_guard<std::mutex> l(mu_);
        running_ = false;
      }
    }
  }

  // The open transaction ends now; with `status`, or left unknown (a statement failed).
  void end_txn(std::optional<TxnStatus> status) {
    if (!open()) return;
    if (status) txns_.back().status = *status;
    txns_.back().end_ns = now();
    open_ = false;
  }
  // The outcome of a statement: refused (its transaction ends, aborted), or an error. A lock
  // wait that timed out is not the database preventing an anomaly: the schedule stalled (a lock
  // held outside the case, a pause too long for the database's timeout).
  bool outcome(const Status& st) {
    if (st.ok()) return true;
    if (st.outcome == Outcome::Aborted && !st.lock_timeout) {
      refusals_.push_back(hermitage_session_name(index_) + ": " + st.message);
      conn_->rollback();
      end_txn(TxnStatus::Aborted);
      return false;
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      if (error_.empty()) error_ = hermitage_session_name(index_) + ": " + st.message;
    }
    // Its locks go with its transaction, so that the other sessions are not left waiting.
    if (st.outcome != Outcome::Lost) conn_->rollback();
    end_txn(std::nullopt);
    return false;
  }

  void run(const Job& job) {
    const HermitageStep& s = job.step;
    if (!error().empty()) return;
    if (s.kind == HermitageStep::Begin) {
      txns_.push_back({});
      txns_.back().start_ns = now();
      open_ = true;
      outcome(conn_->begin(job.writes));
      return;
    }
    if (!open()) {  // refused earlier: the rest of it is skipped
      skipped_.push_back(job.index);
      return;
    }
    HermitageTxn& t = txns_.back();
    int64_t v = 0, changed = 0;
    Connection::Rows rows;
    const std::string& table = table_.name;
    const std::string id = std::to_string(s.key), value = std::to_string(s.value);
    switch (s.kind) {
      case HermitageStep::Read:
      case HermitageStep::ReadForUpdate:
        if (outcome(s.kind == HermitageStep::Read ? conn_->read(static_cast<uint32_t>(s.key), v)
                                                  : conn_->read_for_update(static_cast<uint32_t>(s.key), v)))
          t.ops.push_back({HermitageOp::Read, s.key, v, {}, {}});
        break;
      case HermitageStep::Write:
        if (outcome(conn_->write(static_cast<uint32_t>(s.key), s.value))) t.ops.push_back({HermitageOp::Write, s.key, s.value, {}, {}});
        break;
      case HermitageStep::Select:
        if (outcome(conn_->exec_rows("SELECT k, v FROM " + table + " WHERE " + predicate_sql(s.predicate) + " ORDER BY k", &rows, changed)))
          t.ops.push_back({HermitageOp::Select, 0, std::nullopt, s.predicate, rows});
        break;
      case HermitageStep::Insert:
        if (outcome(conn_->exec_rows("INSERT INTO " + table + " (k, v) VALUES (" + id + ", " + value + ")", nullptr, changed)))
          t.ops.push_back({HermitageOp::Write, s.key, s.value, {}, {}});
        break;
      case HermitageStep::Update:  // a row that is not there is read as absent
        if (outcome(conn_->exec_rows("UPDATE " + table + " SET v = " + value + " WHERE k = " + id, nullptr, changed)))
          t.ops.push_back({changed ? HermitageOp::Write : HermitageOp::Read, s.key,
                           changed ? std::optional<int64_t>(s.value) : std::nullopt, {}, {}});
        break;
      case HermitageStep::UpdateWhere:
      case HermitageStep::DeleteWhere: {
        // The rows the statement matches, read as it reads them (the latest versions, locked),
        // then each written by its key: what the client observes of UPDATE/DELETE ... WHERE.
        if (!outcome(conn_->exec_rows("SELECT k, v FROM " + table + " WHERE " + predicate_sql(s.predicate) + " ORDER BY k" +
                                          (table_.row_locks ? " FOR UPDATE" : ""),
                                      &rows, changed)))
          break;
        bool done = true;
        for (const auto& [k, old] : rows) {
          const std::string sql = s.kind == HermitageStep::UpdateWhere
                                      ? "UPDATE " + table + " SET v = " + std::to_string(old + s.value) + " WHERE k = " + std::to_string(k)
                                      : "DELETE FROM " + table + " WHERE k = " + std::to_string(k);
          if (!(done = outcome(conn_->exec_rows(sql, nullptr, changed)))) break;
        }
        if (done) record_predicate_write(s, rows, t.ops);
        break;
      }
      case HermitageStep::Commit:
        if (outcome(conn_->commit())) end_txn(TxnStatus::Committed);
        break;
      case HermitageStep::Abort:
        conn_->rollback();
        end_txn(TxnStatus::Aborted);
        break;
      case HermitageStep::Begin: break;
    }
  }

  const uint8_t index_;
  std::unique_ptr<Connection> conn_;
  const HermitageTable& table_;
  const Clock::time_point t0_;
  const int64_t server_id_;
  std::vector<HermitageTxn> txns_;
  bool open_ = false;  // the last transaction has not ended
  std::vector<std::string> refusals_;
  std::vector<uint32_t> skipped_;
  std::string error_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  bool running_ = false, quit_ = false;
  uint32_t current_ = 0;
  Clock::time_point busy_since_;
  std::thread thread_;  // last: starts once the members above exist
};

// Whether the transaction that `begin` (a Begin step) opens writes.
bool txn_writes(const std::vector<HermitageStep>& steps, size_t begin) {
  for (size_t i = begin + 1; i < steps.size(); ++i) {
    if (steps[i].session != steps[begin].session) continue;
    if (steps[i].kind == HermitageStep::Commit || steps[i].kind == HermitageStep::Abort) return false;
    switch (steps[i].kind) {
      case HermitageStep::Write: case HermitageStep::ReadForUpdate: case HermitageStep::Insert:
      case HermitageStep::Update: case HermitageStep::UpdateWhere: case HermitageStep::DeleteWhere:
        return true;
      default: break;
    }
  }
  return false;
}


}  // namespace

std::string hermitage_history_json(const HermitageCase& c, const std::vector<std::vector<HermitageTxn>>& sessions) {
  auto row = [](int64_t k, int64_t v) {
    std::string r = "[";
    r += std::to_string(k);
    r += ", ";
    r += std::to_string(v);
    return r += "]";
  };
  std::string out = "{\"format\": \"isoscope/1\", ";
  if (c.table) {
    out += "\"rows\": [";
    for (const auto& [k, v] : kHermitageRows) out += (k == kHermitageRows[0].first ? "" : ", ") + row(k, v);
    out += "], ";
  } else {
    out += "\"initial\": 0, ";
  }
  out += "\"recorded_by\": {\"tool\": \"isoscope hermitage\", \"case\": " + json_quote(hermitage_case_name(c)) + "}, \"sessions\": [";
  auto op_json = [&](const HermitageOp& o) {
    if (o.kind == HermitageOp::Select) {
      std::string rows;
      for (const auto& [k, v] : o.rows) rows += (rows.empty() ? "" : ", ") + row(k, v);
      return "[\"select\", " + json_quote(o.predicate) + ", [" + rows + "]]";
    }
    const std::string key = c.table ? std::to_string(o.key) : std::string(o.key ? "\"y\"" : "\"x\"");
    return std::string("[\"") + (o.kind == HermitageOp::Write ? "w" : "r") + "\", " + key + ", " +
           (o.value ? std::to_string(*o.value) : std::string("null")) + "]";
  };
  for (size_t s = 0; s < sessions.size(); ++s) {
    out += s ? ", [" : "[";
    const std::vector<HermitageTxn>& txns = sessions[s];
    for (size_t i = 0; i < txns.size(); ++i) {
      const HermitageTxn& t = txns[i];
      out += i ? ", " : "";
      out += "{\"id\": " + json_quote(hermitage_session_name(static_cast<uint32_t>(s)) + (txns.size() > 1 ? "." + std::to_string(i + 1) : "")) +
             ", \"ops\": [";
      for (size_t o = 0; o < t.ops.size(); ++o) out += (o ? ", " : "") + op_json(t.ops[o]);
      out += std::string("], \"status\": \"") + txn_status_name(t.status) + "\", \"start\": " + std::to_string(t.start_ns) +
             ", \"end\": " + std::to_string(std::max(t.end_ns, t.start_ns)) + "}";
    }
    out += "]";
  }
  return out + "]}";
}

HermitageRun run_hermitage_case(Database& db, const HermitageCase& c, const HermitageTable& table, uint32_t lock_pause_ms,
                                const std::atomic<bool>* interrupted) {
  HermitageRun run;
  run.c = &c;
  std::vector<HermitageStep> steps;
  if (!parse_hermitage_script(c.script, steps, run.error)) return run;
  if (c.table) {  // Hermitage's rows, committed before the case begins
    std::string error;
    std::unique_ptr<Connection> setup = db.connect(error);
    if (!setup) {
      run.error = "cannot connect to set up the table: " + error;
      return run;
    }
    std::string rows;
    for (const auto& [k, v] : kHermitageRows) {
      if (!rows.empty()) rows += ", ";
      rows += "(" + std::to_string(k) + ", " + std::to_string(v) + ")";
    }
    int64_t changed = 0;
    Status st = setup->begin(true);
    if (st.ok()) st = setup->exec_rows("DELETE FROM " + table.name, nullptr, changed);
    if (st.ok()) st = setup->exec_rows("INSERT INTO " + table.name + " (k, v) VALUES " + rows, nullptr, changed);
    if (st.ok()) st = setup->commit();
    if (!st.ok()) {
      setup->rollback();
      run.error = "cannot set up the table: " + st.message;
      return run;
    }
  }
  uint8_t sessions = 0;
  for (const HermitageStep& s : steps) sessions = std::max<uint8_t>(sessions, s.session + 1);
  const Clock::time_point t0 = Clock::now();
  std::vector<std::unique_ptr<SessionWorker>> workers;
  for (uint8_t i = 0; i < sessions; ++i) {
    std::string error;
    std::unique_ptr<Connection> conn = db.connect(error);
    if (!conn) {
      run.error = hermitage_session_name(i) + " cannot connect: " + error;
      return run;
    }
    workers.push_back(std::make_unique<SessionWorker>(i, std::move(conn), table, t0));
  }
  auto session_of_server = [&](int64_t id) -> int {
    for (const auto& w : workers)
      if (w->server_id() == id && id >= 0) return w->index();
    return -1;
  };
  // After a step: wait until every session is idle or waits for a lock. Where the database has
  // no lock view, a step counts as waiting once it made no progress for lock_pause_ms since this
  // step was handed out (which may have released it: a waiting SQLite statement notices a
  // released lock only at its next retry). A session that neither finishes nor waits for a
  // minute ends the case.
  std::vector<uint32_t> noted(sessions, UINT32_MAX);  // the step each session was last seen waiting in
  auto settle = [&]() -> bool {
    const Clock::time_point begun = Clock::now();
    for (;;) {
      if (interrupted && interrupted->load()) return false;
      bool settled = true;
      for (const auto& w : workers) {
        Clock::time_point since;
        uint32_t step = 0;
        if (w->idle(since, step)) continue;
        bool waiting = false;
        std::vector<int64_t> blockers;
        const bool known = w->server_id() >= 0 && db.lock_waits(w->server_id(), waiting, blockers);
        if (!known) waiting = Clock::now() - std::max(since, begun) >= std::chrono::milliseconds(lock_pause_ms);
        // The lock view may take a while (InnoDB's): the wait belongs to the step still running.
        Clock::time_point since_after;
        uint32_t step_after = 0;
        if (!waiting || w->idle(since_after, step_after) || step_after != step) {
          settled = false;
          continue;
        }
        if (noted[w->index()] != step) {
          noted[w->index()] = step;
          HermitageWait hw{step, w->index(), {}};
          for (int64_t b : blockers)
            if (const int s = session_of_server(b); s >= 0) hw.waited_for.push_back(static_cast<uint8_t>(s));
          run.waits.push_back(std::move(hw));
        }
      }
      if (settled) return true;
      if (Clock::now() - begun > std::chrono::seconds(60)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  };
  auto worker_error = [&]() -> std::string {
    for (const auto& w : workers)
      if (std::string e = w->error(); !e.empty()) return e;
    return "";
  };
  for (uint32_t i = 0; i < steps.size(); ++i) {
    workers[steps[i].session]->give(i, steps[i], steps[i].kind == HermitageStep::Begin && txn_writes(steps, i));
    if (!settle()) {
      run.error = interrupted && interrupted->load()
                      ? "interrupted"
                      : "step " + std::to_string(i + 1) + ": a session neither finished nor waited for a lock for a minute";
      break;
    }
    if (std::string e = worker_error(); !e.empty()) {
      run.error = e;
      break;
    }
  }
  // The end of the script: every session finishes what it was given (a waiting step ends when
  // the database lets it go or refuses it).
  for (const Clock::time_point end = Clock::now() + std::chrono::seconds(60);;) {
    bool all = true;
    for (const auto& w : workers) all = all && w->idle();
    if (all || !run.error.empty()) break;
    if (interrupted && interrupted->load()) {
      run.error = "interrupted";
      break;
    }
    if (Clock::now() > end) {
      run.error = "a session was still waiting a minute after the script's end";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // A session still in a statement (the case stopped early) is ended from the server's side, so
  // that its thread returns; every thread ends before what they recorded is read.
  for (const auto& w : workers)
    if (!w->idle() && w->server_id() >= 0) db.kill(w->server_id());
  for (const auto& w : workers) w->stop();
  for (const auto& w : workers) {
    if (run.error.empty() && !w->error().empty()) run.error = w->error();
    run.refusals.insert(run.refusals.end(), w->refusals().begin(), w->refusals().end());
    run.skipped.insert(run.skipped.end(), w->skipped().begin(), w->skipped().end());
  }
  std::sort(run.skipped.begin(), run.skipped.end());
  std::vector<std::vector<HermitageTxn>> sessions_txns;
  for (const auto& w : workers) sessions_txns.push_back(w->txns());
  run.history_json = hermitage_history_json(c, sessions_txns);
  return run;
}

}  // namespace isoscope::runner
