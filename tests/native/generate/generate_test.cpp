// `isoscope generate`: streamed text parses back, targets mean what they say, and every
// injected anomaly is found by exactly the levels that forbid it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "checkers/check.h"
#include "formats/formats.h"
#include "generate/inject.h"
#include "generate/list_append.h"
#include "formats/text_sink.h"
#include "test_util.h"

using namespace isoscope;

namespace {

// Generates p (with an optional injected anomaly) as text in `format`.
std::string generate_text(const GenParams& p, const char* format, const InjectableAnomaly* inject) {
  TextOut out;
  std::unique_ptr<TextSink> sink = make_text_sink(format, out, p.labels);
  generate_with_anomaly(p, inject, *sink);
  EXPECT_FALSE(sink->finish());
  return std::move(out.text());
}

History parse(const std::string& text, const char* format) {
  InputFile f{"generated", text};
  Expected<History> h = read_history(std::span<const InputFile>(&f, 1), format);
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().to_string());
  return h.ok() ? std::move(*h) : History{};
}

constexpr Level kChain[] = {Level::RC, Level::RR, Level::RA, Level::CC, Level::PC, Level::SI, Level::SER, Level::SSER};

}  // namespace

TEST(Generate, StreamedTextMatchesTheInMemoryHistory) {
  GenParams p;
  p.sessions = 5;
  p.txns_per_session = 30;
  p.keys = 20;
  p.abort_ratio = 0.1;
  p.timestamps = true;
  p.mode = GenMode::Random;
  Expected<History> direct = generate_history(p);
  ASSERT_TRUE(direct.ok());
  History streamed = parse(generate_text(p, "isoscope", nullptr), "isoscope");
  EXPECT_EQ(write_isoscope_json(*direct), write_isoscope_json(streamed));
  History plume = parse(generate_text(p, "plume", nullptr), "plume");
  EXPECT_EQ(plume.num_ops(), direct->num_ops());
  EXPECT_EQ(plume.num_sessions(), direct->num_sessions());
}

// --labels reaches the text as it reaches the in-memory history, for every generator.
TEST(Generate, LabelsReachTheTextOfEveryGenerator) {
  GenParams p;
  p.sessions = 3;
  p.txns_per_session = 4;
  p.labels = true;
  Expected<History> direct = generate_history(p);
  ASSERT_TRUE(direct.ok());
  const History streamed = parse(generate_text(p, "isoscope", nullptr), "isoscope");
  EXPECT_EQ(write_isoscope_json(*direct), write_isoscope_json(streamed));
  EXPECT_TRUE(contains(write_isoscope_json(streamed), "\"id\": \"s2t3\""));
  for (const char* gen : {"", "--engine si ", "--mt si ", "--lwt "}) {
    const CommandResult r = run_cli(std::string("generate ") + gen + "--sessions 2 --txns 3 --labels -");
    ASSERT_EQ(r.status, 0) << gen << r.err;
    EXPECT_TRUE(contains(r.out, "\"id\": \"s1t2\"")) << gen << r.out.substr(0, 400);
  }
}

TEST(Generate, SerialTargetSatisfiesEveryLevel) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    GenParams p;
    p.seed = seed;
    p.sessions = 3 + seed % 5;
    p.txns_per_session = 10 + seed % 20;
    p.keys = 4 + seed % 12;
    p.timestamps = seed % 2;
    p.mode = GenMode::Serial;
    History h = parse(generate_text(p, "isoscope", nullptr), "isoscope");
    CheckReport r = check_history(h, {});
    for (Level l : kChain) {
      Verdict v = r.results[static_cast<int>(l)].verdict;
      if (l == Level::SSER && !p.timestamps) EXPECT_EQ(v, Verdict::NotApplicable);
      else EXPECT_EQ(v, Verdict::Pass) << level_name(l) << " seed " << seed;
    }
  }
}

// The acceptance test of issue 6: each inject= anomaly is found by the level that forbids it
// (and every stronger one), and not by the weaker levels that allow it.
TEST(Generate, EachInjectedAnomalyFailsExactlyTheLevelsThatForbidIt) {
  size_t histories = 0;
  for (const InjectableAnomaly& a : injectable_anomalies()) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      GenParams p;
      p.seed = seed;
      p.sessions = std::max<uint32_t>(a.sessions, 2 + seed % 5);
      p.txns_per_session = 4 + seed % 25;
      p.keys = 3 + seed % 10;
      p.timestamps = a.needs_timestamps || seed % 3 == 0;
      p.mode = GenMode::Serial;
      History h = parse(generate_text(p, seed % 2 ? "isoscope" : "plume", &a), seed % 2 ? "isoscope" : "plume");
      ++histories;
      CheckReport r = check_history(h, {});
      for (Level l : kChain) {
        const LevelResult& lr = r.results[static_cast<int>(l)];
        if (l == Level::SSER && !h.has_timestamps) continue;  // plume keeps no timestamps
        const bool forbidden = static_cast<int>(l) >= static_cast<int>(a.weakest_failing);
        EXPECT_EQ(lr.verdict, forbidden ? Verdict::Fail : Verdict::Pass)
            << a.name << " at " << level_name(l) << " (seed " << seed << ")";
      }
    }
  }
  EXPECT_GE(histories, 100u);
}

TEST(Generate, ListAppendHistoriesReplayASerialExecution) {
  for (uint64_t seed = 1; seed <= 15; ++seed) {
    GenParams p;
    p.seed = seed;
    p.sessions = 2 + seed % 6;
    p.txns_per_session = 5 + seed % 30;
    p.keys = 2 + seed % 8;
    p.abort_ratio = seed % 3 ? 0.1 : 0;
    p.timestamps = seed % 2;
    Expected<History> h = generate_list_append_history(p);
    ASSERT_TRUE(h.ok());
    EXPECT_TRUE(h->has_lists);
    CheckReport r = check_history(*h, {});
    for (Level l : kChain) {
      if (l == Level::SSER && !p.timestamps) continue;
      EXPECT_EQ(r.results[static_cast<int>(l)].verdict, Verdict::Pass) << level_name(l) << " seed " << seed;
    }
  }
  EXPECT_EQ(run_cli("generate --list-append --format plume -").status, 2);
  EXPECT_EQ(run_cli("generate --list-append --target random -").status, 2);
  CommandResult r = run_cli("generate --list-append --sessions 3 --txns 5 -");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"append\""), std::string::npos);
}
