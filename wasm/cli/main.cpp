// The `isoscope` command (shared/spec/cli.md): a thin layer over the core library.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"
#include "report/result_json.h"

namespace fs = std::filesystem;
using namespace isoscope;

namespace {

constexpr int kExitPass = 0, kExitFail = 1, kExitInput = 2, kExitUnknown = 3;

const char* kUsage =
    "usage:\n"
    "  isoscope check [--level L[,L...]] [--format F] [--json] [--budget-ms N]\n"
    "                 [--max-anomalies N] PATH|-\n"
    "  isoscope convert --to isoscope|plume [--format F] PATH|- OUT|-\n"
    "\n"
    "levels: RC RR RA CC PC SI SER SSER WCC CCv CM LIN (default: every level that applies)\n"
    "PATH may be a file, a directory (Cobra logs, a dbcop history folder) or - for stdin.\n"
    "exit status: 0 every checked level passes, 1 some level fails, 2 input or usage error,\n"
    "             3 nothing fails but some level is unknown\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "isoscope: %s\n\n%s", msg.c_str(), kUsage);
  return kExitInput;
}

// The bytes of every file of an input; InputFile views point into `storage`.
struct LoadedInput {
  std::vector<std::string> storage;
  std::vector<InputFile> files;
};

// Reads a whole stream in large blocks (istream iterators are byte-at-a-time).
bool read_whole(std::FILE* f, std::string& out) {
  out.clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return !std::ferror(f);
}

bool load_input(const std::string& path, LoadedInput& input, std::string& error) {
  std::vector<std::string> names;
  if (path == "-") {
    input.storage.emplace_back();
    if (!read_whole(stdin, input.storage.back())) {
      error = "<stdin>: could not read standard input";
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
      for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.is_regular_file()) paths.push_back(entry.path().string());
      if (ec) {
        error = path + ": cannot list the directory: " + ec.message();
        return false;
      }
      std::sort(paths.begin(), paths.end());
      if (paths.empty()) {
        error = path + ": the directory holds no files (expected Cobra *.log files or a dbcop history.bincode)";
        return false;
      }
    } else {
      paths.push_back(path);
    }
    for (const std::string& p : paths) {
      input.storage.emplace_back();
      std::FILE* f = std::fopen(p.c_str(), "rb");
      std::error_code size_ec;
      const auto size = fs::file_size(p, size_ec);
      if (!size_ec) input.storage.back().reserve(static_cast<size_t>(size));
      const bool ok = f && read_whole(f, input.storage.back());
      if (f) std::fclose(f);
      if (!ok) {
        error = p + ": cannot read the file";
        return false;
      }
      names.push_back(p);
    }
  }
  for (size_t i = 0; i < names.size(); ++i) input.files.push_back({names[i], input.storage[i]});
  return true;
}

bool parse_count(const char* s, double& out) {
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end && *end == '\0' && out >= 0;
}

int run_check(int argc, char** argv) {
  CheckOptions opts;
  std::string format, path;
  bool json = false, have_path = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](const char* what) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)what;
      return argv[++i];
    };
    if (a == "--json") {
      json = true;
    } else if (a == "--level" || a == "--levels") {
      const char* v = next("levels");
      if (!v) return usage_error("--level needs a value such as RC,SER");
      std::stringstream ss(v);
      std::string item;
      while (std::getline(ss, item, ',')) {
        Level l;
        if (!parse_level(item, l)) return usage_error("unknown level '" + item + "'");
        opts.levels.push_back(l);
      }
    } else if (a == "--format") {
      const char* v = next("format");
      if (!v) return usage_error("--format needs a format name");
      format = v;
      if (!find_format(format)) {
        std::string known;
        for (const FormatInfo& f : all_formats()) known += std::string(" ") + f.name;
        return usage_error("unknown format '" + format + "'; known formats:" + known);
      }
    } else if (a == "--budget-ms") {
      const char* v = next("ms");
      if (!v || !parse_count(v, opts.budget_ms)) return usage_error("--budget-ms needs a non-negative number");
    } else if (a == "--max-anomalies") {
      const char* v = next("n");
      double n;
      if (!v || !parse_count(v, n)) return usage_error("--max-anomalies needs a non-negative number");
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
    std::fprintf(stderr, "isoscope: %s\n", error.c_str());
    return kExitInput;
  }
  const double t0 = now_ms();
  Expected<History> h = read_history(input.files, format);
  const double parse_ms = now_ms() - t0;
  if (!h) {
    std::fprintf(stderr, "isoscope: %s\n", h.error().to_string().c_str());
    return kExitInput;
  }
  CheckReport report = check_history(*h, opts);
  if (json) {
    std::string out = report_json(*h, report, parse_ms);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    std::printf("%s: %s, %zu sessions, %zu transactions, %zu operations, %zu keys (parsed in %.1f ms)\n",
                path.c_str(), h->format.c_str(), h->num_sessions(), h->num_txns(), h->num_ops(),
                h->keys.size(), parse_ms);
    std::string out = report_text(*h, report);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  bool any_fail = false, any_unknown = false;
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i]) continue;
    any_fail |= report.results[i].verdict == Verdict::Fail;
    any_unknown |= report.results[i].verdict == Verdict::Unknown;
  }
  return any_fail ? kExitFail : any_unknown ? kExitUnknown : kExitPass;
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
  if (to != "isoscope" && to != "plume") return usage_error("convert needs --to isoscope or --to plume");
  if (positional.size() != 2) return usage_error("convert needs PATH and OUT");
  LoadedInput input;
  std::string error;
  if (!load_input(positional[0], input, error)) {
    std::fprintf(stderr, "isoscope: %s\n", error.c_str());
    return kExitInput;
  }
  Expected<History> h = read_history(input.files, format);
  if (!h) {
    std::fprintf(stderr, "isoscope: %s\n", h.error().to_string().c_str());
    return kExitInput;
  }
  Expected<std::string> text = to == "isoscope" ? Expected<std::string>(write_isoscope_json(*h)) : write_plume(*h);
  if (!text) {
    std::fprintf(stderr, "isoscope: cannot write %s: %s\n", to.c_str(), text.error().message.c_str());
    return kExitInput;
  }
  if (positional[1] == "-") {
    std::fwrite(text->data(), 1, text->size(), stdout);
  } else {
    std::ofstream out(positional[1], std::ios::binary);
    out.write(text->data(), static_cast<std::streamsize>(text->size()));
    if (!out) {
      std::fprintf(stderr, "isoscope: %s: cannot write the file\n", positional[1].c_str());
      return kExitInput;
    }
  }
  return kExitPass;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return kExitPass;
  }
  if (cmd == "check") return run_check(argc - 2, argv + 2);
  if (cmd == "convert") return run_convert(argc - 2, argv + 2);
  return usage_error("unknown command '" + cmd + "'");
}
