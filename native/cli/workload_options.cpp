#include "cli/workload_options.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "cli/cli.h"

namespace isoscope::cli {
namespace {

bool whole_in(const char* s, uint32_t lo, uint32_t hi, uint32_t& out) {
  double d = 0;
  if (!parse_whole_in(s, lo, hi, d)) return false;
  out = static_cast<uint32_t>(d);
  return true;
}

// Decimal digits only, up to 2^64 - 1: a double would round seeds above 2^53.
bool parse_seed(const char* s, uint64_t& out) {
  if (!s || !*s) return false;
  for (const char* c = s; *c; ++c)
    if (*c < '0' || *c > '9') return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoull(s, &end, 10);
  return errno == 0 && end && *end == '\0';
}

// N or MIN-MAX, whole numbers with 1 <= MIN <= MAX <= kMaxOpsPerTxn.
bool parse_ops(const char* s, uint32_t& lo, uint32_t& hi) {
  if (!s) return false;
  const std::string r = s;
  const size_t dash = r.find('-');
  if (dash == std::string::npos) {
    if (!whole_in(r.c_str(), 1, kMaxOpsPerTxn, lo)) return false;
    hi = lo;
    return true;
  }
  return whole_in(r.substr(0, dash).c_str(), 1, kMaxOpsPerTxn, lo) &&
         whole_in(r.substr(dash + 1).c_str(), 1, kMaxOpsPerTxn, hi) && lo <= hi;
}

}  // namespace

OptionRead read_workload_option(int argc, char** argv, int& i, WorkloadOptions& o, std::string& error) {
  const std::string_view a = argv[i];
  const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
  bool ok = true;
  if (a == "--sessions") {
    ok = whole_in(v, 1, kMaxSessions, o.sessions);
    if (!ok) error = "--sessions needs a whole number from 1 to " + std::to_string(kMaxSessions);
  } else if (a == "--txns") {
    ok = whole_in(v, 0, kMaxTxnsPerSession, o.txns_per_session);
    o.txns_given = true;
    if (!ok) error = "--txns needs a whole number of transactions per session, from 0 to " + std::to_string(kMaxTxnsPerSession);
  } else if (a == "--ops") {
    ok = parse_ops(v, o.min_ops, o.max_ops);
    if (!ok) error = "--ops needs N or MIN-MAX, whole numbers with 1 <= MIN <= MAX <= " + std::to_string(kMaxOpsPerTxn);
  } else if (a == "--keys") {
    ok = whole_in(v, 1, kMaxKeys, o.keys);
    if (!ok) error = "--keys needs a whole number from 1 to " + std::to_string(kMaxKeys);
  } else if (a == "--dist") {
    ok = v && parse_key_dist(v, o.dist);
    if (!ok) error = "--dist needs uniform, zipf or hotspot";
  } else if (a == "--read-ratio") {
    double d = 0;
    ok = parse_in(v, 0, 1, d);
    if (ok) o.read_ratio = d;
    else error = "--read-ratio needs a number in [0, 1]";
  } else if (a == "--mix") {
    ok = v && parse_workload_mix(v, o.mix);
    o.mix_given = true;
    if (ok) o.mix_text = v;
    if (!ok) error = "--mix needs cobra, polysi, random or RO,WO,RMW fractions summing to at most 1";
  } else if (a == "--seed") {
    ok = parse_seed(v, o.seed);
    if (!ok) error = "--seed needs a whole number from 0 to 18446744073709551615";
  } else {
    return OptionRead::NotShared;
  }
  if (!ok) return OptionRead::Bad;
  ++i;
  return OptionRead::Read;
}

}  // namespace isoscope::cli
