// The isolation levels, the verdicts and the lattice between the levels: the small vocabulary
// every layer shares (the checkers decide levels, the generator plants anomalies that levels
// forbid, the reports name them).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace isoscope {

enum class Level : uint8_t { RC, RR, RA, CC, PC, SI, SER, SSER, WCC, CCv, CM, LIN };
constexpr int kNumLevels = 12;
const char* level_name(Level l);
bool parse_level(std::string_view name, Level& out);  // case-insensitive
// A comma-separated list such as "RC,SER" (the CLI's --level, the wasm check()). Returns an empty
// string, or what is wrong ("unknown level 'X'; the levels are RC, RR, ..."): an empty list or
// an empty item is an error, never "every level".
std::string parse_level_list(std::string_view csv, std::vector<Level>& out);
// "unknown level 'X'; the levels are RC, RR, ..."
std::string unknown_level_message(std::string_view name);

enum class Verdict : uint8_t { Pass, Fail, Unknown, NotApplicable };
const char* verdict_name(Verdict v);  // "pass", "fail", "unknown", "n/a"

// The lattice: SSER => SER => SI => PC => CC => RA => RR => RC for the transactional levels, and
// CCv, CM => WCC for the non-transactional causal models. Levels weaker than `stronger`
// (direct and transitive).
bool is_weaker(Level weaker, Level stronger);
bool is_transactional(Level l);  // RC .. SSER
bool is_causal_model(Level l);   // WCC, CCv, CM: single-operation histories

// What a level promises, in people's words: the one source of the page's and the table's texts.
const char* level_title(Level l);    // "Snapshot isolation"
const char* level_summary(Level l);  // one sentence
bool is_strong(Level l);         // PC .. SSER: decided over a commit order (checkers/strong)

}  // namespace isoscope
