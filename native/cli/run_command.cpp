// `isoscope run [TARGET]`: drives a database with a workload, records the history it produced,
// writes it (--out) and checks it, with the same report as `check` (docs/testing-a-database.md).
// The database layer is native/runner/; this file is its command line.
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "cli/cli.h"
#include "cli/exit_status.h"
#include "cli/workload_options.h"
#include "checkers/check.h"
#include "formats/formats.h"
#include "generate/workload.h"
#include "model/history.h"
#include "model/levels.h"
#include "report/result_json.h"
#include "runner/database.h"
#include "runner/runner.h"
#include "runner/table_workload.h"
#include "util/json.h"

using namespace isoscope;
using namespace isoscope::runner;

namespace {

const char* kRunUsage =
    "usage: isoscope run [TARGET] [--isolation read-uncommitted|read-committed|repeatable-read|serializable]\n"
    "                 [--list-append | --mt | --lwt | --predicates] [--mix cobra|polysi|random|RO,WO,RMW]\n"
    "                 [--read-ratio R] [--sessions N] [--txns N] [--ops N|MIN-MAX] [--keys N]\n"
    "                 [--max-writes-per-key N]\n"
    "                 [--dist uniform|zipf|hotspot] [--seed S] [--duration SECONDS] [--rate N]\n"
    "                 [--nemesis kill,pause,crash] [--nemesis-interval MS] [--servers FILE]\n"
    "                 [--out FILE] [--level L[,L...]] [--json] [--budget-ms N]\n"
    "                 [--max-anomalies N] [--password-file FILE] [--reads linearizable|serializable]\n"
    "       isoscope run TARGET --cleanup\n"
    "  TARGET: postgresql://USER@HOST:PORT/DB, mariadb://USER@HOST:PORT/DB or mysql://... (an IPv6\n"
    "          address in brackets, [::1]; a socket folder or file as the host, %-encoded: %2Ftmp%2Fpg; libpq's\n"
    "          keywords as ?host=...&sslmode=...; any other ?VAR=VALUE sets a session variable on every\n"
    "          connection), sqlite:PATH, etcd://HOST:PORT[,HOST:PORT...] (the members; --reads: a\n"
    "          transaction's reads linearizable, the default, or serializable), redis://[USER:PASSWORD@]HOST:PORT[/DB];\n"
    "          none: a fresh SQLite file in a private temporary folder\n"
    "  Workloads: registers (default; --mix, --read-ratio), Elle's --list-append, MTC's --mt, --lwt\n"
    "          (compare-and-set), or --predicates: a table whose rows come and go, read by predicates\n"
    "          (SELECT ... WHERE) and by key, with inserts, updates, deletes and predicate writes\n"
    "          (UPDATE/DELETE ... WHERE); --read-ratio: the share of reads (default 0.5)\n"
    "          --list-append moves on to a fresh key once 32 appends went to one (as Elle's workload does:\n"
    "          lists stay short; --max-writes-per-key N, 0: never); --keys keys are in use at a time\n"
    "  Pace: --duration ends the run after so many seconds; --rate N begins N transactions a second\n"
    "          over all the sessions (Jepsen's rate: a light load beside faults), where by default each\n"
    "          session begins its next transaction as soon as the last one ended\n"
    "  Faults (--nemesis, any of them, comma-separated): kill ends a random session's connection from\n"
    "          the server (every --nemesis-interval, default 200 ms); pause stops a server's processes\n"
    "          (SIGSTOP) for half the interval, crash kills them (SIGKILL) and starts the server again on\n"
    "          its data (every --nemesis-interval, default 5000 ms for these two; in a cluster one node at\n"
    "          a time). pause and crash need a server scripts/db.sh started: its servers.json (found from\n"
    "          the target, or --servers FILE) says where its processes are. The faults go in the history.\n"
    "  The password: give it in PGPASSWORD or MYSQL_PWD, in a password file (--password-file FILE, whose\n"
    "          first line is the password; or the client library's own: ~/.pgpass or PGPASSFILE, the [client]\n"
    "          group of ~/.my.cnf), not in the URL: a command line is seen by every user of the machine\n"
    "          ('ps', /proc) and kept in shell histories. isoscope never prints a password.\n"
    "  Tables: each run makes its own (isoscope_run_<random id>_registers, _lists or _rows) and drops it\n"
    "          at the end. A run says when the database holds tables of runs that did not finish (killed);\n"
    "          --cleanup drops those (never a running run's) and ends.\n";

// The name scripts/db.sh gives the target's kind of server (its folder under ISOSCOPE_DB_DIR).
std::string script_kind(DbKind k) {
  switch (k) {
    case DbKind::PostgreSQL: return "postgres";
    case DbKind::MariaDB: return "mariadb";
    case DbKind::SQLite: return "sqlite";
    case DbKind::Etcd: return "etcd";
    case DbKind::Redis: return "redis";
  }
  return "";
}

// The faults asked for, as --nemesis takes them: "kill,crash", or "none".
std::string nemesis_text(const RunParams& p) {
  std::string out;
  for (const auto& [on, name] : {std::pair{p.nemesis_kill, "kill"}, std::pair{p.nemesis_pause, "pause"}, std::pair{p.nemesis_crash, "crash"}})
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  return out.empty() ? "none" : out;
}

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

int usage(const std::string& msg) {
  std::fprintf(stderr, "isoscope run: %s\n\n%s", redact_password(msg).c_str(), kRunUsage);
  return kExitInput;
}


// run's own limits, from what a run holds open: a connection per session and a row per key,
// inserted before the sessions start.
constexpr uint32_t kMaxRunSessions = 1000;
constexpr uint32_t kMaxRunKeys = 10000000;
// --list-append's appends to a key before the run moves on to a fresh one (Elle's default is 32).
constexpr uint32_t kDefaultMaxWritesPerKey = 32;

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
  cli::WorkloadOptions w;  // run's defaults: 10 sessions of 100 transactions, 1-4 operations over 8 keys
  w.sessions = p.sessions;
  w.txns_per_session = p.txns_per_session;
  std::string target_text, out_path, nemesis, workload_flag, servers_path;
  Isolation iso = Isolation::Serializable;
  bool have_target = false, json = false, cleanup = false;
  std::string password_file, reads;
  std::optional<uint32_t> max_writes_per_key;  // --max-writes-per-key, when given
  int target_arg = -1;
  CheckOptions opts;
  std::string command = "isoscope run";
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    double d = 0;
    auto take = [&](double lo, double hi, bool integral) {
      if (!(integral ? cli::parse_whole_in(v, lo, hi, d) : cli::parse_in(v, lo, hi, d))) return false;
      ++i;
      return true;
    };
    std::string shared_error;
    const cli::OptionRead shared = cli::read_workload_option(argc, argv, i, w, shared_error);
    if (shared == cli::OptionRead::Bad) return usage(shared_error);
    if (shared == cli::OptionRead::Read) continue;
    if (a == "--help" || a == "-h") {
      std::fputs(kRunUsage, stdout);
      return kExitPass;
    } else if (a == "--isolation") {
      if (!v || !parse_isolation(v, iso))
        return usage("--isolation needs read-uncommitted, read-committed, repeatable-read or serializable");
      ++i;
    } else if (a == "--list-append" || a == "--mt" || a == "--lwt" || a == "--predicates") {
      if (!workload_flag.empty() && workload_flag != a)
        return usage(workload_flag + " and " + a + " are two workloads: choose one");
      workload_flag = a;
      if (a == "--list-append") p.workload.kind = WorkloadKind::ListAppend;
      else if (a == "--mt") p.workload.kind = WorkloadKind::MiniTxn;
      else if (a == "--lwt") p.workload.kind = WorkloadKind::Lightweight;
      else p.predicates = true;
    } else if (a == "--nemesis") {
      nemesis = v ? v : "";
      p.nemesis_kill = p.nemesis_pause = p.nemesis_crash = false;
      for (size_t b = 0; b <= nemesis.size();) {
        const size_t e = std::min(nemesis.find(',', b), nemesis.size());
        const std::string f = nemesis.substr(b, e - b);
        if (f == "kill") p.nemesis_kill = true;
        else if (f == "pause") p.nemesis_pause = true;
        else if (f == "crash") p.nemesis_crash = true;
        else if (f != "none" || nemesis != "none") return usage("--nemesis needs kill, pause, crash (any of them, comma-separated) or none");
        b = e + 1;
      }
      ++i;
    } else if (a == "--servers") {
      if (!v) return usage("--servers needs the servers.json scripts/db.sh wrote");
      servers_path = v;
      ++i;
    } else if (a == "--duration") {
      // Seconds, with or without the unit: 60 or 60s.
      std::string seconds = v ? v : "";
      if (!seconds.empty() && seconds.back() == 's') seconds.pop_back();
      if (!v || !cli::parse_in(seconds.c_str(), 0.001, 1e7, d)) return usage("--duration needs a number of seconds (60 or 60s)");
      ++i;
      p.duration_s = d;
    } else if (a == "--rate") {
      if (!take(0.001, 1e7, false)) return usage("--rate needs transactions a second (over all the sessions)");
      p.rate = d;
    } else if (a == "--max-writes-per-key") {
      if (!take(0, UINT32_MAX, true)) return usage("--max-writes-per-key needs a whole number (0: a key is never left)");
      max_writes_per_key = static_cast<uint32_t>(d);
    } else if (a == "--nemesis-interval") {
      if (!take(1, 1e6, true)) return usage("--nemesis-interval needs milliseconds");
      p.nemesis_interval_ms = p.process_fault_interval_ms = static_cast<uint32_t>(d);
    } else if (a == "--out") {
      if (!v) return usage("--out needs a file name");
      out_path = v;
      ++i;
    } else if (a == "--reads") {
      reads = v ? v : "";
      if (reads != "linearizable" && reads != "serializable") return usage("--reads needs linearizable or serializable");
      ++i;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--cleanup") {
      cleanup = true;
    } else if (a == "--password-file") {
      if (!v) return usage("--password-file needs a file whose first line is the password");
      password_file = v;
      ++i;
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
      target_arg = i;
      continue;  // the command line below carries the target without its password
    } else {
      // Both as typed, without their passwords (usage() redacts).
      return usage("more than one TARGET given ('" + target_text + "' and '" + a + "')");
    }
  }
  if (max_writes_per_key && p.workload.kind != WorkloadKind::ListAppend)
    return usage("--max-writes-per-key is the list-append workload's (--list-append)");
  p.max_writes_per_key = p.workload.kind == WorkloadKind::ListAppend ? max_writes_per_key.value_or(kDefaultMaxWritesPerKey) : 0;
  if ((p.predicates || (p.workload.kind != WorkloadKind::Registers && p.workload.kind != WorkloadKind::ListAppend)) && w.mix_given)
    return usage("--mix chooses register or list-append shapes; --mt, --lwt and --predicates have their own");
  if (w.sessions > kMaxRunSessions)
    return usage("--sessions: a run opens a connection per session, at most " + std::to_string(kMaxRunSessions));
  if (w.keys > kMaxRunKeys)
    return usage("--keys: a run inserts a row per key before it starts, at most " + std::to_string(kMaxRunKeys));
  p.sessions = w.sessions;
  // --duration without --txns: the sessions run until the time is up.
  p.txns_per_session = p.duration_s > 0 && !w.txns_given ? 4000000000u : w.txns_per_session;
  p.workload.min_ops = w.min_ops;
  p.workload.max_ops = w.max_ops;
  p.workload.key.keys = w.keys;
  p.workload.key.dist = w.dist;
  p.workload.read_ratio = w.read_ratio;
  p.workload.mix = w.mix;
  p.seed = w.seed;
  p.table_workload.key = p.workload.key;
  p.table_workload.min_ops = w.min_ops;
  p.table_workload.max_ops = w.max_ops;
  p.table_workload.read_ratio = w.read_ratio;
  // A select reads every key of the history (docs/formats.md): the checkers read at most
  // kMaxPredicateReads such versions, so a run that would record more is refused before it starts.
  if (p.predicates && (p.duration_s <= 0 || w.txns_given) &&
      static_cast<double>(p.sessions) * p.txns_per_session * w.max_ops * w.keys > static_cast<double>(kMaxPredicateReads))
    return usage("--predicates: every select reads every key, and the checkers read at most " + std::to_string(kMaxPredicateReads) +
                 " such versions: --sessions x --txns x the most --ops x --keys must stay within it");

  // The target; none: a fresh SQLite file in a folder of its own (mkdtemp: a name no one can
  // foresee, made by this run, private), removed afterwards with the folder.
  Target target;
  std::string error;
  std::string fresh_dir, fresh_sqlite;
  if (!have_target) {
    if (cleanup) return usage("--cleanup needs a TARGET (the database to clean up)");
    std::string templ = (std::filesystem::temp_directory_path() / "isoscope-run-XXXXXX").string();
    if (!::mkdtemp(templ.data())) {
      std::fprintf(stderr, "isoscope run: cannot make a temporary folder for the SQLite file (%s): %s\n", templ.c_str(),
                   std::strerror(errno));
      return kExitInput;
    }
    fresh_dir = templ;
    fresh_sqlite = fresh_dir + "/run.sqlite";
    target_text = "sqlite:" + fresh_sqlite;
  }
  auto remove_fresh = [&] {
    if (fresh_dir.empty()) return;
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(fresh_sqlite + suffix, ec);
    std::filesystem::remove(fresh_dir, ec);
  };
  const bool parsed = parse_target(target_text, target, error);
  // The password in the command line is overwritten at once ('ps' and /proc/PID/cmdline show
  // the program's own copy): a moment's exposure instead of the whole run's. PGPASSWORD, MYSQL_PWD
  // or a password file avoid even that.
  if (target_arg >= 0) mask_password_in_place(argv[target_arg]);
  if (!parsed) {
    remove_fresh();
    return usage(error);
  }
  if (!password_file.empty()) {
    if (target.kind == DbKind::SQLite) {
      remove_fresh();
      return usage("--password-file needs a server target (SQLite has no password)");
    }
    if (target.kind == DbKind::Etcd) {
      // scripts/db.sh's etcd runs without authentication, and the runner sends none: a password
      // given would be silently unused.
      return usage("--password-file: the etcd target sends no password (isoscope's etcd client has no authentication)");
    }
    std::string text;
    if (!read_file(password_file, text)) {
      std::fprintf(stderr, "isoscope run: --password-file %s: cannot read it: %s\n", password_file.c_str(), std::strerror(errno));
      return kExitInput;
    }
    const size_t nl = text.find_first_of("\r\n");
    target.password = text.substr(0, nl);
    target.password_source = "file";
    if (target.password.empty()) return usage("--password-file " + password_file + ": its first line is empty");
  }
  if (cleanup && (p.nemesis_kill || p.nemesis_pause || p.nemesis_crash || !out_path.empty()))
    return usage("--cleanup drops the tables of runs that did not finish and ends: it takes no run options");
  if (p.nemesis_kill && target.kind == DbKind::SQLite) {
    remove_fresh();
    return usage("--nemesis kill needs a database server (SQLite runs inside isoscope: there is no connection to kill)");
  }
  if (p.nemesis_kill && target.kind == DbKind::Etcd)
    return usage("--nemesis kill ends connections from the server, which etcd cannot: it has no request that ends a client's connection");
  if (!reads.empty() && target.kind != DbKind::Etcd) {
    remove_fresh();
    return usage("--reads chooses how an etcd target reads: other targets read as their isolation level says");
  }
  target.serializable_reads = reads == "serializable";
  // The process faults: the servers scripts/db.sh started for this target.
  ServerSet servers;
  if (p.nemesis_pause || p.nemesis_crash) {
    if (target.kind == DbKind::SQLite) {
      remove_fresh();
      return usage("--nemesis pause and crash need a database server (SQLite runs inside isoscope)");
    }
    const bool given = !servers_path.empty();
    if (!given) servers_path = default_server_set_path(script_kind(target.kind));
    std::string serr;
    if (!read_server_set(servers_path, servers, serr))
      return usage("--nemesis pause and crash act on a server scripts/db.sh started, whose servers.json says where its processes are: " +
                   serr + (given ? "" : " (start the server with scripts/db.sh, or give --servers FILE)"));
    Target listed;
    if (!parse_target(servers.url, listed, serr) || listed.display != target.display)
      return usage(servers_path + " describes the server at " + redact_password(servers.url) + ", not " + target.display +
                   ": the faults would hit another server");
    p.servers = &servers;
    p.reconnect_ms = 60000;  // a crashed server is back once its start script ran
  } else if (!servers_path.empty()) {
    return usage("--servers is for --nemesis pause or crash");
  }
  if (p.workload.kind == WorkloadKind::MiniTxn && p.workload.key.keys < 2) {
    remove_fresh();
    return usage("--mt needs at least 2 keys (--keys)");
  }
  for (int i = 0; i < argc; ++i) command += std::string(" ") + (i == target_arg ? target.display : redact_password(argv[i]));

  // Ctrl-C from here on stops the run cleanly (tables dropped, history written), also while it
  // connects and sets up: a signal then, with its default action, left the tables behind; and a
  // shell's background job ignores SIGINT until a handler is set, which lost the signal.
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::unique_ptr<Database> db = open_database(target, iso, error);
  if (!db) {
    remove_fresh();
    std::fprintf(stderr, "isoscope run: %s\n", redact_password(error).c_str());
    return kExitInput;
  }
  const ServerFacts facts = db->facts();
  for (const std::string& note : facts.notes) std::fprintf(stderr, "isoscope run: %s\n", note.c_str());

  // Tables of runs that did not finish (killed before they could drop them): said, and dropped
  // with --cleanup. A running run's tables are never among them.
  std::vector<Leftover> leftovers;
  if (target.kind != DbKind::SQLite || fresh_dir.empty()) {
    if (!db->leftovers(leftovers, error)) {
      std::fprintf(stderr, "isoscope run: %s at %s: cannot list the runner's tables: %s\n", facts.product.c_str(),
                   target.display.c_str(), error.c_str());
      if (cleanup) return kExitInput;
    }
  }
  if (cleanup) {
    int failed = 0;
    for (const Leftover& l : leftovers) {
      const Status st = db->drop_leftover(l);
      if (st.ok()) std::printf("dropped %s%s%s\n", l.table.c_str(), l.note.empty() ? "" : ": ", l.note.c_str());
      else ++failed, std::fprintf(stderr, "isoscope run: cannot drop %s: %s\n", l.table.c_str(), st.message.c_str());
    }
    std::printf("isoscope run: %s at %s: %zu table%s of runs that did not finish dropped\n", facts.product.c_str(),
                target.display.c_str(), leftovers.size() - failed, leftovers.size() - failed == 1 ? "" : "s");
    return failed ? kExitInput : kExitPass;
  }
  if (!leftovers.empty()) {
    std::fprintf(stderr, "isoscope run: %s at %s holds %zu table%s of runs that did not finish (killed before they dropped them):\n",
                 facts.product.c_str(), target.display.c_str(), leftovers.size(), leftovers.size() == 1 ? "" : "s");
    for (const Leftover& l : leftovers)
      std::fprintf(stderr, "  %s%s%s\n", l.table.c_str(), l.note.empty() ? "" : ": ", l.note.c_str());
    std::fprintf(stderr, "  'isoscope run TARGET --cleanup' drops them\n");
  }

  // The run's tables: a name no other run has (a random id), made by this run.
  const std::string run_id = new_run_id(error);
  if (run_id.empty()) {
    std::fprintf(stderr, "isoscope run: %s\n", error.c_str());
    db.reset();
    remove_fresh();
    return kExitInput;
  }
  const Schema schema = run_schema(run_id,
                                   p.predicates                                   ? RunTable::Rows
                                   : p.workload.kind == WorkloadKind::ListAppend ? RunTable::Lists
                                                                                  : RunTable::Registers,
                                   p.workload.key.keys);
  Status created = db->create_schema(schema);
  if (created.ok() && p.predicates) {
    // The table workload's rows at the start: half the keys, chosen by the seed.
    p.table = schema.registers;
    // MariaDB's and MySQL's READ UNCOMMITTED let a transaction see another's writes before it
    // commits (PostgreSQL runs it as READ COMMITTED).
    p.dirty_reads = iso == Isolation::ReadUncommitted && target.kind == DbKind::MariaDB;
    p.rows = initial_table_rows(p.workload.key.keys, p.seed);
    created = fill_table(*db, p.table, p.rows);
    if (!created.ok()) db->drop_schema(schema);
  }
  if (!created.ok()) {
    std::fprintf(stderr, "isoscope run: %s at %s: cannot create the runner's tables: %s\n", facts.product.c_str(),
                 target.display.c_str(), created.message.c_str());
    db.reset();
    remove_fresh();
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
  meta += "}, \"workload\": " + json_quote(p.predicates ? "predicates" : workload_name(p.workload.kind));
  if (p.predicates) {
    // How the predicate writes were observed (docs/testing-a-database.md, "The table workload").
    const SqlFeatures f = db->sql_features();
    const char* by_read = f.row_locks ? "locking read" : "read";
    meta += ", \"read_ratio\": " + json_number(w.read_ratio) + ", \"predicate_writes\": {\"update\": " +
            json_quote(f.update_returning ? "returning" : by_read) + ", \"delete\": " + json_quote(f.delete_returning ? "returning" : by_read) + "}";
  } else if (p.workload.kind == WorkloadKind::Registers || p.workload.kind == WorkloadKind::ListAppend) {
    meta += ", \"mix\": " + json_quote(w.mix_text);
    if (p.workload.kind == WorkloadKind::ListAppend) meta += ", \"max_writes_per_key\": " + std::to_string(p.max_writes_per_key);
  }
  meta += ", \"sessions\": " + std::to_string(p.sessions) + ", \"txns_per_session\": " + std::to_string(p.txns_per_session) +
          ", \"keys\": " + std::to_string(p.workload.key.keys) + ", \"seed\": " + std::to_string(p.seed) +
          ", \"nemesis\": " + json_quote(nemesis_text(p)) + ", \"time_unit\": \"ns\"" +
          ", \"started_at\": " + json_quote(iso_time_now()) +
          ", \"tables\": " + json_quote(schema.registers.empty() ? schema.lists : schema.registers);
  // The history is written as the transactions finish: a run killed at any point leaves a
  // history (docs/testing-a-database.md); until the end, its metadata says it is streaming.
  HistoryStream stream;
  if (!stream.open(out_path, p.sessions, p.workload.kind == WorkloadKind::ListAppend,
                   meta + ", \"interrupted\": true, \"streaming\": true}", error, p.predicates ? &p.rows : nullptr)) {
    db->drop_schema(schema);
    db.reset();
    remove_fresh();
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

  // A crash ended the database's own connection (and the mark that the run's tables are in use):
  // a new one drops them, as it would a leftover's.
  const bool crashed = std::any_of(run.faults.begin(), run.faults.end(), [](const Fault& f) { return f.kind == FaultKind::Crash; });
  Status dropped;
  if (crashed) {
    std::string again_error;
    if (std::unique_ptr<Database> again = open_database(target, iso, again_error)) db = std::move(again);
    for (const std::string& table : {schema.registers, schema.lists})
      if (!table.empty() && dropped.ok()) dropped = db->drop_leftover(Leftover{table, ""});
  } else {
    dropped = db->drop_schema(schema);
  }
  // The server's statistics may trail the sessions' exits by a moment (and a crash loses them).
  int64_t commits_after = crashed ? -1 : db->commit_counter(counter_name);
  for (int i = 0; i < 20 && commits_before >= 0 && commits_after - commits_before < static_cast<int64_t>(counts.committed.load()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    commits_after = db->commit_counter(counter_name);
  }
  db.reset();
  remove_fresh();

  meta += ", \"committed\": " + std::to_string(counts.committed.load()) + ", \"aborted\": " + std::to_string(counts.aborted.load()) +
          ", \"unknown\": " + std::to_string(counts.unknown.load()) +
          ", \"aborted_before_any_operation\": " + std::to_string(counts.aborted_before_any_operation.load()) +
          ", \"unknown_before_any_operation\": " + std::to_string(counts.unknown_before_any_operation.load()) + ", \"kills\": " + std::to_string(counts.kills.load()) +
          ", \"seconds\": " + json_number(run.seconds) + (p.duration_s > 0 ? ", \"duration\": " + json_number(p.duration_s) : std::string()) +
          (p.rate > 0 ? ", \"rate\": " + json_number(p.rate) : std::string()) + ", \"interrupted\": " + (run.interrupted ? "true" : "false");
  if (commits_before >= 0 && commits_after >= 0)
    meta += ", \"commit_counter\": {\"name\": " + json_quote(counter_name) + ", \"before\": " + std::to_string(commits_before) +
            ", \"after\": " + std::to_string(commits_after) + "}";
  if (p.servers) {
    // The settings every start of the servers applies (scripts/db.sh's start script), so they
    // are in force after every crash's restart too.
    meta += ", \"servers\": {\"file\": " + json_quote(p.servers->path) + ", \"nodes\": " + std::to_string(p.servers->nodes.size()) +
            ", \"settings\": {";
    for (size_t i = 0; i < p.servers->settings.size(); ++i)
      meta += (i ? ", " : "") + json_quote(p.servers->settings[i].first) + ": " + json_quote(p.servers->settings[i].second);
    meta += "}}, \"faults\": " + std::to_string(run.faults.size());
  }
  meta += ", \"tables_dropped\": " + std::string(dropped.ok() ? "true" : "false") +
          ", \"leftover_tables\": " + std::to_string(leftovers.size()) + "}";

  if (!stream.finish(meta, error, p.servers ? faults_json(run.faults) : std::string())) {
    std::fprintf(stderr, "isoscope run: %s\n", error.c_str());
    return kExitInput;
  }
  // The counts of the history's transactions (they are the file's), then those that ended before
  // any operation completed, which the history leaves out.
  const uint64_t total = counts.committed + counts.aborted + counts.unknown;
  const uint64_t early_aborted = counts.aborted_before_any_operation, early_unknown = counts.unknown_before_any_operation;
  std::string early;
  if (early_aborted + early_unknown > 0) {
    early = "; not in the history: ";
    if (early_aborted) early += std::to_string(early_aborted) + " aborted";
    if (early_aborted && early_unknown) early += " and ";
    if (early_unknown) early += std::to_string(early_unknown) + " unknown";
    early += " before any operation completed";
  }
  std::fprintf(json ? stderr : stdout,
               "isoscope run: %s %s at %s, %u sessions: %llu transactions (%llu committed, %llu aborted, %llu unknown%s%s) "
               "in %.1f s (%.0f/s)%s\nhistory: %s\n",
               facts.product.c_str(), facts.version.c_str(), isolation_name(iso), p.sessions,
               static_cast<unsigned long long>(total), static_cast<unsigned long long>(counts.committed.load()),
               static_cast<unsigned long long>(counts.aborted.load()), static_cast<unsigned long long>(counts.unknown.load()),
               early.c_str(),
               ((p.nemesis_kill ? ", " + std::to_string(counts.kills.load()) + " connections killed" : std::string()) +
                (p.servers ? ", " + std::to_string(run.faults.size()) + " server faults (" + nemesis_text(p) + ")" : std::string()))
                   .c_str(),
               run.seconds, run.seconds > 0 ? (total + early_aborted + early_unknown) / run.seconds : 0.0,
               run.interrupted ? " (interrupted)" : "", out_path.c_str());
  if (!dropped.ok())
    std::fprintf(stderr, "isoscope run: could not drop the runner's table %s: %s ('isoscope run TARGET --cleanup' drops it)\n",
                 schema.registers.empty() ? schema.lists.c_str() : schema.registers.c_str(), dropped.message.c_str());
  if (!run.error.empty()) {
    std::fprintf(stderr, "isoscope run: %s: %s (the history holds what ran before)\n", facts.product.c_str(), run.error.c_str());
    return kExitInput;
  }

  // The report: the file, read back as `isoscope check` reads it.
  // This run's own file, by its descriptor: a file another program put at the path since (another
  // run with the same --out) is not what this run recorded.
  std::string bytes;
  bool replaced = false;
  if (!stream.read_back(bytes, replaced, error)) {
    std::fprintf(stderr, "isoscope run: %s\n", error.c_str());
    return kExitInput;
  }
  if (replaced)
    std::fprintf(stderr,
                 "isoscope run: %s was replaced by another program while this run went (another run with the same "
                 "--out?): it is not this run's history; the report below is of this run's\n",
                 out_path.c_str());
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
