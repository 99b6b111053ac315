// `isoscope check` (docs/cli.md): one history, or a set of them, checked and reported.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "cli/cli.h"
#include "cli/exit_status.h"
#include "formats/formats.h"
#include "formats/history_set.h"
#include "report/result_json.h"
#include "util/json.h"
#include "util/printable.h"

namespace isoscope::cli {

namespace {

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

}  // namespace

int run_check(int argc, char** argv) {
  CheckOptions opts;
  std::string format, path;
  bool json = false, have_path = false;
  InputOptions input_opts;  // --unique-values, --initial
  uint64_t max_input_bytes = kMaxInputBytes;
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
      max_input_bytes = static_cast<uint64_t>(n);
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
  if (!load_input(path, max_input_bytes, input, error)) {
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

}  // namespace isoscope::cli
