// rnbguy/dbcop's text DSL:
//   // a comment
//   [x:=1 y:=2]        a committed transaction writing x = 1, y = 2
//   [x==1 y==?]!       an uncommitted (aborted) transaction reading x = 1 and the initial y
//   ---                a line of dashes separates sessions
// Operations are separated by spaces, tabs, newlines or commas; a transaction may span lines
// and a line may hold several transactions. Variables are identifiers (digits alone make an
// integer key); values are integers; `?` is the initial state, whose value is null.
#include <string>

#include "formats/formats.h"
#include "formats/reader_util.h"

namespace isoscope {
namespace {

inline bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$';
}

struct Scanner {
  const char* begin;
  const char* p;
  const char* end;

  // Skips spaces, newlines, commas and // comments. Stops at a session separator line.
  void skip() {
    while (p < end) {
      char c = *p;
      if (fmt::is_space(c) || c == ',' || c == ';') {
        ++p;
      } else if (c == '/' && p + 1 < end && p[1] == '/') {
        p = fmt::find_newline(p, end);  // a comment ends at CR, LF or CRLF
      } else {
        return;
      }
    }
  }
  // A line made of three or more dashes (trailing blanks or a comment allowed) at p.
  bool at_separator() const {
    const char* q = p;
    while (q < end && *q == '-') ++q;
    if (q - p < 3) return false;
    while (q < end && fmt::is_blank(*q)) ++q;
    return q >= end || fmt::is_newline(*q) || (*q == '/' && q + 1 < end && q[1] == '/');
  }
};

}  // namespace

bool detect_dbcop_text(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  Scanner sc{s.data(), s.data(), s.data() + std::min<size_t>(s.size(), 4096)};
  while (true) {
    sc.skip();
    if (sc.p < sc.end && sc.at_separator()) {
      sc.p = fmt::find_newline(sc.p, sc.end);
      continue;
    }
    break;
  }
  if (sc.p >= sc.end || *sc.p != '[') return false;
  ++sc.p;
  while (sc.p < sc.end && fmt::is_space(*sc.p)) ++sc.p;
  if (sc.p >= sc.end) return false;
  if (*sc.p == ']') return true;  // an empty transaction: nothing else uses "[]" this way
  const char* q = sc.p;
  while (q < sc.end && ident_char(*q)) ++q;
  if (q == sc.p || q + 1 >= sc.end) return false;
  return (q[0] == ':' && q[1] == '=') || (q[0] == '=' && q[1] == '=');
}

Expected<History> read_dbcop_text(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "dbcop-text");
  const InputFile& f = *fp;
  Scanner sc{f.bytes.data(), f.bytes.data() + fmt::bom_length(f.bytes), f.bytes.data() + f.bytes.size()};
  auto fail = [&](const char* at, std::string what) {
    return fmt::text_error(f, static_cast<size_t>(at - sc.begin),
                           std::move(what) + ", found " + fmt::found_at(at, sc.end));
  };
  HistoryBuilder b(locator);
  b.locate_with([&sc] { return static_cast<int64_t>(sc.p - sc.begin); });
  const uint32_t initial = b.values().intern_null();
  b.set_initial(initial);
  bool in_session = false;
  size_t n_txns = 0;
  while (true) {
    sc.skip();
    if (sc.p >= sc.end) break;
    if (sc.at_separator()) {
      sc.p = fmt::find_newline(sc.p, sc.end);
      in_session = false;
      continue;
    }
    if (*sc.p != '[')
      return fail(sc.p, "expected a transaction '[...]' or a session separator '---'");
    const char* txn_start = sc.p;
    ++sc.p;
    if (!in_session) {
      b.begin_session();
      in_session = true;
    }
    b.begin_txn();
    ++n_txns;
    while (true) {
      sc.skip();
      if (sc.p >= sc.end)
        return fmt::text_error(f, static_cast<size_t>(txn_start - sc.begin),
                               "this transaction is not closed: expected ']' before the end of the file");
      if (*sc.p == ']') {
        ++sc.p;
        if (sc.p < sc.end && *sc.p == '!') {
          ++sc.p;
          b.set_status(TxnStatus::Aborted);
        }
        b.end_txn();
        break;
      }
      // variable
      const char* v0 = sc.p;
      while (sc.p < sc.end && ident_char(*sc.p)) ++sc.p;
      if (sc.p == v0) return fail(sc.p, "expected a variable name or ']'");
      std::string_view var(v0, static_cast<size_t>(sc.p - v0));
      uint32_t key;
      {
        const char* q = v0;
        int64_t n;
        if (fmt::parse_i64(q, sc.p, n) && q == sc.p)
          key = b.keys().intern_int(n);
        else
          key = b.keys().intern_str(var);
      }
      bool write;
      if (sc.p + 1 < sc.end && sc.p[0] == ':' && sc.p[1] == '=')
        write = true;
      else if (sc.p + 1 < sc.end && sc.p[0] == '=' && sc.p[1] == '=')
        write = false;
      else
        return fail(sc.p, "expected ':=' (write) or '==' (read) after the variable '" + std::string(var) + "'");
      sc.p += 2;
      uint32_t value;
      if (!write && sc.p < sc.end && *sc.p == '?') {
        ++sc.p;
        value = initial;
      } else {
        int64_t n;
        if (!fmt::parse_i64(sc.p, sc.end, n))
          return fail(sc.p, write ? "expected an integer value after ':='"
                                  : "expected an integer value or '?' after '=='");
        value = b.values().intern_int(n);
      }
      if (sc.p < sc.end && !fmt::is_space(*sc.p) && *sc.p != ',' && *sc.p != ';' && *sc.p != ']' && *sc.p != '/')
        return fail(sc.p, "expected a space, ',' or ']' after the value");
      if (write)
        b.write(key, value);
      else
        b.read(key, value);
    }
  }
  if (n_txns == 0)
    return fmt::text_error(f, f.bytes.size(), "expected at least one transaction '[...]'; the file holds none");
  return b.finish("dbcop-text", f.name);
}

}  // namespace isoscope
