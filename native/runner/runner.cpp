#include "runner/runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <latch>
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
          std::atomic<bool>& finish, std::atomic<int64_t>& next_value, RunCounts& counts, std::atomic<int64_t>& server_id,
          std::latch& connected, HistoryStream* stream)
      : db_(db), p_(p), index_(index), planner_(p.workload), rng_(p.seed * 0x9E3779B97F4A7C15ull + index + 1), t0_(t0),
        stop_(stop), finish_(finish), next_value_(next_value), counts_(counts), server_id_(server_id), connected_(connected),
        stream_(stream) {}

  // Runs the session's transactions; false with error_ set on a failure that ends the run.
  // Every session connects before any begins (connecting takes milliseconds each, so sessions
  // that started on connecting would run their first transactions alone, on the initial state).
  bool run() {
    const bool ok = reconnect();
    connected_.count_down();
    if (!ok) return false;
    connected_.wait();
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
      case Outcome::Ok: break;
      case Outcome::Aborted:
        conn_->rollback();
        t.status = TxnStatus::Aborted;
        break;
      case Outcome::Lost: t.status = TxnStatus::Unknown; break;
      case Outcome::Failed:
        conn_->rollback();
        t.status = TxnStatus::Aborted;
        error_ = st.message;
        break;
    }
    // A transaction that did nothing before it ended is not part of the history: counted apart.
    // The others are counted by the status the history gives them (the run's counts are the
    // file's).
    const bool recorded = t.op_end > t.op_begin;
    if (recorded) {
      rec_.txns.push_back(t);
      if (stream_) stream_->add(index_, rec_, t);
    }
    std::atomic<uint64_t>& count = t.status == TxnStatus::Committed ? counts_.committed
                                   : t.status == TxnStatus::Unknown
                                       ? (recorded ? counts_.unknown : counts_.unknown_before_any_operation)
                                       : (recorded ? counts_.aborted : counts_.aborted_before_any_operation);
    // A failure that ended the run with no operation done is the run's error, not a count.
    if (recorded || st.outcome != Outcome::Failed) count.fetch_add(1, std::memory_order_relaxed);
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
  uint32_t index_;
  WorkloadPlanner planner_;
  Rng rng_;
  Clock::time_point t0_;
  std::atomic<bool>& stop_;
  std::atomic<bool>& finish_;
  std::atomic<int64_t>& next_value_;
  RunCounts& counts_;
  std::atomic<int64_t>& server_id_;
  std::latch& connected_;
  HistoryStream* stream_;
  std::unique_ptr<Connection> conn_;
  RecordedSession rec_;
  std::unordered_map<uint32_t, int64_t> last_seen_;
  std::vector<int64_t> list_;
  std::string error_;
};

}  // namespace

RunResult run_sessions(Database& db, const RunParams& p, std::atomic<bool>& stop, RunCounts& counts,
                       const std::function<void()>& tick, HistoryStream* stream) {
  RunResult result;
  const Clock::time_point t0 = Clock::now();
  std::atomic<int64_t> next_value{1};
  std::atomic<uint32_t> running{p.sessions};
  std::atomic<bool> failed{false};
  std::atomic<bool> stop_sessions{stop.load()};  // the caller's stop
  std::atomic<bool> timed_out{false};            // the duration's end: sessions finish their transaction
  std::vector<std::atomic<int64_t>> server_ids(p.sessions);
  for (auto& id : server_ids) id.store(-1);
  std::latch connected(p.sessions);
  std::vector<std::unique_ptr<Session>> sessions;
  for (uint32_t s = 0; s < p.sessions; ++s)
    sessions.push_back(std::make_unique<Session>(db, p, s, t0, stop_sessions, timed_out, next_value, counts, server_ids[s], connected, stream));
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
    if (stream && result.error.empty() && !stream->flush(result.error)) {
      failed = true;  // the history cannot be written: stop
      stop_sessions = true;
    }
    if (tick) tick();
  }
  for (std::thread& t : threads) t.join();
  if (stream && result.error.empty() && !stream->flush(result.error)) failed = true;
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& s : sessions) {
    if (result.error.empty() && !s->error().empty()) result.error = s->error();
    result.sessions.push_back(std::move(s->record()));
  }
  result.interrupted = stop_sessions.load() || failed.load();
  return result;
}

std::string txn_json(const RecordedSession& rs, const RecordedTxn& t) {
  std::string out;
  out.reserve(96 + 24 * static_cast<size_t>(t.op_end - t.op_begin));
  char buf[24];
  auto number = [&](int64_t v) { out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  out += "{\"ops\": [";
  for (uint32_t o = t.op_begin; o < t.op_end; ++o) {
    const RecordedOp& op = rs.ops[o];
    if (o > t.op_begin) out += ", ";
    out += op.kind == RecordedOp::Write ? "[\"w\", " : op.kind == RecordedOp::Append ? "[\"append\", " : "[\"r\", ";
    number(op.key);
    out += ", ";
    if (op.kind != RecordedOp::ReadList) {
      number(op.value);
    } else {
      out += "[";
      for (uint32_t v = op.list_begin; v < op.list_end; ++v) {
        if (v > op.list_begin) out += ", ";
        number(rs.list_values[v]);
      }
      out += "]";
    }
    out += "]";
  }
  out += "], \"status\": \"";
  out += txn_status_name(t.status);
  out += "\", \"start\": ";
  number(t.start_ns);
  out += ", \"end\": ";
  number(t.end_ns);
  out += "}";
  return out;
}

namespace {

bool write_all(int fd, const char* data, size_t size, uint64_t offset) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

HistoryStream::~HistoryStream() {
  if (fd_ >= 0) ::close(fd_);
}

bool HistoryStream::open(const std::string& path, uint32_t sessions, bool lists, const std::string& recorded_by_json,
                         std::string& error) {
  path_ = path;
  lists_ = lists;
  meta_ = recorded_by_json;
  added_.assign(sessions, {});
  waiting_.assign(sessions, {});
  text_.assign(sessions, {});
  room_.assign(sessions, 1024);
  offset_.assign(sessions, 0);
  return lay_out(meta_, true, error);
}

void HistoryStream::add(uint32_t session, const RecordedSession& rs, const RecordedTxn& t) {
  Entry e;
  e.text = txn_json(rs, t);
  for (uint32_t o = t.op_begin; o < t.op_end; ++o) {
    const RecordedOp& op = rs.ops[o];
    switch (op.kind) {
      case RecordedOp::Read: e.reads.push_back(op.value); break;
      case RecordedOp::ReadList: e.reads.insert(e.reads.end(), rs.list_values.begin() + op.list_begin, rs.list_values.begin() + op.list_end); break;
      case RecordedOp::Write: case RecordedOp::Append: e.writes.push_back(op.value); break;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  added_[session].push_back(std::move(e));
}

bool HistoryStream::flush(std::string& error) { return write_ready(false, error); }

bool HistoryStream::read_back(std::string& out, bool& replaced, std::string& error) const {
  struct stat mine {}, now {};
  if (fd_ < 0 || ::fstat(fd_, &mine) != 0) {
    error = path_ + ": cannot read the history back: " + std::strerror(errno);
    return false;
  }
  replaced = ::stat(path_.c_str(), &now) != 0 || now.st_dev != mine.st_dev || now.st_ino != mine.st_ino;
  out.clear();
  out.reserve(static_cast<size_t>(mine.st_size) + 64);  // simdjson's padding
  char buf[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = path_ + ": cannot read the history back: " + std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return true;
}

bool HistoryStream::finish(const std::string& recorded_by_json, std::string& error) {
  if (!write_ready(true, error)) return false;
  return lay_out(recorded_by_json, false, error);
}

bool HistoryStream::write_ready(bool everything, std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t s = 0; s < added_.size(); ++s) {
      for (Entry& e : added_[s]) waiting_[s].push_back(std::move(e));
      added_[s].clear();
    }
  }
  const size_t n = waiting_.size();
  std::vector<size_t> taken(n, 0);
  std::vector<std::string> chunk(n);
  // Rounds: in each, every session's next transactions whose values read are in the file, or
  // written by the same session in this round (they go in the same write); then one write per
  // session. A kill between two writes leaves only transactions whose reads are in the file.
  for (uint32_t round = ++round_;; round = ++round_) {
    bool any = false, full = false;
    for (size_t s = 0; s < n; ++s) {
      chunk[s].clear();
      while (taken[s] < waiting_[s].size()) {
        const Entry& e = waiting_[s][taken[s]];
        bool ready = true;
        for (int64_t v : e.reads) {
          if (everything || v == 0 || std::find(e.writes.begin(), e.writes.end(), v) != e.writes.end()) continue;
          const bool known = v > 0 && static_cast<size_t>(v) < mark_.size() && mark_[v].round != 0;
          if (!known || (mark_[v].round == round && mark_[v].session != s)) {
            ready = false;
            break;
          }
        }
        if (!ready) break;
        chunk[s] += text_[s].empty() && chunk[s].empty() ? "\n   " : ",\n   ";
        chunk[s] += e.text;
        for (int64_t v : e.writes) {
          if (v <= 0) continue;
          if (static_cast<size_t>(v) >= mark_.size()) mark_.resize(std::max<size_t>(2 * mark_.size(), v + 1));
          mark_[v] = {round, static_cast<uint32_t>(s)};
        }
        ++taken[s];
      }
      if (chunk[s].empty()) continue;
      any = true;
      full = full || text_[s].size() + chunk[s].size() > room_[s];
    }
    if (!any) break;
    bool wrote = true;
    for (size_t s = 0; s < n; ++s) {
      if (chunk[s].empty()) continue;
      const size_t at = text_[s].size();
      text_[s] += chunk[s];
      if (!full && !everything && wrote && !write_all(fd_, chunk[s].data(), chunk[s].size(), offset_[s] + at)) wrote = false;
    }
    if (!wrote) {
      error = path_ + ": cannot write the history: " + std::strerror(errno);
      return false;
    }
    if (full && !everything) {
      // More room: twice each session's text, at least twice the average (so that sessions
      // running at about one pace are laid out again together).
      size_t total = 0;
      for (const std::string& t : text_) total += t.size();
      const size_t average = total / std::max<size_t>(1, text_.size());
      for (size_t s = 0; s < room_.size(); ++s)
        room_[s] = std::max({room_[s], 2 * text_[s].size(), 2 * average, size_t(1024)});
      if (!lay_out(meta_, true, error)) return false;
    }
  }
  for (size_t s = 0; s < n; ++s)
    waiting_[s].erase(waiting_[s].begin(), waiting_[s].begin() + static_cast<std::ptrdiff_t>(taken[s]));
  return true;
}

bool HistoryStream::lay_out(const std::string& recorded_by_json, bool padded, std::string& error) {
  std::string doc = "{\"format\": \"isoscope/1\", \"initial\": ";
  doc += lists_ ? "null" : "0";
  doc += ",\n \"recorded_by\": " + recorded_by_json + ",\n \"sessions\": [";
  for (size_t s = 0; s < text_.size(); ++s) {
    doc += s ? ",\n  [" : "\n  [";
    offset_[s] = doc.size();
    doc += text_[s];
    if (padded) doc.append(room_[s] - text_[s].size(), ' ');
    doc += "]";
  }
  doc += "\n]}\n";
  // A new file renamed over the old one: a reader sees the one or the other, whole. The new
  // file gets a name no one can foresee, created exclusively (O_EXCL: never through a link
  // someone planted at a foreseeable name such as PATH.tmp<pid>), then the permissions a file
  // created the usual way would have.
  std::string tmp = path_ + ".tmpXXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd >= 0) {
    static const mode_t mask = [] {
      const mode_t m = ::umask(022);
      ::umask(m);
      return m;
    }();
    ::fchmod(fd, 0666 & ~mask);
  }
  if (fd < 0 || !write_all(fd, doc.data(), doc.size(), 0) || ::rename(tmp.c_str(), path_.c_str()) != 0) {
    error = path_ + ": cannot write the history: " + std::strerror(errno);
    if (fd >= 0) ::close(fd), ::unlink(tmp.c_str());
    return false;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  return true;
}

}  // namespace isoscope::runner
