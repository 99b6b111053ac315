// The workload options `isoscope generate` and `isoscope run` share (how many sessions,
// transactions, operations and keys; which keys; which transaction shapes; the seed), read by
// one parser with one set of limits. Each command sets its defaults in WorkloadOptions before
// parsing and copies the result into its own parameters; a limit that comes from a resource of
// one command (run's connections and rows) is that command's check, after parsing.
#pragma once
#include <cstdint>
#include <string>

#include "generate/random_history.h"
#include "generate/workload.h"

namespace isoscope::cli {

struct WorkloadOptions {
  uint32_t sessions = 4;
  uint32_t txns_per_session = 10;
  bool txns_given = false;        // --txns was on the command line
  uint32_t min_ops = 1, max_ops = 4;  // operations per transaction
  uint32_t keys = 8;
  KeyDist dist = KeyDist::Uniform;
  double read_ratio = 0.5;
  WorkloadMix mix;
  std::string mix_text = "polysi";  // as given (the default, every transaction mixed, is PolySI's)
  bool mix_given = false;           // --mix was on the command line
  uint64_t seed = 1;
};

// The limits, for the commands' own checks and messages.
inline constexpr uint32_t kMaxSessions = 1000000;
inline constexpr uint32_t kMaxTxnsPerSession = 100000000;
inline constexpr uint32_t kMaxOpsPerTxn = 1000000;
inline constexpr uint32_t kMaxKeys = 1000000000;

enum class OptionRead : uint8_t { NotShared, Read, Bad };
// When argv[i] is a shared option, reads it and its value into `o` (advancing i past the value)
// and returns Read, or Bad with the message in `error`; NotShared for any other argument.
OptionRead read_workload_option(int argc, char** argv, int& i, WorkloadOptions& o, std::string& error);

}  // namespace isoscope::cli
