// runner::Database over Redis (hiredis). A run's "table" NAME is the keys NAME/<k> (registers:
// strings, "0" at the start; lists: Redis lists, absent (empty) at the start), marked as in use
// by the key isoscope_runs/NAME, which holds the owner mark of the process that made them
// (backends.h).
//
// Transactions are optimistic, through WATCH: a transaction WATCHes each key before it first
// reads it (GET, or LRANGE for a list; both in one round trip), keeps its writes until commit
// (a read of a key it wrote answers its own write; a list read is what LRANGE returned followed
// by the transaction's own appends), and commits with MULTI, its SETs and RPUSHes, EXEC, sent
// together. EXEC answering nil (a watched key changed) is an abort; a connection lost before
// EXEC's answer is an unknown outcome. A transaction that read anything commits through
// MULTI/EXEC even when it wrote nothing, so that WATCH validates its reads; one that did
// nothing commits without a request.
#include <hiredis/hiredis.h>

#include <sys/time.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "runner/backends.h"

namespace isoscope::runner {

namespace {

constexpr const char* kRedisMarkPrefix = "isoscope_runs/";

struct RedisReply {
  redisReply* r = nullptr;
  RedisReply() = default;
  explicit RedisReply(void* x) : r(static_cast<redisReply*>(x)) {}
  ~RedisReply() {
    if (r) freeReplyObject(r);
  }
  RedisReply(RedisReply&& o) noexcept : r(o.r) { o.r = nullptr; }
  RedisReply& operator=(RedisReply&& o) noexcept {
    std::swap(r, o.r);
    return *this;
  }
  bool error() const { return r && r->type == REDIS_REPLY_ERROR; }
  std::string text() const { return r && r->str ? std::string(r->str, r->len) : std::string(); }
};

using RedisArgs = std::vector<std::string>;

// One connection: commands sent together, their replies read in order.
class RedisLink {
 public:
  ~RedisLink() {
    if (c_) redisFree(c_);
  }
  // Connects, logs in, chooses the database; false with error (never the password).
  bool open(const Target& t, std::string& error) {
    where_ = "Redis at ";
    where_ += t.host;
    where_ += ':';
    where_ += std::to_string(t.port);
    const timeval tv{5, 0};
    c_ = redisConnectWithTimeout(t.host.c_str(), t.port, tv);
    if (!c_ || c_->err) {
      error = where_ + ": cannot connect: " + (c_ ? c_->errstr : "out of memory") + " (is a Redis server listening there? scripts/db.sh redis start starts one)";
      return false;
    }
    const timeval io{10, 0};
    redisSetTimeout(c_, io);
    std::vector<RedisReply> r;
    if (!t.password.empty()) {
      RedisArgs auth = {"AUTH"};
      if (!t.user.empty()) auth.push_back(t.user);
      auth.push_back(t.password);
      if (!send({auth}, r, error)) return false;
      if (r[0].error()) {
        error = where_ + ": cannot log in" + (t.user.empty() ? "" : " as " + t.user) + ": " + r[0].text();
        return false;
      }
    }
    if (!t.database.empty()) {
      if (!send({{"SELECT", t.database}}, r, error)) return false;
      if (r[0].error()) {
        error = where_ + ": cannot choose database " + t.database + ": " + r[0].text();
        return false;
      }
    }
    if (!send({{"CLIENT", "ID"}}, r, error)) return false;
    if (r[0].error()) {
      // NOAUTH: the server wants a password.
      error = where_ + ": " + r[0].text() + (t.password.empty() ? " (give the password in the URL, REDISCLI_AUTH or --password-file)" : "");
      return false;
    }
    id_ = r[0].r && r[0].r->type == REDIS_REPLY_INTEGER ? r[0].r->integer : -1;
    // A server restarted after a crash accepts connections while it loads its data set, and
    // answers every data command LOADING until it is done: wait for it here (PING is refused
    // while loading), as long as the runner waits for a server to come back.
    for (int waited_ms = 0;; waited_ms += 50) {
      if (!send({{"PING"}}, r, error)) return false;
      if (!loading(r[0])) break;
      if (waited_ms >= 60000) {
        error = where_ + ": still loading its data set after 60 s";
        return false;
      }
      usleep(50 * 1000);
    }
    return true;
  }
  // The server's answer while it loads its data set after a start.
  static bool loading(const RedisReply& r) { return r.error() && r.text().rfind("LOADING", 0) == 0; }

  // Sends the commands at once and reads their replies; false with error when the connection
  // failed (it is unusable from then on).
  bool send(const std::vector<RedisArgs>& commands, std::vector<RedisReply>& replies, std::string& error) {
    replies.clear();
    if (broken_) {
      error = where_ + ": the connection is broken";
      return false;
    }
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const RedisArgs& a : commands) {
      argv.clear();
      lens.clear();
      for (const std::string& s : a) argv.push_back(s.data()), lens.push_back(s.size());
      if (redisAppendCommandArgv(c_, static_cast<int>(a.size()), argv.data(), lens.data()) != REDIS_OK) return fail(error);
    }
    for (size_t i = 0; i < commands.size(); ++i) {
      void* reply = nullptr;
      if (redisGetReply(c_, &reply) != REDIS_OK || !reply) return fail(error);
      replies.emplace_back(reply);
    }
    return true;
  }
  // One command; a Redis error reply is an error too.
  bool command(const RedisArgs& args, RedisReply& reply, std::string& error) {
    std::vector<RedisReply> r;
    if (!send({args}, r, error)) return false;
    if (r[0].error()) {
      error = where_ + ": " + args[0] + ": " + r[0].text();
      return false;
    }
    reply = std::move(r[0]);
    return true;
  }
  int64_t id() const { return id_; }
  bool broken() const { return broken_; }
  const std::string& where() const { return where_; }

 private:
  bool fail(std::string& error) {
    broken_ = true;
    error = where_ + ": " + (c_->err ? c_->errstr : "no reply");
    return false;
  }
  redisContext* c_ = nullptr;
  bool broken_ = false;
  int64_t id_ = -1;
  std::string where_;
};

std::string redis_key(const std::string& table, uint32_t key) {
  std::string k = table;
  k += '/';
  k += std::to_string(key);
  return k;
}

bool parse_int_text(const std::string& s, int64_t& v) {
  return !s.empty() && std::from_chars(s.data(), s.data() + s.size(), v).ptr == s.data() + s.size();
}

class RedisConnection final : public Connection {
 public:
  RedisConnection(std::unique_ptr<RedisLink> link, std::string table) : link_(std::move(link)), table_(std::move(table)) {}

  Status begin(bool) override {
    read_.clear();
    lists_.clear();
    put_.clear();
    appended_.clear();
    watched_ = false;
    return {};
  }
  Status read(uint32_t key, int64_t& value) override {
    if (const auto w = put_.find(key); w != put_.end()) {
      value = w->second;
      return {};
    }
    if (const auto r = read_.find(key); r != read_.end()) {
      value = r->second;
      return {};
    }
    const std::string k = redis_key(table_, key);
    std::vector<RedisReply> r;
    Status st = watch_and(k, {"GET", k}, r);
    if (!st.ok()) return st;
    if (r[1].r->type == REDIS_REPLY_NIL) {
      // The key the run created holding 0 is gone: a restart lost the data set (Redis without
      // persistence since the run began). What the read saw is the state before any write of
      // the run, the history's initial value; the report then names the writes it lost.
      value = 0;
    } else if (r[1].error() || !parse_int_text(r[1].text(), value))
      return {Outcome::Failed, "the runner's key " + k + ": GET answered '" + r[1].text() + "', not a number"};
    read_[key] = value;
    return {};
  }
  Status read_for_update(uint32_t key, int64_t& value) override { return read(key, value); }
  Status write(uint32_t key, int64_t value) override {
    put_[key] = value;
    return {};
  }
  Status append(uint32_t key, int64_t value) override {
    appended_[key].push_back(value);
    return {};
  }
  Status read_list(uint32_t key, std::vector<int64_t>& values) override {
    values.clear();
    auto seen = lists_.find(key);
    if (seen == lists_.end()) {
      const std::string k = redis_key(table_, key);
      std::vector<RedisReply> r;
      Status st = watch_and(k, {"LRANGE", k, "0", "-1"}, r);
      if (!st.ok()) return st;
      if (r[1].error() || r[1].r->type != REDIS_REPLY_ARRAY) return {Outcome::Failed, "the runner's key " + k + ": LRANGE answered '" + r[1].text() + "'"};
      std::vector<int64_t> list;
      for (size_t i = 0; i < r[1].r->elements; ++i) {
        const redisReply* e = r[1].r->element[i];
        int64_t v = 0;
        if (e->type != REDIS_REPLY_STRING || !parse_int_text(std::string(e->str, e->len), v))
          return {Outcome::Failed, "the runner's list " + k + " holds what is not a number"};
        list.push_back(v);
      }
      seen = lists_.emplace(key, std::move(list)).first;
    }
    values = seen->second;
    if (const auto a = appended_.find(key); a != appended_.end()) values.insert(values.end(), a->second.begin(), a->second.end());
    return {};
  }
  Status exec_rows(const std::string&, Rows*, int64_t&) override {
    return {Outcome::Failed, "Redis has no SQL: isoscope hermitage and --predicates need a SQL database"};
  }
  Status commit() override {
    if (!watched_ && put_.empty() && appended_.empty()) return {};
    std::vector<RedisArgs> commands;
    commands.push_back({"MULTI"});
    for (const auto& [key, v] : put_) commands.push_back({"SET", redis_key(table_, key), std::to_string(v)});
    for (const auto& [key, vs] : appended_) {
      RedisArgs a = {"RPUSH", redis_key(table_, key)};
      for (int64_t v : vs) a.push_back(std::to_string(v));
      commands.push_back(std::move(a));
    }
    commands.push_back({"EXEC"});
    std::vector<RedisReply> r;
    std::string error;
    watched_ = false;  // EXEC unwatches, whatever it answers
    if (!link_->send(commands, r, error)) return {Outcome::Lost, error};
    // Refused while loading, MULTI or a queued command makes EXEC discard the transaction.
    for (size_t i = 0; i + 1 < r.size(); ++i)
      if (RedisLink::loading(r[i])) return {Outcome::Aborted, commands[i][0] + ": the server is loading its data set"};
    for (size_t i = 0; i + 1 < r.size(); ++i)
      if (r[i].error()) return {Outcome::Failed, link_->where() + ": " + commands[i][0] + ": " + r[i].text()};
    const RedisReply& exec = r.back();
    if (exec.r->type == REDIS_REPLY_NIL) return {Outcome::Aborted, "EXEC: a watched key changed"};
    if (exec.r->type != REDIS_REPLY_ARRAY) return {Outcome::Failed, link_->where() + ": EXEC answered '" + exec.text() + "'"};
    for (size_t i = 0; i < exec.r->elements; ++i)
      if (exec.r->element[i]->type == REDIS_REPLY_ERROR)
        return {Outcome::Failed, link_->where() + ": in EXEC: " + std::string(exec.r->element[i]->str, exec.r->element[i]->len)};
    return {};
  }
  void rollback() override {
    if (watched_ && !link_->broken()) {
      std::vector<RedisReply> r;
      std::string error;
      link_->send({{"UNWATCH"}}, r, error);
    }
    begin(false);
  }
  int64_t server_id() const override { return link_->id(); }

 private:
  // WATCH key, then the command, in one round trip: r[0] and r[1].
  // Refused while the server loads its data set (after a restart), the transaction is aborted.
  Status watch_and(const std::string& key, RedisArgs command, std::vector<RedisReply>& r) {
    std::string error;
    const std::string name = command[0];
    if (!link_->send({{"WATCH", key}, std::move(command)}, r, error)) return {Outcome::Lost, error};
    watched_ = true;
    if (RedisLink::loading(r[0]) || RedisLink::loading(r[1])) return {Outcome::Aborted, (RedisLink::loading(r[0]) ? "WATCH" : name) + ": the server is loading its data set"};
    if (r[0].error()) return {Outcome::Failed, link_->where() + ": WATCH: " + r[0].text()};
    return {};
  }

  std::unique_ptr<RedisLink> link_;
  std::string table_;
  bool watched_ = false;
  std::map<uint32_t, int64_t> read_, put_;
  std::map<uint32_t, std::vector<int64_t>> lists_, appended_;
};

class RedisDatabase final : public KeyValueDatabase {
 public:
  RedisDatabase(const Target& t, std::unique_ptr<RedisLink> admin) : t_(t), admin_(std::move(admin)) {}

  std::unique_ptr<Connection> connect(std::string& error) override {
    auto link = std::make_unique<RedisLink>();
    if (!link->open(t_, error)) return nullptr;
    return std::make_unique<RedisConnection>(std::move(link), table_);
  }
  Status create_schema(const Schema& s) override {
    if (s.registers.size() > 5 && s.registers.compare(s.registers.size() - 5, 5, "_rows") == 0)
      return {Outcome::Failed, "Redis holds keys, not tables: --predicates needs a SQL database"};
    schema_ = s;
    table_ = s.registers.empty() ? s.lists : s.registers;
    std::lock_guard<std::mutex> lock(mu_);
    RedisReply r;
    std::string error;
    if (!admin_->command({"SET", kRedisMarkPrefix + table_, owner_mark(), "NX"}, r, error)) return {Outcome::Failed, error};
    if (r.r->type == REDIS_REPLY_NIL) return {Outcome::Failed, std::string(kRedisMarkPrefix) + table_ + " exists: another run has the name"};
    created_ = true;
    if (!s.registers.empty()) {
      for (uint32_t k = 0; k < s.keys; k += 1000) {
        RedisArgs mset = {"MSET"};
        for (uint32_t i = k; i < s.keys && i < k + 1000; ++i) {
          mset.push_back(redis_key(table_, i));
          mset.push_back("0");
        }
        if (!admin_->command(mset, r, error)) {
          drop_keys(table_);
          created_ = false;
          return {Outcome::Failed, error};
        }
      }
    }
    return {};
  }
  bool leftovers(std::vector<Leftover>& out, std::string& error) override {
    out.clear();
    std::lock_guard<std::mutex> lock(mu_);
    std::set<std::string> marks;
    if (!scan(std::string(kRedisMarkPrefix) + "*", marks, error)) return false;
    for (const std::string& key : marks) {
      const std::string name = key.substr(std::strlen(kRedisMarkPrefix));
      std::string id;
      if (!runner_table(name, id) || id.empty() || id == schema_.run_id) continue;
      RedisReply r;
      if (!admin_->command({"GET", key}, r, error)) return false;
      const std::string mark = r.text();
      if (owner_state(mark) == Owner::Gone) out.push_back({name, owner_note(mark)});
    }
    return true;
  }
  ServerFacts facts() override {
    ServerFacts f;
    f.product = "Redis";
    std::lock_guard<std::mutex> lock(mu_);
    RedisReply r;
    std::string error;
    if (admin_->command({"INFO", "server"}, r, error)) {
      const std::string info = r.text();
      const size_t at = info.find("redis_version:");
      if (at != std::string::npos) f.version = info.substr(at + 14, info.find_first_of("\r\n", at) - at - 14);
    }
    for (const char* name : {"appendonly", "appendfsync", "save"}) {
      if (!admin_->command({"CONFIG", "GET", name}, r, error)) {
        f.notes.push_back("cannot read Redis's " + std::string(name) + ": " + error);
        continue;
      }
      if (r.r->type == REDIS_REPLY_ARRAY && r.r->elements == 2 && r.r->element[1]->type == REDIS_REPLY_STRING)
        f.variables.emplace_back(name, std::string(r.r->element[1]->str, r.r->element[1]->len));
    }
    return f;
  }
  SqlFeatures sql_features() override { return {}; }
  int64_t commit_counter(std::string& name) override {
    name.clear();
    return -1;
  }
  bool kill(int64_t server_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    RedisReply r;
    std::string error;
    return admin_->command({"CLIENT", "KILL", "ID", std::to_string(server_id)}, r, error) && r.r->type == REDIS_REPLY_INTEGER &&
           r.r->integer > 0;
  }

 private:
  // Every key matching pattern (SCAN's cursor to its end).
  bool scan(const std::string& pattern, std::set<std::string>& keys, std::string& error) {
    std::string cursor = "0";
    do {
      RedisReply r;
      if (!admin_->command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}, r, error)) return false;
      if (r.r->type != REDIS_REPLY_ARRAY || r.r->elements != 2) {
        error = admin_->where() + ": SCAN answered what is not a cursor and keys";
        return false;
      }
      cursor = std::string(r.r->element[0]->str, r.r->element[0]->len);
      const redisReply* list = r.r->element[1];
      for (size_t i = 0; i < list->elements; ++i) keys.insert(std::string(list->element[i]->str, list->element[i]->len));
    } while (cursor != "0");
    return true;
  }
  Status drop_keys(const std::string& name) override {
    std::set<std::string> keys;
    std::string error;
    if (!scan(name + "/*", keys, error)) return {Outcome::Failed, error};
    RedisArgs del = {"DEL"};
    RedisReply r;
    for (auto it = keys.begin(); it != keys.end();) {
      del.resize(1);
      for (; it != keys.end() && del.size() <= 1000; ++it) del.push_back(*it);
      if (!admin_->command(del, r, error)) return {Outcome::Failed, error};
    }
    if (!admin_->command({"DEL", kRedisMarkPrefix + name}, r, error)) return {Outcome::Failed, error};
    return {};
  }

  Target t_;
  std::unique_ptr<RedisLink> admin_;
  Schema schema_;
};

}  // namespace

std::unique_ptr<Database> open_redis(const Target& t, Isolation iso, std::string& error) {
  if (iso != Isolation::Serializable) {
    error = std::string("Redis does not offer --isolation ") + isolation_name(iso) +
            ": isoscope's Redis transactions (WATCH, MULTI/EXEC) are serializable (pass --isolation serializable)";
    return nullptr;
  }
  auto admin = std::make_unique<RedisLink>();
  if (!admin->open(t, error)) return nullptr;
  return std::make_unique<RedisDatabase>(t, std::move(admin));
}

}  // namespace isoscope::runner
