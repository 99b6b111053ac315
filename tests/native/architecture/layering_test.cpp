// The layers, asserted from the sources (ARCHITECTURE.md draws them). Every `#include "..."`
// of the C++ sources points down or within its own folder:
//   util < model < graph < formats, generate (peers: neither includes the other) < checkers
//   < report < the front ends: wasm/bindings, native/runner < native/cli
// and no source includes, directly or through others, one that includes it back (a module is a
// header with its source: x.h and x.cpp). A family's internal.h, the private half of its public
// header, may include that header. Nothing in the core includes a database client library.
// The rules are data (kRanks): a test below checks that they reject an upward include, so that
// a rule that could not fail would itself fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "graph/digraph.h"

namespace {
namespace fs = std::filesystem;

// The layer of each folder of the C++ sources, lowest first; the name is the include path's
// first part (the core's and native/'s include roots), or the folder for the bindings.
const std::map<std::string, int> kRanks = {
    {"util", 0},     {"model", 1},  {"graph", 2},    {"formats", 3},  {"generate", 3},
    {"checkers", 4}, {"report", 5}, {"bindings", 6}, {"runner", 6},   {"cli", 7},
};

struct Source {
  std::string path;    // from the repository's root
  std::string module;  // include-style path without its extension: "checkers/check"
  std::vector<std::string> includes;  // quoted includes
  std::vector<std::string> system;    // <...> includes
};

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
std::string first_part(const std::string& p) { return p.substr(0, p.find('/')); }

// Every C++ source of the layers: wasm/core (include root wasm/core), wasm/bindings, native/.
std::vector<Source> sources() {
  std::vector<Source> out;
  const std::regex quoted("^\\s*#\\s*include\\s+\"([^\"]+)\""), angled("^\\s*#\\s*include\\s+<([^>]+)>");
  const fs::path repo(ISOSCOPE_SOURCE_DIR);
  for (const char* root : {"wasm/core", "wasm", "native"}) {
    for (const auto& e : fs::recursive_directory_iterator(repo / root)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      if (ext != ".h" && ext != ".cpp") continue;
      std::string rel = fs::relative(e.path(), repo / root).generic_string();
      if (std::string(root) == "wasm" && starts_with(rel, "core/")) continue;  // (the core's own root)
      Source s;
      s.path = std::string(root) + "/" + rel;
      s.module = rel.substr(0, rel.size() - ext.size());
      std::ifstream in(e.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line)) {
        if (std::regex_search(line, m, quoted)) s.includes.push_back(m[1].str());
        else if (std::regex_search(line, m, angled)) s.system.push_back(m[1].str());
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

// Whether a source of module `from` may include `to` (both include-style paths).
bool allowed(const std::string& from, const std::string& to) {
  const std::string a = first_part(from), b = first_part(to);
  if (a == b) return true;
  const auto ra = kRanks.find(a), rb = kRanks.find(b);
  if (rb == kRanks.end()) return b == "simdjson.h";  // the one third-party header
  return ra != kRanks.end() && rb->second < ra->second;
}

// The module-level include graph's cycles (each as its modules): its strongly connected
// components of more than one module (the core's Tarjan, graph/digraph.h).
std::vector<std::vector<std::string>> include_cycles(const std::vector<Source>& srcs) {
  std::map<std::string, uint32_t> id;
  std::vector<std::string> name;
  for (const Source& s : srcs)
    if (id.emplace(s.module, static_cast<uint32_t>(name.size())).second) name.push_back(s.module);
  isoscope::DigraphBuilder b(static_cast<uint32_t>(name.size()));
  for (const Source& s : srcs) {
    if (fs::path(s.path).filename() == "internal.h") continue;  // the private half of its family's header
    for (const std::string& i : s.includes) {
      const auto to = id.find(i.substr(0, i.rfind('.')));
      if (to != id.end() && to->first != s.module) b.add(id.at(s.module), to->second);
    }
  }
  uint32_t count = 0;
  const std::vector<uint32_t> comp = isoscope::strongly_connected_components(b.build(), count);
  std::vector<std::vector<std::string>> members(count), cycles;
  for (uint32_t u = 0; u < comp.size(); ++u) members[comp[u]].push_back(name[u]);
  for (auto& m : members)
    if (m.size() > 1) cycles.push_back(std::move(m));
  return cycles;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " <-> ") + x;
  return s;
}

}  // namespace

TEST(Layering, EveryFolderHasARank) {
  const std::vector<Source> srcs = sources();
  EXPECT_GT(srcs.size(), 100u);
  for (const Source& s : srcs) EXPECT_TRUE(kRanks.count(first_part(s.module))) << s.path << " is in no layer (kRanks)";
}

TEST(Layering, EveryIncludePointsDownOrWithinItsFolder) {
  for (const Source& s : sources())
    for (const std::string& i : s.includes) EXPECT_TRUE(allowed(s.module, i)) << s.path << " includes " << i;
}

TEST(Layering, NoIncludeCircle) {
  for (const auto& cycle : include_cycles(sources())) ADD_FAILURE() << "an include circle: " << joined(cycle);
}

// The report speaks of levels and anomalies, not of how a family of checkers finds them.
TEST(Layering, TheReportDoesNotReachIntoACheckerFamily) {
  const std::regex family("^checkers/[^/]+/");
  for (const Source& s : sources())
    if (starts_with(s.module, "report/"))
      for (const std::string& i : s.includes) EXPECT_FALSE(std::regex_search(i, family)) << s.path << " includes " << i;
}

// The rules can fail: an include upward, one between the peers formats/ and generate/, and a
// circle are each caught.
TEST(Layering, TheRulesRejectAnUpwardArrowAndACircle) {
  EXPECT_FALSE(allowed("model/history", "checkers/check.h"));
  EXPECT_FALSE(allowed("util/json", "model/history.h"));
  EXPECT_FALSE(allowed("generate/text_sinks", "formats/writers.h"));
  EXPECT_FALSE(allowed("formats/isoscope_json", "generate/random_history.h"));
  EXPECT_FALSE(allowed("checkers/check", "runner/database.h"));
  EXPECT_FALSE(allowed("runner/runner", "cli/exit_status.h"));
  EXPECT_TRUE(allowed("cli/main", "runner/runner.h"));
  EXPECT_TRUE(allowed("checkers/weak/cc", "graph/digraph.h"));
  std::vector<Source> srcs(3);
  srcs[0] = {"wasm/core/checkers/a.cpp", "checkers/a", {"checkers/b.h"}, {}};
  srcs[1] = {"wasm/core/checkers/b.h", "checkers/b", {"checkers/c.h"}, {}};
  srcs[2] = {"wasm/core/checkers/c.h", "checkers/c", {"checkers/a.h"}, {}};
  ASSERT_EQ(include_cycles(srcs).size(), 1u);
  EXPECT_EQ(include_cycles(srcs)[0].size(), 3u);
}

// The core compiles to WebAssembly: no core source includes a database client library.
TEST(Layering, TheCoreNeverReachesADatabaseClientLibrary) {
  size_t core = 0;
  for (const Source& s : sources()) {
    if (!starts_with(s.path, "wasm/core/")) continue;
    ++core;
    for (const std::string& i : s.system)
      EXPECT_FALSE(i == "libpq-fe.h" || i == "mysql.h" || i == "sqlite3.h" || starts_with(i, "hiredis") ||
                   starts_with(i, "curl/"))
          << s.path << " includes " << i;
  }
  EXPECT_GT(core, 100u);
}
