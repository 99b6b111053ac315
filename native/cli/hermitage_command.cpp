// `isoscope hermitage TARGET`: Hermitage's table for a database, each cell decided by isoscope's
// verdict on the history its case recorded (native/runner/hermitage.h; docs/hermitage.md).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/exit_status.h"
#include "checkers/check.h"
#include "formats/formats.h"
#include "report/result_json.h"
#include "runner/database.h"
#include "runner/hermitage.h"
#include "util/json.h"
#include "util/printable.h"

using namespace isoscope;
using namespace isoscope::runner;

namespace {

const char* kHermitageUsage =
    "usage: isoscope hermitage TARGET [--isolation LEVEL|all] [--json | --markdown] [--lock-pause-ms N]\n"
    "  TARGET: postgresql://..., mariadb://..., mysql://... or sqlite:PATH, as for isoscope run (the\n"
    "          password in PGPASSWORD or MYSQL_PWD, or the client library's own files)\n"
    "  --isolation: one level, or all (default): every level the database offers\n"
    "  --lock-pause-ms: how long a step runs before it counts as blocked where the database has no\n"
    "          lock view (SQLite); default 300\n"
    "  Runs Hermitage's cases (G0 G1a G1b G1c OTV PMP P4 G-single G2-item G2) at each level, each on\n"
    "  its own tables, and prints the table: ✓ prevented, — occurs, R/O prevented for read-only\n"
    "  transactions only, ? undecided. Each cell is isoscope's verdict on the history its case recorded.\n";

// Ctrl-C or SIGTERM: the case under way ends and its tables are dropped, then the command stops.
std::atomic<bool> g_interrupted{false};
extern "C" void on_hermitage_signal(int) { g_interrupted.store(true); }

int usage(const std::string& msg) {
  std::fprintf(stderr, "isoscope hermitage: %s\n\n%s", redact_password(msg).c_str(), kHermitageUsage);
  return kExitInput;
}

// One case as run and checked.
struct CaseOutcome {
  HermitageRun run;
  History history;
  CheckReport report;
  bool checked = false;  // decided: its level passed or failed on the recorded history
  bool occurs = false;
  std::string how;  // prevented: "blocked", "aborted: ...", "nothing anomalous read"; occurs: the anomaly
};

struct Row {
  Isolation iso;
  std::vector<CaseOutcome> cases;
  CellResult cells[kHermitageAnomalies];
  // The strongest level every history of the row passes ("unknown" when a case could not run).
  // Not what the database provides: a dozen small histories.
  std::string provides;
  std::string error;
};

const Level kChain[] = {Level::SSER, Level::SER, Level::SI, Level::PC, Level::CC, Level::RA, Level::RR, Level::RC};

CaseOutcome check_case(HermitageRun run) {
  CaseOutcome o;
  o.run = std::move(run);
  if (!o.run.error.empty()) return o;
  InputFile f{"hermitage.json", o.run.history_json};
  Expected<History> h = read_history(std::span<const InputFile>(&f, 1), "isoscope");
  if (!h) {
    o.run.error = "its history does not read back: " + h.error().to_string();
    return o;
  }
  o.history = std::move(*h);
  CheckOptions opts;
  opts.levels.assign(std::begin(kChain), std::end(kChain));
  o.report = check_history(o.history, opts);
  const LevelResult& r = o.report.results[static_cast<int>(o.run.c->level)];
  o.checked = r.verdict == Verdict::Pass || r.verdict == Verdict::Fail;
  o.occurs = r.verdict == Verdict::Fail;
  if (o.occurs) {
    o.how = std::string(level_name(o.run.c->level)) + " fails";
    if (!r.anomalies.empty()) o.how += ": " + std::string(kind_name(r.anomalies[0].kind)) + ": " + r.anomalies[0].explanation;
  } else if (r.verdict != Verdict::Pass) {
    o.run.error = std::string(level_name(o.run.c->level)) + " is " + verdict_name(r.verdict) + ": " + r.reason;
  } else if (!o.run.refusals.empty()) {
    o.how = "aborted: " + o.run.refusals[0].substr(0, o.run.refusals[0].find('\n'));
  } else if (!o.run.waits.empty()) {
    o.how = "blocked";
  } else {
    o.how = "nothing anomalous read";
  }
  return o;
}

Row run_row(const Target& target, Isolation iso, uint32_t lock_pause_ms, ServerFacts& facts) {
  Row row;
  row.iso = iso;
  for (CellResult& c : row.cells) c = CellResult::NotTested;
  std::string error;
  std::unique_ptr<Database> db = open_database(target, iso, error);
  if (!db) {
    row.error = error;
    return row;
  }
  if (facts.product.empty()) facts = db->facts();
  for (const HermitageCase& c : hermitage_cases()) {
    // Each case on tables of its own: x = y = 0 at its start.
    const std::string id = new_run_id(error);
    if (id.empty()) {
      row.error = error;
      break;
    }
    const Schema schema = run_schema(id, RunTable::Registers, 2);
    if (Status st = db->create_schema(schema); !st.ok()) {
      row.error = "cannot create the case's tables: " + st.message;
      break;
    }
    row.cases.push_back(check_case(run_hermitage_case(*db, c, {schema.registers, target.kind != DbKind::SQLite}, lock_pause_ms, &g_interrupted)));
    if (Status st = db->drop_schema(schema); !st.ok() && row.error.empty())
      row.error = "cannot drop the case's table " + schema.registers + " (isoscope run TARGET --cleanup drops it): " + st.message;
    if (g_interrupted.load()) {
      row.error = "interrupted";
      break;
    }
  }
  // A cell: prevented when every case of its anomaly was; R/O when only the read-only ones were.
  // A case that could not run or was left unknown makes its cell undecided, whatever the others.
  // row.cases holds the cases run, in hermitage_cases()'s order.
  const std::vector<HermitageCase>& all_cases = hermitage_cases();
  for (int a = 0; a < kHermitageAnomalies; ++a) {
    bool any = false, undecided = false, all_prevented = true, has_read_only = false, read_only_prevented = true,
         others_occur = false;
    for (size_t i = 0; i < all_cases.size(); ++i) {
      if (static_cast<int>(all_cases[i].anomaly) != a) continue;
      any = true;
      const CaseOutcome* o = i < row.cases.size() ? &row.cases[i] : nullptr;
      if (!o || !o->checked) {
        undecided = true;
        continue;
      }
      const bool read_only = std::string(all_cases[i].variant) == "read-only";
      has_read_only = has_read_only || read_only;
      if (o->occurs) {
        all_prevented = false;
        if (read_only) read_only_prevented = false;
        else others_occur = true;
      }
    }
    if (!any) continue;
    row.cells[a] = undecided                                               ? CellResult::Undecided
                   : all_prevented                                         ? CellResult::Prevented
                   : has_read_only && read_only_prevented && others_occur ? CellResult::ReadOnlyPrevented
                                                                           : CellResult::Occurs;
  }
  bool every_case_decided = row.cases.size() == hermitage_cases().size();
  for (const CaseOutcome& o : row.cases) every_case_decided = every_case_decided && o.checked;
  for (Level l : kChain) {
    if (!every_case_decided) break;
    bool all = true;
    for (const CaseOutcome& o : row.cases)
      all = all && o.report.results[static_cast<int>(l)].verdict == Verdict::Pass;
    if (all) {
      row.provides = level_name(l);
      break;
    }
  }
  if (row.provides.empty()) row.provides = every_case_decided ? "below RC" : "unknown";
  for (const CaseOutcome& o : row.cases)
    if (!o.run.error.empty() && row.error.empty())
      row.error = std::string(hermitage_anomaly_name(o.run.c->anomaly)) + ": " + o.run.error;
  return row;
}

void print_table(const std::vector<Row>& rows, const ServerFacts& facts, const Target& target, bool markdown) {
  std::string out;
  if (markdown) {
    out += "| " + facts.product + " " + facts.version + " | passes |";
    for (int a = 0; a < kHermitageAnomalies; ++a) out += std::string(" ") + hermitage_anomaly_name(static_cast<HermitageAnomaly>(a)) + " |";
    out += "\n|:--|:--|";
    for (int a = 0; a < kHermitageAnomalies; ++a) out += ":-:|";
    out += "\n";
    for (const Row& r : rows) {
      out += std::string("| \"") + isolation_name(r.iso) + "\" | " + r.provides + " |";
      for (CellResult c : r.cells) out += std::string(" ") + cell_result_mark(c) + " |";
      out += "\n";
    }
  } else {
    char line[256];
    out += "isoscope hermitage: " + facts.product + " " + facts.version + " at " + target.display + "\n\n";
    std::snprintf(line, sizeof line, "%-18s %-9s", "level", "passes");
    out += line;
    for (int a = 0; a < kHermitageAnomalies; ++a) {
      std::snprintf(line, sizeof line, " %-8s", hermitage_anomaly_name(static_cast<HermitageAnomaly>(a)));
      out += line;
    }
    out += "\n";
    for (const Row& r : rows) {
      std::snprintf(line, sizeof line, "%-18s %-9s", isolation_name(r.iso), r.provides.c_str());
      out += line;
      for (CellResult c : r.cells) {
        // "✓" and "—" are three bytes and one column: pad by columns.
        const std::string mark = cell_result_mark(c);
        const size_t cols = (c == CellResult::Prevented || c == CellResult::Occurs) ? 1 : mark.size();
        out += " " + mark + std::string(8 - cols, ' ');
      }
      out += "\n";
    }
  }
  out += "\n";
  for (const Row& r : rows) {
    if (!r.error.empty()) out += std::string(isolation_name(r.iso)) + ": could not run every case: " + redact_password(r.error) + "\n";
    for (const CaseOutcome& o : r.cases)
      if (o.checked)
        out += std::string(markdown ? "- " : "") + isolation_name(r.iso) + ", " + hermitage_case_name(*o.run.c) + ": " +
               (o.occurs ? "occurs (" : "prevented (") + o.how + ")\n";
  }
  cli::print_text(out);
}

std::string row_json(const Row& r) {
  std::string out = std::string("{\"isolation\": ") + json_quote(isolation_name(r.iso)) + ", \"provides\": " + json_quote(r.provides);
  if (!r.error.empty()) out += ", \"error\": " + json_quote(redact_password(r.error));
  out += ", \"cells\": {";
  for (int a = 0; a < kHermitageAnomalies; ++a)
    out += std::string(a ? ", " : "") + json_quote(hermitage_anomaly_name(static_cast<HermitageAnomaly>(a))) + ": " +
           json_quote(cell_result_mark(r.cells[a]));
  out += "}, \"cases\": [";
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const CaseOutcome& o = r.cases[i];
    out += std::string(i ? ", " : "") + "{\"anomaly\": " + json_quote(hermitage_anomaly_name(o.run.c->anomaly)) +
           ", \"variant\": " + json_quote(o.run.c->variant) + ", \"level\": " + json_quote(level_name(o.run.c->level)) +
           ", \"script\": " + json_quote(o.run.c->script) + ", \"what\": " + json_quote(o.run.c->what);
    if (!o.run.error.empty()) out += ", \"error\": " + json_quote(redact_password(o.run.error));
    if (o.checked) {
      out += std::string(", \"result\": ") + (o.occurs ? "\"occurs\"" : "\"prevented\"") + ", \"how\": " + json_quote(o.how);
      out += ", \"waits\": [";
      for (size_t w = 0; w < o.run.waits.size(); ++w) {
        out += std::string(w ? ", " : "") + "{\"step\": " + std::to_string(o.run.waits[w].step + 1) + ", \"session\": " +
               json_quote(hermitage_session_name(o.run.waits[w].session)) + ", \"waited_for\": [";
        for (size_t b = 0; b < o.run.waits[w].waited_for.size(); ++b)
          out += std::string(b ? ", " : "") + json_quote(hermitage_session_name(o.run.waits[w].waited_for[b]));
        out += "]}";
      }
      out += "], \"refusals\": [";
      for (size_t k = 0; k < o.run.refusals.size(); ++k) out += std::string(k ? ", " : "") + json_quote(o.run.refusals[k]);
      out += "], \"history\": " + o.run.history_json + ", \"check\": " + report_json(o.history, o.report, 0);
    }
    out += "}";
  }
  return out + "]}";
}

}  // namespace

int run_hermitage_command(int argc, char** argv) {
  std::string target_text, isolation = "all";
  bool have_target = false, json = false, markdown = false;
  uint32_t lock_pause_ms = 300;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--help" || a == "-h") {
      std::fputs(kHermitageUsage, stdout);
      return kExitPass;
    } else if (a == "--isolation") {
      if (!v) return usage("--isolation needs a level or all");
      isolation = v;
      ++i;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--markdown") {
      markdown = true;
    } else if (a == "--lock-pause-ms") {
      double d = 0;
      // Below SQLite's busy timeout (10 s), after which a waiting statement fails.
      if (!cli::parse_whole_in(v, 10, 5000, d)) return usage("--lock-pause-ms needs a whole number from 10 to 5000");
      lock_pause_ms = static_cast<uint32_t>(d);
      ++i;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else if (!have_target) {
      target_text = a;
      have_target = true;
      mask_password_in_place(argv[i]);
    } else {
      return usage("more than one TARGET given");
    }
  }
  if (!have_target) return usage("hermitage needs a TARGET");
  if (json && markdown) return usage("--json and --markdown: choose one");
  Target target;
  std::string error;
  if (!parse_target(target_text, target, error)) return usage(error);
  if (target.kind == DbKind::Etcd || target.kind == DbKind::Redis)
    return usage(std::string("Hermitage's cases are SQL statements on a table: ") + (target.kind == DbKind::Etcd ? "etcd" : "Redis") +
                 " is a key-value store without SQL (test it with isoscope run)");
  std::vector<Isolation> levels;
  if (isolation == "all") {
    // The levels the database offers: PostgreSQL's read uncommitted is its read committed.
    if (target.kind == DbKind::SQLite) levels = {Isolation::Serializable};
    else if (target.kind == DbKind::PostgreSQL) levels = {Isolation::ReadCommitted, Isolation::RepeatableRead, Isolation::Serializable};
    else levels = {Isolation::ReadUncommitted, Isolation::ReadCommitted, Isolation::RepeatableRead, Isolation::Serializable};
  } else {
    Isolation iso;
    if (!parse_isolation(isolation, iso))
      return usage("--isolation needs read-uncommitted, read-committed, repeatable-read, serializable or all");
    levels = {iso};
  }
  std::signal(SIGINT, on_hermitage_signal);
  std::signal(SIGTERM, on_hermitage_signal);
  ServerFacts facts;
  std::vector<Row> rows;
  bool incomplete = false;
  for (Isolation iso : levels) {
    rows.push_back(run_row(target, iso, lock_pause_ms, facts));
    if (g_interrupted.load()) {
      std::fputs("isoscope hermitage: interrupted (the tables of the case under way were dropped)\n", stderr);
      return kExitInput;
    }
    if (rows.back().cases.empty()) {
      const std::string msg = target.display + " at " + isolation_name(iso) + ": " + redact_password(rows.back().error);
      std::fprintf(stderr, "isoscope hermitage: %s\n", printable(msg).c_str());
      if (rows.size() == 1) return kExitInput;
      rows.pop_back();  // the rows run so far are printed
      incomplete = true;
      break;
    }
  }
  if (json) {
    std::string out = "{\"format\": \"isoscope-hermitage/1\", \"database\": " + json_quote(facts.product) + ", \"version\": " + json_quote(facts.version) +
                      ", \"target\": " + json_quote(target.display) + ", \"anomalies\": [";
    for (int a = 0; a < kHermitageAnomalies; ++a)
      out += std::string(a ? ", " : "") + "{\"name\": " + json_quote(hermitage_anomaly_name(static_cast<HermitageAnomaly>(a))) +
             ", \"title\": " + json_quote(hermitage_anomaly_title(static_cast<HermitageAnomaly>(a))) + "}";
    out += "], \"rows\": [";
    for (size_t r = 0; r < rows.size(); ++r) out += (r ? ", " : "") + row_json(rows[r]);
    out += "]}\n";
    std::fputs(out.c_str(), stdout);
  } else {
    print_table(rows, facts, target, markdown);
  }
  for (const Row& r : rows) incomplete = incomplete || !r.error.empty();
  return incomplete ? kExitInput : kExitPass;
}
