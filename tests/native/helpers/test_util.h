// Shared helpers for the native tests: the corpus manifest, loading paths, running the CLI.
#pragma once
#include <array>
#include <cctype>
#include <filesystem>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"
#include "model/levels.h"

struct CorpusEntry {
  std::string path;    // absolute
  std::string rel;     // as in the manifest
  std::string format;  // format name from the manifest
  std::map<std::string, std::string> expect;  // level -> "pass" / "fail"
};
// Every entry of ../shared/corpus/manifest.json (none when the corpus is missing).
std::vector<CorpusEntry> corpus_entries();
// The shared corpus lives beside the repository (../shared/corpus), not in it: a clone without
// it skips the tests that read it, each saying so (ctest counts them as skipped).
// Its directory: $ISOSCOPE_CORPUS, else the build's ISOSCOPE_CORPUS_DIR.
const std::string& corpus_dir();
bool corpus_available();
#define SKIP_WITHOUT_CORPUS() \
  if (!corpus_available()) GTEST_SKIP() << "skipped: the shared corpus is missing (" << corpus_dir() << ")"

// GoogleTest prints a parameterised test's entry by its manifest path, not its bytes.
inline void PrintTo(const CorpusEntry& e, std::ostream* os) { *os << e.rel; }
// The test-name suffix of a corpus entry: its manifest path with every other character '_'.
struct CorpusEntryName {
  template <typename ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    std::string s;
    for (char c : info.param.rel) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return s;
  }
};

// A file, or every regular file of a directory (sorted), with its bytes kept alive.
struct LoadedFiles {
  std::vector<std::string> storage;
  std::vector<isoscope::InputFile> files;
};
LoadedFiles load_path(const std::string& path);
isoscope::Expected<isoscope::History> read_path(const std::string& path, const std::string& format = "");

// The helpers many test files share (the test bodies compile as a unity build, so a helper a file
// keeps to itself needs a name no other test file uses).
// The eight transactional levels, weakest first.
inline constexpr std::array<isoscope::Level, 8> kTransactional = {
    isoscope::Level::RC, isoscope::Level::RR, isoscope::Level::RA,  isoscope::Level::CC,
    isoscope::Level::PC, isoscope::Level::SI, isoscope::Level::SER, isoscope::Level::SSER};
bool contains(const std::string& s, const std::string& part);
// A file's bytes ("" when it cannot be read).
std::string slurp(const std::string& path);
// One file read as a history, its format detected when `format` is empty.
isoscope::Expected<isoscope::History> read_one(const std::string& name, const std::string& bytes,
                                               const std::string& format = "");
// An isoscope JSON history that must parse (a failed expectation, and an empty history, if not).
isoscope::History parse_json(const std::string& json);
// One level's verdict of a history, checked alone.
isoscope::Verdict verdict(const isoscope::History& h, isoscope::Level l);
// An empty directory of the test's own under the system's temporary directory.
std::filesystem::path fresh_dir(const std::string& name);
// A history as canonical isoscope JSON, to print a failing random history.
std::string dump(const isoscope::History& h);

struct CommandResult {
  int status;
  std::string out, err;
};
// Runs the built `isoscope` binary with the given (shell) arguments.
CommandResult run_cli(const std::string& args);
std::string shell_quote(const std::string& s);
// An anomaly kind's name as the JSON reports it, as a string the tests compare and print.
inline std::string name_of(isoscope::AnomalyKind k) { return isoscope::kind_name(k); }
// Writes content to a fresh file in a temporary directory and returns its path.
std::string temp_file(const std::string& name, const std::string& content);
// A serial history without timestamps with one anomaly planted (generate --target inject=NAME).
isoscope::History planted_history(const char* anomaly, uint32_t sessions, uint32_t txns_per_session);

// How many random histories (or how large a generated history) a randomised test runs: its full
// count times ISOSCOPE_TEST_SCALE, a fraction in (0, 1] (1 when unset), and never fewer than
// `floor` (so that every shape a test cycles through still comes up). The optimised run keeps
// the full counts (the verdict coverage); the sanitizer run, which looks for memory and
// undefined-behaviour faults rather than verdicts, sets a small scale (scripts/test.sh);
// `npm run test:deep` runs the full counts under the sanitizers too.
int scaled(int full, int floor = 40);
// A "not vacuous" threshold of a randomised test (at least so many histories failed, passed,
// separated two levels...), for the count `scaled` ran: the full threshold at scale 1, otherwise
// its share at that scale, halved for the smaller sample's spread (and no floor at all where
// that share is under one: a rare case need not come up in a small sample).
int scaled_threshold(int full);
// The sizes a test runs each of its shapes at: all of them at the full counts; at a smaller
// scale (the sanitizer run) all but the largest, which runs the same code for longer.
std::vector<uint32_t> scaled_sizes(std::initializer_list<uint32_t> sizes);
