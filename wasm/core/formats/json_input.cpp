#include "formats/json_input.h"

#include <vector>

#include "formats/reader_util.h"
#include "util/printable.h"

namespace isoscope {

namespace {

std::string hex_byte(unsigned char c) {
  static const char* hex = "0123456789abcdef";
  return std::string("0x") + hex[c >> 4] + hex[c & 15];
}

// "line 3, column 7" of an offset, for messages that point back at an earlier place.
std::string line_column(std::string_view text, size_t offset) {
  InputError e;
  e.offset = static_cast<int64_t>(offset);
  locate_line(text, e);
  return "line " + std::to_string(e.line) + ", column " + std::to_string(e.column);
}

}  // namespace

std::string MemberSet::message(std::string_view text, std::string_view name, int64_t first) {
  return "a second \"" + std::string(name) + "\" member in this object (the first is at " +
         line_column(text, static_cast<size_t>(first)) + "): expected each member once";
}

std::optional<JsonProblem> find_json_problem(std::string_view text) {
  std::vector<size_t> open;  // offsets of the '[' and '{' not yet closed
  bool in_string = false, started = false;
  size_t string_start = 0, doc_end = 0;
  for (size_t i = fmt::bom_length(text); i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t n = utf8_sequence(text, i);
      if (n == 0) return JsonProblem{i, "a byte that is not UTF-8 (" + hex_byte(c) + "): expected UTF-8 text"};
      if (started && open.empty() && !in_string)
        return JsonProblem{i, "text after the end of the JSON document (which ends at " + line_column(text, doc_end) + "): expected nothing more"};
      i += n;
      continue;
    }
    if (in_string) {
      if (c < 0x20) return JsonProblem{i, "a control byte " + hex_byte(c) + " inside a string: expected it escaped (\\u00XX)"};
      if (c == '\\') {
        // An escape is a backslash and one of " \ / b f n r t u; anything else (a line end
        // above all) is named at the backslash, so the line does not depend on the line ends.
        const char e = i + 1 < text.size() ? text[i + 1] : '\0';
        if (i + 1 >= text.size() || std::string_view("\"\\/bfnrtu").find(e) == std::string_view::npos) {
          const unsigned char b = static_cast<unsigned char>(e);
          const std::string what = i + 1 >= text.size() ? std::string("the end of the file")
                                   : b < 0x20 || b >= 0x7F ? "the byte " + hex_byte(b)
                                                           : std::string("'") + e + "'";
          return JsonProblem{i, "a backslash followed by " + what +
                                    " inside a string: expected an escape \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"};
        }
        i += 2;
      } else {
        ++i;
      }
      if (c == '"') {
        in_string = false;
        if (open.empty()) doc_end = i;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      ++i;
      continue;
    }
    if (started && open.empty())
      return JsonProblem{i, "text after the end of the JSON document (which ends at " + line_column(text, doc_end) + "): expected nothing more"};
    if (c < 0x20 || c == 0x7F) return JsonProblem{i, "a control byte " + hex_byte(c) + " outside any string: expected JSON"};
    if (c == '"') {
      in_string = true;
      string_start = i;
      started = started || open.empty();
    } else if (c == '[' || c == '{') {
      open.push_back(i);
      started = true;
    } else if (c == ']' || c == '}') {
      const char opener = c == ']' ? '[' : '{';
      if (open.empty()) return JsonProblem{i, std::string("a '") + static_cast<char>(c) + "' that closes nothing: expected a value or the end of the document"};
      if (text[open.back()] != opener)
        return JsonProblem{i, std::string("a '") + static_cast<char>(c) + "' where the '" + text[open.back()] +
                                  "' opened at " + line_column(text, open.back()) + " is still open: expected '" +
                                  (text[open.back()] == '[' ? ']' : '}') + "'"};
      open.pop_back();
      if (open.empty()) doc_end = i + 1;
    } else {
      // A scalar: at the top level it is the whole document.
      if (open.empty()) {
        started = true;
        while (i < text.size() && std::string_view(" \n\r\t,:]}[{\"").find(text[i]) == std::string_view::npos) ++i;
        doc_end = i;
        continue;
      }
    }
    ++i;
  }
  if (in_string)
    return JsonProblem{text.size(), "the file ends inside the string opened at " + line_column(text, string_start) +
                                        ": expected its closing '\"' (the document is cut short)"};
  if (!open.empty())
    return JsonProblem{text.size(), "the file ends inside the " + std::string(text[open.back()] == '[' ? "array" : "object") +
                                        " opened at " + line_column(text, open.back()) + " (" +
                                        std::to_string(open.size()) + " still open): expected '" + (text[open.back()] == '[' ? ']' : '}') +
                                        "' (the document is cut short)"};
  return std::nullopt;
}

}  // namespace isoscope
