// The table workload of `isoscope run --predicates` (native/runner/table_workload.h) without a
// server: the table at the start, the programs, the predicates and their SQL (evaluated by
// SQLite, in process, against the model's own matching), what a recorded table transaction
// looks like in isoscope JSON, and when the history file may hold a transaction that saw a row
// absent. The runs against real servers: tests/db/predicates.test.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "checkers/check.h"
#include "formats/formats.h"
#include "model/predicates.h"
#include "runner/runner.h"
#include "runner/table_workload.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace isoscope;
using namespace isoscope::runner;

namespace {

std::string slurp_table_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TableWorkloadParams table_params(uint32_t keys, uint32_t min_ops, uint32_t max_ops, double read_ratio) {
  TableWorkloadParams p;
  p.key.keys = keys;
  p.min_ops = min_ops;
  p.max_ops = max_ops;
  p.read_ratio = read_ratio;
  return p;
}

// Whether the model's matching says (key, value) matches `text`.
bool model_matches(const std::string& text, int64_t key, int64_t value) {
  const ParsedPredicate p = parse_predicate(text);
  EXPECT_EQ(p.error, "") << text;
  Interner keys(false), values(true);
  return predicate_matches(p.predicate, keys, keys.intern_int(key), values, values.intern_int(value));
}

}  // namespace

TEST(TableWorkload, TheTableAtTheStartIsHalfTheKeysWithValuesOfTheirOwn) {
  for (uint32_t keys : {1u, 2u, 7u, 8u, 100u}) {
    const auto rows = initial_table_rows(keys, 1);
    EXPECT_EQ(rows.size(), std::max<size_t>(1, (keys + 1) / 2)) << keys;
    std::set<int64_t> values;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_LT(rows[i].first, keys);
      if (i) EXPECT_LT(rows[i - 1].first, rows[i].first) << "sorted by key, each key once";
      values.insert(rows[i].second);
    }
    // 1 .. rows: the run's value counter starts above them.
    EXPECT_EQ(values.size(), rows.size());
    EXPECT_EQ(*values.begin(), 1);
    EXPECT_EQ(*values.rbegin(), static_cast<int64_t>(rows.size()));
    EXPECT_EQ(initial_table_rows(keys, 1), rows) << "the seed decides";
  }
  EXPECT_NE(initial_table_rows(100, 1), initial_table_rows(100, 2));
}

TEST(TableWorkload, ProgramsKeepToTheirOptions) {
  const TableWorkloadParams p = table_params(8, 2, 5, 0.5);
  TablePlanner planner(p);
  Rng rng(7);
  std::map<TableStep::Kind, int> kinds;
  TableProgram prog;
  for (int i = 0; i < 2000; ++i) {
    planner.plan(rng, prog);
    ASSERT_GE(prog.size(), 2u);
    ASSERT_LE(prog.size(), 5u);
    for (const TableStep& s : prog) {
      ++kinds[s.kind];
      if (s.kind == TableStep::Select || s.kind == TableStep::UpdateWhere || s.kind == TableStep::DeleteWhere) {
        // Canonical, in the model's language.
        const ParsedPredicate parsed = parse_predicate(s.predicate);
        ASSERT_EQ(parsed.error, "") << s.predicate;
        EXPECT_EQ(parsed.predicate.text, s.predicate);
        // Every key literal is a key of the table.
        for (const Condition& c : parsed.predicate.all)
          if (c.on_key && c.op != Condition::Op::Lt && c.op != Condition::Op::Ge)
            for (const Literal& l : c.args) EXPECT_TRUE(l.is_int && l.i >= 0 && l.i < 8) << s.predicate;
      } else {
        EXPECT_LT(s.key, 8u);
      }
      if (s.kind == TableStep::UpdateWhere) EXPECT_NE(s.predicate, "true");
      if (s.kind == TableStep::DeleteWhere) {
        // A delete's predicate matches a few rows: one or two keys, two adjacent keys, or a
        // third or a quarter of the values.
        const ParsedPredicate parsed = parse_predicate(s.predicate);
        ASSERT_EQ(parsed.predicate.all.size(), 1u) << s.predicate;
        const Condition& c = parsed.predicate.all[0];
        const bool narrow = (c.on_key && (c.op == Condition::Op::Eq || c.op == Condition::Op::In || c.op == Condition::Op::Between)) ||
                            (!c.on_key && c.op == Condition::Op::ModEq && c.args[0].i >= 3);
        EXPECT_TRUE(narrow) << s.predicate;
        if (c.op == Condition::Op::In) EXPECT_LE(c.args.size(), 2u) << s.predicate;
        if (c.op == Condition::Op::Between) EXPECT_EQ(c.args[1].i - c.args[0].i, 1) << s.predicate;
      }
    }
  }
  for (TableStep::Kind k : {TableStep::Select, TableStep::Read, TableStep::Insert, TableStep::Update, TableStep::Delete,
                            TableStep::UpdateWhere, TableStep::DeleteWhere})
    EXPECT_GT(kinds[k], 100) << "every kind of step is planned: " << table_step_name(k);
  // The same seed plans the same programs.
  Rng a(3), b(3);
  TableProgram pa, pb;
  for (int i = 0; i < 50; ++i) {
    planner.plan(a, pa);
    planner.plan(b, pb);
    ASSERT_EQ(pa.size(), pb.size());
    for (size_t j = 0; j < pa.size(); ++j) EXPECT_TRUE(pa[j].kind == pb[j].kind && pa[j].key == pb[j].key && pa[j].predicate == pb[j].predicate);
  }
}

TEST(TableWorkload, TheReadRatioSplitsReadsFromWrites) {
  Rng rng(11);
  TableProgram prog;
  for (double ratio : {0.0, 1.0}) {
    TablePlanner planner(table_params(6, 1, 4, ratio));
    for (int i = 0; i < 300; ++i) {
      planner.plan(rng, prog);
      for (const TableStep& s : prog) EXPECT_EQ(table_step_writes(s.kind), ratio == 0.0) << table_step_name(s.kind);
    }
  }
  // One key: every predicate still parses, every key is 0.
  TablePlanner one(table_params(1, 1, 4, 0.5));
  for (int i = 0; i < 300; ++i) {
    one.plan(rng, prog);
    for (const TableStep& s : prog) {
      EXPECT_EQ(s.key, 0u);
      if (!s.predicate.empty()) EXPECT_EQ(parse_predicate(s.predicate).error, "") << s.predicate;
    }
  }
}

TEST(TableWorkload, StatementsAreTheirSql) {
  const std::string t = "isoscope_run_0123456789abcdef_rows";
  EXPECT_EQ(predicate_sql("value % 3 = 0 and key in (1, 2)"), "v % 3 = 0 and k in (1, 2)");
  EXPECT_EQ(predicate_sql("true"), "1 = 1");
  EXPECT_EQ(predicate_sql("key between 2 and 4"), "k between 2 and 4");
  EXPECT_EQ(predicate_sql("value = \"a\""), "v = 'a'");
  EXPECT_EQ(select_sql(t, "key < 3"), "SELECT k, v FROM " + t + " WHERE k < 3 ORDER BY k");
  EXPECT_EQ(select_sql(t, "key < 3", true), "SELECT k, v FROM " + t + " WHERE k < 3 ORDER BY k FOR UPDATE");
  EXPECT_EQ(read_sql(t, 4), "SELECT k, v FROM " + t + " WHERE k = 4");
  EXPECT_EQ(insert_sql(t, 4, 17), "INSERT INTO " + t + " (k, v) VALUES (4, 17)");
  EXPECT_EQ(update_sql(t, 4, 18), "UPDATE " + t + " SET v = 18 WHERE k = 4");
  EXPECT_EQ(add_sql(t, 4, 3000000), "UPDATE " + t + " SET v = v + 3000000 WHERE k = 4");
  EXPECT_EQ(delete_sql(t, 4), "DELETE FROM " + t + " WHERE k = 4");
  EXPECT_EQ(update_where_sql(t, "value % 2 = 1", 5000000, true), "UPDATE " + t + " SET v = v + 5000000 WHERE v % 2 = 1 RETURNING k, v");
  EXPECT_EQ(update_where_sql(t, "value % 2 = 1", 5000000, false), "UPDATE " + t + " SET v = v + 5000000 WHERE v % 2 = 1");
  EXPECT_EQ(delete_where_sql(t, "key in (1, 2)", true), "DELETE FROM " + t + " WHERE k in (1, 2) RETURNING k, v");
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (int64_t k = 0; k < 1500; ++k) rows.push_back({k, k + 1});
  const std::vector<std::string> fill = fill_table_sql(t, rows);
  ASSERT_EQ(fill.size(), 3u) << "a DELETE, then 1000 rows an INSERT";
  EXPECT_EQ(fill[0], "DELETE FROM " + t);
  EXPECT_EQ(fill[1].rfind("INSERT INTO " + t + " (k, v) VALUES (0, 1), (1, 2), ", 0), 0u);
  EXPECT_NE(fill[2].find("(1499, 1500)"), std::string::npos);
  EXPECT_EQ(fill_table_sql(t, {}).size(), 1u);
}

// The predicates' SQL selects what the model says matches, on SQLite (in process): every
// predicate the planner writes, and a few by hand, over rows with small and large values.
TEST(TableWorkload, PredicateSqlSelectsWhatTheModelMatches) {
  const fs::path d = fresh_dir("table-sql");
  Target target;
  std::string error;
  ASSERT_TRUE(parse_target("sqlite:" + (d / "t.sqlite").string(), target, error)) << error;
  std::unique_ptr<Database> db = open_database(target, Isolation::Serializable, error);
  if (!db) GTEST_SKIP() << "no SQLite: " << error;
  std::string id = new_run_id(error);
  ASSERT_FALSE(id.empty()) << error;
  const Schema schema = run_schema(id, RunTable::Rows, 8);
  ASSERT_TRUE(db->create_schema(schema).ok());
  std::vector<std::pair<int64_t, int64_t>> rows = {{0, 3}, {1, 4}, {2, 12}, {3, 7000001}, {5, 30}, {6, 1000000}, {7, 21000002}};
  ASSERT_TRUE(fill_table(*db, schema.registers, rows).ok());
  std::unique_ptr<Connection> c = db->connect(error);
  ASSERT_TRUE(c) << error;
  std::set<std::string> predicates = {"true", "value % 3 = 0", "value % 4 != 1", "key in (1, 4, 6)", "key between 2 and 5",
                                      "key between 2 and 5 and value % 2 = 0", "value >= 1000000", "value < 1000000",
                                      "key != 3", "key <> 3", "key >= 6", "key < 1", "value = 30", "value > 12 and key <= 5"};
  TablePlanner planner(table_params(8, 1, 4, 0.5));
  Rng rng(5);
  TableProgram prog;
  for (int i = 0; i < 300; ++i) {
    planner.plan(rng, prog);
    for (const TableStep& s : prog)
      if (!s.predicate.empty()) predicates.insert(s.predicate);
  }
  EXPECT_GT(predicates.size(), 60u);
  for (const std::string& text : predicates) {
    const std::string canonical = parse_predicate(text).predicate.text;
    Connection::Rows got;
    int64_t changed = 0;
    ASSERT_TRUE(c->exec_rows(select_sql(schema.registers, canonical), &got, changed).ok()) << canonical;
    Connection::Rows want;
    for (const auto& [k, v] : rows)
      if (model_matches(canonical, k, v)) want.push_back({k, v});
    EXPECT_EQ(got, want) << canonical << " -> " << predicate_sql(canonical);
  }
  c.reset();
  EXPECT_TRUE(db->drop_schema(schema).ok());
}

// What a table transaction's operations are in isoscope JSON (docs/formats.md's table ops), read
// back by the isoscope reader as a table.
TEST(TableWorkload, RecordedOperationsAreTheFormatsTableOps) {
  RecordedSession s;
  s.predicates = {"key between 1 and 2"};
  s.rows = {{1, 10}, {2, 11}};
  s.ops = {{RecordedOp::Select, 0, 0, 0, 1}, {RecordedOp::ReadNull, 2, 0, 0, 0}, {RecordedOp::Insert, 2, 11, 0, 0},
           {RecordedOp::Update, 1, 12, 0, 0}, {RecordedOp::Delete, 1, 0, 0, 0}, {RecordedOp::Read, 2, 11, 0, 0},
           {RecordedOp::Select, 0, 0, 1, 2}};
  s.txns.push_back({0, static_cast<uint32_t>(s.ops.size()), TxnStatus::Committed, 5, 9});
  const std::string json = txn_json(s, s.txns[0]);
  EXPECT_EQ(json,
            "{\"ops\": [[\"select\", \"key between 1 and 2\", [[1, 10]]], [\"r\", 2, null], [\"insert\", 2, 11], "
            "[\"update\", 1, 12], [\"delete\", 1], [\"r\", 2, 11], [\"select\", \"key between 1 and 2\", [[2, 11]]]], "
            "\"status\": \"committed\", \"start\": 5, \"end\": 9}");
  const std::string doc = "{\"format\": \"isoscope/1\", \"rows\": [[1, 10]], \"sessions\": [[" + json + "]]}";
  const InputFile file{"t.json", doc, 0};
  Expected<History> h = read_history(std::span<const InputFile>(&file, 1), "isoscope");
  ASSERT_TRUE(h) << h.error().to_string();
  EXPECT_TRUE(h->has_rows());
  CheckOptions opts;
  opts.levels = {Level::SER};
  const CheckReport r = check_history(*h, opts);
  EXPECT_EQ(r.results[static_cast<int>(Level::SER)].verdict, Verdict::Pass);
}

// A table's transaction that saw a row absent waits, in the history file, for the transactions
// of the other sessions whose writes it may have seen (they had sent COMMIT before it ended);
// transactions that need each other go in together.
TEST(TableWorkload, TheFileHoldsASelectOnlyOnceWhatItMaySeeIsIn) {
  const fs::path d = fresh_dir("table-stream"), out = d / "h.json";
  const std::vector<std::pair<int64_t, int64_t>> rows = {{1, 1}};
  HistoryStream stream;
  std::string error;
  ASSERT_TRUE(stream.open(out.string(), 2, false, "{\"tool\": \"test\"}", error, &rows)) << error;
  EXPECT_NE(slurp_table_file(out).find("\"rows\": [[1, 1]]"), std::string::npos) << slurp_table_file(out);
  // Session 1's transaction (it deleted key 2) has sent COMMIT at 12 and not ended; session 0
  // selected (key 2 absent) during [10, 20]: it may have seen that delete.
  stream.visible(1, 12);
  RecordedSession s0, s1;
  s0.predicates = {"true"};
  s0.rows = {{1, 1}};
  s0.ops = {{RecordedOp::Select, 0, 0, 0, 1}};
  s0.txns.push_back({0, 1, TxnStatus::Committed, 10, 20});
  stream.add(0, s0, s0.txns[0]);
  ASSERT_TRUE(stream.flush(error)) << error;
  EXPECT_EQ(slurp_table_file(out).find("select"), std::string::npos) << "held back";
  // And what follows it in its session.
  s0.ops.push_back({RecordedOp::Insert, 3, 2, 0, 0});
  s0.txns.push_back({1, 2, TxnStatus::Committed, 21, 30, 28});
  stream.add(0, s0, s0.txns[1]);
  ASSERT_TRUE(stream.flush(error)) << error;
  EXPECT_EQ(slurp_table_file(out).find("insert"), std::string::npos);
  // Session 1's transaction [5, 25] ends: it deleted key 2, and read key 3 absent before session
  // 0 inserted it (at 28, after 25: no matter). Everything goes in.
  s1.ops = {{RecordedOp::Delete, 2, 0, 0, 0}, {RecordedOp::ReadNull, 3, 0, 0, 0}};
  s1.txns.push_back({0, 2, TxnStatus::Committed, 5, 25, 12});
  stream.add(1, s1, s1.txns[0]);
  ASSERT_TRUE(stream.flush(error)) << error;
  std::string text = slurp_table_file(out);
  EXPECT_NE(text.find("select"), std::string::npos) << text;
  EXPECT_NE(text.find("[\"delete\", 2]"), std::string::npos) << text;
  EXPECT_NE(text.find("[\"insert\", 3, 2]"), std::string::npos) << text;
  // Two transactions that may each have seen the other's delete go in together: session 0's
  // [31, 40] (committing at 38) waits for session 1's running one (committing at 36) ...
  stream.visible(1, 36);
  s0.ops.push_back({RecordedOp::Delete, 4, 0, 0, 0});
  s0.ops.push_back({RecordedOp::ReadNull, 5, 0, 0, 0});
  s0.txns.push_back({2, 4, TxnStatus::Committed, 31, 40, 38});
  stream.add(0, s0, s0.txns[2]);
  ASSERT_TRUE(stream.flush(error)) << error;
  EXPECT_EQ(slurp_table_file(out).find("[\"delete\", 4]"), std::string::npos);
  // ... which read key 4 absent and ends at 41 after session 0's committed at 38.
  s1.ops.push_back({RecordedOp::Delete, 5, 0, 0, 0});
  s1.ops.push_back({RecordedOp::ReadNull, 4, 0, 0, 0});
  s1.txns.push_back({2, 4, TxnStatus::Committed, 32, 41, 36});
  stream.add(1, s1, s1.txns[1]);
  ASSERT_TRUE(stream.flush(error)) << error;
  text = slurp_table_file(out);
  EXPECT_NE(text.find("[\"delete\", 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("[\"delete\", 5]"), std::string::npos) << text;
  // A read of a value waits for its writer, from any session, and goes in with it.
  s1.rows.push_back({6, 7});
  s1.predicates.push_back("key = 6");
  s1.ops.push_back({RecordedOp::Select, 0, 0, 0, 1});
  s1.txns.push_back({4, 5, TxnStatus::Committed, 50, 60});
  stream.add(1, s1, s1.txns[2]);
  ASSERT_TRUE(stream.flush(error)) << error;
  EXPECT_EQ(slurp_table_file(out).find("key = 6"), std::string::npos) << "(6, 7) is not in the file";
  s0.ops.push_back({RecordedOp::Insert, 6, 7, 0, 0});
  s0.txns.push_back({4, 5, TxnStatus::Committed, 42, 49, 48});
  stream.add(0, s0, s0.txns[3]);
  ASSERT_TRUE(stream.flush(error)) << error;
  text = slurp_table_file(out);
  EXPECT_NE(text.find("key = 6"), std::string::npos) << text;
  EXPECT_NE(text.find("[\"insert\", 6, 7]"), std::string::npos) << text;
  ASSERT_TRUE(stream.finish("{\"tool\": \"test\", \"done\": true}", error)) << error;
  text = slurp_table_file(out);
  const InputFile file{out.string(), text, 0};
  Expected<History> h = read_history(std::span<const InputFile>(&file, 1), "isoscope");
  ASSERT_TRUE(h) << h.error().to_string();
  EXPECT_EQ(h->txns.size(), 8u) << "the initial transaction and seven";
}
