// The command line's shared pieces (cli.h): the usage text, messages, reading inputs, writing outputs.
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/exit_status.h"
#include "formats/formats.h"
#include "util/printable.h"

namespace fs = std::filesystem;

// The declarations, with what each does, are in cli.h.
namespace isoscope::cli {

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
    "  isoscope run [TARGET] [--isolation LEVEL] [--list-append|--mt|--lwt|--predicates] [--mix M]\n"
    "                 [--sessions N] [--txns N] [--keys N] [--nemesis kill,pause,crash] [--out FILE] ...\n"
    "                 drives a database (postgresql://, mariadb://, mysql://, sqlite:PATH, etcd://,\n"
    "                 redis://), records the history and checks it (isoscope run --help); pauses\n"
    "                 and crashes of servers scripts/db.sh started go in the history, and a\n"
    "                 committed write a crash lost is reported as a LostWrite\n"
    "  isoscope hermitage TARGET [--isolation LEVEL|all] [--json|--markdown]\n"
    "                 Hermitage's anomaly table for a database, each cell decided by checking the\n"
    "                 history its case recorded (isoscope hermitage --help)\n"
    "\n"
    "levels: RC RR RA CC PC SI SER SSER WCC CCv CM LIN (default: every level that applies)\n"
    "PATH may be a file, a directory (Cobra logs, a dbcop history folder), a zip of such\n"
    "files, a gzip of one file (archives are recognised by content), or - for stdin.\n"
    "exit status: 0 every checked level passes, 1 some level fails, 2 input or usage error,\n"
    "             3 nothing fails but some level is unknown\n";

void complain(const std::string& msg) { std::fprintf(stderr, "isoscope: %s\n", printable(msg).c_str()); }

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

void print_text(const std::string& text) {
  const std::string out = printable(text, /*keep_lines=*/true);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

namespace {

constexpr size_t kReadPadding = 64;


// Reads a whole stream in large blocks (istream iterators are byte-at-a-time); at most
// max_bytes (too_large says when there was more).
bool read_whole(std::FILE* f, uint64_t max_bytes, std::string& out, bool& too_large) {
  out.clear();
  too_large = false;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (out.size() + n > max_bytes) {
      too_large = true;
      return false;
    }
    out.append(buf, n);
  }
  return !std::ferror(f);
}

std::string too_large_message(const std::string& name, uint64_t max_bytes) {
  return name + ": the input is larger than " + std::to_string(max_bytes) +
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

}  // namespace

bool load_input(const std::string& path, uint64_t max_bytes, LoadedInput& input, std::string& error) {
  std::vector<std::string> names;
  if (path == "-") {
    input.storage.emplace_back();
    bool too_large = false;
    errno = 0;
    if (!read_whole(stdin, max_bytes, input.storage.back(), too_large)) {
      error = too_large ? too_large_message("<stdin>", max_bytes)
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
      if (!size_ec && size > max_bytes) {
        if (f) std::fclose(f);
        error = too_large_message(p, max_bytes);
        return false;
      }
      if (!size_ec) input.storage.back().reserve(static_cast<size_t>(size) + kReadPadding);
      bool too_large = false;
      if (f) errno = 0;
      const bool ok = f && read_whole(f, max_bytes, input.storage.back(), too_large);
      if (f) {
        if (!ok) read_errno = errno;
        std::fclose(f);
      }
      if (!ok) {
        // The reason from the system: permission denied, an I/O error, a directory...
        error = too_large ? too_large_message(p, max_bytes)
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

bool parse_count(const char* s, double& out) {
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end && end != s && *end == '\0' && std::isfinite(out) && out >= 0;
}
bool parse_whole(const char* s, double max, double& out) {
  return parse_count(s, out) && out <= max && out == std::floor(out);
}
bool parse_in(const char* s, double lo, double hi, double& out) { return s && parse_count(s, out) && out >= lo && out <= hi; }
bool parse_whole_in(const char* s, double lo, double hi, double& out) { return s && parse_whole(s, hi, out) && out >= lo; }

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

}  // namespace isoscope::cli
