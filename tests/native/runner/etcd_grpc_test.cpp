// etcd's gRPC messages without a server (etcd_grpc.h): the requests' protobuf bytes against
// bytes worked out by hand from etcd's rpc.proto and kv.proto, replies decoded from hand-made
// bytes and from bytes written by a small encoder here (multi-byte varints, long values), gRPC's
// message framing, and gRPC's status from header fields.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "runner/etcd_grpc.h"

using namespace isoscope::runner;
using namespace std::string_view_literals;

namespace {

// Protobuf's wire format, written independently of etcd_grpc.cpp.
void etcd_grpc_test_varint(std::string& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out += static_cast<char>(b);
  } while (v);
}
void etcd_grpc_test_int(std::string& out, int field, uint64_t v) {
  etcd_grpc_test_varint(out, static_cast<uint64_t>(field) << 3);
  etcd_grpc_test_varint(out, v);
}
void etcd_grpc_test_bytes(std::string& out, int field, std::string_view b) {
  etcd_grpc_test_varint(out, static_cast<uint64_t>(field) << 3 | 2);
  etcd_grpc_test_varint(out, b.size());
  out += b;
}

}  // namespace

TEST(EtcdGrpc, RequestsAsProtobuf) {
  std::string out;
  // RangeRequest: key 1, revision 4 (42), serializable 7.
  etcd::range_proto(out, "k/1", "", 42, true);
  EXPECT_EQ(out, "\x0a\x03k/1\x20\x2a\x38\x01"sv);
  out.clear();
  // range_end 2, limit 3; revision 0 and serializable false are proto3 defaults, left out.
  etcd::range_proto(out, "p/", "p0", 0, false, 10);
  EXPECT_EQ(out, "\x0a\x02p/\x12\x02p0\x18\x0a"sv);
  out.clear();
  // A Compare (field 1): target MOD (2), key, mod_revision 6; an absent key: target CREATE (1) and
  // create_revision 5 written as 0 (a oneof member is present only when written).
  etcd::txn_compare_proto(out, "k/1", 7);
  EXPECT_EQ(out, "\x0a\x09\x10\x02\x1a\x03k/1\x30\x07"sv);
  out.clear();
  etcd::txn_compare_proto(out, "k/2", 0);
  EXPECT_EQ(out, "\x0a\x09\x10\x01\x1a\x03k/2\x28\x00"sv);
  out.clear();
  // success 2: RequestOp with request_put 2: PutRequest key 1, value 2.
  etcd::txn_put_proto(out, "k/1", "12");
  EXPECT_EQ(out, "\x12\x0b\x12\x09\x0a\x03k/1\x12\x02"
                 "12"sv);
  // An empty value (a list's start) is written: a put of "" is not a put of nothing.
  out.clear();
  etcd::txn_put_proto(out, "k", "");
  EXPECT_EQ(out, "\x12\x07\x12\x05\x0a\x01k\x12\x00"sv);
  // The whole Txn: the compares, then the puts.
  out.clear();
  etcd::txn_proto(out, {{"k/1", 7}, {"k/2", 0}}, {{"k/1", "12"}});
  EXPECT_EQ(out, "\x0a\x09\x10\x02\x1a\x03k/1\x30\x07"
                 "\x0a\x09\x10\x01\x1a\x03k/2\x28\x00"
                 "\x12\x0b\x12\x09\x0a\x03k/1\x12\x02"
                 "12"sv);
}

TEST(EtcdGrpc, LongFieldsHaveMultiByteLengths) {
  // A revision past 2^32 and a value of 300 bytes: their varints take several bytes, and the
  // nested messages' lengths count them.
  const std::string key(20, 'k'), value(300, 'v');
  std::string out;
  etcd::txn_compare_proto(out, key, int64_t{1} << 40);
  std::string expect, inner;
  etcd_grpc_test_int(inner, 2, 2);
  etcd_grpc_test_bytes(inner, 3, key);
  etcd_grpc_test_int(inner, 6, uint64_t{1} << 40);
  etcd_grpc_test_bytes(expect, 1, inner);
  EXPECT_EQ(out, expect);
  out.clear();
  etcd::txn_put_proto(out, key, value);
  std::string put, op;
  etcd_grpc_test_bytes(put, 1, key);
  etcd_grpc_test_bytes(put, 2, value);
  etcd_grpc_test_bytes(op, 2, put);
  expect.clear();
  etcd_grpc_test_bytes(expect, 2, op);
  EXPECT_EQ(out, expect);
}

TEST(EtcdGrpc, Framing) {
  std::string out = "left over";
  etcd::grpc_message_begin(out);
  EXPECT_EQ(out, std::string(5, '\0'));
  etcd::range_proto(out, "k/1", "", 0, false);
  etcd::grpc_message_end(out);
  EXPECT_EQ(out, "\x00\x00\x00\x00\x05\x0a\x03k/1"sv);
  std::string_view message;
  ASSERT_TRUE(etcd::grpc_message(out, message));
  EXPECT_EQ(message, "\x0a\x03k/1"sv);
  // A long message: the length's four bytes, big-endian.
  etcd::grpc_message_begin(out);
  out += std::string(70000, 'x');
  etcd::grpc_message_end(out);
  EXPECT_EQ(out.substr(0, 5), "\x00\x00\x01\x11\x70"sv);
  ASSERT_TRUE(etcd::grpc_message(out, message));
  EXPECT_EQ(message.size(), 70000u);
  // An empty message (a reply of defaults only) is one.
  ASSERT_TRUE(etcd::grpc_message("\x00\x00\x00\x00\x00"sv, message));
  EXPECT_TRUE(message.empty());
  // Cut short, longer than said, compressed, or nothing: not one message.
  EXPECT_FALSE(etcd::grpc_message("\x00\x00\x00\x00\x05\x0a\x03"sv, message));
  EXPECT_FALSE(etcd::grpc_message("\x00\x00\x00\x00\x01\x0a\x03"sv, message));
  EXPECT_FALSE(etcd::grpc_message("\x01\x00\x00\x00\x01\x0a"sv, message));
  EXPECT_FALSE(etcd::grpc_message("", message));
}

TEST(EtcdGrpc, RangeResponseFromHandMadeBytes) {
  // header 1 {cluster_id 1: 300, revision 3: 9, raft_term 4: 2}, kvs 2 {key "k/1",
  // create_revision 2, mod_revision 8, version 3, value "12"}, count 4: 1.
  const std::string_view bytes =
      "\x0a\x07\x08\xac\x02\x18\x09\x20\x02"
      "\x12\x0f\x0a\x03k/1\x10\x02\x18\x08\x20\x03\x2a\x02"
      "12"
      "\x20\x01"sv;
  etcd::RangeResponseView r;
  std::string err;
  ASSERT_TRUE(etcd::parse_range_proto(bytes, r, err)) << err;
  EXPECT_EQ(r.revision, 9);
  ASSERT_EQ(r.kvs.size(), 1u);
  EXPECT_EQ(r.kvs[0].key, "k/1");
  EXPECT_EQ(r.kvs[0].value, "12");
  EXPECT_EQ(r.kvs[0].create_revision, 2);
  EXPECT_EQ(r.kvs[0].mod_revision, 8);
  EXPECT_FALSE(r.more);
  // An absent key: only the header. An empty value: no value field.
  ASSERT_TRUE(etcd::parse_range_proto("\x0a\x02\x18\x09"sv, r, err)) << err;
  EXPECT_TRUE(r.kvs.empty());
  ASSERT_TRUE(etcd::parse_range_proto("\x0a\x02\x18\x09\x12\x07\x0a\x03k/1\x18\x03"sv, r, err)) << err;
  ASSERT_EQ(r.kvs.size(), 1u);
  EXPECT_EQ(r.kvs[0].value, "");
  EXPECT_EQ(r.kvs[0].mod_revision, 3);
  // Fields it does not know (a fixed64, a fixed32, a later field number) are skipped.
  ASSERT_TRUE(etcd::parse_range_proto("\x0a\x02\x18\x09\x49\x01\x02\x03\x04\x05\x06\x07\x08\x55\x01\x02\x03\x04\x78\x05"sv, r, err)) << err;
  EXPECT_EQ(r.revision, 9);
  // No header revision, a length past the end, a varint that does not end: errors.
  EXPECT_FALSE(etcd::parse_range_proto(""sv, r, err));
  EXPECT_NE(err.find("no header revision"), std::string::npos) << err;
  EXPECT_FALSE(etcd::parse_range_proto("\x0a\x02\x18\x09\x12\x10\x0a\x03k/1"sv, r, err));
  EXPECT_NE(err.find("malformed"), std::string::npos) << err;
  EXPECT_FALSE(etcd::parse_range_proto("\x0a\x02\x18\x09\x18\xff\xff"sv, r, err));
  EXPECT_FALSE(etcd::parse_range_proto("\x0a\x02\x18\x09\x12\x04\x0a\x05k/"sv, r, err));
  EXPECT_NE(err.find("key-value"), std::string::npos) << err;
}

TEST(EtcdGrpc, RangeResponseRoundTrip) {
  // Written by the encoder above: several key-values, a revision past 2^32, a value past 127
  // bytes, more set.
  const int64_t revision = (int64_t{1} << 35) + 17;
  std::string header, bytes;
  etcd_grpc_test_int(header, 1, 0xfedcba9876543210ull);
  etcd_grpc_test_int(header, 3, static_cast<uint64_t>(revision));
  etcd_grpc_test_bytes(bytes, 1, header);
  const std::string long_value(1000, 'z');
  for (int i = 0; i < 3; ++i) {
    std::string kv;
    etcd_grpc_test_bytes(kv, 1, "t/" + std::to_string(i));
    etcd_grpc_test_int(kv, 2, static_cast<uint64_t>(revision - 10 + i));
    etcd_grpc_test_int(kv, 3, static_cast<uint64_t>(revision - i));
    etcd_grpc_test_bytes(kv, 5, i == 1 ? long_value : std::to_string(i));
    etcd_grpc_test_bytes(bytes, 2, kv);
  }
  etcd_grpc_test_int(bytes, 3, 1);
  etcd::RangeResponseView r;
  std::string err;
  ASSERT_TRUE(etcd::parse_range_proto(bytes, r, err)) << err;
  EXPECT_EQ(r.revision, revision);
  EXPECT_TRUE(r.more);
  ASSERT_EQ(r.kvs.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.kvs[i].key, "t/" + std::to_string(i));
    EXPECT_EQ(r.kvs[i].create_revision, revision - 10 + i);
    EXPECT_EQ(r.kvs[i].mod_revision, revision - i);
    EXPECT_EQ(r.kvs[i].value, i == 1 ? long_value : std::to_string(i));
  }
}

TEST(EtcdGrpc, TxnResponse) {
  bool succeeded = false;
  int64_t revision = 0;
  std::string err;
  // header {revision 10}, succeeded, responses 3 {response_put 2 {header}}.
  ASSERT_TRUE(etcd::parse_txn_proto("\x0a\x02\x18\x0a\x10\x01\x1a\x06\x12\x04\x0a\x02\x18\x0a"sv, succeeded, revision, err)) << err;
  EXPECT_TRUE(succeeded);
  EXPECT_EQ(revision, 10);
  // A failed compare: succeeded is false, the default, left out.
  ASSERT_TRUE(etcd::parse_txn_proto("\x0a\x02\x18\x0b"sv, succeeded, revision, err)) << err;
  EXPECT_FALSE(succeeded);
  EXPECT_EQ(revision, 11);
  EXPECT_FALSE(etcd::parse_txn_proto("\x10\x01"sv, succeeded, revision, err));
  EXPECT_NE(err.find("no header revision"), std::string::npos) << err;
  EXPECT_FALSE(etcd::parse_txn_proto("\x0a\x05\x18\x0a"sv, succeeded, revision, err));
}

TEST(EtcdGrpc, StatusFromHeaderFields) {
  etcd::GrpcReplyStatus s;
  EXPECT_EQ(s.grpc_status, -1);
  etcd::grpc_reply_field(":status", "200", s);
  etcd::grpc_reply_field("content-type", "application/grpc", s);
  EXPECT_EQ(s.http_status, 200);
  EXPECT_EQ(s.grpc_status, -1);  // none yet: the trailers carry it
  etcd::grpc_reply_field("grpc-status", "14", s);
  etcd::grpc_reply_field("grpc-message", "etcdserver:%20leader%20changed", s);
  EXPECT_EQ(s.grpc_status, etcd::kGrpcUnavailable);
  EXPECT_EQ(s.grpc_message, "etcdserver: leader changed");
  // A malformed escape is kept as it is; a status that is not a number is not a success.
  etcd::grpc_reply_field("grpc-message", "100%zz done %4", s);
  EXPECT_EQ(s.grpc_message, "100%zz done %4");
  etcd::grpc_reply_field("grpc-status", "ok", s);
  EXPECT_EQ(s.grpc_status, 2);
  etcd::grpc_reply_field("grpc-status", "0", s);
  EXPECT_EQ(s.grpc_status, etcd::kGrpcOk);
  s.clear();
  EXPECT_EQ(s.http_status, 0);
  EXPECT_EQ(s.grpc_status, -1);
  EXPECT_TRUE(s.grpc_message.empty());
}
