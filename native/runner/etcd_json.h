// etcd's v3 JSON gateway (POST /v3/kv/range, /v3/kv/txn, /v3/kv/put, /v3/kv/deleterange): the
// request bodies etcd.cpp sends and the replies it reads, apart from the HTTP client so that they
// are tested without a server (tests/native/runner/etcd_json_test.cpp). Keys and values travel
// base64-encoded; the gateway writes 64-bit integers as JSON strings ("revision": "5") and leaves
// out fields at their default (an absent key has no "kvs"; a failed transaction no "succeeded").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isoscope::runner::etcd {

std::string base64_encode(std::string_view bytes);
// false on anything but standard base64 (padding optional).
bool base64_decode(std::string_view text, std::string& out);
// The range_end that selects every key beginning with prefix (its last byte below 0xff plus one).
std::string prefix_end(std::string_view prefix);

// A RangeRequest: key (or [key, range_end)); revision 0: the latest; serializable: the member's
// own state, without asking the leader.
std::string range_request(std::string_view key, std::string_view range_end, int64_t revision, bool serializable,
                          int64_t limit = 0);
// A compare of a Txn: the key's mod_revision equals mod_revision, or, when it is 0 (the key was
// absent), its create_revision is 0 (it is still absent).
struct Compare {
  std::string key;
  int64_t mod_revision = 0;
};
// A Txn: if every compare holds, put every (key, value).
std::string txn_request(const std::vector<Compare>& compares, const std::vector<std::pair<std::string, std::string>>& puts);
std::string delete_range_request(std::string_view key, std::string_view range_end);

struct KeyValue {
  std::string key, value;
  int64_t create_revision = 0, mod_revision = 0;
};
struct RangeResponse {
  int64_t revision = 0;  // the header's: the store's revision the range was read at
  std::vector<KeyValue> kvs;
  bool more = false;
};
bool parse_range_response(std::string_view body, RangeResponse& out, std::string& error);
// A TxnResponse: whether the compares held, and the header's revision.
bool parse_txn_response(std::string_view body, bool& succeeded, int64_t& revision, std::string& error);
// The gateway's error body {"error": ..., "code": N, "message": ...}: its gRPC code and message;
// false when body is not one.
bool parse_gateway_error(std::string_view body, int& code, std::string& message);
// GET /version: {"etcdserver": "3.4.23", "etcdcluster": "3.4.0"}.
bool parse_version(std::string_view body, std::string& server, std::string& cluster);
// POST /v3/cluster/member/list: each member's name and client URLs ("n1=http://127.0.0.1:2379").
bool parse_member_list(std::string_view body, std::vector<std::string>& members, std::string& error);

}  // namespace isoscope::runner::etcd
