#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "formats/writers.h"
#include "generate/inject.h"
#include "generate/random_history.h"
#include "simdjson.h"

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

isoscope::Expected<isoscope::History> read_one(const std::string& name, const std::string& bytes,
                                               const std::string& format) {
  isoscope::InputFile f{name, bytes};
  return isoscope::read_history(std::span<const isoscope::InputFile>(&f, 1), format);
}

isoscope::History parse_json(const std::string& json) {
  isoscope::Expected<isoscope::History> h = read_one("h.json", json, "isoscope");
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().to_string());
  return h.ok() ? std::move(*h) : isoscope::History{};
}

isoscope::Verdict verdict(const isoscope::History& h, isoscope::Level l) {
  isoscope::CheckOptions o;
  o.levels = {l};
  return isoscope::check_history(h, o).results[static_cast<int>(l)].verdict;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("isoscope-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string dump(const isoscope::History& h) { return isoscope::write_isoscope_json(h); }

const std::string& corpus_dir() {
  static const std::string dir = std::getenv("ISOSCOPE_CORPUS") ? std::getenv("ISOSCOPE_CORPUS") : ISOSCOPE_CORPUS;
  return dir;
}

bool corpus_available() { return fs::exists(fs::path(corpus_dir()) / "manifest.json"); }

std::vector<CorpusEntry> corpus_entries() {
  std::vector<CorpusEntry> out;
  const std::string root = corpus_dir();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(root + "/manifest.json").get(doc)) return out;
  simdjson::dom::array entries;
  if (doc["entries"].get_array().get(entries)) return out;
  for (simdjson::dom::element e : entries) {
    CorpusEntry c;
    std::string_view s;
    if (!e["path"].get_string().get(s)) c.rel = std::string(s);
    if (!e["format"].get_string().get(s)) c.format = std::string(s);
    c.path = root + "/" + c.rel;
    simdjson::dom::object expect;
    if (!e["expect"].get_object().get(expect))
      for (auto field : expect) {
        std::string_view v;
        if (!field.value.get_string().get(v)) c.expect[std::string(field.key)] = std::string(v);
      }
    out.push_back(std::move(c));
  }
  return out;
}

LoadedFiles load_path(const std::string& path) {
  LoadedFiles lf;
  std::vector<std::string> paths;
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::directory_iterator(path))
      if (entry.is_regular_file()) paths.push_back(entry.path().string());
    std::sort(paths.begin(), paths.end());
  } else {
    paths.push_back(path);
  }
  lf.storage.reserve(paths.size());
  for (const std::string& p : paths) lf.storage.push_back(slurp(p));
  for (size_t i = 0; i < paths.size(); ++i) lf.files.push_back({paths[i], lf.storage[i]});
  return lf;
}

isoscope::Expected<isoscope::History> read_path(const std::string& path, const std::string& format) {
  LoadedFiles lf = load_path(path);
  return isoscope::read_history(lf.files, format);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string temp_file(const std::string& name, const std::string& content) {
  fs::path dir = fs::temp_directory_path() / ("isoscope-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

CommandResult run_cli(const std::string& args) {
  std::string err_path = temp_file("stderr.txt", "");
  std::string cmd = shell_quote(ISOSCOPE_CLI) + " " + args + " 2>" + shell_quote(err_path);
  CommandResult r{-1, "", ""};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = slurp(err_path);
  return r;
}

isoscope::History planted_history(const char* anomaly, uint32_t sessions, uint32_t txns_per_session) {
  isoscope::GenParams g;
  g.seed = 1;
  g.sessions = sessions;
  g.txns_per_session = txns_per_session;
  isoscope::HistorySink sink(false);
  isoscope::generate_with_anomaly(g, isoscope::find_injectable(anomaly), sink);
  isoscope::Expected<isoscope::History> h = sink.builder().finish("generated");
  if (!h.ok()) std::abort();
  return std::move(*h);
}

static double test_scale() {
  static const double scale = [] {
    const char* s = std::getenv("ISOSCOPE_TEST_SCALE");
    if (!s || !*s) return 1.0;
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 1) {
      std::fprintf(stderr, "ISOSCOPE_TEST_SCALE=%s: expected a fraction in (0, 1]; running the full counts\n", s);
      return 1.0;
    }
    return v;
  }();
  return scale;
}

int scaled(int full, int floor) {
  const int n = static_cast<int>(full * test_scale() + 0.5);
  return std::max(std::min(full, floor), n);
}

std::vector<uint32_t> scaled_sizes(std::initializer_list<uint32_t> sizes) {
  std::vector<uint32_t> v(sizes);
  if (test_scale() < 1.0 && v.size() > 1) v.erase(std::max_element(v.begin(), v.end()));
  return v;
}

int scaled_threshold(int full) {
  if (test_scale() == 1.0) return full;
  const int t = static_cast<int>(full * test_scale() / 2);
  return t > 0 ? t : -1;  // a sample too small to expect a rare case: no floor
}
