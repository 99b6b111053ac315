// `isoscope anomalies`, `formats` and `levels`: the core's vocabularies, for people or as JSON.
#include <cstdio>
#include <functional>
#include <string>

#include "cli/cli.h"
#include "cli/exit_status.h"
#include "formats/formats.h"
#include "model/anomaly_kinds.h"
#include "model/levels.h"
#include "report/result_json.h"

namespace isoscope::cli {

namespace {

// One of the core's vocabularies, as a table for people or (--json) as the web app reads it.
int run_listing(const char* cmd, int argc, char** argv, const std::string& json, const std::function<void()>& table) {
  const bool as_json = argc == 1 && std::string(argv[0]) == "--json";
  if (argc > 1 || (argc == 1 && !as_json)) return usage_error(std::string(cmd) + " takes only --json");
  if (as_json) std::printf("%s\n", json.c_str());
  else table();
  return kExitPass;
}

}  // namespace

int run_anomalies(int argc, char** argv) {
  return run_listing("anomalies", argc, argv, anomaly_kinds_json(), [] {
    for (const AnomalyKindInfo& k : anomaly_kinds())
      std::printf("%-26s %-5s %-30s %s\n", k.name, level_name(k.weakest), family_name(k.family), k.description);
  });
}

// The levels, what each promises and the weaker levels a pass decides.
int run_levels(int argc, char** argv) {
  return run_listing("levels", argc, argv, level_vocabulary_json(), [] {
    for (int i = 0; i < kNumLevels; ++i) {
      const Level l = static_cast<Level>(i);
      std::printf("%-5s %-24s %s\n", level_name(l), level_title(l), level_summary(l));
    }
  });
}

// The formats the readers know, in detection order.
int run_formats(int argc, char** argv) {
  return run_listing("formats", argc, argv, formats_json(), [] {
    for (const FormatInfo& f : all_formats()) std::printf("%-14s %s\n", f.name, f.title);
  });
}

}  // namespace isoscope::cli
