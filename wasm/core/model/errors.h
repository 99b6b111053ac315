// Input errors: the core never throws (exceptions are off in the wasm build); every failure is
// a value that names where it happened and what was expected.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace isoscope {

struct InputError {
  std::string file;     // file name, "<stdin>", or "" when unknown
  int64_t line = -1;    // 1-based line for text formats, -1 when not applicable
  int64_t column = -1;  // 1-based column, -1 when not applicable
  int64_t offset = -1;  // byte offset, -1 when not applicable
  std::string message;  // what was found and what was expected
  // Set when no format was recognised: the front end offers a choice (the CLI names --format,
  // the app shows a list). `readable_as` names a format that reads the input, if one does.
  bool format_unrecognised = false;
  std::string readable_as;

  // "history.json: byte 120 (line 3, column 7): expected ',' or ']' after an operation"
  std::string to_string() const;
};

// An error with a message (and a file), nothing located.
inline InputError input_error(std::string message, std::string file = {}) {
  InputError e;
  e.file = std::move(file);
  e.message = std::move(message);
  return e;
}

// A tiny expected<T, InputError> (std::expected is C++23).
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(InputError e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }
  const InputError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, InputError> v_;
};

// Fills line/column from a byte offset into text (for formats that only know offsets).
void locate_line(std::string_view text, InputError& e);

}  // namespace isoscope
