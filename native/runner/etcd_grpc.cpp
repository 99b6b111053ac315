#include "runner/etcd_grpc.h"

#include <charconv>

namespace isoscope::runner::etcd {

namespace {

// Protocol buffers' wire format: varints, and (field << 3 | wire type) tags. Every field number
// here is below 16: its tag is one byte.
constexpr uint32_t kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5;

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void put_tag(std::string& out, uint32_t field, uint32_t wire) { out += static_cast<char>(field << 3 | wire); }
// An integer field, written even at its default (a oneof's member must be, to be present).
void put_int(std::string& out, uint32_t field, int64_t v) {
  put_tag(out, field, kVarint);
  put_varint(out, static_cast<uint64_t>(v));
}
size_t int_size(int64_t v) { return 1 + varint_size(static_cast<uint64_t>(v)); }
void put_bytes(std::string& out, uint32_t field, std::string_view b) {
  put_tag(out, field, kBytes);
  put_varint(out, b.size());
  out.append(b);
}
size_t bytes_size(size_t n) { return 1 + varint_size(n) + n; }

// A reader of one message's fields.
class Fields {
 public:
  explicit Fields(std::string_view b) : b_(b) {}
  // The next field: its number, wire type, and value (a varint in v, length-delimited bytes in
  // bytes; fixed-width ones skipped); false at the end or on malformed bytes (then bad()).
  bool next(uint32_t& field, uint32_t& wire, uint64_t& v, std::string_view& bytes) {
    if (i_ >= b_.size()) return false;
    uint64_t tag = 0;
    if (!varint(tag)) return fail();
    field = static_cast<uint32_t>(tag >> 3);
    wire = static_cast<uint32_t>(tag & 7);
    switch (wire) {
      case kVarint: return varint(v) || fail();
      case kFixed64: return skip(8);
      case kFixed32: return skip(4);
      case kBytes: {
        uint64_t n = 0;
        if (!varint(n) || n > b_.size() - i_) return fail();
        bytes = b_.substr(i_, n);
        i_ += n;
        return true;
      }
      default: return fail();  // groups (3, 4) are not in etcd's messages
    }
  }
  bool bad() const { return bad_; }

 private:
  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && i_ < b_.size(); shift += 7) {
      const uint8_t c = static_cast<uint8_t>(b_[i_++]);
      v |= uint64_t{c & 0x7fu} << shift;
      if (!(c & 0x80)) return true;
    }
    return false;
  }
  bool skip(size_t n) {
    if (b_.size() - i_ < n) return fail();
    i_ += n;
    return true;
  }
  bool fail() {
    bad_ = true;
    return false;
  }
  std::string_view b_;
  size_t i_ = 0;
  bool bad_ = false;
};

// ResponseHeader (field 1 of every response): its revision (field 3).
bool header_revision(std::string_view bytes, int64_t& revision) {
  Fields f(bytes);
  uint32_t field = 0, wire = 0;
  uint64_t v = 0;
  std::string_view b;
  while (f.next(field, wire, v, b))
    if (field == 3 && wire == kVarint) revision = static_cast<int64_t>(v);
  return !f.bad();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void grpc_message_begin(std::string& out) { out.assign(5, '\0'); }

void grpc_message_end(std::string& out) {
  const uint32_t n = static_cast<uint32_t>(out.size() - 5);
  out[0] = 0;
  out[1] = static_cast<char>(n >> 24);
  out[2] = static_cast<char>(n >> 16);
  out[3] = static_cast<char>(n >> 8);
  out[4] = static_cast<char>(n);
}

bool grpc_message(std::string_view body, std::string_view& message) {
  if (body.size() < 5 || body[0] != 0) return false;  // compression is never asked for
  const uint32_t n = (uint32_t{static_cast<uint8_t>(body[1])} << 24) | (uint32_t{static_cast<uint8_t>(body[2])} << 16) |
                     (uint32_t{static_cast<uint8_t>(body[3])} << 8) | uint32_t{static_cast<uint8_t>(body[4])};
  if (body.size() - 5 != n) return false;  // a unary call's reply is one message
  message = body.substr(5);
  return true;
}

// RangeRequest: key 1, range_end 2, limit 3, revision 4, serializable 7.
void range_proto(std::string& out, std::string_view key, std::string_view range_end, int64_t revision, bool serializable, int64_t limit) {
  put_bytes(out, 1, key);
  if (!range_end.empty()) put_bytes(out, 2, range_end);
  if (limit > 0) put_int(out, 3, limit);
  if (revision > 0) put_int(out, 4, revision);
  if (serializable) put_int(out, 7, 1);
}

// TxnRequest: compare 1 (Compare: result 1 (EQUAL is 0, the default: not written), target 2
// (CREATE 1, MOD 2), key 3, and of the oneof target_union create_revision 5 or mod_revision 6).
void txn_compare_proto(std::string& out, std::string_view key, int64_t mod_revision) {
  const bool absent = mod_revision == 0;
  const size_t size = int_size(absent ? 1 : 2) + bytes_size(key.size()) + int_size(mod_revision);
  put_tag(out, 1, kBytes);
  put_varint(out, size);
  put_int(out, 2, absent ? 1 : 2);
  put_bytes(out, 3, key);
  put_int(out, absent ? 5 : 6, mod_revision);
}

// TxnRequest: success 2 (RequestOp: request_put 2 (PutRequest: key 1, value 2)).
void txn_put_proto(std::string& out, std::string_view key, std::string_view value) {
  const size_t put = bytes_size(key.size()) + bytes_size(value.size());
  put_tag(out, 2, kBytes);
  put_varint(out, bytes_size(put));
  put_tag(out, 2, kBytes);
  put_varint(out, put);
  put_bytes(out, 1, key);
  put_bytes(out, 2, value);
}

void txn_proto(std::string& out, const std::vector<Compare>& compares, const std::vector<std::pair<std::string, std::string>>& puts) {
  for (const Compare& c : compares) txn_compare_proto(out, c.key, c.mod_revision);
  for (const auto& [k, v] : puts) txn_put_proto(out, k, v);
}

// RangeResponse: header 1, kvs 2 (KeyValue: key 1, create_revision 2, mod_revision 3, version 4,
// value 5, lease 6), more 3, count 4.
bool parse_range_proto(std::string_view bytes, RangeResponseView& out, std::string& error) {
  out.revision = 0;
  out.kvs.clear();
  out.more = false;
  Fields f(bytes);
  uint32_t field = 0, wire = 0;
  uint64_t v = 0;
  std::string_view b;
  while (f.next(field, wire, v, b)) {
    if (field == 1 && wire == kBytes) {
      if (!header_revision(b, out.revision)) {
        error = "etcd's RangeResponse has a malformed header";
        return false;
      }
    } else if (field == 2 && wire == kBytes) {
      KeyValueView kv;
      Fields g(b);
      uint32_t gf = 0, gw = 0;
      uint64_t gv = 0;
      std::string_view gb;
      while (g.next(gf, gw, gv, gb)) {
        if (gf == 1 && gw == kBytes) kv.key = gb;
        else if (gf == 2 && gw == kVarint) kv.create_revision = static_cast<int64_t>(gv);
        else if (gf == 3 && gw == kVarint) kv.mod_revision = static_cast<int64_t>(gv);
        else if (gf == 5 && gw == kBytes) kv.value = gb;
      }
      if (g.bad()) {
        error = "etcd's RangeResponse holds a malformed key-value";
        return false;
      }
      out.kvs.push_back(kv);
    } else if (field == 3 && wire == kVarint) {
      out.more = v != 0;
    }
  }
  if (f.bad()) {
    error = "etcd's RangeResponse is malformed (" + std::to_string(bytes.size()) + " bytes)";
    return false;
  }
  if (out.revision <= 0) {
    error = "etcd's RangeResponse has no header revision";
    return false;
  }
  return true;
}

// TxnResponse: header 1, succeeded 2, responses 3.
bool parse_txn_proto(std::string_view bytes, bool& succeeded, int64_t& revision, std::string& error) {
  succeeded = false;
  revision = 0;
  Fields f(bytes);
  uint32_t field = 0, wire = 0;
  uint64_t v = 0;
  std::string_view b;
  while (f.next(field, wire, v, b)) {
    if (field == 1 && wire == kBytes) {
      if (!header_revision(b, revision)) {
        error = "etcd's TxnResponse has a malformed header";
        return false;
      }
    } else if (field == 2 && wire == kVarint) {
      succeeded = v != 0;
    }
  }
  if (f.bad()) {
    error = "etcd's TxnResponse is malformed (" + std::to_string(bytes.size()) + " bytes)";
    return false;
  }
  if (revision <= 0) {
    error = "etcd's TxnResponse has no header revision";
    return false;
  }
  return true;
}

void grpc_reply_field(std::string_view name, std::string_view value, GrpcReplyStatus& status) {
  if (name == ":status") {
    int s = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), s).ptr == value.data() + value.size()) status.http_status = s;
  } else if (name == "grpc-status") {
    int s = -1;
    // Not a number: an unknown status (2, gRPC's UNKNOWN), so that it is not taken for success.
    if (std::from_chars(value.data(), value.data() + value.size(), s).ptr != value.data() + value.size() || s < 0) s = 2;
    status.grpc_status = s;
  } else if (name == "grpc-message") {
    // Percent-encoded (gRPC over HTTP/2): %XX is a byte; a malformed escape is kept as it is.
    status.grpc_message.clear();
    for (size_t i = 0; i < value.size(); ++i) {
      int hi = 0, lo = 0;
      if (value[i] == '%' && i + 2 < value.size() && (hi = hex_digit(value[i + 1])) >= 0 && (lo = hex_digit(value[i + 2])) >= 0) {
        status.grpc_message += static_cast<char>(hi << 4 | lo);
        i += 2;
      } else {
        status.grpc_message += value[i];
      }
    }
  }
}

}  // namespace isoscope::runner::etcd
