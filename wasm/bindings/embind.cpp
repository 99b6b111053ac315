// The WebAssembly API (embind): a thin layer over the core. Every function returns JSON text
// (the same result JSON as `isoscope check --json`), so the web worker and the Node tests parse
// one format. The loaded history stays inside the module between calls.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <sstream>

#include "checkers/check.h"
#include "checkers/counterexample.h"
#include "formats/formats.h"
#include "util/memory.h"
#include "util/json.h"
#include "report/result_json.h"

using namespace isoscope;
using emscripten::val;

namespace {

struct Loaded {
  History history;
  double parse_ms = 0;
  CheckReport decided;  // levels decided so far (for the lattice shortcut)
};
std::optional<Loaded> g_loaded;

std::string no_history() {
  return "{\"ok\": false, \"error\": {\"message\": \"no history is loaded\", \"text\": \"no history is loaded\"}}";
}

// load(names: string[], blobs: Uint8Array[], format: string) -> {"ok":..., "input"|"error":...}
std::string load(val names, val blobs, std::string format) {
  g_loaded.reset();
  const unsigned n = names["length"].as<unsigned>();
  if (blobs["length"].as<unsigned>() != n)
    return "{\"ok\": false, \"error\": {\"message\": \"names and blobs differ in length\", \"text\": \"names and blobs differ in length\"}}";
  std::vector<std::string> storage(n);
  std::vector<InputFile> files;
  files.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    val blob = blobs[i];
    const size_t len = blob["length"].as<size_t>();
    if (!can_allocate(len + 64)) {
      const std::string m = names[i].as<std::string>() + ": not enough memory to load " + std::to_string(len) +
                            " bytes in the browser (use the command line for inputs this large)";
      return "{\"ok\": false, \"error\": {\"message\": " + json_quote(m) + ", \"text\": " + json_quote(m) + "}}";
    }
    storage[i].reserve(len + 64);  // readable padding: the JSON readers parse in place
    storage[i].resize(len);
    // Copy the JS bytes straight into wasm memory.
    val(emscripten::typed_memory_view(len, reinterpret_cast<unsigned char*>(storage[i].data())))
        .call<void>("set", blob);
    files.push_back({names[i].as<std::string>(), storage[i], storage[i].capacity() - len});
  }
  const double t0 = now_ms();
  // The heap (4 GB at most) holds the input, its expansion and the history built from it: an
  // archive may expand to a quarter of it.
  constexpr uint64_t kWasmMaxExpanded = uint64_t{1} << 30;
  Expected<History> h = read_history(files, format, kWasmMaxExpanded);
  const double parse_ms = now_ms() - t0;
  if (!h) return "{\"ok\": false, \"error\": " + error_json(h.error()) + "}";
  g_loaded.emplace();
  g_loaded->history = std::move(*h);
  g_loaded->parse_ms = parse_ms;
  return "{\"ok\": true, \"input\": " + input_json(g_loaded->history, parse_ms) + "}";
}

// levels() -> [{"level":"RC","applies":true}, {"level":"SSER","applies":false,"reason":...}]
std::string levels() {
  if (!g_loaded) return "[]";
  std::string s = "[";
  for (int i = 0; i < kNumLevels; ++i) {
    std::string reason;
    bool applies = level_applies(g_loaded->history, static_cast<Level>(i), reason);
    s += (i ? ", " : "") + std::string("{\"level\": \"") + level_name(static_cast<Level>(i)) +
         "\", \"applies\": " + (applies ? "true" : "false");
    if (!applies) s += ", \"reason\": " + json_quote(reason);
    s += "}";
  }
  return s + "]";
}

CheckOptions options(double budget_ms, int max_anomalies) {
  CheckOptions opts;
  opts.budget_ms = budget_ms;
  opts.max_anomalies = max_anomalies > 0 ? static_cast<size_t>(max_anomalies) : 32;
  return opts;
}

// checkLevel(level, budgetMs, maxAnomalies, onProgress?) -> the per-level result object;
// onProgress(settled, open) is called from inside long levels (the strong solver).
std::string check_level(std::string level, double budget_ms, int max_anomalies, val on_progress) {
  if (!g_loaded) return no_history();
  Level l;
  if (!parse_level(level, l)) return "{\"verdict\": \"n/a\", \"ms\": 0, \"reason\": \"unknown level\"}";
  CheckOptions opts = options(budget_ms, max_anomalies);
  if (on_progress.typeOf().as<std::string>() == "function")
    opts.on_progress = [&on_progress](Level, size_t settled, size_t open) {
      on_progress(static_cast<double>(settled), static_cast<double>(open));
    };
  const LevelResult& r = decide_level(g_loaded->history, l, opts, g_loaded->decided);
  return level_result_json(g_loaded->history, r);
}

std::string check_level_quiet(std::string level, double budget_ms, int max_anomalies) {
  return check_level(std::move(level), budget_ms, max_anomalies, val::undefined());
}

// check(levelsCsv, budgetMs, maxAnomalies) -> the whole result JSON, as the CLI prints it
std::string check(std::string levels_csv, double budget_ms, int max_anomalies) {
  if (!g_loaded) return no_history();
  CheckOptions opts = options(budget_ms, max_anomalies);
  std::stringstream ss(levels_csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    Level l;
    if (!item.empty() && parse_level(item, l)) opts.levels.push_back(l);
  }
  CheckReport report = check_history(g_loaded->history, opts);
  return report_json(g_loaded->history, report, g_loaded->parse_ms);
}

std::string transactions(double begin, double end) {
  if (!g_loaded || begin < 0 || end < begin) return "[]";
  return transactions_json(g_loaded->history, static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
}

std::string sessions() {
  if (!g_loaded) return "[]";
  const History& h = g_loaded->history;
  std::string s = "[";
  for (size_t i = 0; i < h.num_sessions(); ++i)
    s += (i ? ", " : "") + std::string("{\"first\": ") + std::to_string(h.session_begin[i]) +
         ", \"count\": " + std::to_string(h.session_begin[i + 1] - h.session_begin[i]) + "}";
  return s + "]";
}

// convert(to) -> the text, or {"ok": false, "error": ...} JSON when it cannot be expressed
std::string convert(std::string to) {
  if (!g_loaded) return no_history();
  if (to == "isoscope") return write_isoscope_json(g_loaded->history);
  if (to == "plume") {
    Expected<std::string> text = write_plume(g_loaded->history);
    if (!text) return "{\"ok\": false, \"error\": " + error_json(text.error()) + "}";
    return *text;
  }
  return "{\"ok\": false, \"error\": {\"message\": \"unknown output format\", \"text\": \"unknown output format\"}}";
}

// counterexample(level, anomalyIndex, budgetMs) -> {"ok": true, "history": "<canonical JSON>",
// "transactions": n, "reproduces": bool, "minimal": bool}: the part of the loaded history that
// the level's anomaly needs, re-checked (reproduces) and shrunk (minimal). The level must have
// been decided by checkLevel or check first.
std::string counterexample(std::string level, int index, double budget_ms) {
  if (!g_loaded) return no_history();
  Level l;
  auto error = [](const std::string& m) {
    return "{\"ok\": false, \"error\": {\"message\": " + json_quote(m) + ", \"text\": " + json_quote(m) + "}}";
  };
  if (!parse_level(level, l)) return error("unknown level '" + level + "'");
  const LevelResult& r = g_loaded->decided.results[static_cast<int>(l)];
  if (r.verdict != Verdict::Fail || index < 0 || static_cast<size_t>(index) >= r.anomalies.size())
    return error("no such anomaly: check the level first");
  CheckBudget budget;
  budget.deadline_ms = budget_ms > 0 ? now_ms() + budget_ms : 0;
  const Counterexample c = make_counterexample(g_loaded->history, l, r.anomalies[index], budget);
  return "{\"ok\": true, \"history\": " + json_quote(write_isoscope_json(c.history)) +
         ", \"transactions\": " + std::to_string(c.txns.size()) +
         ", \"reproduces\": " + (c.reproduces ? "true" : "false") +
         ", \"minimal\": " + (c.minimal ? "true" : "false") + "}";
}

std::string formats() {
  std::string s = "[";
  bool first = true;
  for (const FormatInfo& f : all_formats()) {
    s += (first ? "" : ", ") + json_quote(f.name);
    first = false;
  }
  return s + "]";
}

// The wasm heap's current size in bytes (it only grows): the module's peak memory.
double memory_bytes() { return static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0; }

}  // namespace

EMSCRIPTEN_BINDINGS(isoscope) {
  emscripten::function("load", &load);
  emscripten::function("levels", &levels);
  emscripten::function("checkLevel", &check_level);
  emscripten::function("checkLevel", &check_level_quiet);
  emscripten::function("check", &check);
  emscripten::function("transactions", &transactions);
  emscripten::function("sessions", &sessions);
  emscripten::function("convert", &convert);
  emscripten::function("formats", &formats);
  emscripten::function("counterexample", &counterexample);
  emscripten::function("anomalyKinds", &anomaly_kinds_json);
  emscripten::function("memoryBytes", &memory_bytes);
}
