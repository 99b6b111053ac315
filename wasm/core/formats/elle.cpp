// Jepsen / Elle histories: a sequence (or one vector) of operation maps
//   {:type :invoke, :f :txn, :value [[:append :x 1] [:r :y nil]], :process 0, :time 10, :index 0}
//   {:type :ok,     :f :txn, :value [[:append :x 1] [:r :y [1 2]]], :process 0, :time 25, :index 1}
// in EDN (history.edn, also with #jepsen.history.Op{...} tags) or in elle-cli's JSON form
// ({"type": "ok", "f": "txn", "value": [["append", "x", 1], ["r", "y", [1, 2]]], ...}, one
// object a line or one array). Micro-ops: [:append k v], [:r k [v1 .. vn]] (list-append),
// [:w k v], [:r k v] (rw-register).
//   :ok = committed, :fail = aborted, :info = unknown; an invocation with no completion is
//   unknown as well. The session is the :process; an op without :process is a session of its
//   own, and an op without :f is a transaction, as in Elle. Ops of the :nemesis (in JSON
//   "nemesis") are not transactions: they are counted in dropped_events; a :process that is
//   neither an integer nor the nemesis is an input error. The invocation's and the completion's
//   :time become the transaction's start and end. The label is the completion's :index.
//   A read whose result is nil: in a committed transaction it reads the initial state (an empty
//   list in a list-append history); in an aborted or unknown one the result was never observed,
//   so the read is left out.
// One reader serves both syntaxes: in JSON mode ':' is a separator and "null" is nil.
// The list prefix-compatibility check lives in checkers/list_order.cpp.
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

bool looks_json(std::string_view s);

enum class MK : uint8_t { Read, NilRead, Write, Append, ListRead };
struct MicroOp {
  MK kind;
  uint32_t key, value;
  uint32_t list_begin = 0, list_size = 0;
};
struct PendingTxn {
  int64_t process = 0;
  // No :process: a session of its own. A flag, not a reserved process id, so no :process value
  // can ever merge with it.
  bool anonymous = false;
  TxnStatus status = TxnStatus::Unknown;
  bool completed = false;
  Time start, end;  // where has_start / has_end
  bool has_start = false, has_end = false;
  int64_t index = 0;
  bool has_index = false;  // a flag: every int64 is an :index a history may hold
  uint32_t op_begin = 0, op_end = 0;
  uint32_t unobserved = 0;  // nil reads left out of [op_begin, op_end): results never observed
  uint32_t line_offset = 0;
};

class Converter {
 public:
  explicit Converter(const InputFile& f) : f_(f), json_(looks_json(f.bytes.substr(fmt::bom_length(f.bytes)))) {
    b.locate_with([this] { return static_cast<int64_t>(txn_offset_); });  // a transaction's form
    null_ = b.values().intern_null();
    b.set_initial(null_);
  }
  HistoryBuilder b;
  uint32_t txn_offset_ = 0;  // where the transaction being built was completed

  bool fail(const Node& n, std::string what) {
    *err_ = fmt::text_error(f_, n.offset, std::move(what));
    return false;
  }

  // The value of a key of map. A key the reader uses may appear only once (the one rule of
  // every JSON and EDN reader: neither the first nor the last silently wins); a second one is
  // kept in dup_ for the caller to report.
  const Node* field(const Node& map, std::string_view name) {
    const Node* found = nullptr;
    for (uint32_t c = map.first; c != kNone;) {
      const Node& k = nodes()[c];
      uint32_t v = k.next;
      if ((k.type == NT::Keyword || k.type == NT::Str || k.type == NT::Symbol) && k.text == name) {
        if (!found) found = &nodes()[v];
        else if (!dup_second_) dup_first_ = found, dup_second_ = &k, dup_name_ = name;
      }
      c = nodes()[v].next;
    }
    return found;
  }
  bool duplicate_key() {
    if (!dup_second_) return false;
    // dup_first_ is the first value; its key precedes it.
    fail(*dup_second_, "the key " + std::string(dup_name_) + " appears twice in this map (first at line " +
                           line_of(dup_first_->offset) + "): expected each key once");
    return true;  // reported
  }
  const Node* dup_first_ = nullptr;
  const Node* dup_second_ = nullptr;
  std::string_view dup_name_;
  static bool is_name(const Node* n, std::string_view name) {
    return n && (n->type == NT::Keyword || n->type == NT::Str || n->type == NT::Symbol) && n->text == name;
  }

  bool scalar(const Node& n, Interner& in, uint32_t& out, const char* what) {
    switch (n.type) {
      case NT::Int: out = in.intern_int(n.i); return true;
      case NT::Keyword:
      case NT::Symbol: out = in.intern_str(n.text); return true;
      case NT::Str: out = n.escaped ? in.intern_str(unescape(n.text)) : in.intern_str(n.text); return true;
      default: return fail(n, std::string("expected ") + what + " (an integer, a string or a keyword)");
    }
  }

  // Converts an op's :value into micro-ops appended to ops_. status: of the op carrying them.
  bool micro_ops(const Node& value, bool observed) {
    if (value.type == NT::Nil) return true;
    if (value.type != NT::Vector && value.type != NT::List)
      return fail(value, "expected :value to be a vector of micro-ops such as [:append k v] or [:r k v]");
    for (uint32_t c = value.first; c != kNone; c = nodes()[c].next) {
      const Node& m = nodes()[c];
      if ((m.type != NT::Vector && m.type != NT::List) || m.count != 3)
        return fail(m, "expected a micro-op [f k v] with f one of :append, :r, :w");
      const Node& fn = nodes()[m.first];
      const Node& kn = nodes()[fn.next];
      const Node& vn = nodes()[kn.next];
      MicroOp op{};
      if (!scalar(kn, b.keys(), op.key, "a key")) return false;
      if (is_name(&fn, "append") || is_name(&fn, "w")) {
        op.kind = is_name(&fn, "append") ? MK::Append : MK::Write;
        if (op.kind == MK::Append) has_lists_ = true;
        if (vn.type == NT::Nil) return fail(vn, "expected the value to write, found nil");
        if (!scalar(vn, b.values(), op.value, "a value")) return false;
      } else if (is_name(&fn, "r")) {
        if (vn.type == NT::Nil) {
          if (!observed) {  // an unobserved result: not a read
            ++unobserved_;
            continue;
          }
          op.kind = MK::NilRead;
          op.value = null_;
        } else if (vn.type == NT::Vector || vn.type == NT::List) {
          has_lists_ = true;
          op.kind = MK::ListRead;
          op.list_begin = static_cast<uint32_t>(list_values_.size());
          for (uint32_t e = vn.first; e != kNone; e = nodes()[e].next) {
            uint32_t v;
            if (!scalar(nodes()[e], b.values(), v, "a list element")) return false;
            list_values_.push_back(v);
          }
          op.list_size = static_cast<uint32_t>(list_values_.size() - op.list_begin);
        } else {
          op.kind = MK::Read;
          if (!scalar(vn, b.values(), op.value, "a value")) return false;
        }
      } else {
        return fail(fn, "expected the micro-op function :append, :r or :w");
      }
      ops_.push_back(op);
    }
    return true;
  }

  // :time, exactly as written (model/time.h): never through a double.
  bool time_of(const Node* n, Time& out, bool& has) {
    if (!n) return true;
    if (n->type != NT::Int && n->type != NT::Float) return fail(*n, "expected :time to be a number");
    if (TimeParse p = parse_time(n->text, out); p != TimeParse::Ok)
      return fail(*n, "expected :time to be a finite number within 64 bits, found " + std::string(n->text.substr(0, 40)) +
                          (n->text.size() > 40 ? "..." : "") + ", which " + time_parse_problem(p));
    has = true;
    return true;
  }

  // Handles one top-level form (an op map).
  bool op(const std::vector<Node>& form, uint32_t root, InputError& err) {
    nodes_ = &form;
    err_ = &err;
    const Node& m = nodes()[root];
    if (m.type != NT::Map) return fail(m, "expected an operation map {:type .., :f .., :value .., :process ..}");
    const Node* type = field(m, "type");
    const Node* process = field(m, "process");
    const Node* f = field(m, "f");
    const Node* value = field(m, "value");
    if (duplicate_key()) return false;
    if (!type) return fail(m, "the operation lacks :type");
    if (process && process->type != NT::Int) {
      // The nemesis: not a client transaction; counted, never silently dropped. Any other
      // :process names neither (history-format.md): an error, never taken for the nemesis.
      if (!edn::is_nemesis(*process, json_)) return fail(*process, edn::process_problem(*process, json_));
      ++dropped_not_client_;
      return true;
    }
    // Like Elle, an operation without :f is a transaction (its :value lists the micro-ops).
    if (f && !is_name(f, "txn"))
      return fail(*f, "expected :f :txn (only transactional histories are supported)");
    // Without :process, an operation is a session of its own (no session order to follow, no
    // invocation to pair with).
    const bool anonymous = !process;
    const int64_t proc = anonymous ? 0 : process->i;
    Time time;
    bool has_time = false;
    if (!time_of(field(m, "time"), time, has_time)) return false;
    const Node* index = field(m, "index");
    if (duplicate_key()) return false;
    // :index is Jepsen's number of the record (the label reports show): an integer, any one.
    if (index && index->type != NT::Int) return fail(*index, "expected :index to be an integer, found " + edn::describe(*index));
    const bool invoke = is_name(type, "invoke");
    TxnStatus status;
    if (invoke)
      status = TxnStatus::Unknown;
    else if (is_name(type, "ok"))
      status = TxnStatus::Committed;
    else if (is_name(type, "fail"))
      status = TxnStatus::Aborted;
    else if (is_name(type, "info"))
      status = TxnStatus::Unknown;
    else
      return fail(*type, "expected :type to be :invoke, :ok, :fail or :info");

    auto pending = anonymous ? pending_.end() : pending_.find(proc);
    if (invoke) {
      if (pending != pending_.end())
        return fail(m, "process " + std::to_string(proc) +
                           " invokes a transaction while its previous invocation (line " +
                           line_of(txns_[pending->second].line_offset) + ") has not completed");
      PendingTxn t;
      t.process = proc;
      t.anonymous = anonymous;
      t.start = time;
      t.has_start = has_time;
      t.line_offset = m.offset;
      if (index) t.index = index->i, t.has_index = true;
      t.op_begin = static_cast<uint32_t>(ops_.size());
      unobserved_ = 0;
      if (!value || !micro_ops(*value, false)) return value ? false : fail(m, "the operation lacks :value");
      t.op_end = static_cast<uint32_t>(ops_.size());
      t.unobserved = unobserved_;
      if (!anonymous) pending_[proc] = static_cast<uint32_t>(txns_.size());
      txns_.push_back(t);
      return true;
    }
    // A completion: pairs with the process's pending invocation, if any.
    uint32_t ti;
    if (pending != pending_.end()) {
      ti = pending->second;
      pending_.erase(pending);
    } else {
      ti = static_cast<uint32_t>(txns_.size());
      PendingTxn t;
      t.process = proc;
      t.anonymous = anonymous;
      t.line_offset = m.offset;
      txns_.push_back(t);
    }
    PendingTxn& t = txns_[ti];
    t.completed = true;
    t.status = status;
    t.end = time;
    t.has_end = has_time;
    // One rule for every format (docs/formats.md, Times): a transaction cannot end before it
    // starts.
    if (t.has_start && t.has_end)
      if (std::string why = interval_problem(t.start, t.end); !why.empty())
        return fail(*field(m, "time"), "expected the completion's :time to be no earlier than the invocation's (line " +
                                           line_of(t.line_offset) + "): " + why);
    if (index) t.index = index->i, t.has_index = true;
    if (value && value->type != NT::Nil) {  // the completion's value replaces the invocation's
      uint32_t b0 = static_cast<uint32_t>(ops_.size());
      unobserved_ = 0;
      if (!micro_ops(*value, status == TxnStatus::Committed)) return false;
      txns_[ti].op_begin = b0;
      txns_[ti].op_end = static_cast<uint32_t>(ops_.size());
      txns_[ti].unobserved = unobserved_;
    } else if (!value && !invoke) {
      return fail(m, "the operation lacks :value");
    }
    return true;
  }

  Expected<History> finish() {
    if (txns_.empty())
      return fmt::text_error(f_, f_.bytes.size(), "expected at least one :f :txn operation of a client process; found none");
    // Sessions: processes in ascending order, then each operation without :process in file
    // order; transactions in invocation order.
    std::vector<uint32_t> order(txns_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) {
      const PendingTxn &x = txns_[a], &y = txns_[c];
      return x.anonymous != y.anonymous ? y.anonymous : !x.anonymous && x.process < y.process;
    });
    b.reserve(txns_.size(), ops_.size());
    const PendingTxn* prev = nullptr;
    for (uint32_t ti : order) {
      const PendingTxn& t = txns_[ti];
      txn_offset_ = t.line_offset;
      if (!prev || t.anonymous || prev->anonymous || t.process != prev->process) b.begin_session();
      prev = &t;
      b.begin_txn();
      b.set_status(t.status);
      if (t.has_index) b.set_label(std::to_string(t.index));
      if (t.has_start && t.has_end) b.set_time(t.start, t.end);
      for (uint32_t i = t.op_begin; i < t.op_end; ++i) {
        const MicroOp& o = ops_[i];
        switch (o.kind) {
          case MK::Read: b.read(o.key, o.value); break;
          case MK::NilRead:
            if (has_lists_)
              b.list_read(o.key, {});
            else
              b.read(o.key, o.value);
            break;
          case MK::Write: b.write(o.key, o.value); break;
          case MK::Append: b.append(o.key, o.value); break;
          case MK::ListRead:
            b.list_read(o.key, std::span<const uint32_t>(list_values_.data() + o.list_begin, o.list_size));
            break;
        }
      }
      b.end_txn();
    }
    b.add_dropped(History::kNotClients, dropped_not_client_);
    size_t unobserved = 0;
    for (const PendingTxn& t : txns_) unobserved += t.unobserved;
    b.add_dropped("reads whose result was never observed (nil in a transaction that failed or may not have run)", unobserved);
    return b.finish("elle", f_.name);
  }

 private:
  std::string line_of(uint32_t offset) {
    InputError e;
    e.offset = offset;
    locate_line(f_.bytes, e);
    return std::to_string(e.line);
  }

  const std::vector<Node>& nodes() const { return *nodes_; }

  const InputFile& f_;
  const bool json_;  // the JSON form: the nemesis is "nemesis"
  const std::vector<Node>* nodes_ = nullptr;  // the form op() is converting
  InputError* err_ = nullptr;
  uint32_t null_;
  bool has_lists_ = false;
  std::vector<MicroOp> ops_;
  std::vector<uint32_t> list_values_;
  std::vector<PendingTxn> txns_;
  std::unordered_map<int64_t, uint32_t> pending_;  // process -> its invoked, uncompleted txn
  size_t dropped_not_client_ = 0;  // operations of non-client processes (:nemesis)
  uint32_t unobserved_ = 0;  // nil reads micro_ops left out of the ops it just read
};

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

bool detect_elle(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  std::string_view head = s.substr(0, 4096);
  // :process and :f are optional (Elle reads histories without them); :type and :value are not.
  if (looks_json(s))
    return head.find("\"type\"") != std::string_view::npos && head.find("\"value\"") != std::string_view::npos;
  size_t i = 0;
  while (i < s.size()) {  // white space, commas and ; comment lines
    if (fmt::is_space(s[i]) || s[i] == ',') {
      ++i;
    } else if (s[i] == ';') {
      while (i < s.size() && !fmt::is_newline(s[i])) ++i;
    } else {
      break;
    }
  }
  if (i >= s.size() || (s[i] != '{' && s[i] != '[' && s[i] != '(' && s[i] != '#')) return false;
  head = s.substr(i, 4096);
  return head.find(":type") != std::string_view::npos && head.find(":value") != std::string_view::npos;
}

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

}  // namespace edn

Expected<History> read_elle(std::span<const InputFile> files) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "elle");
  const InputFile& f = *fp;
  Converter conv(f);
  if (std::optional<InputError> err = edn::for_each_form(
          f, [&](const std::vector<Node>& nodes, uint32_t root, InputError& e) { return conv.op(nodes, root, e); }))
    return std::move(*err);
  return conv.finish();
}

}  // namespace isoscope
