// Jepsen's log lines (the jepsen-log format; jepsen.cpp's header shows one), read into the same
// object history as jepsen.cpp's operation maps.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>
#include "formats/edn.h"
#include "formats/formats.h"
#include "formats/reader_util.h"
#include "formats/jepsen_events.h"

namespace isoscope {

// ---- Jepsen log lines -----------------------------------------------------------------------

namespace {
constexpr std::string_view kLogMark = "jepsen.util - ";

// The operation of one log line after "jepsen.util - ": process, type, f and value separated
// by white space. Returns false (err set) when it is malformed; nemesis: the line is the
// nemesis's (no client operation; e is not filled).
bool log_event(const InputFile& f, Collector& c, std::string_view line, size_t at, Event& e, bool& nemesis, InputError& err) {
  size_t i = 0;
  auto field = [&]() {
    while (i < line.size() && fmt::is_blank(line[i])) ++i;
    const size_t b = i;
    if (i < line.size() && line[i] == '[') {
      while (i < line.size() && line[i] != ']') ++i;
      if (i < line.size()) ++i;
    } else {
      while (i < line.size() && !fmt::is_blank(line[i])) ++i;
    }
    return line.substr(b, i - b);
  };
  auto bad = [&](std::string what) {
    err = fmt::text_error(f, at, std::move(what));
    return false;
  };
  const std::string_view proc = field(), type = field(), fn = field(), value = field();
  nemesis = false;
  const char* p = proc.data();
  if (!fmt::parse_i64(p, proc.data() + proc.size(), e.process) || p != proc.data() + proc.size()) {
    if (proc == ":nemesis") return nemesis = true;
    return bad("expected a process number (a client's) or :nemesis after 'jepsen.util - ', found '" +
               std::string(proc.substr(0, 40)) + (proc.size() > 40 ? "...'" : "'"));
  }
  if (type == ":invoke") e.type = kInvoke;
  else if (type == ":ok") e.type = kOk;
  else if (type == ":fail") e.type = kFail;
  else if (type == ":info") e.type = kInfo;
  else return bad("expected :invoke, :ok, :fail or :info after the process");
  if (fn == ":read") e.fn = ObjFn::Read;
  else if (fn == ":write") e.fn = ObjFn::Write;
  else if (fn == ":cas") e.fn = ObjFn::Cas;
  else return bad("expected :read, :write or :cas after the type");
  e.offset = static_cast<uint32_t>(at);
  Interner& vals = c.builder().values();
  auto scalar = [&](std::string_view t, uint32_t& out) {
    if (t == "nil") {
      out = c.null_value();
      return true;
    }
    const char* q = t.data();
    int64_t v;
    if (fmt::parse_i64(q, t.data() + t.size(), v) && q == t.data() + t.size()) {
      out = vals.intern_int(v);
      return true;
    }
    return false;
  };
  const bool args = e.type == kInvoke || e.type == kOk;  // :fail/:info values are errors (:timed-out)
  if (e.fn == ObjFn::Read) {
    if (e.type == kOk && !scalar(value, e.a)) return bad("expected the value read (an integer or nil)");
  } else if (e.fn == ObjFn::Write) {
    if (args && (!scalar(value, e.a) || e.a == c.null_value())) return bad("expected the value written (an integer)");
  } else if (args || (e.type == kFail && !value.empty() && value[0] == '[')) {
    std::string_view v = value;
    if (v.size() < 2 || v.front() != '[' || v.back() != ']') return bad("expected a compare-and-set's [from to]");
    v = v.substr(1, v.size() - 2);
    size_t j = 0;
    while (j < v.size() && !fmt::is_blank(v[j])) ++j;
    std::string_view from = v.substr(0, j), to = v.substr(j);
    while (!to.empty() && fmt::is_blank(to.front())) to.remove_prefix(1);
    if (!scalar(from, e.a) || !scalar(to, e.b)) return bad("expected a compare-and-set's [from to] of integers");
  }
  return true;
}
}  // namespace

bool detect_jepsen_log(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes), 4096);
  const size_t at = s.find(kLogMark);
  if (at == std::string_view::npos) return false;
  size_t i = at + kLogMark.size();
  if (s.substr(i).starts_with(":nemesis")) i += 8;  // a log may begin with the nemesis's lines
  else {
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && fmt::is_digit(s[i])) ++i;
  }
  while (i < s.size() && fmt::is_blank(s[i])) ++i;
  return s.substr(i).starts_with(":invoke") || s.substr(i).starts_with(":ok") || s.substr(i).starts_with(":fail") ||
         s.substr(i).starts_with(":info");
}

Expected<History> read_jepsen_log(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "jepsen-log");
  const InputFile& f = *fp;
  Collector c(f, locator);
  std::string_view s = f.bytes;
  size_t pos = fmt::bom_length(s);
  bool any = false;
  const char* const end = s.data() + s.size();
  while (pos < s.size()) {
    // LF, CRLF and CR-only line ends alike.
    const char* eol = fmt::find_newline(s.data() + pos, end);
    std::string_view line = s.substr(pos, static_cast<size_t>(eol - (s.data() + pos)));
    const size_t mark = line.find(kLogMark);
    if (mark == std::string_view::npos) {
      bool blank = true;
      for (char ch : line) blank = blank && fmt::is_blank(ch);
      if (!blank) c.not_an_operation();
    } else {
      Event e;
      bool nemesis = false;  // a flag: every int64 is a process a log may name
      InputError err;
      const size_t at = pos + mark + kLogMark.size();
      if (!log_event(f, c, line.substr(mark + kLogMark.size()), at, e, nemesis, err)) return err;
      if (nemesis) c.not_a_client();
      else if (!c.add(e, err)) return err;
      any = true;
    }
    if (eol == end) break;
    pos = static_cast<size_t>(fmt::past_newline(eol, end) - s.data());
  }
  if (!any) return fmt::text_error(f, 0, "expected Jepsen log lines such as 'INFO jepsen.util - 0 :invoke :read nil'; found none");
  return c.finish("jepsen-log");
}

}  // namespace isoscope
