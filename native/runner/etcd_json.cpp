#include "runner/etcd_json.h"

#include <charconv>

#include "simdjson.h"

namespace isoscope::runner::etcd {

namespace {

constexpr const char* kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// A member that is a 64-bit integer, written as a JSON string (the gateway's way) or a number;
// 0 when absent.
bool gateway_int(simdjson::dom::object o, const char* name, int64_t& out) {
  out = 0;
  simdjson::dom::element e;
  if (o[name].get(e) != simdjson::SUCCESS) return true;
  if (e.is_int64()) return e.get_int64().get(out) == simdjson::SUCCESS;
  if (e.is_uint64()) {
    uint64_t u = 0;
    if (e.get_uint64().get(u) != simdjson::SUCCESS) return false;
    out = static_cast<int64_t>(u);
    return true;
  }
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return false;
  return std::from_chars(s.data(), s.data() + s.size(), out).ptr == s.data() + s.size();
}

bool gateway_bytes(simdjson::dom::object o, const char* name, std::string& out) {
  out.clear();
  std::string_view s;
  if (o[name].get_string().get(s) != simdjson::SUCCESS) return true;  // absent: empty
  return base64_decode(s, out);
}

bool parse_object(simdjson::dom::parser& parser, std::string_view body, simdjson::dom::object& out, std::string& error) {
  simdjson::dom::element doc;
  if (parser.parse(body.data(), body.size(), true).get(doc) != simdjson::SUCCESS || doc.get_object().get(out) != simdjson::SUCCESS) {
    error = "etcd's gateway answered what is not a JSON object: ";
    error += body.substr(0, 200);
    return false;
  }
  return true;
}

bool header_revision(simdjson::dom::object o, int64_t& revision) {
  simdjson::dom::object header;
  revision = 0;
  if (o["header"].get_object().get(header) != simdjson::SUCCESS) return false;
  return gateway_int(header, "revision", revision) && revision > 0;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 | static_cast<uint8_t>(bytes[i + 2]);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

bool base64_decode(std::string_view text, std::string& out) {
  out.clear();
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int d = base64_digit(c);
    if (d < 0) return false;
    acc = acc << 6 | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return true;
}

std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<uint8_t>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<uint8_t>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

namespace {

// The opening of a request over [key, range_end): {"key": ..., "range_end": ... (not closed).
std::string key_range_body(std::string_view key, std::string_view range_end) {
  std::string body = "{\"key\": \"";
  body += base64_encode(key);
  body += '"';
  if (!range_end.empty()) {
    body += ", \"range_end\": \"";
    body += base64_encode(range_end);
    body += '"';
  }
  return body;
}

}  // namespace

std::string range_request(std::string_view key, std::string_view range_end, int64_t revision, bool serializable, int64_t limit) {
  std::string body = key_range_body(key, range_end);
  if (revision > 0) {
    body += ", \"revision\": \"";
    body += std::to_string(revision);
    body += '"';
  }
  if (limit > 0) {
    body += ", \"limit\": \"";
    body += std::to_string(limit);
    body += '"';
  }
  if (serializable) body += ", \"serializable\": true";
  body += '}';
  return body;
}

std::string txn_request(const std::vector<Compare>& compares, const std::vector<std::pair<std::string, std::string>>& puts) {
  std::string body = "{\"compare\": [";
  for (size_t i = 0; i < compares.size(); ++i) {
    if (i) body += ", ";
    const Compare& c = compares[i];
    body += "{\"key\": \"";
    body += base64_encode(c.key);
    body += "\", \"result\": \"EQUAL\", ";
    if (c.mod_revision > 0) {
      body += "\"target\": \"MOD\", \"mod_revision\": \"";
      body += std::to_string(c.mod_revision);
    } else {
      body += "\"target\": \"CREATE\", \"create_revision\": \"0";
    }
    body += "\"}";
  }
  body += "], \"success\": [";
  for (size_t i = 0; i < puts.size(); ++i) {
    if (i) body += ", ";
    body += "{\"request_put\": {\"key\": \"";
    body += base64_encode(puts[i].first);
    body += "\", \"value\": \"";
    body += base64_encode(puts[i].second);
    body += "\"}}";
  }
  body += "]}";
  return body;
}

std::string delete_range_request(std::string_view key, std::string_view range_end) { return key_range_body(key, range_end) + '}'; }

bool parse_range_response(std::string_view body, RangeResponse& out, std::string& error) {
  out = RangeResponse{};
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!parse_object(parser, body, o, error)) return false;
  if (!header_revision(o, out.revision)) {
    error = "etcd's range reply has no header revision: ";
    error += body.substr(0, 200);
    return false;
  }
  bool more = false;
  if (o["more"].get_bool().get(more) == simdjson::SUCCESS) out.more = more;
  simdjson::dom::array kvs;
  if (o["kvs"].get_array().get(kvs) != simdjson::SUCCESS) return true;  // no key in the range
  for (simdjson::dom::element e : kvs) {
    simdjson::dom::object kv;
    KeyValue v;
    if (e.get_object().get(kv) != simdjson::SUCCESS || !gateway_bytes(kv, "key", v.key) || !gateway_bytes(kv, "value", v.value) ||
        !gateway_int(kv, "create_revision", v.create_revision) || !gateway_int(kv, "mod_revision", v.mod_revision)) {
      error = "etcd's range reply holds a key-value that is not one: ";
      error += body.substr(0, 200);
      return false;
    }
    out.kvs.push_back(std::move(v));
  }
  return true;
}

bool parse_txn_response(std::string_view body, bool& succeeded, int64_t& revision, std::string& error) {
  succeeded = false;
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!parse_object(parser, body, o, error)) return false;
  if (!header_revision(o, revision)) {
    error = "etcd's txn reply has no header revision: ";
    error += body.substr(0, 200);
    return false;
  }
  bool s = false;
  if (o["succeeded"].get_bool().get(s) == simdjson::SUCCESS) succeeded = s;
  return true;
}

bool parse_gateway_error(std::string_view body, int& code, std::string& message) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  std::string error;
  if (!parse_object(parser, body, o, error)) return false;
  std::string_view m;
  if (o["message"].get_string().get(m) != simdjson::SUCCESS && o["error"].get_string().get(m) != simdjson::SUCCESS) return false;
  int64_t c = 0;
  if (!gateway_int(o, "code", c)) return false;
  code = static_cast<int>(c);
  message = std::string(m);
  return true;
}

bool parse_version(std::string_view body, std::string& server, std::string& cluster) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  std::string error;
  if (!parse_object(parser, body, o, error)) return false;
  std::string_view s, c;
  if (o["etcdserver"].get_string().get(s) != simdjson::SUCCESS) return false;
  server = std::string(s);
  cluster = o["etcdcluster"].get_string().get(c) == simdjson::SUCCESS ? std::string(c) : "";
  return true;
}

bool parse_member_list(std::string_view body, std::vector<std::string>& members, std::string& error) {
  members.clear();
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!parse_object(parser, body, o, error)) return false;
  simdjson::dom::array list;
  if (o["members"].get_array().get(list) != simdjson::SUCCESS) {
    error = "etcd's member list has no members";
    return false;
  }
  for (simdjson::dom::element e : list) {
    simdjson::dom::object m;
    if (e.get_object().get(m) != simdjson::SUCCESS) continue;
    std::string_view name;
    std::string text = m["name"].get_string().get(name) == simdjson::SUCCESS ? std::string(name) : "?";
    text += '=';
    simdjson::dom::array urls;
    if (m["clientURLs"].get_array().get(urls) == simdjson::SUCCESS) {
      bool first = true;
      for (simdjson::dom::element u : urls) {
        std::string_view url;
        if (u.get_string().get(url) != simdjson::SUCCESS) continue;
        if (!first) text += ' ';
        text += url;
        first = false;
      }
    }
    members.push_back(std::move(text));
  }
  return true;
}

}  // namespace isoscope::runner::etcd
