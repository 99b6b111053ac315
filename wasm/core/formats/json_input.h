// An input file as simdjson reads it: with SIMDJSON_PADDING readable bytes past the end.
// When the caller allocated them (InputFile::padding: the CLI and the wasm API do) the file is
// read in place; otherwise it is copied once. Internal to the JSON readers.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "formats/formats.h"
#include "simdjson.h"

namespace isoscope {

class JsonInput {
 public:
  explicit JsonInput(const InputFile& f) {
    if (f.padding >= simdjson::SIMDJSON_PADDING) {
      view_ = simdjson::padded_string_view(f.bytes.data(), f.bytes.size(), f.bytes.size() + f.padding);
    } else {
      copy_ = simdjson::padded_string(f.bytes.data(), f.bytes.size());
      view_ = copy_;
    }
  }
  JsonInput(const JsonInput&) = delete;
  JsonInput& operator=(const JsonInput&) = delete;

  const simdjson::padded_string_view& view() const { return view_; }
  const char* data() const { return view_.data(); }

 private:
  simdjson::padded_string copy_;
  simdjson::padded_string_view view_;
};

// The members of one JSON object that a reader uses, as they are met. One rule for every JSON
// and EDN reader: such a member given twice is an error naming both places (neither the first
// nor the last silently wins, and nothing is concatenated).
class MemberSet {
 public:
  // The offset of an earlier member called name, or -1 (then this one is recorded).
  int64_t earlier(std::string_view name, int64_t offset) {
    for (int i = 0; i < n_; ++i)
      if (names_[i] == name) return at_[i];
    if (n_ < kMax) names_[n_] = name, at_[n_++] = offset;
    return -1;
  }
  // "a second \"ops\" member (the first is at line 3, column 5): expected each member once"
  static std::string message(std::string_view text, std::string_view name, int64_t first);

 private:
  static constexpr int kMax = 8;
  std::string_view names_[kMax];
  int64_t at_[kMax];
  int n_ = 0;
};

// Where a JSON text goes wrong, found by a plain scan of its bytes. simdjson reports some
// errors for the document as a whole (bytes that are not UTF-8, an unescaped control byte, a
// document cut short, text after its end) with no place, or at byte 0; the readers ask this
// scan for the place and the words. nullopt: the scan sees nothing wrong (the error is
// about the content, which the reader reports itself).
struct JsonProblem {
  size_t offset;
  std::string message;
};
std::optional<JsonProblem> find_json_problem(std::string_view text);

// The simdjson errors whose place find_json_problem finds better than simdjson does.
inline bool is_json_text_error(simdjson::error_code e) {
  return e == simdjson::UTF8_ERROR || e == simdjson::UNESCAPED_CHARS || e == simdjson::TAPE_ERROR ||
         e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::UNCLOSED_STRING ||
         e == simdjson::TRAILING_CONTENT || e == simdjson::STRING_ERROR;
}

}  // namespace isoscope
