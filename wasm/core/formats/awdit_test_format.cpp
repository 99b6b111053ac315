// AWDIT's test format: one operation a line, `r K V` or `w K V`; a line of dashes (`-----`)
// ends a transaction, a line of equals signs (`=====`) ends a session. Blank lines are ignored,
// as are empty transactions and sessions (AWDIT's own parser skips them too).
// There is no implicit initial transaction: initial writes are explicit, so every read must
// name a write (set_initial(nullopt)).
#include <string>

#include "formats/formats.h"
#include "formats/reader_util.h"

namespace isoscope {
namespace {

using fmt::is_blank;

enum class Kind { Empty, Op, TxnSep, SessSep, Error };

struct AwditLine {
  bool write;
  int64_t key, value;
};

// Scans one line at p; p ends past its newline (unless Error).
inline Kind scan_line(const char*& p, const char* end, AwditLine& out, const char*& err_at,
                      const char*& what) {
  const char* q = p;
  while (q < end && is_blank(*q)) ++q;
  if (q >= end || fmt::is_newline(*q)) {
    p = q < end ? fmt::past_newline(q, end) : q;
    return Kind::Empty;
  }
  Kind kind;
  if (*q == '-' || *q == '=') {
    char c = *q;
    while (q < end && *q == c) ++q;
    kind = c == '-' ? Kind::TxnSep : Kind::SessSep;
  } else {
    if (*q == 'r' || *q == 'R')
      out.write = false;
    else if (*q == 'w' || *q == 'W')
      out.write = true;
    else {
      err_at = q;
      what = "expected an operation 'r K V' or 'w K V', or a separator line '-----' or '====='";
      return Kind::Error;
    }
    ++q;
    if (q >= end || !is_blank(*q)) {
      err_at = q;
      what = "expected a space after the operation letter";
      return Kind::Error;
    }
    while (q < end && is_blank(*q)) ++q;
    if (!fmt::parse_i64(q, end, out.key)) {
      err_at = q;
      what = "expected an integer key";
      return Kind::Error;
    }
    if (q >= end || !is_blank(*q)) {
      err_at = q;
      what = "expected a space after the key";
      return Kind::Error;
    }
    while (q < end && is_blank(*q)) ++q;
    if (!fmt::parse_i64(q, end, out.value)) {
      err_at = q;
      what = "expected an integer value";
      return Kind::Error;
    }
    kind = Kind::Op;
  }
  while (q < end && is_blank(*q)) ++q;
  if (q < end && !fmt::is_newline(*q)) {
    err_at = q;
    what = kind == Kind::Op ? "expected the end of the line after the value"
                            : "expected the end of the line after the separator";
    return Kind::Error;
  }
  p = q < end ? fmt::past_newline(q, end) : q;
  return kind;
}

}  // namespace

bool detect_awdit_test(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  const char* p = s.data();
  const char* end = p + s.size();
  if (s.size() > 4096) {
    end = p + 4096;
    end = fmt::last_whole_line_end(p, end);
  }
  int ops = 0, lines = 0;
  while (p < end && lines < 16) {
    AwditLine l;
    const char* err_at;
    const char* what;
    Kind k = scan_line(p, end, l, err_at, what);
    if (k == Kind::Error) return false;
    if (k == Kind::Empty) continue;
    ++lines;
    if (k == Kind::Op) ++ops;
  }
  return ops > 0;
}

Expected<History> read_awdit_test(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "awdit-test");
  const InputFile& f = *fp;
  const char* begin = f.bytes.data();
  const char* p = begin + fmt::bom_length(f.bytes);
  const char* end = begin + f.bytes.size();

  HistoryBuilder b(locator);
  b.set_initial(std::nullopt);
  b.reserve(f.bytes.size() / 40 + 1, f.bytes.size() / 8 + 1);
  Interner& keys = b.keys();
  Interner& values = b.values();
  bool in_session = false, in_txn = false;
  const char* line_at = p;  // where the line being read starts
  b.locate_with([&] { return static_cast<int64_t>(line_at - begin); });
  while (p < end) {
    line_at = p;
    AwditLine l;
    const char* err_at = nullptr;
    const char* what = nullptr;
    switch (scan_line(p, end, l, err_at, what)) {
      case Kind::Empty: break;
      case Kind::Error:
        return fmt::text_error(f, static_cast<size_t>(err_at - begin),
                               std::string(what) + ", found " + fmt::found_at(err_at, end));
      case Kind::TxnSep:
        if (in_txn) b.end_txn();
        in_txn = false;
        break;
      case Kind::SessSep:
        if (in_txn) b.end_txn();
        in_txn = false;
        in_session = false;
        break;
      case Kind::Op:
        if (!in_session) {
          b.begin_session();
          in_session = true;
        }
        if (!in_txn) {
          b.begin_txn();
          in_txn = true;
        }
        if (l.write)
          b.write(keys.intern_int(l.key), values.intern_int(l.value));
        else
          b.read(keys.intern_int(l.key), values.intern_int(l.value));
        break;
    }
  }
  if (b.num_ops() == 0)
    return fmt::text_error(f, f.bytes.size(),
                           "expected at least one operation 'r K V' or 'w K V'; the file holds none");
  return b.finish("awdit-test", f.name);
}

}  // namespace isoscope
