// The WebAssembly API (embind): a thin layer over the core, described in docs/wasm-api.md.
// Every function returns JSON text of one shape: {"ok": true, "value": ...} or
// {"ok": false, "error": {"message", "text", "file"?, "line"?, "column"?, "offset"?}}. The
// values are the result JSON of `isoscope check --json` (docs/result-json.md), so the worker and
// the Node tests parse one format. The loaded history stays inside the module between calls.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <optional>

#include "checkers/check.h"
#include "checkers/counterexample.h"
#include "formats/archive.h"
#include "formats/formats.h"
#include "formats/history_set.h"
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

// Every answer goes to JS as a string decoded by one TextDecoder from a view of the wasm heap:
// embind's std::string return scans every byte in JS (twice) first, which cost a small
// history's check more than its search did.
val js_string(std::string_view utf8) {
  static const val decoder = val::global("TextDecoder").new_(std::string("utf-8"));
  return decoder.call<val>("decode", val(emscripten::typed_memory_view(utf8.size(), reinterpret_cast<const unsigned char*>(utf8.data()))));
}
val ok(const std::string& value_json) {
  std::string s;
  s.reserve(value_json.size() + 32);
  s.append("{\"ok\": true, \"value\": ").append(value_json).append("}");
  return js_string(s);
}
val failure(const InputError& e) { return js_string("{\"ok\": false, \"error\": " + error_json(e) + "}"); }
val failure(const std::string& message) { return failure(input_error(message)); }
val no_history() { return failure("no history is loaded: call load() first"); }

// A JS string as UTF-8, by one TextEncoder (as the WHATWG encoding standard converts: a lone
// surrogate, which a file name may hold, becomes U+FFFD). Emscripten's own conversion takes any
// high surrogate with the next unit, so "a\uD800.json" lost its '.'; a call per code unit
// (charCodeAt through embind) cost a small history's load more than its parse did.
std::string utf8_of(const val& s) {
  static const val encoder = val::global("TextEncoder").new_();
  const val bytes = encoder.call<val>("encode", s);
  std::string out(bytes["length"].as<size_t>(), '\0');
  if (!out.empty()) val(emscripten::typed_memory_view(out.size(), reinterpret_cast<unsigned char*>(out.data()))).call<void>("set", bytes);
  return out;
}

// load(names: string[], blobs: Uint8Array[], format: string, options?: {uniqueValues?: boolean,
// initial?: string}) -> the input statistics. uniqueValues: a (key, value) written more than
// once is an error (as the command line's --unique-values) instead of ambiguous reads. initial:
// the value every object of an object history starts with (the command line's --initial).
val load_with_options(val names, val blobs, std::string format, val options) {
  g_loaded.reset();
  const unsigned n = names["length"].as<unsigned>();
  if (blobs["length"].as<unsigned>() != n) return failure("names and blobs differ in length");
  // Test-only (docs/wasm-api.md): traps the module, so that front ends can test their recovery
  // from a trap. No history reaches it: only this format argument, which no reader has.
  if (format == "debug-trap") __builtin_trap();
  if (!format.empty() && !find_format(format)) return failure("unknown format '" + format + "'");
  std::vector<std::string> storage(n);
  std::vector<InputFile> files;
  files.reserve(n);
  constexpr size_t kPadding = 64;  // readable padding: the JSON readers parse in place
  for (unsigned i = 0; i < n; ++i) {
    val blob = blobs[i];
    // A length from JS is a double: size_t is 32 bits here, and a buffer of 4 GiB - 64 bytes or
    // more would wrap len + kPadding to a few bytes. Checked as a double, before any arithmetic.
    const double length = blob["length"].as<double>();
    if (!(length >= 0 && length <= static_cast<double>(SIZE_MAX - kPadding)) ||
        !can_allocate(static_cast<size_t>(length) + kPadding))
      return failure(input_error("not enough memory to load " + json_number(length) +
                                     " bytes in the browser (use the command line for inputs this large)",
                                 utf8_of(names[i])));
    const size_t len = static_cast<size_t>(length);
    storage[i].reserve(len + kPadding);
    storage[i].resize(len);
    // Copy the JS bytes straight into wasm memory.
    val(emscripten::typed_memory_view(len, reinterpret_cast<unsigned char*>(storage[i].data())))
        .call<void>("set", blob);
    files.push_back({utf8_of(names[i]), storage[i], storage[i].capacity() - len});
  }
  const double t0 = now_ms();
  // The heap (4 GB at most, as this build was linked) holds the input, its expansion and the
  // history built from it: an archive may expand to a quarter of it.
  const uint64_t max_expanded = emscripten_get_heap_max() / 4;
  Expected<History> h = read_history(files, format, max_expanded);
  const double parse_ms = now_ms() - t0;
  if (!h) return failure(h.error());
  InputOptions opts;
  if (!options.isUndefined() && !options.isNull()) {
    opts.unique_values = options["uniqueValues"].isTrue();
    if (options["initial"].isString()) opts.initial = utf8_of(options["initial"]);
  }
  if (const std::optional<InputError> e = apply_input_options(*h, files, opts)) return failure(*e);
  g_loaded.emplace();
  g_loaded->history = std::move(*h);
  g_loaded->parse_ms = parse_ms;
  return ok(input_json(g_loaded->history, parse_ms));
}

val load(val names, val blobs, std::string format) {
  return load_with_options(names, blobs, std::move(format), val::undefined());
}

// histories(names, heads) -> [{"name", "files": [i, ...]}, ...]: the histories of a set
// (formats/history_set.h), each to be loaded on its own; [] for one history. heads: the files'
// first bytes (64 KB is plenty: formats are told by names and first bytes).
val histories(val names, val heads) {
  const unsigned n = names["length"].as<unsigned>();
  if (heads["length"].as<unsigned>() != n) return failure("names and heads differ in length");
  std::vector<std::string> storage(n);
  std::vector<InputFile> files;
  files.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    val blob = heads[i];
    const size_t len = std::min<size_t>(blob["length"].as<size_t>(), 1 << 16);
    storage[i].resize(len);
    val(emscripten::typed_memory_view(len, reinterpret_cast<unsigned char*>(storage[i].data())))
        .call<void>("set", blob.call<val>("subarray", 0, static_cast<double>(len)));
    files.push_back({names[i].as<std::string>(), storage[i]});
  }
  JsonWriter j;
  j.begin_array();
  for (const InputFile& f : files)
    if (archive_kind(f.bytes) != ArchiveKind::None) return ok("[]");  // an archive loads as one input
  for (const HistoryPart& p : split_histories(files)) {
    j.begin_object().member("name", p.name).key("files").begin_array();
    for (uint32_t i : p.files) j.integer(i);
    j.end_array().end_object();
  }
  j.end_array();
  return ok(j.str());
}

// levels() -> [{"level":"RC","applies":true}, {"level":"SSER","applies":false,"reason":...}]
val levels() {
  if (!g_loaded) return no_history();
  return ok(levels_json(g_loaded->history));
}

CheckOptions options(double budget_ms, int max_anomalies) {
  CheckOptions opts;
  opts.budget_ms = budget_ms;
  opts.max_anomalies = max_anomalies > 0 ? static_cast<size_t>(max_anomalies) : 32;
  return opts;
}

// checkLevel(level, budgetMs, maxAnomalies, onProgress?) -> the level's result; onProgress(settled,
// open) is called from inside long levels (the strong solver).
val check_level(std::string level, double budget_ms, int max_anomalies, val on_progress) {
  if (!g_loaded) return no_history();
  Level l;
  if (!parse_level(level, l)) return failure(unknown_level_message(level));
  CheckOptions opts = options(budget_ms, max_anomalies);
  if (on_progress.typeOf().as<std::string>() == "function")
    opts.on_progress = [&on_progress](Level, size_t settled, size_t open) {
      on_progress(static_cast<double>(settled), static_cast<double>(open));
    };
  const LevelResult& r = decide_level(g_loaded->history, l, opts, g_loaded->decided);
  return ok(level_result_json(g_loaded->history, r));
}

val check_level_quiet(std::string level, double budget_ms, int max_anomalies) {
  return check_level(std::move(level), budget_ms, max_anomalies, val::undefined());
}

// levelResult(level) -> the level's result as it stands: checkLevel names the failing levels
// decided before a level that passes again (no anomaly of a kind a passing level forbids), so
// a failing level's anomalies may change after it was returned.
val level_result(std::string level) {
  if (!g_loaded) return no_history();
  Level l;
  if (!parse_level(level, l)) return failure(unknown_level_message(level));
  if (!g_loaded->decided.requested[static_cast<int>(l)])
    return failure(std::string(level_name(l)) + " has not been checked: call checkLevel first");
  return ok(level_result_json(g_loaded->history, g_loaded->decided.results[static_cast<int>(l)]));
}

// check(levelsCsv, budgetMs, maxAnomalies) -> the whole result, as `isoscope check --json` prints
// it; "" checks every level, an unknown level is an error (as on the command line).
val check(std::string levels_csv, double budget_ms, int max_anomalies) {
  if (!g_loaded) return no_history();
  CheckOptions opts = options(budget_ms, max_anomalies);
  if (!levels_csv.empty()) {
    const std::string wrong = parse_level_list(levels_csv, opts.levels);
    if (!wrong.empty()) return failure(wrong);
  }
  CheckReport report = check_history(g_loaded->history, opts);
  return ok(report_json(g_loaded->history, report, g_loaded->parse_ms));
}

// transactions(begin, end) -> transactions [begin, end) with their operations
val transactions(double begin, double end) {
  if (!g_loaded) return no_history();
  const double total = static_cast<double>(g_loaded->history.txns.size());
  if (!(begin >= 0 && end >= begin))  // NaN fails too; end is clamped below
    return failure("transactions(begin, end) needs 0 <= begin <= end");
  return ok(transactions_json(g_loaded->history, static_cast<uint32_t>(std::min(begin, total)),
                              static_cast<uint32_t>(std::min(end, total))));
}

// sessions() -> [{"first": txn, "count": n}, ...]
val sessions() {
  if (!g_loaded) return no_history();
  return ok(sessions_json(g_loaded->history));
}

// convert(to) -> the history written in format `to` ("isoscope", "plume" or "jepsen"), as a
// JSON string
val convert(std::string to) {
  if (!g_loaded) return no_history();
  if (to == "jepsen") {
    if (g_loaded->history.registers.empty())
      return failure("Jepsen EDN holds histories of single-object operations; this one is of transactions");
    return ok(json_quote(write_jepsen_edn(g_loaded->history)));
  }
  // An object history's lossless form is Jepsen EDN (isoscope JSON has no objects): a share
  // link of one holds that, which loads back by detection.
  if (to == "isoscope" && !g_loaded->history.registers.empty())
    return ok(json_quote(write_jepsen_edn(g_loaded->history)));
  if (to == "isoscope") return ok(json_quote(write_isoscope_json(g_loaded->history)));
  if (to == "plume" && !g_loaded->history.registers.empty())
    return failure("plume cannot hold an object history (single-object operations): convert to jepsen");
  if (to == "plume") {
    Expected<std::string> text = write_plume(g_loaded->history);
    if (!text) return failure(text.error());
    return ok(json_quote(*text));
  }
  return failure("unknown output format '" + to + "'; expected isoscope, plume or jepsen");
}

// counterexample(level, anomalyIndex, budgetMs) -> {"history": "<canonical JSON>",
// "transactions": n, "reproduces": bool, "minimal": bool}: the part of the loaded history that
// the level's anomaly needs, re-checked (reproduces) and shrunk (minimal). The level must have
// been decided by checkLevel or check first.
val counterexample(std::string level, int index, double budget_ms) {
  if (!g_loaded) return no_history();
  Level l;
  if (!parse_level(level, l)) return failure(unknown_level_message(level));
  const LevelResult& r = g_loaded->decided.results[static_cast<int>(l)];
  if (r.verdict != Verdict::Fail || index < 0 || static_cast<size_t>(index) >= r.anomalies.size())
    return failure("no anomaly " + std::to_string(index) + " at " + level_name(l) + ": check the level first");
  CheckBudget budget;
  budget.deadline_ms = budget_ms > 0 ? now_ms() + budget_ms : 0;
  const Counterexample c = make_counterexample(g_loaded->history, l, r.anomalies[index], budget);
  // an object history's counterexample in its lossless form, as the whole history's link
  const std::string text = c.history.registers.empty() ? write_isoscope_json(c.history) : write_jepsen_edn(c.history);
  return ok("{\"history\": " + json_quote(text) +
            ", \"transactions\": " + std::to_string(c.txns.size()) +
            ", \"reproduces\": " + (c.reproduces ? "true" : "false") +
            ", \"minimal\": " + (c.minimal ? "true" : "false") + "}");
}

// timeline() -> every transaction's real-time extent, session and status (flat arrays)
val timeline() {
  if (!g_loaded) return no_history();
  return ok(timeline_json(g_loaded->history));
}

// readers(txn) -> for each write of txn, the transactions that read it
val readers(double txn) {
  if (!g_loaded) return no_history();
  if (!(txn >= 1 && txn < static_cast<double>(g_loaded->history.txns.size())))
    return failure("readers(txn) needs a transaction from 1 to " + std::to_string(g_loaded->history.num_txns()));
  return ok(readers_json(g_loaded->history, static_cast<uint32_t>(txn)));
}

// find(query, limit) -> transactions whose label is query, then those touching key query
val find(std::string query, int limit) {
  if (!g_loaded) return no_history();
  return ok(find_json(g_loaded->history, query, limit > 0 ? static_cast<size_t>(limit) : 100));
}

// names() -> {"keys": [...], "values": [...], "ids": [{"txn", "id"}]}: the long names whole,
// each once (report/result_json.h); everything else names them shortened.
val names() {
  if (!g_loaded) return no_history();
  return ok(names_json(g_loaded->history));
}

// formats() -> [{"name", "description"}, ...]: what load() reads (the app's format choice)
val formats() { return ok(formats_json()); }

// anomalyKinds() -> the anomaly vocabulary (model/anomaly_kinds.h)
val anomaly_vocabulary() { return ok(anomaly_kinds_json()); }

// memoryBytes() -> the wasm heap's current size in bytes (it only grows: the module's peak)
val memory_bytes() { return ok(json_number(static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0)); }

}  // namespace

EMSCRIPTEN_BINDINGS(isoscope) {
  emscripten::function("load", &load);
  emscripten::function("load", &load_with_options);
  emscripten::function("levels", &levels);
  emscripten::function("histories", &histories);
  emscripten::function("checkLevel", &check_level);
  emscripten::function("checkLevel", &check_level_quiet);
  emscripten::function("levelResult", &level_result);
  emscripten::function("check", &check);
  emscripten::function("transactions", &transactions);
  emscripten::function("sessions", &sessions);
  emscripten::function("convert", &convert);
  emscripten::function("formats", &formats);
  emscripten::function("counterexample", &counterexample);
  emscripten::function("timeline", &timeline);
  emscripten::function("readers", &readers);
  emscripten::function("find", &find);
  emscripten::function("names", &names);
  emscripten::function("anomalyKinds", &anomaly_vocabulary);
  emscripten::function("memoryBytes", &memory_bytes);
}
