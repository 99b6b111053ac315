// The EDN reader both Jepsen readers share (edn.h): a tokenizer and parser of EDN forms into
// flat Nodes, which also reads elle-cli's JSON (':' a separator, "null" nil), one form at a
// time, with the line and column of every error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>
#include "formats/edn.h"
#include "formats/formats.h"
#include "formats/reader_util.h"
#include "util/json.h"

namespace isoscope {
namespace {

using edn::NT;
using edn::Node;

constexpr int kMaxDepth = 64;

// The value of a hexadecimal digit, or 16 for any other character.
unsigned hex_digit(char h) {
  return h >= '0' && h <= '9' ? unsigned(h - '0') : h >= 'a' && h <= 'f' ? unsigned(h - 'a' + 10)
         : h >= 'A' && h <= 'F' ? unsigned(h - 'A' + 10) : 16u;
}

class Reader {
 public:
  Reader(const InputFile& f, bool json)
      : f_(f), begin_(f.bytes.data()), p_(begin_ + fmt::bom_length(f.bytes)), end_(begin_ + f.bytes.size()),
        json_(json) {}

  std::vector<Node> nodes;
  InputError err;

  const char* begin() const { return begin_; }
  const char* pos() const { return p_; }
  const char* end() const { return end_; }
  void set_pos(const char* p) { p_ = p; }
  bool json() const { return json_; }

  void skip() {
    while (p_ < end_) {
      char c = *p_;
      if (fmt::is_space(c) || c == ',' || (json_ && c == ':'))
        ++p_;
      else if (!json_ && c == ';')
        p_ = fmt::find_newline(p_, end_);  // a comment ends at CR, LF or CRLF
      else
        return;
    }
  }

  bool fail(const char* at, std::string what) {
    err = fmt::text_error(f_, static_cast<size_t>(at - begin_), std::move(what) + ", found " + fmt::found_at(at, end_));
    return false;
  }

  // Skips white space, comments and discarded forms (#_ form) at the current position. A run of
  // discards is a loop, not a recursion, so its length is unbounded; a discard of a discard
  // (#_ #_ a b) nests, and counts toward the depth limit like any other nesting.
  bool skip_discards(int depth) {
    while (true) {
      skip();
      if (json_ || end_ - p_ < 2 || p_[0] != '#' || p_[1] != '_') return true;
      p_ += 2;
      uint32_t ignored;
      const size_t mark = nodes.size();
      if (!parse(ignored, depth + 1)) return false;
      nodes.resize(mark);
    }
  }

  // Parses one form at the current position into nodes; out = its index. Every construct that
  // nests (collections, and discards inside discards) adds one to depth, which stops at
  // kMaxDepth with a located error: the native stack and wasm's 5 MB one never run out.
  bool parse(uint32_t& out, int depth = 0) {
    if (depth > kMaxDepth) return fail(p_, "values nest too deeply (more than 64 levels)");
    // Tags (#inst "...", #jepsen.history.Op{...}) are dropped: a run of them is a loop too.
    while (true) {
      if (!skip_discards(depth)) return false;
      if (json_ || end_ - p_ < 2 || p_[0] != '#' || !symbol_char(p_[1]) || p_[1] == '_' || p_[1] == '#') break;
      ++p_;
      while (p_ < end_ && symbol_char(*p_)) ++p_;
    }
    if (p_ >= end_) return fail(p_, "expected a value");
    const char* start = p_;
    char c = *p_;
    Node n;
    n.offset = static_cast<uint32_t>(start - begin_);
    switch (c) {
      case '{':
      case '[':
      case '(': {
        ++p_;
        n.type = c == '{' ? NT::Map : c == '[' ? NT::Vector : NT::List;
        return parse_children(n, c == '{' ? '}' : c == '[' ? ']' : ')', out, depth);
      }
      case '}':
      case ']':
      case ')':
        return fail(p_, "expected a value");
      case '"': {
        ++p_;
        const char* s = p_;
        while (p_ < end_ && *p_ != '"') {
          if (*p_ == '\\') {
            n.escaped = true;
            if (!escape()) return false;
            continue;
          }
          if (json_ && static_cast<unsigned char>(*p_) < 0x20)
            return fail(p_, "a control character inside a string: expected it escaped (\\n, \\t, \\u00XX)");
          ++p_;
        }
        if (p_ >= end_) return fail(start, "this string is not closed: expected '\"' before the end of the file");
        n.type = NT::Str;
        n.text = std::string_view(s, static_cast<size_t>(p_ - s));
        ++p_;
        break;
      }
      case '#': {
        if (json_) return fail(p_, "expected a JSON value");
        ++p_;
        if (p_ < end_ && *p_ == '{') {
          ++p_;
          n.type = NT::Set;
          return parse_children(n, '}', out, depth);
        }
        if (p_ < end_ && *p_ == '#') {  // a symbolic value: ##Inf, ##-Inf, ##NaN
          const char* t = ++p_;
          while (p_ < end_ && symbol_char(*p_)) ++p_;
          const std::string_view name(t, static_cast<size_t>(p_ - t));
          if (name != "Inf" && name != "-Inf" && name != "NaN") {
            if (name.empty()) return fail(p_, "expected a symbolic value ##Inf, ##-Inf or ##NaN");
            // Name the whole symbol ("found '##Foo'"), not its first '#'.
            err = fmt::text_error(f_, static_cast<size_t>(start - begin_),
                                  "expected a symbolic value ##Inf, ##-Inf or ##NaN, found '##" +
                                      std::string(name.substr(0, 40)) + (name.size() > 40 ? "...'" : "'"));
            return false;
          }
          n.type = NT::Float;
          n.d = name == "NaN" ? NAN : name == "Inf" ? INFINITY : -INFINITY;
          n.text = std::string_view(start, static_cast<size_t>(p_ - start));
          break;
        }
        // Discards and tags were consumed above: anything else after '#' is no EDN.
        return fail(p_, "expected a tag, '{' or '_' after '#'");
      }
      case ':':
        if (!json_) {
          ++p_;
          const char* s = p_;
          while (p_ < end_ && symbol_char(*p_)) ++p_;
          if (p_ == s) return fail(p_, "expected a keyword name after ':'");
          n.type = NT::Keyword;
          n.text = std::string_view(s, static_cast<size_t>(p_ - s));
          break;
        }
        [[fallthrough]];
      default: {
        if (fmt::is_digit(c) || ((c == '-' || c == '+') && p_ + 1 < end_ && fmt::is_digit(p_[1]))) {
          if (!number(n)) return false;
          break;
        }
        const char* s = p_;
        if (c == '\\' && !json_) ++p_;  // a character literal such as \a
        while (p_ < end_ && symbol_char(*p_)) ++p_;
        if (p_ == s) return fail(p_, json_ ? "expected a JSON value" : "expected an EDN value");
        std::string_view sym(s, static_cast<size_t>(p_ - s));
        if (sym == "nil" || sym == "null")
          n.type = NT::Nil;
        else if (sym == "true" || sym == "false") {
          n.type = NT::Bool;
          n.i = sym == "true";
        } else {
          if (json_) return fail(s, "expected a JSON value");
          n.type = NT::Symbol;
          n.text = sym;
        }
      }
    }
    out = static_cast<uint32_t>(nodes.size());
    nodes.push_back(n);
    return true;
  }

  static bool symbol_char(char c) {
    return !(fmt::is_space(c) || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' ||
             c == '}' || c == '"' || c == ';');
  }

 private:
  bool parse_children(Node& n, char close, uint32_t& out, int depth) {
    const char* open_at = p_ - 1;
    out = static_cast<uint32_t>(nodes.size());
    nodes.push_back(n);
    uint32_t last = kNone;
    while (true) {
      if (!skip_discards(depth + 1)) return false;  // [1 #_2] holds one element
      if (p_ >= end_)
        return fail(open_at, std::string("this '") + *open_at + "' is not closed: expected '" + close +
                                 "' before the end of the file");
      if (*p_ == close) {
        ++p_;
        break;
      }
      uint32_t child;
      if (!parse(child, depth + 1)) return false;
      if (last == kNone)
        nodes[out].first = child;
      else
        nodes[last].next = child;
      last = child;
      ++nodes[out].count;
    }
    if (nodes[out].type == NT::Map && nodes[out].count % 2 != 0)
      return fail(open_at, "this map has a key without a value");
    return true;
  }

  bool number(Node& n) {
    const char* s = p_;
    const char* q = p_;
    if (*q == '+') ++q;
    int64_t v;
    const char* digits = q;
    bool is_int = fmt::parse_i64(q, end_, v);
    if (is_int && (q >= end_ || !symbol_char(*q) || *q == 'N')) {
      if (q < end_ && *q == 'N') ++q;
      n.type = NT::Int;
      n.i = v;
      n.text = std::string_view(s, static_cast<size_t>(q - s));
      p_ = q;
      return true;
    }
    if (!fmt::overflowing_integer(digits, end_).empty())
      return fail(digits, "expected an integer");  // fail() says what was found: the digits, too many
    // A float: up to the end of the token.
    q = digits;
    while (q < end_ && symbol_char(*q)) ++q;
    char buf[64];
    size_t len = static_cast<size_t>(q - s);
    if (len >= sizeof buf) return fail(s, "expected a number of at most 63 characters");
    std::copy(s, q, buf);
    buf[len] = 0;
    if (len && buf[len - 1] == 'M') buf[--len] = 0;
    char* e = nullptr;
    double d = std::strtod(buf, &e);
    if (e != buf + len) return fail(s, "expected a number");
    n.type = NT::Float;
    n.d = d;
    n.text = std::string_view(s, static_cast<size_t>(q - s));
    p_ = q;
    return true;
  }

  const InputFile& f_;
  // At a backslash inside a string: checks the escape (JSON's and EDN's: \" \\ \/ \b \f \n \r
  // \t and \uXXXX with exactly four hex digits, a UTF-16 surrogate only as a high-low pair) and
  // steps over it. Anything else is an error at the backslash, never a guess.
  bool escape() {
    const char* at = p_++;
    if (p_ >= end_) return fail(at, "this string is not closed: expected '\"' before the end of the file");
    const char e = *p_++;
    if (e != 'u') {
      if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) return true;
      return fail(at, std::string("an unknown escape '\\") + printable(e) +
                          "' in a string: expected \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX");
    }
    unsigned cp = 0;
    if (!hex4(cp)) return fail(at, "an escape \\u needs exactly four hex digits");
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(at, "a lone low surrogate \\u" + hex(cp) + ": expected it after a high surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      unsigned low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u' || (p_ += 2, !hex4(low)) || low < 0xDC00 || low > 0xDFFF)
        return fail(at, "a lone high surrogate \\u" + hex(cp) + ": expected a low surrogate \\uDC00..\\uDFFF after it");
    }
    return true;
  }
  bool hex4(unsigned& cp) {
    for (int k = 0; k < 4; ++k, ++p_) {
      if (p_ >= end_) return false;
      const unsigned d = hex_digit(*p_);
      if (d == 16) return false;
      cp = cp * 16 + d;
    }
    return true;
  }
  static std::string hex(unsigned cp) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04X", cp);
    return buf;
  }
  static std::string printable(char c) {
    if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F) return std::string(1, c);
    char buf[8];
    std::snprintf(buf, sizeof buf, "x%02X", static_cast<unsigned char>(c));
    return buf;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  bool json_;
};

// Unescapes a JSON/EDN string body that the tokenizer has validated (\n \t \" \\ \/ \uXXXX,
// surrogate pairs included) into UTF-8.
std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex4 = [&](size_t at) {
    unsigned cp = 0;
    for (size_t k = at; k < at + 4; ++k) cp = cp * 16 + hex_digit(s[k]);  // validated by the tokenizer
    return cp;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        unsigned cp = hex4(i + 1);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: its low one follows (validated)
          cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(i + 3) - 0xDC00);
          i += 6;
        }
        append_utf8(out, cp);
        break;
      }
      default: out += e;
    }
  }
  return out;
}

bool looks_json(std::string_view s) {
  size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && fmt::is_space(s[i])) ++i;
  };
  ws();
  if (i < s.size() && s[i] == '[') {
    ++i;
    ws();
  }
  if (i >= s.size() || s[i] != '{') return false;
  ++i;
  ws();
  return i < s.size() && s[i] == '"';
}

}  // namespace

namespace edn {

bool looks_like_json(std::string_view s) { return looks_json(s); }

bool is_nemesis(const Node& n, bool json) {
  return n.text == "nemesis" && (json ? n.type == NT::Str && !n.escaped : n.type == NT::Keyword);
}

std::string describe(const Node& n) {
  auto cut = [](std::string_view t) { return t.size() > 40 ? std::string(t.substr(0, 40)) + "..." : std::string(t); };
  switch (n.type) {
    case NT::Nil: return "nil";
    case NT::Bool: return n.i ? "true" : "false";
    case NT::Int:
    case NT::Float: return "the number " + cut(n.text);
    case NT::Str: return "the string \"" + cut(n.text) + "\"";
    case NT::Keyword: return "the keyword :" + cut(n.text);
    case NT::Symbol: return "the symbol " + cut(n.text);
    case NT::Vector: return "a vector";
    case NT::List: return "a list";
    case NT::Map: return "a map";
    case NT::Set: return "a set";
  }
  return "something else";
}

std::string process_problem(const Node& n, bool json) {
  return std::string("expected :process to be a client's number (an integer) or ") + (json ? "\"nemesis\"" : ":nemesis") +
         ", found " + describe(n);
}
std::string unescape_string(std::string_view s) { return unescape(s); }

std::optional<InputError> for_each_form(const InputFile& f, const FormFn& on_form) {
  Reader r(f, looks_json(f.bytes.substr(fmt::bom_length(f.bytes))));
  if (!r.skip_discards(0)) return r.err;
  // A top-level vector or list of ops is read one op at a time (no whole-file tree).
  bool wrapped = false;
  char close = 0;
  if (r.pos() < r.end() && (*r.pos() == '[' || *r.pos() == '(')) {
    const char* q = r.pos() + 1;
    while (q < r.end() && (fmt::is_space(*q) || *q == ',')) ++q;
    if (q >= r.end() || *q == '{' || *q == '#' || *q == ']' || *q == ')') {
      wrapped = true;
      close = *r.pos() == '[' ? ']' : ')';
      r.set_pos(r.pos() + 1);
    }
  }
  const char* open_at = r.pos() - 1;
  while (true) {
    if (!r.skip_discards(0)) return r.err;
    if (r.pos() >= r.end()) {
      if (wrapped) {
        r.fail(open_at, std::string("the history's '") + *open_at + "' is not closed: expected '" + close + "'");
        return r.err;
      }
      break;
    }
    if (wrapped && *r.pos() == close) {
      r.set_pos(r.pos() + 1);
      if (!r.skip_discards(0)) return r.err;
      if (r.pos() < r.end()) {
        r.fail(r.pos(), "expected the end of the file after the history");
        return r.err;
      }
      break;
    }
    r.nodes.clear();
    uint32_t root;
    if (!r.parse(root)) return r.err;
    if (!on_form(r.nodes, root, r.err)) return r.err;
  }
  return std::nullopt;
}

bool intern_scalar(const Node& n, Interner& in, uint32_t& out) {
  switch (n.type) {
    case NT::Int: out = in.intern_int(n.i); return true;
    case NT::Keyword:
    case NT::Symbol: out = in.intern_str(n.text); return true;
    case NT::Str: out = n.escaped ? in.intern_str(unescape_string(n.text)) : in.intern_str(n.text); return true;
    default: return false;
  }
}

}  // namespace edn


}  // namespace isoscope
