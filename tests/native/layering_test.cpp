// The layers of the core, asserted from the sources: util/ is below model/, model/ is below
// everything else, generate/ does not reach into the checkers, and the report does not reach
// into a checker family's internals (checkers/<family>/). A newcomer can trust the picture in
// the README.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {
namespace fs = std::filesystem;

// Every `#include "..."` of every source file under wasm/core/<folder>, as (file, included).
std::vector<std::pair<std::string, std::string>> includes_of(const std::string& folder) {
  std::vector<std::pair<std::string, std::string>> out;
  const fs::path root = fs::path(ISOSCOPE_SOURCE_DIR) / "wasm" / "core" / folder;
  const std::regex inc("^\\s*#\\s*include\\s+\"([^\"]+)\"");
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, inc)) out.emplace_back(e.path().string(), m[1].str());
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

TEST(Layering, UtilIncludesOnlyUtil) {
  for (const auto& [file, inc] : includes_of("util")) EXPECT_TRUE(starts_with(inc, "util/")) << file << " includes " << inc;
}

TEST(Layering, ModelIncludesOnlyModelAndUtil) {
  const auto incs = includes_of("model");
  EXPECT_FALSE(incs.empty());
  for (const auto& [file, inc] : incs)
    EXPECT_TRUE(starts_with(inc, "model/") || starts_with(inc, "util/")) << file << " includes " << inc;
}

TEST(Layering, GenerateDoesNotReachIntoTheCheckers) {
  for (const auto& [file, inc] : includes_of("generate")) EXPECT_FALSE(starts_with(inc, "checkers/")) << file << " includes " << inc;
}

TEST(Layering, TheReportDoesNotReachIntoACheckerFamily) {
  const std::regex family("^checkers/[^/]+/");
  for (const auto& [file, inc] : includes_of("report")) EXPECT_FALSE(std::regex_search(inc, family)) << file << " includes " << inc;
}

// `isoscope run` (wasm/runner/) sits above the core, beside the CLI: no core source includes it
// or a database client library, so the wasm build and the checkers never depend on them.
TEST(Layering, TheCoreNeverReachesTheDatabaseRunner) {
  const fs::path core = fs::path(ISOSCOPE_SOURCE_DIR) / "wasm" / "core";
  const std::regex inc("^\\s*#\\s*include\\s+[\"<]([^\">]+)[\">]");
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(core)) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::ifstream in(e.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, inc)) {
        const std::string i = m[1].str();
        EXPECT_FALSE(starts_with(i, "runner/") || i == "libpq-fe.h" || i == "mysql.h" || i == "sqlite3.h")
            << e.path() << " includes " << i;
      }
  }
  EXPECT_GT(files, 20u);
}
