#include "runner/runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <latch>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "model/predicates.h"
#include "util/json.h"

namespace isoscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

// The (key, value) pairs the table workload has written, across its sessions: every value
// written to a key is unique (the checkers need it), which the values' scheme makes so
// (table_workload.h, kPredicateUpdateStep) and this keeps so in any run: a fresh value a key
// already had is skipped, and a predicate update whose sum a row already had is rolled back.
class WrittenValues {
 public:
  // Whether (key, value) was free; it is taken from now on.
  bool claim(int64_t key, int64_t value) {
    std::lock_guard<std::mutex> lock(mu_);
    return taken_.insert({key, value}).second;
  }

 private:
  struct Hash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<uint64_t>()(static_cast<uint64_t>(p.first) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(p.second));
    }
  };
  std::mutex mu_;
  std::unordered_set<std::pair<int64_t, int64_t>, Hash> taken_;
};

// What the sessions of a table run share: what the database's SQL offers, the values written.
struct TableShared {
  SqlFeatures features;
  WrittenValues written;
};

// --max-writes-per-key: each key slot of the list-append workload (of workload.key.keys) and its
// generation g, the key slot + slots * g in use; the last generation whose key was made (made
// ahead of the one in use, so that no move waits for a key: on SQLite under load, making one can
// take a while); the appends planned on the key in use, over all the sessions.
struct ListKeys {
  static constexpr uint32_t kAhead = 8;  // keys made ahead of the one in use, at most
  ListKeys(uint32_t slots, uint32_t max_writes)
      : slots(slots), max_writes(max_writes), generation(slots), made(slots), appends(slots), making(slots) {}
  uint32_t key(uint32_t slot, uint32_t g) const { return slot + slots * g; }
  // Whether generation g's keys fit in a key (uint32_t): the last one that does is a slot's last.
  bool fits(uint32_t g) const { return static_cast<uint64_t>(slots) * g + slots - 1 <= UINT32_MAX; }
  uint32_t slots, max_writes;
  std::vector<std::atomic<uint32_t>> generation, made, appends;
  std::vector<std::atomic<bool>> making;  // a session is making the slot's keys ahead
};

class Session {
 public:
  // stop: roll back the transaction in progress and end; finish: end after it.
  Session(Database& db, const RunParams& p, uint32_t index, Clock::time_point t0, std::atomic<bool>& stop,
          std::atomic<bool>& finish, std::atomic<int64_t>& next_value, RunCounts& counts, std::atomic<int64_t>& server_id,
          std::latch& connected, HistoryStream* stream, TableShared* table, ListKeys* list_keys)
      : db_(db), p_(p), index_(index), planner_(p.workload), table_planner_(p.table_workload),
        rng_(p.seed * 0x9E3779B97F4A7C15ull + index + 1), t0_(t0), stop_(stop), finish_(finish), next_value_(next_value),
        counts_(counts), server_id_(server_id), connected_(connected), stream_(stream), table_(table), list_keys_(list_keys) {}

  // Runs the session's transactions; false with error_ set on a failure that ends the run.
  // Every session connects before any begins (connecting takes milliseconds each, so sessions
  // that started on connecting would run their first transactions alone, on the initial state).
  bool run() {
    const bool ok = reconnect();
    connected_.count_down();
    if (!ok) return false;
    connected_.wait();
    TxnProgram program;
    TableProgram table_program;
    // --rate: the sessions' first transactions spread over one interval (a random source of
    // their own: the same seed plans the same transactions with or without --rate)
    const double interval_s = p_.rate > 0 ? p_.sessions / p_.rate : 0;
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s));
    Rng phase(p_.seed ^ (0x7261746500000000ull + index_));
    Clock::time_point next_begin = Clock::now();
    if (interval_s > 0)
      next_begin += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s * phase.below(1000) / 1000.0));
    for (uint32_t i = 0; i < p_.txns_per_session && !stop_.load(std::memory_order_relaxed) &&
                         !finish_.load(std::memory_order_relaxed);) {
      if (interval.count() > 0) {
        if (!pace(next_begin)) break;
        // on schedule, or (a fault, a slow transaction) a whole interval late: then the next one
        // an interval from now, not at once
        const Clock::time_point t = Clock::now();
        next_begin = t - next_begin < interval ? next_begin + interval : t + interval;
      }
      Next next;
      if (table_) {
        table_planner_.plan(rng_, table_program);
        next = execute_table(table_program);
      } else {
        planner_.plan(rng_, program);
        if (list_keys_ && !place_keys(program)) return false;
        next = execute(program);
      }
      switch (next) {
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

  // Waits until `at` (--rate), in steps short enough to see the run end; false when it ended.
  bool pace(Clock::time_point at) {
    for (;;) {
      if (stop_.load(std::memory_order_relaxed) || finish_.load(std::memory_order_relaxed)) return false;
      const Clock::time_point t = Clock::now();
      if (t >= at) return true;
      std::this_thread::sleep_for(std::min<Clock::duration>(at - t, std::chrono::milliseconds(20)));
    }
  }

  bool reconnect() {
    conn_.reset();
    server_id_.store(-1);
    for (int attempt = 0;; ++attempt) {
      std::string err;
      conn_ = db_.connect(err);
      if (conn_) break;
      if (attempt >= static_cast<int>(p_.reconnect_ms / 100) || stop_.load()) {
        error_ = err;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    server_id_.store(conn_->server_id());
    return true;
  }

  // --max-writes-per-key: the program's key slots become the keys in use. A slot whose key has
  // had its appends moves on to its next key before the program's first append to it (so that
  // the program's reads and appends of the slot meet one key), once that key is made; the keys
  // ahead are made (SQL rows, outside any transaction: no transaction meets a key that is not
  // there) by one session at a time a slot, tried again at the slot's next program when that
  // could not be done (a lost connection: connected again). False when the database refused to
  // make them (the run's error).
  bool place_keys(TxnProgram& program) {
    ListKeys& lk = *list_keys_;
    slots_.clear();
    for (const ProgramStep& s : program) {
      const uint32_t slot = s.key;
      if (std::find_if(slots_.begin(), slots_.end(), [&](const auto& x) { return x.first == slot; }) != slots_.end()) continue;
      uint32_t g = lk.generation[slot].load(std::memory_order_acquire);
      const bool appends = std::any_of(program.begin(), program.end(),
                                       [&](const ProgramStep& t) { return t.key == slot && t.kind == StepKind::Append; });
      if (appends && lk.appends[slot].load(std::memory_order_relaxed) >= lk.max_writes && lk.made[slot].load(std::memory_order_acquire) > g &&
          lk.generation[slot].compare_exchange_strong(g, g + 1, std::memory_order_acq_rel)) {
        lk.appends[slot].store(0, std::memory_order_relaxed);
        ++g;
      }  // (a failed exchange leaves the generation another session moved to in g)
      slots_.emplace_back(slot, g);
    }
    for (ProgramStep& s : program) {
      const auto it = std::find_if(slots_.begin(), slots_.end(), [&](const auto& x) { return x.first == s.key; });
      if (s.kind == StepKind::Append) lk.appends[s.key].fetch_add(1, std::memory_order_relaxed);
      s.key = lk.key(it->first, it->second);
    }
    for (const auto& [slot, g] : slots_) {
      if (lk.made[slot].load(std::memory_order_acquire) >= g + ListKeys::kAhead / 2 || lk.making[slot].exchange(true, std::memory_order_acq_rel))
        continue;
      const uint32_t m = lk.made[slot].load(std::memory_order_acquire);  // (as the last maker left it)
      new_keys_.clear();
      uint32_t last = m;
      for (uint32_t x = m + 1; x <= g + ListKeys::kAhead && lk.fits(x); last = x++) new_keys_.push_back(lk.key(slot, x));
      const Status st = new_keys_.empty() ? Status{} : conn_->add_lists(new_keys_);
      if (st.ok()) lk.made[slot].store(last, std::memory_order_release);  // (only the maker changes it)
      lk.making[slot].store(false, std::memory_order_release);
      if (st.outcome == Outcome::Failed) {
        error_ = st.message;
        return false;
      }
      if (st.outcome == Outcome::Lost && !reconnect()) return false;
    }
    return true;
  }

  Next execute(const TxnProgram& program) {
    bool writes = false;
    for (const ProgramStep& s : program) writes |= s.kind != StepKind::Read && s.kind != StepKind::ReadList;
    return run_txn(writes, program.size(), [&](size_t i) { return step(program[i]); });
  }
  Next execute_table(const TableProgram& program) {
    bool writes = false;
    for (const TableStep& s : program) writes |= table_step_writes(s.kind);
    seen_.clear();
    wrote_ = false;
    visible_ns_ = INT64_MAX;
    return run_txn(writes, program.size(), [&](size_t i) { return table_step(program[i]); });
  }

  // One transaction: BEGIN, its steps (each records what it observed), COMMIT; recorded with
  // its status and times.
  template <class Step>
  Next run_txn(bool writes, size_t steps, Step&& step) {
    RecordedTxn t{static_cast<uint32_t>(rec_.ops.size()), 0, TxnStatus::Committed, now(), 0};
    Status st = conn_->begin(writes);
    if (st.outcome == Outcome::Lost) return reconnect() ? Next::Retry : Next::Fail;
    for (size_t i = 0; st.ok() && i < steps; ++i) {
      if (stop_.load(std::memory_order_relaxed)) {
        st = {Outcome::Aborted, "stopped"};  // rolled back below
        break;
      }
      st = step(i);
    }
    if (st.ok() && table_ && wrote_) writes_visible();
    if (table_) t.visible_ns = visible_ns_;
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

  // The table workload's statements (table_workload.h), each recorded as what it observed.
  Status table_step(const TableStep& s) {
    const std::string& t = p_.table;
    const SqlFeatures& f = table_->features;
    Connection::Rows rows;
    int64_t changed = 0;
    Status st;
    switch (s.kind) {
      case TableStep::Select:
        st = conn_->exec_rows(select_sql(t, s.predicate), &rows, changed);
        if (st.ok()) {
          record_select(s.predicate, rows);
          believe_select(s.predicate, rows);
        }
        return st;
      case TableStep::Read: return read_key(s.key);
      case TableStep::Insert: {
        // A key this transaction saw absent: one it has not seen is read first.
        if (!seen_.count(s.key))
          if (st = read_key(s.key); !st.ok()) return st;
        if (!seen_[s.key]) {
          const int64_t v = fresh_value(s.key);
          about_to_write();
          st = conn_->exec_rows(insert_sql(t, s.key, v), nullptr, changed);
          if (st.duplicate_key) {
            // Another transaction inserted the row since: what the client saw is a refusal,
            // and the transaction is rolled back, as a database that refuses it would.
            return {Outcome::Aborted, st.message};
          }
          if (st.ok()) record(RecordedOp::Insert, s.key, v);
          return st;
        }
      }
        [[fallthrough]];  // a key this transaction saw present: updated instead
      case TableStep::Update: {
        const int64_t v = fresh_value(s.key);
        about_to_write();
        st = conn_->exec_rows(update_sql(t, s.key, v), nullptr, changed);
        if (!st.ok()) return st;
        if (changed == 0) record_absent(s.key);
        else record(RecordedOp::Update, s.key, v);
        return st;
      }
      case TableStep::Delete:
        about_to_write();
        st = conn_->exec_rows(delete_sql(t, s.key), nullptr, changed);
        if (!st.ok()) return st;
        if (changed == 0) record_absent(s.key);
        else record(RecordedOp::Delete, s.key, 0);
        return st;
      case TableStep::UpdateWhere:
      case TableStep::DeleteWhere: {
        const bool update = s.kind == TableStep::UpdateWhere;
        about_to_write();
        const int64_t delta = update ? next_value_.fetch_add(1, std::memory_order_relaxed) * kPredicateUpdateStep : 0;
        if (update ? f.update_returning : f.delete_returning) {
          // The rows the statement changed, as it changed them.
          st = conn_->exec_rows(update ? update_where_sql(t, s.predicate, delta, true) : delete_where_sql(t, s.predicate, true),
                                &rows, changed);
          if (!st.ok()) return st;
          std::sort(rows.begin(), rows.end());
          for (auto& r : rows) r.second -= delta;  // UPDATE returns the new values
        } else {
          // The rows it matches, read as it reads them (the latest versions, locked), then each
          // written by its key.
          st = conn_->exec_rows(select_sql(t, s.predicate, f.row_locks), &rows, changed);
          for (size_t i = 0; st.ok() && i < rows.size(); ++i) {
            st = conn_->exec_rows(update ? add_sql(t, rows[i].first, delta) : delete_sql(t, rows[i].first), nullptr, changed);
            if (st.ok() && changed != 1)
              return {Outcome::Failed, "the row of key " + std::to_string(rows[i].first) + " that " + select_sql(t, s.predicate, f.row_locks) +
                                           " returned was not there to write"};
          }
          if (!st.ok()) return st;
        }
        if (update)
          for (const auto& [k, old] : rows)
            if (!table_->written.claim(k, old + delta))
              return {Outcome::Aborted, "the runner rolled the transaction back: its predicate update gave key " + std::to_string(k) +
                                            " a value the key held before (" + std::to_string(old + delta) + ")"};
        record_select(s.predicate, rows);
        for (const auto& [k, old] : rows) record(update ? RecordedOp::Update : RecordedOp::Delete, static_cast<uint32_t>(k), old + delta);
        return st;
      }
    }
    return st;
  }

  // The transaction sends a write (with dirty reads, others may see it from now on).
  void about_to_write() {
    wrote_ = true;
    if (p_.dirty_reads) writes_visible();
  }
  // Others may see the transaction's writes from now on (HistoryStream).
  void writes_visible() {
    if (visible_ns_ != INT64_MAX) return;
    visible_ns_ = now();
    if (stream_) stream_->visible(index_, visible_ns_);
  }

  // A read by key: the row's value, or null.
  Status read_key(uint32_t key) {
    Connection::Rows rows;
    int64_t changed = 0;
    Status st = conn_->exec_rows(read_sql(p_.table, key), &rows, changed);
    if (!st.ok()) return st;
    if (rows.size() > 1) return {Outcome::Failed, "two rows for key " + std::to_string(key) + " in " + p_.table};
    if (rows.empty()) record_absent(key);
    else record(RecordedOp::Read, key, rows[0].second);
    return st;
  }

  // A value of the run's counter that the key never had.
  int64_t fresh_value(uint32_t key) {
    for (;;) {
      const int64_t v = next_value_.fetch_add(1, std::memory_order_relaxed);
      if (table_->written.claim(key, v)) return v;
    }
  }
  // Records an operation and what it tells of the row's presence.
  void record(RecordedOp::Kind kind, uint32_t key, int64_t value) {
    rec_.ops.push_back({kind, key, kind == RecordedOp::Delete ? 0 : value, 0, 0});
    seen_[key] = kind != RecordedOp::Delete;
  }
  void record_absent(uint32_t key) {
    rec_.ops.push_back({RecordedOp::ReadNull, key, 0, 0, 0});
    seen_[key] = false;
  }
  void record_select(const std::string& predicate, const Connection::Rows& rows) {
    if (rec_.predicates.empty() || rec_.predicates.back() != predicate) rec_.predicates.push_back(predicate);
    const auto b = static_cast<uint32_t>(rec_.rows.size());
    rec_.rows.insert(rec_.rows.end(), rows.begin(), rows.end());
    rec_.ops.push_back({RecordedOp::Select, 0, static_cast<int64_t>(rec_.predicates.size() - 1), b, static_cast<uint32_t>(rec_.rows.size())});
  }
  // What the transaction saw of a row: a select's rows are present; when its predicate is on the
  // key alone, the keys it matches but did not return are absent (on tables of at most 65,536
  // keys: a scan of them). Only to choose between an insert and an update.
  void believe_select(const std::string& predicate, const Connection::Rows& rows) {
    for (const auto& [k, v] : rows) seen_[static_cast<uint32_t>(k)] = true;
    const uint32_t keys = p_.table_workload.key.keys;
    if (keys > 65536) return;
    const ParsedPredicate parsed = parse_predicate(predicate);
    if (!parsed.error.empty()) return;
    for (const Condition& c : parsed.predicate.all)
      if (!c.on_key) return;
    const uint32_t any_value = values_.intern_int(1);
    for (uint32_t k = 0, r = 0; k < keys; ++k) {
      while (r < rows.size() && rows[r].first < k) ++r;
      if (r < rows.size() && rows[r].first == k) continue;
      if (predicate_matches(parsed.predicate, keys_, keys_.intern_int(k), values_, any_value)) seen_[k] = false;
    }
  }

  Database& db_;
  const RunParams& p_;
  uint32_t index_;
  WorkloadPlanner planner_;
  TablePlanner table_planner_;
  Rng rng_;
  Clock::time_point t0_;
  std::atomic<bool>& stop_;
  std::atomic<bool>& finish_;
  std::atomic<int64_t>& next_value_;
  RunCounts& counts_;
  std::atomic<int64_t>& server_id_;
  std::latch& connected_;
  HistoryStream* stream_;
  TableShared* table_;  // the table workload's shared state; nullptr for the others
  ListKeys* list_keys_;  // --max-writes-per-key's state; nullptr when keys stay
  std::vector<std::pair<uint32_t, uint32_t>> slots_;  // place_keys: the program's slots and their generations
  std::vector<uint32_t> new_keys_;                      // place_keys: the keys it makes
  std::unordered_map<uint32_t, bool> seen_;  // the table workload: rows the transaction saw present or absent
  bool wrote_ = false;                       // the table workload: the transaction has sent a write
  int64_t visible_ns_ = INT64_MAX;           // since when others may see its writes
  Interner keys_{false}, values_{true};           // (for predicate_matches)
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
  std::unique_ptr<TableShared> table;
  if (p.predicates) {
    table = std::make_unique<TableShared>();
    table->features = db.sql_features();
    for (const auto& [k, v] : p.rows) {
      table->written.claim(k, v);
      next_value = std::max<int64_t>(next_value.load(), v + 1);
    }
  }
  std::unique_ptr<ListKeys> list_keys;
  if (p.workload.kind == WorkloadKind::ListAppend && p.max_writes_per_key > 0)
    list_keys = std::make_unique<ListKeys>(std::max<uint32_t>(p.workload.key.keys, 1), p.max_writes_per_key);
  std::atomic<uint32_t> running{p.sessions};
  std::atomic<bool> failed{false};
  std::atomic<bool> stop_sessions{stop.load()};  // the caller's stop
  std::atomic<bool> timed_out{false};            // the duration's end: sessions finish their transaction
  std::vector<std::atomic<int64_t>> server_ids(p.sessions);
  for (auto& id : server_ids) id.store(-1);
  std::latch connected(p.sessions);
  std::vector<std::unique_ptr<Session>> sessions;
  for (uint32_t s = 0; s < p.sessions; ++s)
    sessions.push_back(std::make_unique<Session>(db, p, s, t0, stop_sessions, timed_out, next_value, counts, server_ids[s], connected,
                                                 stream, table.get(), list_keys.get()));
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
  // The process faults, on a thread of their own: a crash waits for the node's restart.
  std::atomic<bool> nemesis_done{false};
  std::mutex faults_mu;
  std::thread process_nemesis;
  if ((p.nemesis_pause || p.nemesis_crash) && p.servers && !p.servers->nodes.empty())
    process_nemesis = std::thread([&] {
      Rng rng(p.seed ^ 0x70726F63657373ull);
      const auto ns = [&] { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count(); };
      // Sleeps ms in short steps; false when the run ended meanwhile.
      const auto wait = [&](uint32_t ms) {
        for (uint32_t slept = 0; slept < ms; slept += 20) {
          if (nemesis_done.load()) return false;
          std::this_thread::sleep_for(std::chrono::milliseconds(std::min<uint32_t>(20, ms - slept)));
        }
        return !nemesis_done.load();
      };
      // No new fault once the run is ending (its duration is over, or it was stopped): sessions
      // finishing their last transaction would otherwise wait out one more restart.
      while (wait(p.process_fault_interval_ms) && !timed_out.load() && !stop_sessions.load()) {
        const bool crash = p.nemesis_crash && (!p.nemesis_pause || rng.below(2) == 0);
        const ServerNode& node = p.servers->nodes[rng.below(static_cast<uint32_t>(p.servers->nodes.size()))];
        Fault f{crash ? FaultKind::Crash : FaultKind::Pause, node.name, ns(), 0, ""};
        std::string err;
        if (crash) {
          if (!signal_node(node, SIGKILL, err) || !start_node(node, err)) f.note = err;
        } else if (signal_node(node, SIGSTOP, err)) {
          wait(p.process_fault_interval_ms / 2);
          if (!signal_node(node, SIGCONT, err)) f.note = err;
        } else {
          f.note = err;
        }
        f.end_ns = ns();
        std::lock_guard<std::mutex> lock(faults_mu);
        result.faults.push_back(std::move(f));
      }
    });
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
  nemesis_done = true;
  if (process_nemesis.joinable()) process_nemesis.join();
  if (stream && result.error.empty() && !stream->flush(result.error)) failed = true;
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& s : sessions) {
    if (result.error.empty() && !s->error().empty()) result.error = s->error();
    result.sessions.push_back(std::move(s->record()));
  }
  result.interrupted = stop_sessions.load() || failed.load();
  return result;
}

Status fill_table(Database& db, const std::string& table, const std::vector<std::pair<int64_t, int64_t>>& rows) {
  std::string error;
  std::unique_ptr<Connection> c = db.connect(error);
  if (!c) return {Outcome::Failed, error};
  Status st = c->begin(true);
  int64_t changed = 0;
  for (const std::string& sql : fill_table_sql(table, rows))
    if (st.ok()) st = c->exec_rows(sql, nullptr, changed);
  if (st.ok()) st = c->commit();
  if (!st.ok()) c->rollback();
  return st;
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
    if (op.kind == RecordedOp::Select) {
      out += "[\"select\", " + json_quote(rs.predicates[static_cast<size_t>(op.value)]) + ", [";
      for (uint32_t r = op.list_begin; r < op.list_end; ++r) {
        out += r > op.list_begin ? ", [" : "[";
        number(rs.rows[r].first);
        out += ", ";
        number(rs.rows[r].second);
        out += "]";
      }
      out += "]]";
      continue;
    }
    switch (op.kind) {
      case RecordedOp::Write: out += "[\"w\", "; break;
      case RecordedOp::Append: out += "[\"append\", "; break;
      case RecordedOp::Insert: out += "[\"insert\", "; break;
      case RecordedOp::Update: out += "[\"update\", "; break;
      case RecordedOp::Delete: out += "[\"delete\", "; break;
      default: out += "[\"r\", "; break;
    }
    number(op.key);
    if (op.kind == RecordedOp::Delete) {
      out += "]";
      continue;
    }
    out += ", ";
    if (op.kind == RecordedOp::ReadNull) {
      out += "null";
    } else if (op.kind != RecordedOp::ReadList) {
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
                         std::string& error, const std::vector<std::pair<int64_t, int64_t>>* rows) {
  path_ = path;
  lists_ = lists;
  meta_ = recorded_by_json;
  if (rows) {
    rows_json_ = "[";
    for (size_t i = 0; i < rows->size(); ++i) {
      rows_json_ += (i ? ", [" : "[") + std::to_string((*rows)[i].first) + ", " + std::to_string((*rows)[i].second) + "]";
      initial_values_.insert((*rows)[i].second);
    }
    rows_json_ += "]";
  }
  added_.assign(sessions, {});
  visible_ = std::vector<std::atomic<int64_t>>(sessions);
  for (auto& w : visible_) w.store(INT64_MAX);
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
      case RecordedOp::Write: case RecordedOp::Append: case RecordedOp::Insert: case RecordedOp::Update: e.writes.push_back(op.value); break;
      case RecordedOp::ReadNull: e.absent = true; break;
      case RecordedOp::Select:
        e.absent = true;
        for (uint32_t r = op.list_begin; r < op.list_end; ++r) e.reads.push_back(rs.rows[r].second);
        break;
      case RecordedOp::Delete: break;
    }
  }
  e.end_ns = t.end_ns;
  e.visible_ns = t.visible_ns;
  {
    std::lock_guard<std::mutex> lock(mu_);
    added_[session].push_back(std::move(e));
  }
  visible_[session].store(INT64_MAX);  // after: write_ready sees the one or the other
}

void HistoryStream::visible(uint32_t session, int64_t since_ns) { visible_[session].store(since_ns); }

const HistoryStream::Mark* HistoryStream::find_mark(int64_t v) const {
  if (v >= 0 && v < kDenseMarks) return static_cast<size_t>(v) < mark_.size() && mark_[v].round ? &mark_[v] : nullptr;
  const auto it = large_marks_.find(v);
  return it == large_marks_.end() ? nullptr : &it->second;
}

void HistoryStream::set_mark(int64_t v, Mark m) {
  if (v >= 0 && v < kDenseMarks) {
    if (static_cast<size_t>(v) >= mark_.size()) mark_.resize(std::max<size_t>(2 * mark_.size(), v + 1));
    mark_[v] = m;
  } else {
    large_marks_[v] = m;
  }
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

bool HistoryStream::finish(const std::string& recorded_by_json, std::string& error, const std::string& faults) {
  if (!write_ready(true, error)) return false;
  faults_json_ = faults;
  return lay_out(recorded_by_json, false, error);
}

bool HistoryStream::write_ready(bool everything, std::string& error) {
  // Read before the transactions added are taken: a transaction added since was added before its
  // session said it no longer writes (add()), so it is taken below.
  std::vector<int64_t> visible(visible_.size());
  for (size_t s = 0; s < visible.size(); ++s) visible[s] = visible_[s].load();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t s = 0; s < added_.size(); ++s) {
      for (Entry& e : added_[s]) waiting_[s].push_back(std::move(e));
      added_[s].clear();
    }
  }
  const size_t n = waiting_.size();
  std::vector<size_t> taken(n, 0), upto(n, 0);
  std::vector<std::string> chunk(n);
  const bool table = !rows_json_.empty();
  // Rounds: in each, every session's next transactions whose values read are in the file, or
  // written by the same session in this round (they go in the same write); then one write per
  // session. A kill between two writes leaves only transactions whose reads are in the file.
  // Tables: the greatest prefixes whose transactions read values in the file or in this round's
  // prefixes, and whose rows seen absent could only have been deleted by transactions in the
  // file or in this round: transactions that need each other go in together (the writes of one
  // round: HistoryStream's comment).
  std::unordered_map<int64_t, std::pair<size_t, size_t>> writer;  // tables: value -> (session, index) waiting
  for (uint32_t round = ++round_;; round = ++round_) {
    auto known = [&](const Entry& e, int64_t v) {
      return everything || v == 0 || initial_values_.count(v) || std::find(e.writes.begin(), e.writes.end(), v) != e.writes.end();
    };
    if (!table) {
      for (size_t s = 0; s < n; ++s) {
        // The values read: in the file before this round, or written by this session's earlier
        // transactions of the round (marked as they are taken, here).
        upto[s] = taken[s];
        while (upto[s] < waiting_[s].size()) {
          const Entry& e = waiting_[s][upto[s]];
          bool ready = true;
          for (int64_t v : e.reads) {
            if (known(e, v)) continue;
            const Mark* m = find_mark(v);
            if (!m || (m->round == round && m->session != s)) {
              ready = false;
              break;
            }
          }
          if (!ready) break;
          for (int64_t v : e.writes) set_mark(v, {round, static_cast<uint32_t>(s)});
          ++upto[s];
        }
      }
    } else {
      writer.clear();
      for (size_t s = 0; s < n; ++s) {
        upto[s] = waiting_[s].size();
        for (size_t i = taken[s]; i < upto[s]; ++i)
          for (int64_t v : waiting_[s][i].writes) writer[v] = {s, i};
      }
      // horizon(s): before when no write of a transaction of s left out of this round's prefixes
      // could be seen: the earliest visible_ns of those left out, and of the one it runs.
      std::vector<int64_t> left_out(n);
      auto horizon = [&](size_t s) -> int64_t { return std::min(left_out[s], visible[s]); };
      auto leave_out = [&](size_t s, size_t from) {
        upto[s] = from;
        left_out[s] = INT64_MAX;
        for (size_t i = from; i < waiting_[s].size(); ++i) left_out[s] = std::min(left_out[s], waiting_[s][i].visible_ns);
      };
      for (size_t s = 0; s < n; ++s) leave_out(s, waiting_[s].size());
      for (bool changed = !everything; changed;) {
        changed = false;
        // The two lowest horizons: each session's bound is the lowest of the others'.
        int64_t low = INT64_MAX, second = INT64_MAX;
        size_t low_at = n;
        for (size_t s = 0; s < n; ++s) {
          const int64_t h = horizon(s);
          if (h < low) second = low, low = h, low_at = s;
          else if (h < second) second = h;
        }
        for (size_t s = 0; s < n; ++s) {
          const int64_t bound = s == low_at ? second : low;
          for (size_t i = taken[s]; i < upto[s]; ++i) {
            const Entry& e = waiting_[s][i];
            bool ready = !e.absent || e.end_ns < bound;
            for (size_t r = 0; ready && r < e.reads.size(); ++r) {
              const int64_t v = e.reads[r];
              if (known(e, v) || find_mark(v)) continue;
              const auto w = writer.find(v);
              ready = w != writer.end() && w->second.second < upto[w->second.first];
            }
            if (ready) continue;
            leave_out(s, i);
            changed = true;
            break;
          }
        }
      }
      for (size_t s = 0; s < n; ++s)
        for (size_t i = taken[s]; i < upto[s]; ++i)
          for (int64_t v : waiting_[s][i].writes) set_mark(v, {round, static_cast<uint32_t>(s)});
    }
    bool any = false, full = false;
    for (size_t s = 0; s < n; ++s) {
      chunk[s].clear();
      for (; taken[s] < upto[s]; ++taken[s]) {
        chunk[s] += text_[s].empty() && chunk[s].empty() ? "\n   " : ",\n   ";
        chunk[s] += waiting_[s][taken[s]].text;
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
  std::string doc = "{\"format\": \"isoscope/1\", ";
  doc += !rows_json_.empty() ? "\"rows\": " + rows_json_ : lists_ ? "\"initial\": null" : "\"initial\": 0";
  doc += ",\n \"recorded_by\": " + recorded_by_json;
  if (!faults_json_.empty()) doc += ",\n \"faults\": " + faults_json_;
  doc += ",\n \"sessions\": [";
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
