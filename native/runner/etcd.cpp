// runner::Database over etcd's v3 API: a transaction's reads and commit are gRPC calls
// (etcdserverpb.KV/Range and /Txn, encoded in etcd_grpc.h) on an HTTP/2 connection a session
// keeps (grpc_channel.h, nghttp2); the run's setup and the rest (the version, the member list,
// the runs' marks, dropping keys) go through etcd's v3 JSON gateway (libcurl, etcd_json.h),
// being few. A run's "table" NAME is the keys NAME/<k> (registers: "0" at the start; lists:
// "" at the start, then the appended values separated by spaces), marked as in use by the key
// isoscope_runs/NAME, which holds the owner mark of the process that made them (backends.h).
//
// Transactions are optimistic. Every read of a transaction is at one revision: the first read's
// (the header revision of its range reply; --reads linearizable asks the leader for it,
// serializable takes the member's own), the later ones ask for that revision. Writes wait in the
// connection until commit; a read of a key the transaction wrote answers its own write. Commit is
// one Txn whose compares say that every key read still has the mod_revision it had (an absent
// key: create_revision 0) and whose success branch puts the writes: the compares failing is an
// abort; a timeout or a broken connection while it is sent is an unknown outcome. A transaction
// that wrote nothing commits without a request. An append reads its key first (not recorded as
// a read): its new value is the old one with the value added, so the key must not have changed.
//
// Each session's connection goes to one member, the members taken in turn. The gateway's speed
// was the runner's limit: it turns each JSON request into a gRPC call inside etcd, a quarter of
// the server's CPU on two cores (docs/benchmarks.md).
#include <curl/curl.h>

#include <atomic>
#include <charconv>
#include <map>
#include <mutex>

#include "runner/backends.h"
#include "runner/etcd_grpc.h"
#include "runner/etcd_json.h"
#include "runner/grpc_channel.h"

namespace isoscope::runner {

namespace {

constexpr const char* kEtcdMarkPrefix = "isoscope_runs/";

// The requests' time limits: connecting, and an answer (the gateway's and gRPC's alike).
constexpr int kConnectTimeoutMs = 3000, kRequestTimeoutMs = 10000;

// What gRPC's status (the gateway's error code is one) says of a request: a commit that may have
// happened, an abort, or an error that ends the run.
Outcome grpc_outcome(int code, bool committing) {
  using namespace etcd;
  if (code == kGrpcUnavailable || code == kGrpcDeadlineExceeded) return committing ? Outcome::Lost : Outcome::Aborted;
  if (code == kGrpcOutOfRange || code == kGrpcResourceExhausted) return Outcome::Aborted;  // compacted revision, too many requests: nothing done
  return Outcome::Failed;
}

std::string member_where(const std::string& host, int port) {
  std::string where = "etcd at ";
  where += host_port_text(host, port);
  return where;
}

// One member's HTTP connection.
class EtcdHttp {
 public:
  EtcdHttp(std::string host, int port) : host_(std::move(host)), port_(port) {
    base_ = "http://";
    base_ += host_port_text(host_, port_);
    where_ = member_where(host_, port_);
    curl_ = curl_easy_init();
    headers_ = curl_slist_append(nullptr, "Content-Type: application/json");
  }
  ~EtcdHttp() {
    if (curl_) curl_easy_cleanup(curl_);
    curl_slist_free_all(headers_);
  }
  EtcdHttp(const EtcdHttp&) = delete;
  EtcdHttp& operator=(const EtcdHttp&) = delete;

  const std::string& where() const { return where_; }

  // POST path with body (or GET when body is null): the HTTP status, or 0 with error when the
  // request did not get an answer (no connection, a timeout).
  long request(const char* path, const std::string* body, std::string& reply, std::string& error) {
    reply.clear();
    if (!curl_) {
      error = "cannot make a libcurl handle";
      return 0;
    }
    const std::string url = base_ + path;
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(kConnectTimeoutMs));
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(kRequestTimeoutMs));
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &EtcdHttp::collect);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &reply);
    if (body) {
      curl_easy_setopt(curl_, CURLOPT_POST, 1L);
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body->c_str());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body->size()));
    } else {
      curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
    }
    const CURLcode rc = curl_easy_perform(curl_);
    if (rc != CURLE_OK) {
      error = where_;
      error += ": ";
      error += curl_easy_strerror(rc);
      return 0;
    }
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

  // A gateway call: the outcome, the reply's body in reply when Ok.
  Status call(const char* path, const std::string& body, std::string& reply, bool committing) {
    std::string error;
    const long status = request(path, &body, reply, error);
    if (status == 0) return {Outcome::Lost, error};
    if (status == 200) return {};
    int code = 0;
    std::string message;
    Status s;
    if (!etcd::parse_gateway_error(reply, code, message)) {
      s.outcome = Outcome::Failed;
      s.message = where_ + ": HTTP " + std::to_string(status) + " from " + path + ": " + reply.substr(0, 200);
      return s;
    }
    s.message = where_;
    s.message += ": ";
    s.message += message;
    s.outcome = grpc_outcome(code, committing);
    return s;
  }

 private:
  static size_t collect(char* data, size_t size, size_t n, void* to) {
    static_cast<std::string*>(to)->append(data, size * n);
    return size * n;
  }

  std::string host_;
  int port_;
  std::string base_, where_;
  CURL* curl_ = nullptr;
  curl_slist* headers_ = nullptr;
};

std::string etcd_key(const std::string& table, uint32_t key) {
  std::string k = table;
  k += '/';
  k += std::to_string(key);
  return k;
}

// One member's gRPC connection, with the buffers its calls reuse.
class EtcdGrpc {
 public:
  EtcdGrpc(const std::string& host, int port) : where_(member_where(host, port)), channel_(host, port, where_, kConnectTimeoutMs, kRequestTimeoutMs) {}

  bool open(std::string& error) { return channel_.open(error); }
  // The request being made: etcd_grpc.h's encoders append to it.
  std::string& begin_request() {
    etcd::grpc_message_begin(request_);
    return request_;
  }
  // Sends the request to method (a path of etcdserverpb.KV): the outcome, the reply's message
  // (valid until the next call) when Ok.
  Status call(const char* method, bool committing, std::string_view& message) {
    etcd::grpc_message_end(request_);
    std::string error;
    if (!channel_.call(method, request_, status_, body_, error)) return {Outcome::Lost, error};  // may have happened
    Status s;
    if (status_.grpc_status == etcd::kGrpcOk) {
      if (etcd::grpc_message(body_, message)) return s;
      // A commit that succeeded or not: which is unknown.
      s.outcome = committing ? Outcome::Lost : Outcome::Failed;
      s.message = where_ + ": the reply to " + method + " is not one gRPC message (" + std::to_string(body_.size()) + " bytes)";
      return s;
    }
    s.message = where_;
    s.message += ": ";
    if (status_.grpc_status < 0) {
      s.outcome = Outcome::Failed;
      s.message += "HTTP ";
      s.message += std::to_string(status_.http_status);
      s.message += " without a gRPC status from ";
      s.message += method;
      s.message += ": is it etcd's client port?";
      return s;
    }
    s.message += status_.grpc_message.empty() ? "gRPC status " + std::to_string(status_.grpc_status) : status_.grpc_message;
    s.outcome = grpc_outcome(status_.grpc_status, committing);
    return s;
  }

 private:
  std::string where_;
  GrpcChannel channel_;
  std::string request_, body_;
  etcd::GrpcReplyStatus status_;
};

constexpr const char* kRange = "/etcdserverpb.KV/Range";
constexpr const char* kTxn = "/etcdserverpb.KV/Txn";

class EtcdConnection final : public Connection {
 public:
  EtcdConnection(std::unique_ptr<EtcdGrpc> grpc, std::string table, bool serializable, int64_t id)
      : grpc_(std::move(grpc)), table_(std::move(table)), serializable_(serializable), id_(id) {}

  Status begin(bool) override {
    revision_ = 0;
    read_.clear();
    put_.clear();
    appended_.clear();
    return {};
  }
  Status read(uint32_t key, int64_t& value) override {
    if (const auto w = put_.find(key); w != put_.end()) {
      value = w->second;
      return {};
    }
    const Seen* s = nullptr;
    Status st = fetch(key, s);
    if (!st.ok()) return st;
    if (s->mod_revision == 0) {
      // The key the run created holding 0 is not there at the revision read: a serializable read
      // from a member that had not yet applied the run's setup (or, with linearizable reads, a
      // key someone removed). What the read saw is the state before any write of the run, the
      // history's initial value; a transaction that writes after it compares the key's absence
      // at commit, and is refused (an abort).
      value = 0;
      return {};
    }
    const char* b = s->value.data();
    const char* e = b + s->value.size();
    if (std::from_chars(b, e, value).ptr != e) return {Outcome::Failed, "the runner's key " + etcd_key(table_, key) + " holds '" + s->value + "', not a number"};
    return {};
  }
  Status read_for_update(uint32_t key, int64_t& value) override { return read(key, value); }
  Status write(uint32_t key, int64_t value) override {
    put_[key] = value;
    return {};
  }
  Status append(uint32_t key, int64_t value) override {
    const Seen* s = nullptr;
    Status st = fetch(key, s);  // the value the append extends, compared at commit
    if (!st.ok()) return st;
    appended_[key].push_back(value);
    return {};
  }
  Status read_list(uint32_t key, std::vector<int64_t>& values) override {
    const Seen* s = nullptr;
    Status st = fetch(key, s);
    if (!st.ok()) return st;
    if (!parse_list_text(s->value, values)) return {Outcome::Failed, "the runner's key " + etcd_key(table_, key) + " holds '" + s->value + "', not a list"};
    if (const auto a = appended_.find(key); a != appended_.end()) values.insert(values.end(), a->second.begin(), a->second.end());
    return {};
  }
  Status exec_rows(const std::string&, Rows*, int64_t&) override {
    return {Outcome::Failed, "etcd has no SQL: isoscope hermitage and --predicates need a SQL database"};
  }
  Status commit() override {
    if (put_.empty() && appended_.empty()) return {};  // read-only: its reads were at one revision
    std::string& request = grpc_->begin_request();
    for (const auto& [key, s] : read_) etcd::txn_compare_proto(request, key_text(key), s.mod_revision);
    char number[24];
    for (const auto& [key, v] : put_) {
      const char* end = std::to_chars(number, number + sizeof number, v).ptr;
      etcd::txn_put_proto(request, key_text(key), {number, static_cast<size_t>(end - number)});
    }
    for (const auto& [key, vs] : appended_) {
      text_ = read_.at(key).value;
      for (int64_t v : vs) {
        if (!text_.empty()) text_ += ' ';
        text_.append(number, std::to_chars(number, number + sizeof number, v).ptr);
      }
      etcd::txn_put_proto(request, key_text(key), text_);
    }
    std::string_view message;
    Status st = grpc_->call(kTxn, true, message);
    if (!st.ok()) return st;
    bool succeeded = false;
    int64_t revision = 0;
    std::string error;
    if (!etcd::parse_txn_proto(message, succeeded, revision, error)) return {Outcome::Lost, error};
    if (!succeeded) return {Outcome::Aborted, "a key the transaction read changed since revision " + std::to_string(revision_)};
    return {};
  }
  void rollback() override { begin(false); }
  int64_t server_id() const override { return id_; }

 private:
  struct Seen {
    int64_t mod_revision = 0;  // 0: absent
    std::string value;
  };

  // etcd's name of the key, in a buffer kept from one request to the next.
  const std::string& key_text(uint32_t key) {
    key_.assign(table_);
    key_ += '/';
    char number[16];
    key_.append(number, std::to_chars(number, number + sizeof number, key).ptr);
    return key_;
  }

  // The key as at the transaction's revision (read once; its first read fixes the revision).
  Status fetch(uint32_t key, const Seen*& out) {
    if (const auto it = read_.find(key); it != read_.end()) {
      out = &it->second;
      return {};
    }
    const std::string& k = key_text(key);
    // Later reads name the revision, which the member has (it answered the first read): from its
    // own state, without asking the leader.
    etcd::range_proto(grpc_->begin_request(), k, "", revision_, revision_ > 0 || serializable_);
    std::string_view message;
    Status st = grpc_->call(kRange, false, message);
    if (!st.ok()) return st;
    std::string error;
    if (!etcd::parse_range_proto(message, range_, error)) return {Outcome::Failed, error};
    if (revision_ == 0) revision_ = range_.revision;
    Seen s;
    for (const etcd::KeyValueView& kv : range_.kvs)
      if (kv.key == k) s = {kv.mod_revision, std::string(kv.value)};
    out = &read_.emplace(key, std::move(s)).first->second;
    return {};
  }

  std::unique_ptr<EtcdGrpc> grpc_;
  std::string table_;
  bool serializable_;
  int64_t id_;
  int64_t revision_ = 0;
  std::map<uint32_t, Seen> read_;
  std::map<uint32_t, int64_t> put_;
  std::map<uint32_t, std::vector<int64_t>> appended_;
  // Reused from one request to the next.
  std::string key_, text_;
  etcd::RangeResponseView range_;
};

class EtcdDatabase final : public KeyValueDatabase {
 public:
  explicit EtcdDatabase(const Target& t) : t_(t), admin_(t.members[0].first, t.members[0].second) {}

  // Whether the member answers /version; error says why not.
  static bool reachable(EtcdHttp& http, std::string& version, std::string& error) {
    std::string reply, cluster;
    const long status = http.request("/version", nullptr, reply, error);
    if (status == 0) return false;
    if (status != 200 || !etcd::parse_version(reply, version, cluster)) {
      error = http.where() + ": /version answered HTTP " + std::to_string(status) + " '" + reply.substr(0, 200) + "': is it etcd's client port?";
      return false;
    }
    return true;
  }

  std::unique_ptr<Connection> connect(std::string& error) override {
    const uint64_t n = next_.fetch_add(1);
    const auto& [host, port] = t_.members[n % t_.members.size()];
    // Connected now, so that a member that is down (or stopped) fails here, where the runner
    // tries again, and not in the session's first transaction.
    auto grpc = std::make_unique<EtcdGrpc>(host, port);
    if (!grpc->open(error)) return nullptr;
    return std::make_unique<EtcdConnection>(std::move(grpc), table_, t_.serializable_reads, static_cast<int64_t>(n));
  }
  Status create_schema(const Schema& s) override {
    if (s.registers.size() > 5 && s.registers.compare(s.registers.size() - 5, 5, "_rows") == 0)
      return {Outcome::Failed, "etcd holds keys, not tables: --predicates needs a SQL database"};
    schema_ = s;
    table_ = s.registers.empty() ? s.lists : s.registers;
    std::lock_guard<std::mutex> lock(mu_);
    // The mark first, and only when no run has the name.
    std::string reply;
    Status st = admin_.call("/v3/kv/txn", etcd::txn_request({{kEtcdMarkPrefix + table_, 0}}, {{kEtcdMarkPrefix + table_, owner_mark()}}), reply, false);
    bool succeeded = false;
    int64_t revision = 0;
    std::string error;
    if (st.ok() && !etcd::parse_txn_response(reply, succeeded, revision, error)) st = {Outcome::Failed, error};
    if (st.ok() && !succeeded) return {Outcome::Failed, std::string(kEtcdMarkPrefix) + table_ + " exists: another run has the name"};
    if (!st.ok()) return st;
    created_ = true;
    const std::string initial = s.registers.empty() ? "" : "0";
    // etcd takes at most 128 operations a transaction (--max-txn-ops): 100 keys a request.
    for (uint32_t k = 0; k < s.keys; k += 100) {
      std::vector<std::pair<std::string, std::string>> puts;
      for (uint32_t i = k; i < s.keys && i < k + 100; ++i) puts.emplace_back(etcd_key(table_, i), initial);
      st = admin_.call("/v3/kv/txn", etcd::txn_request({}, puts), reply, false);
      if (!st.ok()) {
        drop_keys(table_);
        created_ = false;
        return st;
      }
    }
    return {};
  }
  bool leftovers(std::vector<Leftover>& out, std::string& error) override {
    out.clear();
    std::lock_guard<std::mutex> lock(mu_);
    std::string reply;
    const std::string prefix = kEtcdMarkPrefix;
    Status st = admin_.call("/v3/kv/range", etcd::range_request(prefix, etcd::prefix_end(prefix), 0, false), reply, false);
    etcd::RangeResponse r;
    if (!st.ok() || !etcd::parse_range_response(reply, r, error)) {
      if (!st.ok()) error = st.message;
      return false;
    }
    for (const etcd::KeyValue& kv : r.kvs) {
      const std::string name = kv.key.substr(prefix.size());
      std::string id;
      if (!runner_table(name, id) || id.empty() || id == schema_.run_id) continue;
      if (owner_state(kv.value) == Owner::Gone) out.push_back({name, owner_note(kv.value)});
    }
    return true;
  }
  ServerFacts facts() override {
    ServerFacts f;
    f.product = "etcd";
    std::lock_guard<std::mutex> lock(mu_);
    std::string error;
    if (!reachable(admin_, f.version, error)) f.notes.push_back(error);
    std::string reply, members_error;
    std::vector<std::string> members;
    if (admin_.call("/v3/cluster/member/list", "{}", reply, false).ok() && etcd::parse_member_list(reply, members, members_error)) {
      std::string text;
      for (const std::string& m : members) {
        if (!text.empty()) text += ", ";
        text += m;
      }
      f.variables.emplace_back("members", text);
    }
    std::string endpoints;
    for (const auto& [host, port] : t_.members) {
      if (!endpoints.empty()) endpoints += ',';
      endpoints += host;
      endpoints += ':';
      endpoints += std::to_string(port);
    }
    f.variables.emplace_back("endpoints", endpoints);
    f.variables.emplace_back("reads", t_.serializable_reads ? "serializable" : "linearizable");
    return f;
  }
  SqlFeatures sql_features() override { return {}; }
  int64_t commit_counter(std::string& name) override {
    name.clear();
    return -1;
  }
  // etcd has no request that ends a client's connection: there is no session to end from the server.
  bool kill(int64_t) override { return false; }

 private:
  Status drop_keys(const std::string& name) override {
    std::string reply;
    const std::string prefix = name + "/";
    Status st = admin_.call("/v3/kv/deleterange", etcd::delete_range_request(prefix, etcd::prefix_end(prefix)), reply, false);
    if (st.ok()) st = admin_.call("/v3/kv/deleterange", etcd::delete_range_request(kEtcdMarkPrefix + name, ""), reply, false);
    return st;
  }

  Target t_;
  EtcdHttp admin_;
  std::atomic<uint64_t> next_{0};
  Schema schema_;
};

}  // namespace

std::unique_ptr<Database> open_etcd(const Target& t, Isolation iso, std::string& error) {
  if (iso != Isolation::Serializable) {
    error = std::string("etcd does not offer --isolation ") + isolation_name(iso) +
            ": isoscope's etcd transactions are optimistic and serializable (pass --isolation serializable; --reads chooses how they read)";
    return nullptr;
  }
  static std::once_flag curl_once;
  std::call_once(curl_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  for (const auto& [host, port] : t.members) {
    EtcdHttp http(host, port);
    std::string version;
    if (!EtcdDatabase::reachable(http, version, error)) {
      error += " (is an etcd member listening there? scripts/db.sh etcd start starts one)";
      return nullptr;
    }
  }
  return std::make_unique<EtcdDatabase>(t);
}

}  // namespace isoscope::runner
