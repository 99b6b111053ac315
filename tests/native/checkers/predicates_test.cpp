// Rows that come and go (docs/formats.md): initial rows, inserts, updates, deletes and predicate
// reads. Every level against the brute-force reference (which finds a predicate read's versions
// itself, from the predicate) on many small random histories, and SER and SSER also against a
// reference that never expands a predicate read: it runs every serial order of the recorded
// operations on a table and compares what each select returned with the rows it would return.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "checkers/check.h"
#include "formats/writers.h"
#include "generate/random_history.h"
#include "model/predicates.h"
#include "reference.h"
#include "simdjson.h"
#include "test_util.h"

using namespace isoscope;

namespace {

// A history as the random runs record it, before any expansion.
struct RowOp {
  enum Kind { Read, Write, Select } kind = Read;
  int key = 0;
  std::optional<int64_t> value;  // Read / Write: nullopt is absence (a delete writes it)
  int predicate = 0;             // Select: index into kRowPredicates
  std::map<int, int64_t> rows;   // Select: what it returned
};
struct RowTxn {
  int session = 0;
  std::vector<RowOp> ops;
  TxnStatus status = TxnStatus::Committed;
  bool timed = false;
  int64_t start = 0, end = 0;
};
struct RowHistory {
  std::map<int, int64_t> initial;  // the table at the start
  std::vector<RowTxn> txns;        // session by session, in session order
  int sessions = 0;
};

constexpr const char* kRowPredicates[] = {"value % 2 = 0", "value > 15", "value between 12 and 24", "true",
                                          "key in (0, 1)", "value = 20", "value != 10 and key >= 1"};
constexpr int kNumRowPredicates = sizeof(kRowPredicates) / sizeof(kRowPredicates[0]);

const Predicate& row_predicate(int i) {
  static const std::vector<Predicate> parsed = [] {
    std::vector<Predicate> v;
    for (const char* t : kRowPredicates) v.push_back(parse_predicate(t).predicate);
    return v;
  }();
  return parsed[i];
}

bool row_matches(int p, int key, int64_t value) {
  Interner keys, values{true, "value"};
  const uint32_t k = keys.intern_int(key), v = values.intern_int(value);
  return predicate_matches(row_predicate(p), keys, k, values, v);
}

// A random run of a small table: transactions take snapshots of the committed state (often
// stale, sometimes reading single keys of other versions, sometimes uncommitted ones), so the
// histories pass and fail every level.
RowHistory random_row_history(Rng& rng) {
  RowHistory r;
  const int keys = 1 + static_cast<int>(rng.below(3));
  for (int k = 0; k < keys; ++k)
    if (rng.chance(0.5)) r.initial[k] = 10 + 2 * static_cast<int64_t>(rng.below(8));
  r.sessions = 1 + static_cast<int>(rng.below(3));
  const int total = 2 + static_cast<int>(rng.below(5));
  // The committed states, one per commit (state[0]: the initial one).
  std::vector<std::map<int, int64_t>> states = {r.initial};
  std::vector<std::vector<RowTxn>> by_session(r.sessions);
  int64_t next_value = 10, clock = 0;
  const double stale = 0.4 * rng.uniform(), wild = rng.chance(0.5) ? 0.0 : 0.2 * rng.uniform();
  for (int i = 0; i < total; ++i) {
    RowTxn t;
    t.session = static_cast<int>(rng.below(r.sessions));
    t.status = rng.chance(0.1) ? TxnStatus::Aborted : rng.chance(0.05) ? TxnStatus::Unknown : TxnStatus::Committed;
    const size_t snap = rng.chance(stale) ? rng.below(static_cast<uint32_t>(states.size())) : states.size() - 1;
    std::map<int, int64_t> view = states[snap];
    auto seen = [&](int k) -> std::optional<int64_t> {
      const std::map<int, int64_t>* from = &view;
      std::map<int, int64_t> other;
      if (rng.chance(wild)) from = &states[rng.below(static_cast<uint32_t>(states.size()))];
      auto it = from->find(k);
      return it == from->end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    const int ops = 1 + static_cast<int>(rng.below(3));
    t.start = clock++;
    for (int o = 0; o < ops; ++o) {
      RowOp op;
      const uint32_t what = rng.below(10);
      op.key = static_cast<int>(rng.below(keys));
      if (what < 4) {
        op.kind = RowOp::Select;
        op.predicate = static_cast<int>(rng.below(kNumRowPredicates));
        for (int k = 0; k < keys; ++k)
          if (const std::optional<int64_t> v = seen(k); v && row_matches(op.predicate, k, *v)) op.rows[k] = *v;
        if (rng.chance(0.03)) op.rows.erase(op.key);  // a row missed, now and then
      } else if (what < 6) {
        op.kind = RowOp::Read;
        op.value = seen(op.key);
      } else {
        op.kind = RowOp::Write;
        if (what < 8 || !view.count(op.key)) {  // an insert or an update
          op.value = rng.chance(0.15) ? 10 + 2 * static_cast<int64_t>(rng.below(8)) : (next_value += 1);
          view[op.key] = *op.value;
        } else {  // a delete
          view.erase(op.key);
        }
      }
      t.ops.push_back(std::move(op));
    }
    t.end = clock++;
    if (rng.chance(0.3)) clock -= 2;  // overlaps
    t.timed = rng.chance(0.3);
    if (t.status == TxnStatus::Committed || (t.status == TxnStatus::Unknown && rng.chance(0.5))) {
      std::map<int, int64_t> next = states.back();
      for (const RowOp& op : t.ops)
        if (op.kind == RowOp::Write) {
          if (op.value) next[op.key] = *op.value;
          else next.erase(op.key);
        }
      states.push_back(std::move(next));
    }
    by_session[t.session].push_back(std::move(t));
  }
  for (auto& s : by_session)
    for (auto& t : s) r.txns.push_back(std::move(t));
  return r;
}

History build_row_history(const RowHistory& r) {
  HistoryBuilder b;
  b.set_initial(b.values().intern_null());
  b.set_table();
  auto key = [&](int k) { return b.keys().intern_int(k); };
  auto value = [&](std::optional<int64_t> v) { return v ? b.values().intern_int(*v) : b.values().intern_null(); };
  for (const auto& [k, v] : r.initial) b.set_initial_row(key(k), value(v));
  int session = -1;
  for (const RowTxn& t : r.txns) {
    while (session < t.session) b.begin_session(), ++session;
    b.begin_txn();
    for (const RowOp& op : t.ops) {
      if (op.kind == RowOp::Read) b.read(key(op.key), value(op.value));
      else if (op.kind == RowOp::Write) b.write(key(op.key), value(op.value));
      else {
        const uint32_t p = b.add_predicate(parse_predicate(kRowPredicates[op.predicate]).predicate);
        std::vector<std::pair<uint32_t, uint32_t>> rows;
        for (const auto& [k, v] : op.rows) rows.push_back({key(k), value(v)});
        b.predicate_read(p, rows);
      }
    }
    if (t.status != TxnStatus::Committed) b.set_status(t.status);
    if (t.timed) b.set_time(Time::integer(t.start), Time::integer(t.end));
    b.end_txn();
  }
  while (session + 1 < r.sessions) b.begin_session(), ++session;
  Expected<History> h = b.finish("isoscope");
  EXPECT_TRUE(h.ok());
  return h.ok() ? std::move(*h) : History();
}

// SER (SSER with real_time) straight from the rows: some serial order of the committed
// transactions (and of any subset of the unknown ones) in which every read and select returns
// what the table holds at its point (the transaction's own writes included).
bool rows_serializable(const RowHistory& r, bool real_time) {
  std::vector<int> keys;
  auto note = [&](int k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (const auto& [k, v] : r.initial) note(k);
  for (const RowTxn& t : r.txns)
    for (const RowOp& op : t.ops) {
      if (op.kind != RowOp::Select) note(op.key);
      for (const auto& [k, v] : op.rows) note(k);
    }
  std::vector<int> unknown;
  for (int i = 0; i < static_cast<int>(r.txns.size()); ++i)
    if (r.txns[i].status == TxnStatus::Unknown) unknown.push_back(i);
  for (uint32_t mask = 0; mask < (1u << unknown.size()); ++mask) {
    std::vector<int> in;
    for (int i = 0; i < static_cast<int>(r.txns.size()); ++i) {
      const TxnStatus s = r.txns[i].status;
      if (s == TxnStatus::Committed) in.push_back(i);
      if (s == TxnStatus::Unknown)
        for (size_t u = 0; u < unknown.size(); ++u)
          if (unknown[u] == i && (mask >> u & 1)) in.push_back(i);
    }
    std::sort(in.begin(), in.end());
    do {
      bool ok = true;
      for (size_t a = 0; a < in.size() && ok; ++a)
        for (size_t b = a + 1; b < in.size() && ok; ++b) {
          const RowTxn &x = r.txns[in[a]], &y = r.txns[in[b]];
          if (x.session == y.session && in[a] > in[b]) ok = false;  // session order
          if (real_time && x.timed && y.timed && y.end < x.start) ok = false;
        }
      std::map<int, int64_t> table = r.initial;
      for (size_t a = 0; a < in.size() && ok; ++a)
        for (const RowOp& op : r.txns[in[a]].ops) {
          if (op.kind == RowOp::Write) {
            if (op.value) table[op.key] = *op.value;
            else table.erase(op.key);
          } else if (op.kind == RowOp::Read) {
            auto it = table.find(op.key);
            if ((it == table.end() ? std::nullopt : std::optional<int64_t>(it->second)) != op.value) ok = false;
          } else {
            for (int k : keys) {
              auto it = table.find(k);
              const bool match = it != table.end() && row_matches(op.predicate, k, it->second);
              auto got = op.rows.find(k);
              if (match != (got != op.rows.end()) || (match && got->second != it->second)) ok = false;
            }
          }
          if (!ok) break;
        }
      if (ok) return true;
    } while (std::next_permutation(in.begin(), in.end()));
  }
  return false;
}

}  // namespace

TEST(Predicates, ParseAndMatch) {
  const ParsedPredicate p = parse_predicate("Value % 3 = 0 AND key in (1, 'a')");
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.predicate.text, "value % 3 = 0 and key in (1, 'a')");
  Interner keys, values{true, "value"};
  const uint32_t k1 = keys.intern_int(1), ka = keys.intern_str("a"), k2 = keys.intern_int(2);
  EXPECT_TRUE(predicate_matches(p.predicate, keys, k1, values, values.intern_int(30)));
  EXPECT_TRUE(predicate_matches(p.predicate, keys, ka, values, values.intern_int(-3)));
  EXPECT_FALSE(predicate_matches(p.predicate, keys, k2, values, values.intern_int(30)));
  EXPECT_FALSE(predicate_matches(p.predicate, keys, k1, values, values.intern_int(31)));
  EXPECT_FALSE(predicate_matches(p.predicate, keys, k1, values, values.intern_null()));  // absent
  EXPECT_FALSE(predicate_matches(p.predicate, keys, k1, values, values.intern_str("x")));
  const ParsedPredicate t = parse_predicate(" true ");
  ASSERT_TRUE(t.error.empty());
  EXPECT_TRUE(predicate_matches(t.predicate, keys, k1, values, values.intern_str("x")));
  EXPECT_FALSE(predicate_matches(t.predicate, keys, k1, values, values.intern_null()));
  const ParsedPredicate s = parse_predicate("value between 'b' and 'd' and value != 'c'");
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_TRUE(predicate_matches(s.predicate, keys, k1, values, values.intern_str("bb")));
  EXPECT_FALSE(predicate_matches(s.predicate, keys, k1, values, values.intern_str("c")));
  EXPECT_FALSE(predicate_matches(s.predicate, keys, k1, values, values.intern_int(3)));
  for (const char* bad : {"", "value", "value % 0 = 1", "value = ", "value in ()", "value < 3 or key = 1",
                          "value = 'x", "colour = 1", "value between 1", "value = 99999999999999999999"}) {
    const ParsedPredicate e = parse_predicate(bad);
    EXPECT_FALSE(e.error.empty()) << bad;
    EXPECT_NE(e.error.find("column"), std::string::npos) << e.error;
  }
}

TEST(Predicates, ASelectReadsAVersionOfEveryKey) {
  // Rows 1 and 2 at the start; T2 inserts 3 and deletes 1; T1 selects value % 2 = 0.
  History h = parse_json(R"({"rows": [[1, 10], [2, 21]], "sessions": [
      [[["select", "value % 2 = 0", [[1, 10]]]]],
      [[["insert", 3, 30], ["delete", 1]]]]})");
  ASSERT_EQ(h.predicate_reads.size(), 1u);
  const PredicateRead& p = h.predicate_reads[0];
  EXPECT_EQ(p.returned_end - p.op_begin, 1u);
  EXPECT_EQ(p.op_end - p.op_begin, 3u);  // keys 1, 2, 3
  EXPECT_EQ(h.predicate_read_text(0), "select(value % 2 = 0) = {(1, 10)}");
  EXPECT_EQ(h.read_from[p.op_begin], kReadsInitial);           // (1, 10): the initial row
  EXPECT_EQ(h.read_from[p.op_begin + 1], kReadsInitial);       // key 2: 21 does not match
  EXPECT_EQ(h.ambiguous.candidates(p.op_begin + 2).size(), 0u);  // key 3: absent at the start
  EXPECT_EQ(h.read_from[p.op_begin + 2], kReadsInitial);
  for (Level l : kTransactional)
    if (l != Level::SSER) EXPECT_EQ(checker_for(l)(h, {}).verdict, Verdict::Pass) << level_name(l);
  // T2 reads the row T1 inserted after a select that still saw row 1, which T1 deleted: read
  // committed allows it (the select came first), read atomic does not.
  History bad = parse_json(R"({"rows": [[1, 10], [2, 21]], "sessions": [
      [[["insert", 3, 30], ["delete", 1]]],
      [[["select", "value % 2 = 0", [[1, 10]]], ["r", 3, 30]]]]})");
  EXPECT_EQ(checker_for(Level::RA)(bad, {}).verdict, Verdict::Fail);
  EXPECT_EQ(checker_for(Level::RC)(bad, {}).verdict, Verdict::Pass);
  EXPECT_EQ(reference_check(bad, Level::RA), Verdict::Fail);
  EXPECT_EQ(reference_check(bad, Level::RC), Verdict::Pass);
}

TEST(Predicates, AMissedRowThatAlwaysMatchedIsThinAir) {
  History h = parse_json(R"({"rows": [[1, 10]], "sessions": [[[["select", "value > 5", []]]]]})");
  const LevelResult r = checker_for(Level::RC)(h, {});
  ASSERT_EQ(r.verdict, Verdict::Fail);
  ASSERT_FALSE(r.anomalies.empty());
  EXPECT_NE(r.anomalies[0].explanation.find("select(value > 5) saw no row at key 1"), std::string::npos)
      << r.anomalies[0].explanation;
}

TEST(Predicates, ConvertKeepsRowsAndSelects) {
  const std::string in = R"({"format": "isoscope/1", "initial": null, "rows": [[1, 10], [2, 20]], "sessions": [
  [
   {"ops": [["select", "value = 30", []], ["select", "value % 3 = 0", [[3, 30]]]]}],
  [
   {"ops": [["w", 3, 30], ["w", 1, null]]}]
]}
)";
  const History h = parse_json(in);
  EXPECT_EQ(write_isoscope_json(h), in);
}

TEST(Predicates, AgreesWithReferenceOnRandomHistoriesWithRows) {
  const int kHistories = scaled(10000);
  Rng rng(3838);
  int disagreements = 0, lattice = 0, rows_disagree = 0, with_choice = 0;
  std::array<int, 8> pass{}, fail{};
  for (int i = 0; i < kHistories; ++i) {
    const RowHistory raw = random_row_history(rng);
    const History h = build_row_history(raw);
    with_choice += !h.ambiguous.empty();
    std::array<Verdict, 8> got{};
    for (size_t li = 0; li < kTransactional.size(); ++li) {
      const Level l = kTransactional[li];
      const Verdict want = reference_check(h, l);
      if (want == Verdict::Unknown) continue;
      const LevelResult r = l == Level::SSER && !h.has_timestamps ? LevelResult{Verdict::NotApplicable} : checker_for(l)(h, {});
      got[li] = r.verdict;
      pass[li] += r.verdict == Verdict::Pass;
      fail[li] += r.verdict == Verdict::Fail;
      if (r.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": checker says " << verdict_name(r.verdict) << ", reference says "
                      << verdict_name(want) << " (history " << i << ")\n" << write_isoscope_json(h);
      if ((l == Level::SER || (l == Level::SSER && h.has_timestamps)) &&
          (want == Verdict::Pass) != rows_serializable(raw, l == Level::SSER) && ++rows_disagree <= 5)
        ADD_FAILURE() << level_name(l) << ": the serial runs of the rows say "
                      << (want == Verdict::Pass ? "fail" : "pass") << " (history " << i << ")\n" << write_isoscope_json(h);
    }
    for (size_t a = 0; a < kTransactional.size(); ++a)
      for (size_t b = 0; b < kTransactional.size(); ++b)
        if (is_weaker(kTransactional[a], kTransactional[b]) && got[b] == Verdict::Pass && got[a] == Verdict::Fail &&
            ++lattice <= 5)
          ADD_FAILURE() << level_name(kTransactional[b]) << " passes but " << level_name(kTransactional[a]) << " fails (history " << i << ")";
  }
  std::printf("  %d histories with rows, %d with a choice\n", kHistories, with_choice);
  for (size_t li = 0; li < kTransactional.size(); ++li)
    std::printf("    %-4s pass %5d  fail %5d\n", level_name(kTransactional[li]), pass[li], fail[li]);
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(rows_disagree, 0);
  EXPECT_EQ(lattice, 0);
  for (size_t li = 0; li < kTransactional.size(); ++li) {
    EXPECT_GT(pass[li], scaled_threshold(10000 / 20)) << level_name(kTransactional[li]);
    EXPECT_GT(fail[li], scaled_threshold(10000 / 50)) << level_name(kTransactional[li]);
  }
}

// The textbook tables of the gallery (tests/fixtures/tables/manifest.json): each level's verdict
// as its definition gives it, and each failure's anomaly naming the predicate's rows.
TEST(Predicates, TheTextbookTablesHaveTheirVerdicts) {
  const std::string dir = std::string(ISOSCOPE_FIXTURES) + "/tables";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(dir + "/manifest.json").get(doc), simdjson::SUCCESS);
  simdjson::dom::array entries;
  ASSERT_EQ(doc["entries"].get_array().get(entries), simdjson::SUCCESS);
  size_t n = 0;
  for (simdjson::dom::element e : entries) {
    std::string_view file;
    simdjson::dom::object expect;
    ASSERT_EQ(e["file"].get_string().get(file), simdjson::SUCCESS);
    ASSERT_EQ(e["expect"].get_object().get(expect), simdjson::SUCCESS);
    Expected<History> h = read_path(dir + "/" + std::string(file));
    ASSERT_TRUE(h.ok()) << file << ": " << h.error().to_string();
    EXPECT_TRUE(h->has_rows()) << file;
    const CheckReport report = check_history(*h, {});
    for (auto [level, verdict_value] : expect) {
      Level l;
      std::string_view want;
      ASSERT_TRUE(parse_level(level, l));
      ASSERT_EQ(verdict_value.get_string().get(want), simdjson::SUCCESS);
      const LevelResult& r = report.results[static_cast<int>(l)];
      EXPECT_EQ(verdict_name(r.verdict), want) << file << " " << level;
      EXPECT_EQ(reference_check(*h, l) == Verdict::Pass ? "pass" : "fail", want) << file << " " << level << " (reference)";
      if (r.verdict == Verdict::Fail && !r.implied_by) {
        ASSERT_FALSE(r.anomalies.empty());
        EXPECT_NE(r.anomalies[0].explanation.find("select("), std::string::npos) << file << " " << r.anomalies[0].explanation;
      }
    }
    ++n;
  }
  EXPECT_EQ(n, 3u);
}
