// etcd's gRPC API for a transaction's reads and commit (etcdserverpb.KV/Range and /Txn),
// encoded by hand: protocol buffers with the field numbers of etcd's rpc.proto and kv.proto, in
// gRPC's length-prefixed messages, and gRPC's status as the reply's headers and trailers carry
// it. The HTTP/2 connection that carries them is grpc_channel.h's. The same requests as the JSON
// gateway's (etcd_json.h), without the gateway's translation into gRPC inside etcd, which cost
// the server a quarter of its throughput on two cores (docs/benchmarks.md). Apart from the
// connection so that they are tested without a server (tests/native/runner/etcd_grpc_test.cpp).
//
// The encoders append to a buffer the caller keeps from one request to the next (no allocation
// per request once it has grown); the decoders give views into the reply's bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/etcd_json.h"

namespace isoscope::runner::etcd {

// gRPC's message framing: a compressed flag byte (0: never compressed here) and a 4-byte
// big-endian length, then the protobuf message. grpc_message_begin clears out and leaves room
// for the prefix; grpc_message_end writes it for the bytes appended since.
void grpc_message_begin(std::string& out);
void grpc_message_end(std::string& out);
// The message of a reply's body: exactly one uncompressed message, else false.
bool grpc_message(std::string_view body, std::string_view& message);

// A RangeRequest, appended: key (or [key, range_end)); revision 0: the latest; serializable: the
// member's own state, without asking the leader.
void range_proto(std::string& out, std::string_view key, std::string_view range_end, int64_t revision, bool serializable,
                 int64_t limit = 0);
// A TxnRequest is its compares and its success branch's puts, each appended on its own in any
// order (protobuf's repeated fields may interleave): a compare that key's mod_revision equals
// mod_revision, or, when it is 0 (the key was absent), that its create_revision is 0.
void txn_compare_proto(std::string& out, std::string_view key, int64_t mod_revision);
void txn_put_proto(std::string& out, std::string_view key, std::string_view value);
// The whole TxnRequest, as txn_request makes it in JSON.
void txn_proto(std::string& out, const std::vector<Compare>& compares, const std::vector<std::pair<std::string, std::string>>& puts);

// A RangeResponse's key-values, as views into the reply's bytes.
struct KeyValueView {
  std::string_view key, value;
  int64_t create_revision = 0, mod_revision = 0;
};
struct RangeResponseView {
  int64_t revision = 0;  // the header's: the store's revision the range was read at
  std::vector<KeyValueView> kvs;
  bool more = false;
};
// RangeResponse and TxnResponse; false with error when the bytes are not one (no header
// revision included: etcd always sends it).
bool parse_range_proto(std::string_view bytes, RangeResponseView& out, std::string& error);
bool parse_txn_proto(std::string_view bytes, bool& succeeded, int64_t& revision, std::string& error);

// gRPC's status codes the runner tells apart (google.golang.org/grpc/codes).
constexpr int kGrpcOk = 0, kGrpcDeadlineExceeded = 4, kGrpcResourceExhausted = 8, kGrpcOutOfRange = 11, kGrpcUnavailable = 14;

// What a reply's header fields (its headers, or its trailers) say: the HTTP status, gRPC's status
// (-1 until one arrives) and message (grpc-message is percent-encoded; kept decoded).
struct GrpcReplyStatus {
  int http_status = 0;
  int grpc_status = -1;
  std::string grpc_message;
  void clear() {
    http_status = 0;
    grpc_status = -1;
    grpc_message.clear();
  }
};
// Takes in one header field (names arrive in lower case over HTTP/2); others are ignored.
void grpc_reply_field(std::string_view name, std::string_view value, GrpcReplyStatus& status);

}  // namespace isoscope::runner::etcd
