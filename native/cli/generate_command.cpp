// `isoscope generate`: a seeded history from any of the generators, streamed to its format.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli.h"
#include "cli/exit_status.h"
#include "cli/workload_options.h"
#include "formats/text_sink.h"
#include "formats/writers.h"
#include "generate/db_sim.h"
#include "generate/inject.h"
#include "generate/list_append.h"
#include "generate/mt_history.h"
#include "generate/random_history.h"
#include "generate/register_history.h"
#include "model/levels.h"
#include "util/printable.h"

namespace isoscope::cli {

// `isoscope generate`: streams a seeded random history in the chosen format.
int run_generate(int argc, char** argv) {
  GenParams p;
  WorkloadOptions w;  // generate's defaults: 4 sessions of 10 transactions, 1-4 operations over 8 keys
  std::string format = "isoscope", target = "serial", out_path, mt_engine, db_engine;
  bool have_out = false, lwt = false, list_append = false, reg = false, reg_cas = true, unknown_set = false;
  double stale_ratio = -1;  // unset: each generator's own default
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const char* v = (i + 1 < argc) ? argv[i + 1] : nullptr;
    double d = 0;
    auto take = [&](double lo, double hi) {
      if (!parse_in(v, lo, hi, d)) return false;
      ++i;
      return true;
    };
    auto take_whole = [&](double lo, double hi) {  // counts: no fractions
      if (!parse_whole_in(v, lo, hi, d)) return false;
      ++i;
      return true;
    };
    std::string error;
    const OptionRead shared = read_workload_option(argc, argv, i, w, error);
    if (shared == OptionRead::Bad) return usage_error(error);
    if (shared == OptionRead::Read) continue;
    if (a == "--single-op") {
      w.min_ops = w.max_ops = 1;
    } else if (a == "--abort-ratio") {
      if (!take(0, 1)) return usage_error("--abort-ratio needs a number in [0, 1]");
      p.abort_ratio = d;
    } else if (a == "--unknown-ratio") {
      if (!take(0, 1)) return usage_error("--unknown-ratio needs a number in [0, 1]");
      p.unknown_ratio = d;
      unknown_set = true;
    } else if (a == "--timestamps") {
      p.timestamps = true;
    } else if (a == "--labels") {
      p.labels = true;
    } else if (a == "--value-range") {
      if (!take_whole(1, 4e9)) return usage_error("--value-range needs a whole number from 1 to 4000000000");
      p.value_range = static_cast<uint32_t>(d);
    } else if (a == "--mt") {
      mt_engine = v ? v : "";
      ++i;
      if (mt_engine != "serial" && mt_engine != "si" && mt_engine != "rc" && mt_engine != "stale")
        return usage_error("--mt needs serial, si, rc or stale");
    } else if (a == "--engine") {
      db_engine = v ? v : "";
      ++i;
      if (db_engine != "ser" && db_engine != "si" && db_engine != "rc")
        return usage_error("--engine needs ser, si or rc");
    } else if (a == "--inject") {
      if (!v) return usage_error("--inject needs an anomaly name");
      target = std::string("inject=") + v;
      ++i;
    } else if (a == "--lwt") {
      lwt = true;
    } else if (a == "--register") {
      reg = true;
    } else if (a == "--no-cas") {
      reg_cas = false;
    } else if (a == "--list-append") {
      list_append = true;
    } else if (a == "--stale-ratio") {
      if (!take(0, 1)) return usage_error("--stale-ratio needs a number in [0, 1]");
      stale_ratio = d;
    } else if (a == "--format") {
      format = v ? v : "";
      ++i;
    } else if (a == "--target") {
      if (!v) return usage_error("--target needs serial, level=L, inject=ANOMALY or random");
      target = v;
      ++i;
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      return usage_error("unknown option '" + a + "'");
    } else if (!have_out) {
      out_path = a;
      have_out = true;
    } else {
      return usage_error("more than one OUT given");
    }
  }
  if (!have_out) return usage_error("generate needs OUT (a file, or - for stdout)");
  p.sessions = w.sessions;
  p.txns_per_session = w.txns_per_session;
  p.min_ops = w.min_ops;
  p.max_ops = w.max_ops;
  p.keys = w.keys;
  p.key_dist = w.dist;
  p.read_ratio = w.read_ratio;
  p.seed = w.seed;

  const InjectableAnomaly* inject = nullptr;
  if (target == "serial") {
    p.mode = GenMode::Serial;
  } else if (target == "random") {
    p.mode = GenMode::Random;
  } else if (target.rfind("level=", 0) == 0) {
    Level l;
    if (!parse_level(target.substr(6), l) || static_cast<int>(l) > static_cast<int>(Level::SSER))
      return usage_error("--target level=L needs one of RC RR RA CC PC SI SER SSER");
    // Up to CC: causally consistent histories, random beyond CC. Stronger: serial executions.
    p.mode = static_cast<int>(l) <= static_cast<int>(Level::CC) ? GenMode::Causal : GenMode::Serial;
    if (l == Level::SSER) p.timestamps = true;
  } else if (target.rfind("inject=", 0) == 0) {
    inject = find_injectable(target.substr(7));
    if (!inject) {
      std::string names;
      for (const InjectableAnomaly& a : injectable_anomalies()) names += std::string(" ") + a.name;
      return usage_error("unknown anomaly '" + target.substr(7) + "'; known:" + names);
    }
    if (inject->sessions > p.sessions)
      return usage_error(std::string(inject->name) + " needs at least " + std::to_string(inject->sessions) + " sessions");
    p.mode = GenMode::Serial;
    if (inject->needs_timestamps) p.timestamps = true;
  } else {
    return usage_error("--target needs serial, level=L, inject=ANOMALY or random");
  }

  if (p.value_range && (list_append || !mt_engine.empty() || lwt))
    return usage_error("--value-range applies to the default and --engine workloads (list appends, --mt and --lwt keep unique values)");
  if (reg) {
    if (list_append || lwt || !mt_engine.empty() || !db_engine.empty() || target != "serial")
      return usage_error("--register runs alone (with --no-cas, --stale-ratio, --unknown-ratio, --sessions, --txns, --keys, --seed)");
    RegisterGenParams q;
    q.seed = p.seed;
    q.processes = p.sessions;
    q.ops_per_process = p.txns_per_session;
    q.keys = p.keys;
    q.cas = reg_cas;
    if (unknown_set) q.info_ratio = p.unknown_ratio;
    if (stale_ratio >= 0) q.stale_ratio = stale_ratio;
    return write_output(out_path, [&](TextOut& out) {
      JepsenEdnSink edn(out);
      generate_register_history(q, edn);
      return std::optional<InputError>();
    });
  }
  if (list_append) {
    // Lists are replayed from a serial execution, so they exist only for that target.
    if (target != "serial" || !mt_engine.empty() || lwt)
      return usage_error("--list-append generates serial histories only (--target serial)");
    if (format != "isoscope") return usage_error("--list-append writes --format isoscope (plume has no lists)");
    Expected<History> h = generate_list_append_history(p);
    if (!h) {
      print_input_error(h.error());
      return kExitInput;
    }
    return write_output(out_path, [&](TextOut& out) {
      write_history(*h, *make_writer("isoscope", out));
      return std::optional<InputError>();
    });
  }
  if (format != "isoscope" && format != "plume") return usage_error("generate writes --format isoscope or plume");
  if (w.mix_given && db_engine.empty())
    return usage_error("--mix chooses the transaction shapes of --engine histories (the other generators have shapes of their own)");
  if (!db_engine.empty() && (!mt_engine.empty() || lwt || list_append || (target != "serial" && !inject)))
    return usage_error("--engine runs alone (with --inject ANOMALY at most)");
  return write_output(out_path, [&](TextOut& out) {
    std::unique_ptr<TextSink> sink = make_text_sink(format, out, p.labels);
    if (!db_engine.empty()) {
      DbSimParams q;
      q.seed = p.seed;
      q.engine = db_engine == "ser" ? DbEngine::Serializable : db_engine == "si" ? DbEngine::SnapshotIsolation
                                                                                 : DbEngine::ReadCommitted;
      q.sessions = p.sessions;
      q.txns_per_session = p.txns_per_session;
      q.min_ops = p.min_ops;
      q.max_ops = p.max_ops;
      q.key = p.key_params();
      q.read_ratio = p.read_ratio;
      q.mix = w.mix;
      q.abort_ratio = p.abort_ratio;
      q.inject = inject;
      q.labels = p.labels;
      q.value_range = p.value_range;
      simulate_database(q, *sink);
    } else if (!mt_engine.empty() || lwt) {
      // Mini-transaction and lightweight-transaction workloads (MTC) share the key parameters.
      const KeyParams key = p.key_params();
      if (lwt) {
        LwtGenParams q;
        q.seed = p.seed;
        q.sessions = p.sessions;
        q.ops_per_session = p.txns_per_session;
        q.key = key;
        if (stale_ratio >= 0) q.stale_ratio = stale_ratio;
        q.abort_ratio = p.abort_ratio;
        q.labels = p.labels;
        generate_lwt_history(q, *sink);
      } else {
        MtGenParams q;
        q.seed = p.seed;
        q.sessions = p.sessions;
        q.txns_per_session = p.txns_per_session;
        q.key = key;
        q.engine = mt_engine == "serial" ? MtEngine::Serial : mt_engine == "si" ? MtEngine::SnapshotIsolation
                   : mt_engine == "rc" ? MtEngine::ReadCommitted : MtEngine::Stale;
        if (stale_ratio >= 0) q.stale_ratio = stale_ratio;
        q.abort_ratio = p.abort_ratio;
        q.labels = p.labels;
        generate_mt_history(q, *sink);
      }
    } else {
      generate_with_anomaly(p, inject, *sink);
    }
    return sink->finish();
  });
}

}  // namespace isoscope::cli
