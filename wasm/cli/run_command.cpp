// `isoscope run [TARGET]`: drives a database with a workload, records the history it produced,
// writes it (--out) and checks it, with the same report as `check` (docs/testing-a-database.md).
// The database layer is wasm/runner/; this file is its command line.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>

#include "cli/exit_status.h"
#include "checkers/check.h"
#include "formats/formats.h"
#include "generate/workload.h"
#include "model/levels.h"
#include "report/result_json.h"
#include "runner/database.h"
#include "runner/runner.h"
#include "util/json.h"

using namespace isoscope;
using namespace isoscope::runner;

namespace {

const char* kRunUsage =
    "usage: isoscope run [TARGET] [--isolation read-uncommitted|read-committed|repeatable-read|serializable]\n"
    "                 [--list-append | --mt | --lwt] [--mix cobra|polysi|random|RO,WO,RMW] [--read-ratio R]\n"
    "                 [--sessions N] [--txns N] [--ops N|MIN-MAX] [--keys N] [--dist uniform|zipf|hotspot]\n"
    "                 [--seed S] [--duration SECONDS] [--nemesis kill] [--nemesis-interval MS] [--out FILE]\n"
    "                 [--level L[,L...]] [--json] [--budget-ms N] [--max-anomalies N]\n"
    "  TARGET: postgresql://USER[:PASSWORD]@HOST:PORT/DB, mariadb://... or mysql://... (?VAR=VALUE sets a\n"
    "          session variable on every connection), sqlite:PATH; none: a fresh SQLite file\n";

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

int usage(const std::string& msg) {
  std::fprintf(stderr, "isoscope run: %s\n\n%s", msg.c_str(), kRunUsage);
  return kExitInput;
}

bool number(const char* s, double lo, double hi, double& out) {
  if (!s) return false;
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end && end != s && *end == '\0' && std::isfinite(out) && out >= lo && out <= hi;
}
bool whole(const char* s, double lo, double hi, double& out) { return number(s, lo, hi, out) && out == std::floor(out); }

std::string file_part(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '-';
  return s;
}

std::string iso_time_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

bool read_file(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) out.reserve(static_cast<size_t>(size) + 64);
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

}  // namespace

int run_database_command(int argc, char** argv, long long (*peak_rss)()) {
  RunParams p;
  p.workload.min_ops = 1;
  p.workload.max_ops = 4;
  p.workload.key.keys = 8;
  std::string target_text, out_path, mix_text = "polysi", nemesis;
  Isolation iso = Isolation::Serializable;
  bool have_target = false, json = false, txns_given = false;
  CheckOptions opts;
  std::string command = "isoscope run";
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    double d = 0;
    auto take = [&](double lo, double hi, bool integral) {
      if (!(integral ? whole(v, lo, hi, d) : number(v, lo, hi, d))) return false;
      ++i;
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kRunUsage, stdout);
      return kExitPass;
    } else if (a == "--isolation") {
      if (!v || !parse_isolation(v, iso))
        return usage("--isolation needs read-uncommitted, read-committed, repeatable-read or serializable");
      ++i;
    } else if (a == "--list-append") {
      p.workload.kind = WorkloadKind::ListAppend;
    } else if (a == "--mt") {
      p.workload.kind = WorkloadKind::MiniTxn;
    } else if (a == "--lwt") {
      p.workload.kind = WorkloadKind::Lightweight;
    } else if (a == "--mix") {
      if (!v || !parse_workload_mix(v, p.workload.mix))
        return usage("--mix needs cobra, polysi, random or RO,WO,RMW fractions summing to at most 1");
      mix_text = v;
      ++i;
    } else if (a == "--read-ratio") {
      if (!take(0, 1, false)) return usage("--read-ratio needs a number in [0, 1]");
      p.workload.read_ratio = d;
    } else if (a == "--sessions") {
      if (!take(1, 1000, true)) return usage("--sessions needs a whole number from 1 to 1000 (one connection each)");
      p.sessions = static_cast<uint32_t>(d);
    } else if (a == "--txns") {
      if (!take(0, 1e8, true)) return usage("--txns needs a whole number of transactions per session");
      p.txns_per_session = static_cast<uint32_t>(d);
      txns_given = true;
    } else if (a == "--ops") {
      const std::string r = v ? v : "";
      const size_t dash = r.find('-');
      double lo = 0, hi = 0;
      const bool ok = dash == std::string::npos ? whole(r.c_str(), 1, 1000, lo)
                                                : whole(r.substr(0, dash).c_str(), 1, 1000, lo) &&
                                                      whole(r.substr(dash + 1).c_str(), 1, 1000, hi);
      if (dash == std::string::npos) hi = lo;
      if (!ok || lo > hi) return usage("--ops needs N or MIN-MAX with 1 <= MIN <= MAX <= 1000");
      p.workload.min_ops = static_cast<uint32_t>(lo);
      p.workload.max_ops = static_cast<uint32_t>(hi);
      ++i;
    } else if (a == "--keys") {
      if (!take(1, 1e7, true)) return usage("--keys needs a whole number from 1 to 10000000");
      p.workload.key.keys = static_cast<uint32_t>(d);
    } else if (a == "--dist") {
      const std::string dist = v ? v : "";
      if (dist == "uniform") p.workload.key.dist = MtKeyDist::Uniform;
      else if (dist == "zipf") p.workload.key.dist = MtKeyDist::Zipf;
      else if (dist == "hotspot") p.workload.key.dist = MtKeyDist::Hotspot;
      else return usage("--dist needs uniform, zipf or hotspot");
      ++i;
    } else if (a == "--seed") {
      if (!take(0, 1.8e19, true)) return usage("--seed needs a non-negative integer");
      p.seed = static_cast<uint64_t>(d);
    } else if (a == "--nemesis") {
      nemesis = v ? v : "";
      if (nemesis != "kill" && nemesis != "none") return usage("--nemesis needs kill or none");
      p.nemesis_kill = nemesis == "kill";
      ++i;
    } else if (a == "--duration") {
      if (!take(0.001, 1e7, false)) return usage("--duration needs a number of seconds");
      p.duration_s = d;
      if (!txns_given) p.txns_per_session = 4000000000u;
    } else if (a == "--nemesis-interval") {
      if (!take(1, 1e6, true)) return usage("--nemesis-interval needs milliseconds");
      p.nemesis_interval_ms = static_cast<uint32_t>(d);
    } else if (a == "--out") {
      if (!v) return usage("--out needs a file name");
      out_path = v;
      ++i;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--level" || a == "--levels") {
      if (!v) return usage("--level needs a value such as RC,SER");
      const std::string wrong = parse_level_list(v, opts.levels);
      if (!wrong.empty()) return usage("--level: " + wrong);
      ++i;
    } else if (a == "--budget-ms") {
      if (!take(0, 1e12, false)) return usage("--budget-ms needs a non-negative number");
      opts.budget_ms = d;
    } else if (a == "--max-anomalies") {
      if (!take(0, 1e9, true)) return usage("--max-anomalies needs a whole number");
      opts.max_anomalies = static_cast<size_t>(d);
    } else if (a.size() > 1 && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else if (!have_target) {
      target_text = a;
      have_target = true;
      continue;  // the command line below carries the target without its password
    } else {
      return usage("more than one TARGET given ('" + target_text + "' and '" + a + "')");
    }
  }
  if (p.workload.kind != WorkloadKind::Registers && p.workload.kind != WorkloadKind::ListAppend && mix_text != "polysi")
    return usage("--mix chooses register or list-append shapes; --mt and --lwt have their own");

  // The target; none: a fresh SQLite file, removed afterwards.
  Target target;
  std::string error;
  std::string fresh_sqlite;
  if (!have_target) {
    fresh_sqlite = (std::filesystem::temp_directory_path() / ("isoscope-run-" + std::to_string(getpid()) + ".sqlite")).string();
    target_text = "sqlite:" + fresh_sqlite;
  }
  if (!parse_target(target_text, target, error)) return usage(error);
  if (p.nemesis_kill && target.kind == DbKind::SQLite)
    return usage("--nemesis kill needs a database server (SQLite runs inside isoscope: there is no connection to kill)");
  if (p.workload.kind == WorkloadKind::MiniTxn && p.workload.key.keys < 2)
    return usage("--mt needs at least 2 keys (--keys)");
  for (int i = 0; i < argc; ++i) command += std::string(" ") + (argv[i] == target_text ? target.display : argv[i]);

  // Ctrl-C from here on stops the run cleanly (tables dropped, history written), also while it
  // connects and sets up: a signal then, with its default action, left the tables behind; and a
  // shell's background job ignores SIGINT until a handler is set, which lost the signal.
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::unique_ptr<Database> db = open_database(target, iso, error);
  if (!db) {
    std::fprintf(stderr, "isoscope run: %s\n", error.c_str());
    return kExitInput;
  }
  const ServerFacts facts = db->facts();
  Schema schema;
  schema.keys = p.workload.key.keys;
  const std::string table = "isoscope_run_" + std::to_string(getpid()) + "_" + std::to_string(p.seed % 1000000);
  if (p.workload.kind == WorkloadKind::ListAppend) schema.lists = table + "_lists";
  else schema.registers = table + "_registers";
  if (Status s = db->create_schema(schema); !s.ok()) {
    std::fprintf(stderr, "isoscope run: %s at %s: cannot create the runner's tables: %s\n", facts.product.c_str(),
                 target.display.c_str(), s.message.c_str());
    return kExitInput;
  }
  std::string counter_name;
  const int64_t commits_before = db->commit_counter(counter_name);

  if (out_path.empty())
    out_path = "isoscope-run-" + file_part(target.kind == DbKind::SQLite ? "sqlite" : target.display.substr(0, target.display.find(':')) + "-" + target.host + "-" + std::to_string(target.port)) +
               "-" + isolation_name(iso) + "-seed" + std::to_string(p.seed) + ".json";

  // The metadata recorded with the history (docs/formats.md, "recorded_by"): what is known
  // before the run, then what happened.
  std::string meta = "{\"tool\": \"isoscope run\", \"command\": " + json_quote(command) +
                     ", \"database\": " + json_quote(facts.product) + ", \"version\": " + json_quote(facts.version) +
                     ", \"target\": " + json_quote(target.display) + ", \"isolation\": " + json_quote(isolation_name(iso)) +
                     ", \"server_variables\": {";
  for (size_t i = 0; i < facts.variables.size(); ++i)
    meta += (i ? ", " : "") + json_quote(facts.variables[i].first) + ": " + json_quote(facts.variables[i].second);
  meta += "}, \"workload\": " + json_quote(workload_name(p.workload.kind));
  if (p.workload.kind == WorkloadKind::Registers || p.workload.kind == WorkloadKind::ListAppend)
    meta += ", \"mix\": " + json_quote(mix_text);
  meta += ", \"sessions\": " + std::to_string(p.sessions) + ", \"txns_per_session\": " + std::to_string(p.txns_per_session) +
          ", \"keys\": " + std::to_string(p.workload.key.keys) + ", \"seed\": " + std::to_string(p.seed) +
          ", \"nemesis\": " + json_quote(p.nemesis_kill ? "kill" : "none") + ", \"time_unit\": \"ns\"" +
          ", \"started_at\": " + json_quote(iso_time_now());
  // The history is written as the transactions finish: a run killed at any point leaves a
  // history (docs/testing-a-database.md); until the end, its metadata says it is streaming.
  HistoryStream stream;
  if (!stream.open(out_path, p.sessions, p.workload.kind == WorkloadKind::ListAppend,
                   meta + ", \"interrupted\": true, \"streaming\": true}", error)) {
    db->drop_schema(schema);
    std::fprintf(stderr, "isoscope run: %s\n", error.c_str());
    return kExitInput;
  }

  RunCounts counts;
  const bool progress = isatty(2);
  const auto t0 = std::chrono::steady_clock::now();
  auto tick = [&] {
    if (!progress) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t c = counts.committed, a = counts.aborted, u = counts.unknown;
    std::fprintf(stderr, "\r%llu transactions, %.0f/s, %llu aborted, %llu unknown%s   ",
                 static_cast<unsigned long long>(c + a + u), s > 0 ? (c + a + u) / s : 0.0,
                 static_cast<unsigned long long>(a), static_cast<unsigned long long>(u),
                 p.nemesis_kill ? (", " + std::to_string(counts.kills.load()) + " kills").c_str() : "");
  };
  RunResult run = run_sessions(*db, p, g_stop, counts, tick, &stream);
  if (progress) std::fputs("\r\033[K", stderr);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  const Status dropped = db->drop_schema(schema);
  // The server's statistics may trail the sessions' exits by a moment.
  int64_t commits_after = db->commit_counter(counter_name);
  for (int i = 0; i < 20 && commits_before >= 0 && commits_after - commits_before < static_cast<int64_t>(counts.committed.load()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    commits_after = db->commit_counter(counter_name);
  }
  db.reset();
  if (!fresh_sqlite.empty())
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(fresh_sqlite + suffix);

  meta += ", \"committed\": " + std::to_string(counts.committed.load()) + ", \"aborted\": " + std::to_string(counts.aborted.load()) +
          ", \"unknown\": " + std::to_string(counts.unknown.load()) + ", \"kills\": " + std::to_string(counts.kills.load()) +
          ", \"seconds\": " + json_number(run.seconds) + (p.duration_s > 0 ? ", \"duration\": " + json_number(p.duration_s) : std::string()) + ", \"interrupted\": " + (run.interrupted ? "true" : "false");
  if (commits_before >= 0)
    meta += ", \"commit_counter\": {\"name\": " + json_quote(counter_name) + ", \"before\": " + std::to_string(commits_before) +
            ", \"after\": " + std::to_string(commits_after) + "}";
  meta += ", \"tables_dropped\": " + std::string(dropped.ok() ? "true" : "false") + "}";

  if (!stream.finish(meta, error)) {
    std::fprintf(stderr, "isoscope run: %s\n", error.c_str());
    return kExitInput;
  }
  const uint64_t total = counts.committed + counts.aborted + counts.unknown;
  std::fprintf(json ? stderr : stdout,
               "isoscope run: %s %s at %s, %u sessions: %llu transactions (%llu committed, %llu aborted, %llu unknown%s) "
               "in %.1f s (%.0f/s)%s\nhistory: %s\n",
               facts.product.c_str(), facts.version.c_str(), isolation_name(iso), p.sessions,
               static_cast<unsigned long long>(total), static_cast<unsigned long long>(counts.committed.load()),
               static_cast<unsigned long long>(counts.aborted.load()), static_cast<unsigned long long>(counts.unknown.load()),
               p.nemesis_kill ? (", " + std::to_string(counts.kills.load()) + " connections killed").c_str() : "",
               run.seconds, run.seconds > 0 ? total / run.seconds : 0.0, run.interrupted ? " (interrupted)" : "",
               out_path.c_str());
  if (!dropped.ok())
    std::fprintf(stderr, "isoscope run: could not drop the runner's tables (%s, %s): %s\n", schema.registers.c_str(),
                 schema.lists.c_str(), dropped.message.c_str());
  if (!run.error.empty()) {
    std::fprintf(stderr, "isoscope run: %s: %s (the history holds what ran before)\n", facts.product.c_str(), run.error.c_str());
    return kExitInput;
  }

  // The report: the file, read back as `isoscope check` reads it.
  std::string bytes;
  if (!read_file(out_path, bytes)) {
    std::fprintf(stderr, "isoscope run: %s: cannot read the history back\n", out_path.c_str());
    return kExitInput;
  }
  const InputFile file{out_path, bytes, bytes.capacity() - bytes.size()};
  const double t_parse = now_ms();
  Expected<History> h = read_history(std::span<const InputFile>(&file, 1), "isoscope");
  const double parse_ms = now_ms() - t_parse;
  if (!h) {
    std::fprintf(stderr, "isoscope run: %s: %s\n", out_path.c_str(), h.error().to_string().c_str());
    return kExitInput;
  }
  CheckReport report = check_history(*h, opts);
  const std::string out = json ? report_json(*h, report, parse_ms, peak_rss ? peak_rss() : -1) : report_text(report);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return exit_status(report);
}
