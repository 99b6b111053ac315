// JSON output: literals, and a writer that places the commas and colons, shared by the format
// writers and the result report.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace isoscope {

// s as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);
// A finite number as JSON (integers without a fraction); non-finite numbers become null.
std::string json_number(double d);

// Builds one JSON document into a string: open and close objects and arrays, name members with
// key(), add values; separators are placed for the caller ("a": 1, "b": [2, 3]).
class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view name);
  JsonWriter& string(std::string_view s) { return raw(json_quote(s)); }
  JsonWriter& number(double d) { return raw(json_number(d)); }
  JsonWriter& integer(int64_t i) { return raw(std::to_string(i)); }
  JsonWriter& boolean(bool b) { return raw(b ? "true" : "false"); }
  JsonWriter& null() { return raw("null"); }
  JsonWriter& raw(std::string_view json);  // a value already in JSON (a literal, a document)
  // Members in one call: key(name) then the value.
  template <class V>
  JsonWriter& member(std::string_view name, V&& v) {
    key(name);
    if constexpr (std::is_same_v<std::decay_t<V>, bool>) return boolean(v);
    else if constexpr (std::is_integral_v<std::decay_t<V>>) return integer(static_cast<int64_t>(v));
    else if constexpr (std::is_floating_point_v<std::decay_t<V>>) return number(v);
    else return string(v);
  }
  // Puts a line break before the next value (long arrays of objects stay readable).
  JsonWriter& newline() {
    newline_ = true;
    return *this;
  }
  std::string& str() { return out_; }

 private:
  JsonWriter& open(char c);
  JsonWriter& close(char c);
  void separate();
  std::string out_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false, newline_ = false;
};

// Appends the UTF-8 encoding of the code point cp (at most U+10FFFF) to out.
inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace isoscope
