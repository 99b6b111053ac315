// The EDN / JSON tokenizer of Jepsen histories (formats/elle.cpp), shared by the readers of
// Jepsen's transactional histories (elle) and of its object histories (jepsen.cpp): one parser
// of a history's forms, so both meet the same syntax, limits and error messages.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"

namespace isoscope::edn {

enum class NT : uint8_t { Nil, Bool, Int, Float, Str, Keyword, Symbol, Vector, List, Map, Set };

struct Node {
  NT type;
  bool escaped = false;  // Str: holds backslash escapes
  uint32_t offset = 0;
  uint32_t first = kNone, next = kNone, count = 0;  // containers: children as a linked list
  int64_t i = 0;
  double d = 0;
  std::string_view text;  // Str: raw contents; Keyword: name without ':'; Symbol, Int, Float: as written
};

// Whether the text is the JSON form (elle-cli, Jepsen's store) rather than EDN.
bool looks_like_json(std::string_view s);

// A record's :process (history-format.md): an integer names a client, :nemesis (in the JSON
// form "nemesis") the nemesis. Anything else (a string, nil, a float, another keyword, a vector)
// names neither: an input error, never taken for the nemesis and never dropped.
bool is_nemesis(const Node& process, bool json);
// The message of that error: what was expected, and what the node is.
std::string process_problem(const Node& process, bool json);
// What a node is, for messages: "the string \"1\"", "nil", "the number 1.5", "the keyword
// :client", "a vector"; long texts shortened.
std::string describe(const Node& n);

// A string body as the tokenizer validated it (\n \t \" \\ \/ \uXXXX) unescaped to UTF-8.
std::string unescape_string(std::string_view s);
// A scalar as an interned id: an integer as an integer; a keyword, a symbol or a string as a
// string (:x, x and "x" alike). False for any other node.
bool intern_scalar(const Node& n, Interner& in, uint32_t& out);

// Reads a history: a sequence of top-level forms, or one vector or list of them, each parsed
// into `nodes` (cleared per form) and handed to on_form with its root. on_form returns false
// after filling `err` (fmt::text_error at a node's offset) to stop. Returns the error, if any.
using FormFn = std::function<bool(const std::vector<Node>& nodes, uint32_t root, InputError& err)>;
std::optional<InputError> for_each_form(const InputFile& f, const FormFn& on_form);

}  // namespace isoscope::edn
