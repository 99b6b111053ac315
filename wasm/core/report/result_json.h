// The result JSON of docs/result-json.md, shared by the CLI (--json) and the wasm module.
#pragma once
#include <string>

#include "checkers/check.h"

namespace isoscope {

std::string input_json(const History& h, double parse_ms);
std::string level_result_json(const History& h, const LevelResult& r);
// peak_rss_bytes: the process's peak resident memory, when the front end measures it (the CLI).
std::string report_json(const History& h, const CheckReport& report, double parse_ms, int64_t peak_rss_bytes = -1);
std::string error_json(const InputError& e);
// The long names (model/interner.h), each whole once: {"keys": [key 1, key 2, ...], "values":
// [...], "ids": [{"txn", "id"}, ...]} (transaction ids longer than kLongText). Everywhere else
// the result names them shortened: text as "kkkk…[key 1, 1048576 bytes]", a key or value in
// JSON as {"name": "key 1", "shown": ..., "bytes": N}. report_json adds it when there are any.
std::string names_json(const History& h);
bool has_long_names(const History& h);
// [{"level": "RC", "applies": true}, {"level": "SSER", "applies": false, "reason": ...}, ...]
std::string levels_json(const History& h);
// [{"first": txn, "count": n}, ...], one per session
std::string sessions_json(const History& h);
// [{"name": "cobra", "title": "Cobra logs ..."}, ...], in detection order
std::string formats_json();
// The real-time extent of every transaction (1..n) for the web app's timeline:
// {"first": 1, "start": [...], "end": [...], "session": [...], "status": "cau..."}, null times
// where a transaction has none; status one letter each (committed, aborted, unknown).
std::string timeline_json(const History& h);
// For each write of transaction t, the transactions that read it:
// [{"position": op position in t, "readers": [txn, ...]}, ...] (one pass over the reads).
std::string readers_json(const History& h, uint32_t t);
// Transactions matching a search, at most `limit`: by label (the input's transaction id),
// then those that touch a key written as `query` (x, 7, "7"): [{"txn", "match": "label"|"key"}].
std::string find_json(const History& h, std::string_view query, size_t limit);
// Transactions [begin, end) with their ops, for the web app's history view.
std::string transactions_json(const History& h, uint32_t begin, uint32_t end);
// One line per level for people: "SER   fail   (3.2 ms)  LostUpdate: ...".
std::string report_text(const CheckReport& report);

// The anomaly vocabulary (model/anomaly_kinds.h) as JSON:
// [{"name", "family", "weakest", "title", "description"}, ...].
std::string anomaly_kinds_json();
// The levels (`isoscope levels --json`, the web app's web/generated/levels.json): in the enum's
// order, [{"name", "title", "summary", "group" ("transactional", "causal" or
// "linearizability"), "implies": [the weaker levels a pass decides, strongest first]}].
std::string level_vocabulary_json();

}  // namespace isoscope
