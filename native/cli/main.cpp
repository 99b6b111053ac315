// The `isoscope` command (docs/cli.md): a thin layer over the core library.
#include <algorithm>
#include <cmath>
#include <new>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli/exit_status.h"
#include "model/anomaly_kinds.h"
#include "checkers/check.h"
#include "formats/formats.h"
#include "formats/history_set.h"
#include "generate/db_sim.h"
#include "generate/inject.h"
#include "generate/list_append.h"
#include "generate/mt_history.h"
#include "generate/random_history.h"
#include "generate/register_history.h"
#include "formats/text_sink.h"
#include "report/result_json.h"
#include "util/json.h"
#include "util/printable.h"

namespace fs = std::filesystem;
using namespace isoscope;

// `isoscope run` (run_command.cpp).
int run_database_command(int argc, char** argv, long long (*peak_rss)());

namespace {

const char* kUsage =
    "usage:\n"
    "  isoscope check [--level L[,L...]] [--format F] [--json] [--budget-ms N]\n"
    "                 [--max-anomalies N] [--max-input-bytes N] [--unique-values]\n"
    "                 [--initial VALUE] PATH|-\n"
    "  isoscope --version\n"
    "  isoscope convert --to isoscope|plume|jepsen [--format F] PATH|- OUT|-\n"
    "  isoscope anomalies [--json]   the anomaly vocabulary: every kind the checkers report\n"
    "  isoscope formats [--json]     the history formats that check and convert read\n"
    "  isoscope levels [--json]      the isolation levels: what each promises, what each implies\n"
    "  isoscope generate [--sessions N] [--txns N] [--ops N|MIN-MAX] [--keys N]\n"
    "                 [--read-ratio R] [--dist uniform|zipf|hotspot] [--abort-ratio R]\n"
    "                 [--unknown-ratio R] [--timestamps] [--single-op] [--labels]\n"
    "                 [--target serial|level=L|inject=ANOMALY|random] [--seed S]\n"
    "                 [--list-append] [--value-range N]\n"
    "                 [--format isoscope|plume] OUT|-\n"
    "  isoscope generate --engine ser|si|rc [--mix cobra|polysi|random|RO,WO,RMW]\n"
    "                 [--inject ANOMALY] [--sessions N] [--txns N] [--ops N|MIN-MAX] ... OUT|-\n"
    "                 a concurrent database (OCC / snapshot isolation / read committed), with timestamps\n"
    "  isoscope generate --mt serial|si|rc|stale [--sessions N] [--txns N] [--keys N] ... OUT|-\n"
    "                 mini-transactions (MTC's MT workload), with timestamps\n"
    "  isoscope generate --lwt [--stale-ratio R] [--sessions N] [--txns N] [--keys N] ... OUT|-\n"
    "                 lightweight transactions (compare-and-set, insert-if-not-exists) for LIN\n"
    "  isoscope generate --register [--no-cas] [--stale-ratio R] [--unknown-ratio R] [--sessions N]\n"
    "                 [--txns N] [--keys N] [--seed S] OUT|-\n"
    "                 a Jepsen register / cas-register history (EDN) for LIN: linearizable by\n"
    "                 construction, or not when --stale-ratio > 0 plants stale reads (the first\n"
    "                 line says which)\n"
    "  isoscope run [TARGET] [--isolation LEVEL] [--list-append|--mt|--lwt] [--mix M] [--sessions N]\n"
    "                 [--txns N] [--keys N] [--nemesis kill] [--out FILE] [--json] ...\n"
    "                 drives a database (postgresql://, mariadb://, mysql://, sqlite:PATH), records\n"
    "                 the history and checks it (isoscope run --help)\n"
    "\n"
    "levels: RC RR RA CC PC SI SER SSER WCC CCv CM LIN (default: every level that applies)\n"
    "PATH may be a file, a directory (Cobra logs, a dbcop history folder), a zip of such\n"
    "files, a gzip of one file (archives are recognised by content), or - for stdin.\n"
    "exit status: 0 every checked level passes, 1 some level fails, 2 input or usage error,\n"
    "             3 nothing fails but some level is unknown\n";

// Every message to standard error goes through here: it quotes paths, keys and ids from the
// input, which are printed without the control bytes a terminal would act on.
void complain(const std::string& msg) { std::fprintf(stderr, "isoscope: %s\n", printable(msg).c_str()); }

// An input error for the terminal; when no format was recognised, how to choose one.
void print_input_error(const InputError& e) {
  std::string hint;
  if (!e.readable_as.empty()) hint = ": pass --format " + e.readable_as + " to read it so";
  else if (e.format_unrecognised) hint = ". Pass --format to choose one.";
  complain(e.to_string() + hint);
}

int usage_error(const std::string& msg) {
  complain(msg);
  std::fprintf(stderr, "\n%s", kUsage);
  return kExitInput;
}

// Text for people on standard output (the check report): printable, lines kept.
void print_text(const std::string& text) {
  const std::string out = printable(text, /*keep_lines=*/true);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

constexpr size_t kReadPadding = 64;

// The bytes of every file of an input; InputFile views point into `storage`.
struct LoadedInput {
  std::vector<std::string> storage;
  std::vector<InputFile> files;
};

// Plain input larger than this is refused (--max-input-bytes raises it): a stream without end,
// such as an endless pipe, must not grow until the machine runs out of memory.
uint64_t g_max_input_bytes = uint64_t{4} << 30;

// Reads a whole stream in large blocks (istream iterators are byte-at-a-time); at most
// g_max_input_bytes (too_large says when there was more).
bool read_whole(std::FILE* f, std::string& out, bool& too_large) {
  out.clear();
  too_large = false;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (out.size() + n > g_max_input_bytes) {
      too_large = true;
      return false;
    }
    out.append(buf, n);
  }
  return !std::ferror(f);
}

std::string too_large_message(const std::string& name) {
  return name + ": the input is larger than " + std::to_string(g_max_input_bytes) +
         " bytes; pass --max-input-bytes N to read more";
}

// The files of a directory's subfolders, a few levels deep: a set of histories keeps one per
// folder (dbcop's hist-00000/, Jepsen's store/TEST/TIME/, a folder of Cobra runs). Skipped as
// at the top level: dot entries (.git, .DS_Store) and __MACOSX; a pipe, socket or device is an
// error naming it.
bool collect_nested(const std::string& dir, std::vector<std::string>& paths, std::string& error) {
  constexpr int kMaxDepth = 3;
  constexpr size_t kMaxFiles = 20000;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string base = p.filename().string();
    std::error_code entry_ec;
    const bool is_dir = it->is_directory(entry_ec);
    if (skipped_in_folder(base)) {
      if (is_dir) it.disable_recursion_pending();
      continue;
    }
    if (is_dir) {
      if (it.depth() + 1 >= kMaxDepth) it.disable_recursion_pending();
      continue;
    }
    if (it.depth() == 0) continue;  // the top level is listed by the caller
    if (!it->is_regular_file(entry_ec)) {
      error = p.string() + ": not a regular file (a pipe, a socket, a device or a broken link)";
      return false;
    }
    if (paths.size() >= kMaxFiles) {
      error = dir + ": more than " + std::to_string(kMaxFiles) + " files in its folders";
      return false;
    }
    paths.push_back(p.string());
  }
  if (ec) {
    error = dir + ": cannot list its folders: " + ec.message();
    return false;
  }
  return true;
}

bool load_input(const std::string& path, LoadedInput& input, std::string& error) {
  std::vector<std::string> names;
  if (path == "-") {
    input.storage.emplace_back();
    bool too_large = false;
    errno = 0;
    if (!read_whole(stdin, input.storage.back(), too_large)) {
      error = too_large ? too_large_message("<stdin>")
                        : std::string("<stdin>: could not read standard input") + (errno ? std::string(": ") + std::strerror(errno) : std::string());
      return false;
    }
    names.push_back("<stdin>");
  } else {
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      error = path + ": no such file or directory";
      return false;
    }
    std::vector<std::string> paths;
    if (fs::is_directory(st)) {
      // Every entry counts: a link that leads nowhere or in a circle is an error, not a session
      // silently left out.
      fs::directory_iterator it(path, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        // Dot files (.DS_Store) and __MACOSX are skipped unopened, as in zips and dropped folders.
        if (skipped_in_folder(p.filename().string())) continue;
        std::error_code entry_ec;
        const fs::file_status target = fs::status(p, entry_ec);
        if (entry_ec || !fs::exists(target)) {
          error = p.string() + ": " + (fs::is_symlink(fs::symlink_status(p, entry_ec)) ? "a symbolic link to nothing (or a loop of links)" : "cannot be read: " + entry_ec.message());
          return false;
        }
        if (fs::is_regular_file(target)) {
          paths.push_back(p.string());
        } else if (!fs::is_directory(target)) {
          // A pipe, socket or device (or a link to one, such as /dev/zero named T4.log) would block
          // or never end: refused by name, never opened.
          const fs::file_type t = target.type();
          error = p.string() + ": " +
                  (t == fs::file_type::fifo     ? "a named pipe (FIFO)"
                   : t == fs::file_type::socket ? "a socket"
                   : t == fs::file_type::character || t == fs::file_type::block ? "a device"
                                                                                 : "a special file") +
                  (fs::is_symlink(fs::symlink_status(p, entry_ec)) ? " behind a symbolic link" : "") +
                  ", not a regular file: a folder's files must be regular files (remove it, or check the files one by one)";
          return false;
        }
      }
      if (ec) {
        error = path + ": cannot list the directory: " + ec.message();
        return false;
      }
      if (!collect_nested(path, paths, error)) return false;
      std::sort(paths.begin(), paths.end());
      if (paths.empty()) {
        error = path + ": the directory holds no files (expected Cobra *.log files or a dbcop history.bincode)";
        return false;
      }
    } else if (fs::is_regular_file(st)) {
      paths.push_back(path);
    } else {
      error = path + ": not a regular file or a directory (a device, a pipe or a socket); to read a stream, pass - and redirect it";
      return false;
    }
    for (const std::string& p : paths) {
      input.storage.emplace_back();
      errno = 0;
      std::FILE* f = std::fopen(p.c_str(), "rb");
      int read_errno = errno;
      std::error_code size_ec;
      const auto size = fs::file_size(p, size_ec);
      // The extra bytes let the JSON readers parse in place (InputFile::padding).
      if (!size_ec && size > g_max_input_bytes) {
        if (f) std::fclose(f);
        error = too_large_message(p);
        return false;
      }
      if (!size_ec) input.storage.back().reserve(static_cast<size_t>(size) + kReadPadding);
      bool too_large = false;
      if (f) errno = 0;
      const bool ok = f && read_whole(f, input.storage.back(), too_large);
      if (f) {
        if (!ok) read_errno = errno;
        std::fclose(f);
      }
      if (!ok) {
        // The reason from the system: permission denied, an I/O error, a directory...
        error = too_large ? too_large_message(p)
                          : p + ": cannot read the file" + (read_errno ? std::string(": ") + std::strerror(read_errno) : std::string());
        return false;
      }
      names.push_back(p);
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    std::string& bytes = input.storage[i];
    input.files.push_back({names[i], bytes, bytes.capacity() - bytes.size()});
  }
  return true;
}

// A finite non-negative number (no inf, nan or trailing characters).
bool parse_count(const char* s, double& out) {
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end && end != s && *end == '\0' && std::isfinite(out) && out >= 0;
}
// A whole number from 0 to max.
bool parse_whole(const char* s, double max, double& out) {
  return parse_count(s, out) && out <= max && out == std::floor(out);
}

// Peak resident set size of this program. VmHWM, unlike getrusage's ru_maxrss, starts afresh
// at exec, so a parent's memory (a benchmark driver that forked us) is not counted.
long long peak_rss_bytes() {
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long long kb = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
    std::fclose(f);
    if (kb >= 0) return kb * 1024;
  }
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<long long>(ru.ru_maxrss) * 1024;
}

// The worst of two exit statuses: an input error, then a failure, then unknown, then a pass.
int worse(int a, int b) {
  auto rank = [](int s) { return s == kExitInput ? 3 : s == kExitFail ? 2 : s == kExitUnknown ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

// A set of histories (formats/history_set.h): each is read and checked on its own. Text: a
// table, one row per history (its size, a verdict per level, the time); --json: one object
// {"histories": [...]}, each entry the result `check --json` gives for that history alone plus
// its "history" name, or its "error". The exit status is the worst of them.
int check_set(const std::string& path, const LoadedInput& input, const std::vector<HistoryPart>& parts,
              const CheckOptions& opts, bool json, const InputOptions& input_opts) {
  int status = kExitPass;
  std::string out = json ? "{\"histories\": [\n" : "";
  std::vector<std::vector<std::string>> rows;
  std::vector<int> shown_levels;
  for (size_t k = 0; k < parts.size(); ++k) {
    const HistoryPart& part = parts[k];
    std::vector<InputFile> files;
    uint64_t bytes = 0;
    for (uint32_t i : part.files) files.push_back(input.files[i]), bytes += input.files[i].bytes.size();
    const double t0 = now_ms();
    Expected<History> h = read_history(files, "");
    const double parse_ms = now_ms() - t0;
    if (h)
      if (std::optional<InputError> e = apply_input_options(*h, files, input_opts)) h = std::move(*e);
    if (json && k) out += ",\n";
    if (!h) {
      status = worse(status, kExitInput);
      if (json) out += "{\"history\": " + json_quote(part.name) + ", \"error\": " + error_json(h.error()) + "}";
      else rows.push_back({part.name, std::to_string(bytes), "error: " + h.error().to_string()});
      continue;
    }
    CheckReport report = check_history(*h, opts);
    status = worse(status, exit_status(report));
    if (json) {
      const std::string r = report_json(*h, report, parse_ms);
      out += "{\"history\": " + json_quote(part.name) + ", " + r.substr(1, r.size() - 2);
      continue;
    }
    double ms = parse_ms;
    std::vector<std::string> row = {part.name, std::to_string(h->num_txns()) + " txns"};
    for (int i = 0; i < kNumLevels; ++i) {
      if (!report.requested[i]) continue;
      if (std::find(shown_levels.begin(), shown_levels.end(), i) == shown_levels.end()) shown_levels.push_back(i);
      ms += report.results[i].ms;
    }
    for (int i = 0; i < kNumLevels; ++i)
      row.push_back(report.requested[i] ? verdict_name(report.results[i].verdict) : "");
    char t[32];
    std::snprintf(t, sizeof t, "%.1f ms", ms);
    row.push_back(t);
    rows.push_back(std::move(row));
  }
  if (json) {
    out += "\n]}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return status;
  }
  std::sort(shown_levels.begin(), shown_levels.end());
  std::printf("%s: %zu histories\n", path.c_str(), parts.size());
  size_t name_w = 7;
  for (const auto& r : rows) name_w = std::max(name_w, r[0].size());
  std::printf("%-*s %12s", static_cast<int>(name_w), "history", "size");
  for (int i : shown_levels) std::printf(" %-7s", level_name(static_cast<Level>(i)));
  std::printf(" %10s\n", "time");
  for (const auto& r : rows) {
    std::printf("%-*s %12s", static_cast<int>(name_w), r[0].c_str(), r[1].c_str());
    if (r.size() == 3) {  // could not be read
      std::printf(" %s\n", r[2].c_str());
      continue;
    }
    for (int i : shown_levels) std::printf(" %-7s", r[2 + i].c_str());
    std::printf(" %10s\n", r.back().c_str());
  }
  return status;
}

int run_check(int argc, char** argv) {
  CheckOptions opts;
  std::string format, path;
  bool json = false, have_path = false;
  InputOptions input_opts;  // --unique-values, --initial
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return kExitPass;
    } else if (a == "--max-input-bytes") {
      const char* v = next();
      double n;
      if (!v || !parse_whole(v, 1e15, n)) return usage_error("--max-input-bytes needs a whole number of bytes");
      g_max_input_bytes = static_cast<uint64_t>(n);
    } else if (a == "--json") {
      json = true;
    } else if (a == "--unique-values") {
      input_opts.unique_values = true;
    } else if (a == "--initial") {
      const char* v = next();
      if (!v || !*v) return usage_error("--initial needs the value every object starts with (an integer, nil or a string)");
      input_opts.initial = v;
    } else if (a == "--level" || a == "--levels") {
      const char* v = next();
      if (!v) return usage_error("--level needs a value such as RC,SER");
      const std::string wrong = parse_level_list(v, opts.levels);
      if (!wrong.empty()) return usage_error("--level: " + wrong);
    } else if (a == "--format") {
      const char* v = next();
      if (!v) return usage_error("--format needs a format name");
      format = v;
      if (!find_format(format)) {
        std::string known;
        for (const FormatInfo& f : all_formats()) known += std::string(" ") + f.name;
        return usage_error("unknown format '" + format + "'; known formats:" + known);
      }
    } else if (a == "--budget-ms") {
      const char* v = next();
      if (!v || !parse_count(v, opts.budget_ms)) return usage_error("--budget-ms needs a non-negative number");
    } else if (a == "--max-anomalies") {
      const char* v = next();
      double n;
      if (!v || !parse_whole(v, 1e9, n)) return usage_error("--max-anomalies needs a whole number from 0 to 1000000000");
      opts.max_anomalies = static_cast<size_t>(n);
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      return usage_error("unknown option '" + a + "'");
    } else if (!have_path) {
      path = a;
      have_path = true;
    } else {
      return usage_error("more than one PATH given ('" + path + "' and '" + a + "')");
    }
  }
  if (!have_path) return usage_error("check needs a PATH (or - for stdin)");

  LoadedInput input;
  std::string error;
  if (!load_input(path, input, error)) {
    complain(error);
    return kExitInput;
  }
  if (format.empty()) {
    std::vector<HistoryPart> parts = split_histories(input.files);
    if (parts.size() >= 2) return check_set(path, input, parts, opts, json, input_opts);
  }
  const double t0 = now_ms();
  Expected<History> h = read_history(input.files, format);
  const double parse_ms = now_ms() - t0;
  if (!h) {
    print_input_error(h.error());
    return kExitInput;
  }
  if (const std::optional<InputError> e = apply_input_options(*h, input.files, input_opts)) {
    print_input_error(*e);
    return kExitInput;
  }
  CheckReport report = check_history(*h, opts);
  if (json) {
    // Peak resident memory of the whole run, for benchmarks (the wasm module reports its heap).
    const std::string out = report_json(*h, report, parse_ms, static_cast<int64_t>(peak_rss_bytes()));
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    char counts[200];
    std::snprintf(counts, sizeof counts, ", %zu sessions, %zu transactions, %zu operations, %zu keys (parsed in %.1f ms)\n",
                  h->num_sessions(), h->num_txns(), h->num_ops(), h->keys.size(), parse_ms);
    std::string text = path + ": " + h->format + counts;
    for (const History::Dropped& d : h->dropped)
      text += "left out: " + std::to_string(d.count) + " " + d.reason + "\n";
    if (input_opts.initial) text += "every object starts as " + h->values.display(h->registers.initial) + " (--initial)\n";
    if (h->repeated_pairs)
      text += "repeated values: " + std::to_string(h->repeated_pairs) +
              " (key, value) pairs written more than once; " + std::to_string(h->ambiguous.size()) +
              " reads may read from more than one write\n";
    print_text(text + report_text(report));
  }
  return exit_status(report);
}

// Writes OUT (a path, or - for stdout) through fill, which streams into a TextOut; a format that
// cannot express the history (fill's error) or a failed write is an input error.
int write_output(const std::string& path, const std::function<std::optional<InputError>(TextOut&)>& fill) {
  std::FILE* file = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!file) {
    complain(path + ": cannot create the file: " + std::strerror(errno));
    return kExitInput;
  }
  TextOut out(file);
  const std::optional<InputError> error = fill(out);
  errno = 0;
  bool written = out.flush() && std::fflush(file) == 0;
  int write_errno = errno;
  if (file != stdout && std::fclose(file) != 0 && written) {  // a close can report a late failure (NFS)
    written = false;
    write_errno = errno;
  }
  if (error) {
    complain(error->message);
    return kExitInput;
  }
  if (!written) {
    if (file == stdout) std::clearerr(stdout);  // said here, with the reason: not again at exit
    complain((path == "-" ? std::string("standard output") : path) + ": cannot write" +
             (write_errno ? std::string(": ") + std::strerror(write_errno) : std::string()));
    return kExitInput;
  }
  return kExitPass;
}

int run_convert(int argc, char** argv) {
  std::string to, format;
  std::vector<std::string> positional;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--to" && i + 1 < argc) to = argv[++i];
    else if (a == "--format" && i + 1 < argc) format = argv[++i];
    else if (a.size() > 1 && a[0] == '-' && a != "-") return usage_error("unknown option '" + a + "'");
    else positional.push_back(a);
  }
  if (to != "isoscope" && to != "plume" && to != "jepsen")
    return usage_error("convert needs --to isoscope, --to plume or --to jepsen");
  if (positional.size() != 2) return usage_error("convert needs PATH and OUT");
  LoadedInput input;
  std::string error;
  if (!load_input(positional[0], input, error)) {
    complain(error);
    return kExitInput;
  }
  Expected<History> h = read_history(input.files, format);
  if (!h) {
    print_input_error(h.error());
    return kExitInput;
  }
  // An object history's operations are no transactions: isoscope JSON and plume would read back
  // as a different history (check would judge other semantics), so only Jepsen EDN holds one.
  const bool objects = !h->registers.empty();
  if (objects != (to == "jepsen")) {
    complain(objects ? "cannot write " + to + ": this " + h->format + " history is of single-object operations (a " +
                           object_model_name(h->registers.model) + "), which " + to +
                           " cannot hold; --to jepsen writes it as Jepsen EDN, which reads back to the same operations"
                     : std::string("cannot write jepsen: Jepsen EDN holds histories of single-object operations "
                                   "(registers, key-value stores, mutexes); this ") + h->format +
                           " history is of transactions: use --to isoscope or --to plume");
    return kExitInput;
  }
  if (to == "jepsen")
    return write_output(positional[1], [&](TextOut& out) {
      out.put(write_jepsen_edn(*h));
      return std::optional<InputError>();
    });
  if (to == "plume") {
    if (std::optional<InputError> e = plume_cannot_express(*h)) {
      complain("cannot write plume: " + e->message);
      return kExitInput;
    }
    // The one loss that changes what a check of OUT can say: nothing is dropped silently.
    if (h->has_timestamps)
      complain("note: plume has no timestamps, so the transactions' times are left out and SSER and LIN cannot be "
               "decided on what is written (--to isoscope keeps them)");
  }
  return write_output(positional[1], [&](TextOut& out) {
    std::unique_ptr<HistoryWriter> w = make_writer(to, out);
    write_history(*h, *w);
    return w->error();
  });
}

// `isoscope generate`: streams a seeded random history in the chosen format.
int run_generate(int argc, char** argv) {
  GenParams p;
  p.sessions = 4;
  p.txns_per_session = 10;
  std::string format = "isoscope", target = "serial", out_path, mt_engine, db_engine;
  WorkloadMix mix;
  bool have_out = false, lwt = false, list_append = false, reg = false, reg_cas = true, unknown_set = false;
  double stale_ratio = -1;  // unset: each generator's own default
  auto number = [&](const char* s, double lo, double hi, double& out) {
    return parse_count(s, out) && out >= lo && out <= hi;
  };
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const char* v = (i + 1 < argc) ? argv[i + 1] : nullptr;
    double d = 0;
    auto take = [&](double lo, double hi) {
      if (!v || !number(v, lo, hi, d)) return false;
      ++i;
      return true;
    };
    auto take_whole = [&](double lo, double hi) {  // counts: no fractions
      if (!v || !parse_whole(v, hi, d) || d < lo) return false;
      ++i;
      return true;
    };
    if (a == "--sessions") {
      if (!take_whole(1, 1e6)) return usage_error("--sessions needs a whole number from 1 to 1000000");
      p.sessions = static_cast<uint32_t>(d);
    } else if (a == "--txns") {
      if (!take_whole(0, 1e8)) return usage_error("--txns needs a whole number of transactions per session");
      p.txns_per_session = static_cast<uint32_t>(d);
    } else if (a == "--ops") {
      if (!v) return usage_error("--ops needs N or MIN-MAX");
      std::string r = v;
      ++i;
      size_t dash = r.find('-');
      double lo, hi;
      if (dash == std::string::npos ? !number(r.c_str(), 1, 1e6, lo) : (!number(r.substr(0, dash).c_str(), 1, 1e6, lo) || !number(r.substr(dash + 1).c_str(), 1, 1e6, hi)))
        return usage_error("--ops needs N or MIN-MAX with 1 <= MIN <= MAX");
      if (dash == std::string::npos) hi = lo;
      if (lo > hi) return usage_error("--ops needs MIN <= MAX");
      p.min_ops = static_cast<uint32_t>(lo);
      p.max_ops = static_cast<uint32_t>(hi);
    } else if (a == "--single-op") {
      p.min_ops = p.max_ops = 1;
    } else if (a == "--keys") {
      if (!take_whole(1, 1e9)) return usage_error("--keys needs a whole number from 1 to 1000000000");
      p.keys = static_cast<uint32_t>(d);
    } else if (a == "--read-ratio") {
      if (!take(0, 1)) return usage_error("--read-ratio needs a number in [0, 1]");
      p.read_ratio = d;
    } else if (a == "--abort-ratio") {
      if (!take(0, 1)) return usage_error("--abort-ratio needs a number in [0, 1]");
      p.abort_ratio = d;
    } else if (a == "--unknown-ratio") {
      if (!take(0, 1)) return usage_error("--unknown-ratio needs a number in [0, 1]");
      p.unknown_ratio = d;
      unknown_set = true;
    } else if (a == "--dist") {
      ++i;
      if (!v || !parse_key_dist(v, p.key_dist)) return usage_error("--dist needs uniform, zipf or hotspot");
    } else if (a == "--seed") {
      if (!take_whole(0, 1.8e19)) return usage_error("--seed needs a non-negative integer");
      p.seed = static_cast<uint64_t>(d);
    } else if (a == "--timestamps") {
      p.timestamps = true;
    } else if (a == "--labels") {
      p.labels = true;
    } else if (a == "--value-range") {
      if (!take_whole(1, 4e9)) return usage_error("--value-range needs a whole number from 1 to 4000000000");
      p.value_range = static_cast<uint32_t>(d);
    } else if (a == "--mt") {
      mt_engine = v ? v : "";
      ++i;
      if (mt_engine != "serial" && mt_engine != "si" && mt_engine != "rc" && mt_engine != "stale")
        return usage_error("--mt needs serial, si, rc or stale");
    } else if (a == "--engine") {
      db_engine = v ? v : "";
      ++i;
      if (db_engine != "ser" && db_engine != "si" && db_engine != "rc")
        return usage_error("--engine needs ser, si or rc");
    } else if (a == "--mix") {
      if (!v || !parse_workload_mix(v, mix))
        return usage_error("--mix needs cobra, polysi, random or RO,WO,RMW fractions summing to at most 1");
      ++i;
    } else if (a == "--inject") {
      if (!v) return usage_error("--inject needs an anomaly name");
      target = std::string("inject=") + v;
      ++i;
    } else if (a == "--lwt") {
      lwt = true;
    } else if (a == "--register") {
      reg = true;
    } else if (a == "--no-cas") {
      reg_cas = false;
    } else if (a == "--list-append") {
      list_append = true;
    } else if (a == "--stale-ratio") {
      if (!take(0, 1)) return usage_error("--stale-ratio needs a number in [0, 1]");
      stale_ratio = d;
    } else if (a == "--format") {
      format = v ? v : "";
      ++i;
    } else if (a == "--target") {
      if (!v) return usage_error("--target needs serial, level=L, inject=ANOMALY or random");
      target = v;
      ++i;
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      return usage_error("unknown option '" + a + "'");
    } else if (!have_out) {
      out_path = a;
      have_out = true;
    } else {
      return usage_error("more than one OUT given");
    }
  }
  if (!have_out) return usage_error("generate needs OUT (a file, or - for stdout)");

  const InjectableAnomaly* inject = nullptr;
  if (target == "serial") {
    p.mode = GenMode::Serial;
  } else if (target == "random") {
    p.mode = GenMode::Random;
  } else if (target.rfind("level=", 0) == 0) {
    Level l;
    if (!parse_level(target.substr(6), l) || static_cast<int>(l) > static_cast<int>(Level::SSER))
      return usage_error("--target level=L needs one of RC RR RA CC PC SI SER SSER");
    // Up to CC: causally consistent histories, random beyond CC. Stronger: serial executions.
    p.mode = static_cast<int>(l) <= static_cast<int>(Level::CC) ? GenMode::Causal : GenMode::Serial;
    if (l == Level::SSER) p.timestamps = true;
  } else if (target.rfind("inject=", 0) == 0) {
    inject = find_injectable(target.substr(7));
    if (!inject) {
      std::string names;
      for (const InjectableAnomaly& a : injectable_anomalies()) names += std::string(" ") + a.name;
      return usage_error("unknown anomaly '" + target.substr(7) + "'; known:" + names);
    }
    if (inject->sessions > p.sessions)
      return usage_error(std::string(inject->name) + " needs at least " + std::to_string(inject->sessions) + " sessions");
    p.mode = GenMode::Serial;
    if (inject->needs_timestamps) p.timestamps = true;
  } else {
    return usage_error("--target needs serial, level=L, inject=ANOMALY or random");
  }

  if (p.value_range && (list_append || !mt_engine.empty() || lwt))
    return usage_error("--value-range applies to the default and --engine workloads (list appends, --mt and --lwt keep unique values)");
  if (reg) {
    if (list_append || lwt || !mt_engine.empty() || !db_engine.empty() || target != "serial")
      return usage_error("--register runs alone (with --no-cas, --stale-ratio, --unknown-ratio, --sessions, --txns, --keys, --seed)");
    RegisterGenParams q;
    q.seed = p.seed;
    q.processes = p.sessions;
    q.ops_per_process = p.txns_per_session;
    q.keys = p.keys;
    q.cas = reg_cas;
    if (unknown_set) q.info_ratio = p.unknown_ratio;
    if (stale_ratio >= 0) q.stale_ratio = stale_ratio;
    return write_output(out_path, [&](TextOut& out) {
      generate_register_history(q, out);
      return std::optional<InputError>();
    });
  }
  if (list_append) {
    // Lists are replayed from a serial execution, so they exist only for that target.
    if (target != "serial" || !mt_engine.empty() || lwt)
      return usage_error("--list-append generates serial histories only (--target serial)");
    if (format != "isoscope") return usage_error("--list-append writes --format isoscope (plume has no lists)");
    Expected<History> h = generate_list_append_history(p);
    if (!h) {
      print_input_error(h.error());
      return kExitInput;
    }
    return write_output(out_path, [&](TextOut& out) {
      write_history(*h, *make_writer("isoscope", out));
      return std::optional<InputError>();
    });
  }
  if (format != "isoscope" && format != "plume") return usage_error("generate writes --format isoscope or plume");
  if (!db_engine.empty() && (!mt_engine.empty() || lwt || list_append || (target != "serial" && !inject)))
    return usage_error("--engine runs alone (with --inject ANOMALY at most)");
  return write_output(out_path, [&](TextOut& out) {
    std::unique_ptr<TextSink> sink = make_text_sink(format, out, p.labels);
    if (!db_engine.empty()) {
      DbSimParams q;
      q.seed = p.seed;
      q.engine = db_engine == "ser" ? DbEngine::Serializable : db_engine == "si" ? DbEngine::SnapshotIsolation
                                                                                 : DbEngine::ReadCommitted;
      q.sessions = p.sessions;
      q.txns_per_session = p.txns_per_session;
      q.min_ops = p.min_ops;
      q.max_ops = p.max_ops;
      q.key = p.key_params();
      q.read_ratio = p.read_ratio;
      q.mix = mix;
      q.abort_ratio = p.abort_ratio;
      q.inject = inject;
      q.labels = p.labels;
      q.value_range = p.value_range;
      simulate_database(q, *sink);
    } else if (!mt_engine.empty() || lwt) {
      // Mini-transaction and lightweight-transaction workloads (MTC) share the key parameters.
      const KeyParams key = p.key_params();
      if (lwt) {
        LwtGenParams q;
        q.seed = p.seed;
        q.sessions = p.sessions;
        q.ops_per_session = p.txns_per_session;
        q.key = key;
        if (stale_ratio >= 0) q.stale_ratio = stale_ratio;
        q.abort_ratio = p.abort_ratio;
        q.labels = p.labels;
        generate_lwt_history(q, *sink);
      } else {
        MtGenParams q;
        q.seed = p.seed;
        q.sessions = p.sessions;
        q.txns_per_session = p.txns_per_session;
        q.key = key;
        q.engine = mt_engine == "serial" ? MtEngine::Serial : mt_engine == "si" ? MtEngine::SnapshotIsolation
                   : mt_engine == "rc" ? MtEngine::ReadCommitted : MtEngine::Stale;
        if (stale_ratio >= 0) q.stale_ratio = stale_ratio;
        q.abort_ratio = p.abort_ratio;
        q.labels = p.labels;
        generate_mt_history(q, *sink);
      }
    } else {
      generate_with_anomaly(p, inject, *sink);
    }
    return sink->finish();
  });
}

// `isoscope anomalies`, `formats` and `levels`: one of the core's vocabularies, as a table for
// people or (--json) as the web app reads it.
int run_listing(const char* cmd, int argc, char** argv, const std::string& json, const std::function<void()>& table) {
  const bool as_json = argc == 1 && std::string(argv[0]) == "--json";
  if (argc > 1 || (argc == 1 && !as_json)) return usage_error(std::string(cmd) + " takes only --json");
  if (as_json) std::printf("%s\n", json.c_str());
  else table();
  return kExitPass;
}

int run_anomalies(int argc, char** argv) {
  return run_listing("anomalies", argc, argv, anomaly_kinds_json(), [] {
    for (const AnomalyKindInfo& k : anomaly_kinds())
      std::printf("%-26s %-5s %-30s %s\n", k.name, level_name(k.weakest), family_name(k.family), k.description);
  });
}

// The levels, what each promises and the weaker levels a pass decides.
int run_levels(int argc, char** argv) {
  return run_listing("levels", argc, argv, level_vocabulary_json(), [] {
    for (int i = 0; i < kNumLevels; ++i) {
      const Level l = static_cast<Level>(i);
      std::printf("%-5s %-24s %s\n", level_name(l), level_title(l), level_summary(l));
    }
  });
}

// The formats the readers know, in detection order.
int run_formats(int argc, char** argv) {
  return run_listing("formats", argc, argv, formats_json(), [] {
    for (const FormatInfo& f : all_formats()) std::printf("%-14s %s\n", f.name, f.title);
  });
}

}  // namespace

int run(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return kExitPass;
  }
  if (cmd == "--version" || cmd == "version") {
    std::printf("isoscope %s\n", ISOSCOPE_VERSION);
    return kExitPass;
  }
  if (cmd == "run") return run_database_command(argc - 2, argv + 2, peak_rss_bytes);  // its own --help
  // --help anywhere after a command: that command's usage (the one usage text), exit 0.
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);
      return kExitPass;
    }
  if (cmd == "check") return run_check(argc - 2, argv + 2);
  if (cmd == "convert") return run_convert(argc - 2, argv + 2);
  if (cmd == "generate") return run_generate(argc - 2, argv + 2);
  if (cmd == "anomalies") return run_anomalies(argc - 2, argv + 2);
  if (cmd == "formats") return run_formats(argc - 2, argv + 2);
  if (cmd == "levels") return run_levels(argc - 2, argv + 2);
  return usage_error("unknown command '" + cmd + "'");
}

// Nothing escapes as an abort: memory exhaustion and file-system failures end with a message
// and the input-error status.
// Output that could not be written (a full disk, a closed pipe, /dev/full) is a failure with a
// message, whatever the command: a verdict or a file that never arrived must not exit 0.
int finish_output(int status) {
  // A write that failed earlier left its reason in errno (nothing else fails after the output).
  int err = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed) err = errno;
  if (flushed && !std::ferror(stdout)) return status;
  std::fprintf(stderr, "isoscope: cannot write to standard output%s%s\n", err ? ": " : "",
               err ? std::strerror(err) : "");
  return kExitInput;
}

int main(int argc, char** argv) {
  try {
    return finish_output(run(argc, argv));
  } catch (const std::bad_alloc&) {
    std::fputs("isoscope: not enough memory for this input (pass --max-input-bytes to bound it, or check fewer levels)\n", stderr);
  } catch (const std::filesystem::filesystem_error& e) {
    complain(e.what());
  } catch (const std::exception& e) {
    complain(e.what());
  }
  return kExitInput;
}
