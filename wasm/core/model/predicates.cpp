#include "model/predicates.h"

#include <cctype>
#include <charconv>

namespace isoscope {

namespace {

class PredicateParser {
 public:
  explicit PredicateParser(std::string_view s) : s_(s) {}

  ParsedPredicate run() {
    ParsedPredicate out;
    skip();
    if (word("true")) {
      skip();
      if (i_ != s_.size()) return fail("the end of the predicate after \"true\"");
      out.predicate.text = "true";
      return out;
    }
    while (true) {
      Condition c;
      if (!condition(c)) return std::move(result_);
      out.predicate.all.push_back(std::move(c));
      skip();
      if (i_ == s_.size()) break;
      if (!word("and")) return fail("\"and\" or the end of the predicate");
    }
    out.predicate.text = canonical(out.predicate);
    return out;
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  // A keyword, case-insensitive, not followed by a letter.
  bool word(std::string_view w) {
    skip();
    if (s_.size() - i_ < w.size()) return false;
    for (size_t k = 0; k < w.size(); ++k)
      if (std::tolower(static_cast<unsigned char>(s_[i_ + k])) != w[k]) return false;
    const size_t e = i_ + w.size();
    if (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) return false;
    i_ = e;
    return true;
  }
  bool symbol(std::string_view w) {
    skip();
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  ParsedPredicate fail(const std::string& expected) {
    result_.error = "expected " + expected + " at column " + std::to_string(i_ + 1) + " of the predicate \"" +
                    std::string(s_.substr(0, 200)) + "\"";
    return result_;
  }
  bool literal(Literal& l) {
    skip();
    if (i_ < s_.size() && (s_[i_] == '\'' || s_[i_] == '"')) {
      const char q = s_[i_++];
      l.is_int = false;
      while (i_ < s_.size() && s_[i_] != q) l.s += s_[i_++];
      if (i_ == s_.size()) return fail("a closing quote"), false;
      ++i_;
      return true;
    }
    size_t e = i_ + (i_ < s_.size() && s_[i_] == '-');
    while (e < s_.size() && std::isdigit(static_cast<unsigned char>(s_[e]))) ++e;
    const auto r = std::from_chars(s_.data() + i_, s_.data() + e, l.i);
    if (r.ec != std::errc() || r.ptr != s_.data() + e)
      return fail("an integer (of 64 bits) or a quoted string"), false;
    l.is_int = true;
    i_ = e;
    return true;
  }
  bool integer(Literal& l, const char* what) {
    const size_t at = i_;
    if (!literal(l)) return false;
    if (!l.is_int) return i_ = at, fail(what), false;
    return true;
  }
  bool condition(Condition& c) {
    if (word("key")) c.on_key = true;
    else if (word("value")) c.on_key = false;
    else return fail("\"key\" or \"value\""), false;
    skip();
    if (symbol("%")) {
      Literal m, r;
      if (!integer(m, "an integer divisor after %")) return false;
      if (m.i == 0) return fail("a divisor other than 0"), false;
      if (symbol("!=") || symbol("<>")) c.op = Condition::Op::ModNe;
      else if (symbol("=")) c.op = Condition::Op::ModEq;
      else return fail("= or != after the divisor"), false;
      if (!integer(r, "an integer remainder")) return false;
      c.args = {m, r};
      return true;
    }
    if (word("in")) {
      if (!symbol("(")) return fail("( after in"), false;
      do {
        Literal l;
        if (!literal(l)) return false;
        c.args.push_back(std::move(l));
      } while (symbol(","));
      if (!symbol(")")) return fail(", or ) in the list"), false;
      c.op = Condition::Op::In;
      return true;
    }
    if (word("between")) {
      Literal lo, hi;
      if (!literal(lo)) return false;
      if (!word("and")) return fail("\"and\" in between ... and ..."), false;
      if (!literal(hi)) return false;
      c.op = Condition::Op::Between;
      c.args = {lo, hi};
      return true;
    }
    static constexpr std::pair<std::string_view, Condition::Op> kOps[] = {
        {"<=", Condition::Op::Le}, {">=", Condition::Op::Ge}, {"!=", Condition::Op::Ne}, {"<>", Condition::Op::Ne},
        {"=", Condition::Op::Eq},  {"<", Condition::Op::Lt},  {">", Condition::Op::Gt}};
    bool found = false;
    for (const auto& [sym, op] : kOps)
      if (symbol(sym)) {
        c.op = op;
        found = true;
        break;
      }
    if (!found) return fail("a comparison (= != < <= > >=), %, in or between"), false;
    Literal l;
    if (!literal(l)) return false;
    c.args = {std::move(l)};
    return true;
  }

  static std::string lit_text(const Literal& l) {
    if (l.is_int) return std::to_string(l.i);
    return "'" + l.s + "'";
  }
  static std::string canonical(const Predicate& p) {
    std::string t;
    for (const Condition& c : p.all) {
      if (!t.empty()) t += " and ";
      t += c.on_key ? "key" : "value";
      switch (c.op) {
        case Condition::Op::ModEq:
        case Condition::Op::ModNe:
          t += " % " + lit_text(c.args[0]) + (c.op == Condition::Op::ModEq ? " = " : " != ") + lit_text(c.args[1]);
          break;
        case Condition::Op::In:
          t += " in (";
          for (size_t k = 0; k < c.args.size(); ++k) t += (k ? ", " : "") + lit_text(c.args[k]);
          t += ")";
          break;
        case Condition::Op::Between: t += " between " + lit_text(c.args[0]) + " and " + lit_text(c.args[1]); break;
        default: {
          static constexpr const char* kSym[] = {" = ", " != ", " < ", " <= ", " > ", " >= "};
          t += kSym[static_cast<int>(c.op)];
          t += lit_text(c.args[0]);
        }
      }
    }
    return t;
  }

  std::string_view s_;
  size_t i_ = 0;
  ParsedPredicate result_;
};

// -1, 0, 1, or 2 when a and b cannot be compared (an integer and a string).
int compare(const Interner& in, uint32_t id, const Literal& l) {
  const Interner::Kind k = in.kind(id);
  if (k == Interner::Kind::Int && l.is_int) {
    const int64_t a = in.as_int(id);
    return a < l.i ? -1 : a > l.i ? 1 : 0;
  }
  if (k == Interner::Kind::Str && !l.is_int) {
    const int c = in.as_str(id).compare(l.s);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  return 2;
}

bool holds(const Condition& c, const Interner& in, uint32_t id) {
  using Op = Condition::Op;
  switch (c.op) {
    case Op::Eq: return compare(in, id, c.args[0]) == 0;
    case Op::Ne: return compare(in, id, c.args[0]) != 0;
    case Op::Lt: return compare(in, id, c.args[0]) == -1;
    case Op::Le: { const int r = compare(in, id, c.args[0]); return r == -1 || r == 0; }
    case Op::Gt: return compare(in, id, c.args[0]) == 1;
    case Op::Ge: { const int r = compare(in, id, c.args[0]); return r == 1 || r == 0; }
    case Op::ModEq:
    case Op::ModNe: {
      if (in.kind(id) != Interner::Kind::Int) return false;
      const int64_t a = in.as_int(id), m = c.args[0].i;
      // INT64_MIN % -1 overflows in C++; its remainder is 0.
      const int64_t r = m == -1 ? 0 : a % m;
      return (r == c.args[1].i) == (c.op == Op::ModEq);
    }
    case Op::In:
      for (const Literal& l : c.args)
        if (compare(in, id, l) == 0) return true;
      return false;
    case Op::Between: {
      const int lo = compare(in, id, c.args[0]), hi = compare(in, id, c.args[1]);
      return (lo == 0 || lo == 1) && (hi == 0 || hi == -1);
    }
  }
  return false;
}

}  // namespace

ParsedPredicate parse_predicate(std::string_view text) { return PredicateParser(text).run(); }

bool predicate_matches(const Predicate& p, const Interner& keys, uint32_t key, const Interner& values, uint32_t value) {
  if (values.kind(value) == Interner::Kind::Null) return false;
  for (const Condition& c : p.all)
    if (!(c.on_key ? holds(c, keys, key) : holds(c, values, value))) return false;
  return true;
}

}  // namespace isoscope
