// Hermitage's cases, written from the anomalies' definitions (Adya; Hermitage's scripts for the
// schedules) over the registers x and y, 0 at the start. Each value is written once per key,
// so every read names its writer. `level` is the weakest isoscope level that the anomaly's
// outcome of the script fails; tests/native/runner/hermitage_test.cpp checks it on both the
// anomalous and the prevented outcome.
#include <cstring>

#include "model/predicates.h"
#include "runner/hermitage.h"

namespace isoscope::runner {

const char* hermitage_anomaly_name(HermitageAnomaly a) {
  static constexpr const char* kNames[] = {"G0", "G1a", "G1b", "G1c", "OTV", "PMP", "P4", "G-single", "G2-item", "G2"};
  return kNames[static_cast<int>(a)];
}

const char* hermitage_anomaly_title(HermitageAnomaly a) {
  static constexpr const char* kTitles[] = {"write cycles",
                                            "aborted reads",
                                            "intermediate reads",
                                            "circular information flow",
                                            "observed transaction vanishes",
                                            "predicate-many-preceders",
                                            "lost update",
                                            "read skew",
                                            "write skew",
                                            "anti-dependency cycles"};
  return kTitles[static_cast<int>(a)];
}

std::string hermitage_case_name(const HermitageCase& c) {
  std::string name = hermitage_anomaly_name(c.anomaly);
  if (*c.variant) {
    name += " (";
    name += c.variant;
    name += ')';
  }
  return name;
}

std::string hermitage_session_name(uint32_t session) {
  std::string name(1, 'T');  // (built up: GCC 12 warns, wrongly, of "T" + std::string)
  name += std::to_string(session + 1);
  return name;
}

const char* cell_result_mark(CellResult r) {
  switch (r) {
    case CellResult::Prevented: return "✓";
    case CellResult::Occurs: return "—";
    case CellResult::ReadOnlyPrevented: return "R/O";
    case CellResult::NotTested: return "n/a";
    case CellResult::Undecided: return "?";
  }
  return "?";
}

const std::vector<HermitageCase>& hermitage_cases() {
  using A = HermitageAnomaly;
  static const std::vector<HermitageCase> cases = {
      {A::G0, "", Level::RC,
       "T1 begin; T2 begin; T1 write x 1; T2 write x 2; T1 write y 1; T1 commit; T2 write y 2; T2 commit; "
       "T3 begin; T3 read x; T3 read y; T3 read x; T3 commit",
       "T1 and T2 write x and y; the database orders one before the other on one key and after it on the "
       "other (a write cycle), which T3's reads of the final values show"},
      {A::G1a, "", Level::RC,
       "T1 begin; T2 begin; T1 write x 1; T2 read x; T1 abort; T2 read x; T2 commit",
       "T2 reads x written by T1, which aborts"},
      {A::G1b, "", Level::RC,
       "T1 begin; T2 begin; T1 write x 1; T2 read x; T1 write x 2; T1 commit; T2 read x; T2 commit",
       "T2 reads x = 1, a value T1 overwrote before it committed"},
      {A::G1c, "", Level::RC,
       "T1 begin; T2 begin; T1 write x 1; T2 write y 1; T1 read y; T2 read x; T1 commit; T2 commit",
       "T1 reads T2's y and T2 reads T1's x: each read the other's uncommitted write"},
      {A::OTV, "", Level::RC,
       "T1 begin; T2 begin; T3 begin; T1 write x 1; T1 write y 1; T2 write x 2; T1 commit; T3 read x; T3 read y; "
       "T2 write y 2; T3 read x; T3 read y; T2 commit; T3 read x; T3 read y; T3 commit",
       "T3 reads T2's x, then T1's y, which T2 overwrote: T2 was observed, then vanishes"},
      {A::PMP, "read-only", Level::RA,
       "T1 begin; T2 begin; T1 select value = 30; T2 insert 3 30; T2 commit; T1 select value % 3 = 0; T1 commit",
       "T1's second select sees the row T2 inserted after its first missed it (a phantom)", true},
      {A::PMP, "with writes", Level::RA,
       "T1 begin; T2 begin; T1 update-where true add 10; T2 select value = 20; T2 delete-where value = 20; "
       "T1 commit; T2 select value = 20; T2 commit",
       "T2 deletes where value = 20 while T1 adds 10 to every row: its delete matches neither T1's rows nor the ones "
       "before them, and T2 then sees T1's row 1 = 20 (a phantom on a write predicate)", true},
      {A::P4, "", Level::SI,
       "T1 begin; T2 begin; T1 read x; T2 read x; T1 write x 1; T2 write x 2; T1 commit; T2 commit",
       "T1 and T2 read x = 0 and both write x: one update is lost"},
      {A::GSingle, "read-only", Level::RA,
       "T1 begin; T2 begin; T1 read x; T2 read x; T2 read y; T2 write x 1; T2 write y 1; T2 commit; "
       "T1 read y; T1 commit",
       "T1 reads x before T2 and y after it: T2's writes, half seen (read skew)"},
      {A::GSingle, "with writes", Level::RA,
       "T1 begin; T2 begin; T1 read x; T2 read x; T2 read y; T2 write x 1; T2 write y 1; T2 commit; "
       "T1 read-for-update y; T1 write y 2; T1 commit",
       "T1 reads x before T2 and, to update it, y after it: T2's writes, half seen (read skew)"},
      {A::G2Item, "", Level::SER,
       "T1 begin; T2 begin; T1 read x; T1 read y; T2 read x; T2 read y; T1 write x 1; T2 write y 1; "
       "T1 commit; T2 commit",
       "T1 and T2 read x and y, then each writes one of them: both commit (write skew)"},
      // On Hermitage's table: rows (1, 10) and (2, 20).
      // On Hermitage's table: rows (1, 10) and (2, 20) (the PMP cases above too).
      {A::G2, "", Level::SER,
       "T1 begin; T2 begin; T1 select value % 3 = 0; T2 select value % 3 = 0; T1 insert 3 30; T2 insert 4 42; "
       "T1 commit; T2 commit",
       "T1 and T2 each find no row with value % 3 = 0 and insert one: both commit (predicate write skew)", true},
      {A::G2, "two anti-dependencies", Level::SER,
       "T1 begin; T1 select true; T2 begin; T2 update 2 25; T2 commit; T3 begin; T3 select true; T3 commit; "
       "T1 update 1 0; T1 commit",
       "T3 sees T2's update, which T1 did not; T1 then overwrites a row T3 read (Fekete et al.'s read-only "
       "anomaly: two anti-dependencies)", true},
  };
  return cases;
}

bool parse_hermitage_script(const char* script, std::vector<HermitageStep>& steps, std::string& error) {
  steps.clear();
  std::string text = script;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(';', at);
    if (end == std::string::npos) end = text.size();
    std::vector<std::string> words;
    for (size_t i = at; i < end;) {
      while (i < end && text[i] == ' ') ++i;
      size_t j = i;
      while (j < end && text[j] != ' ') ++j;
      if (j > i) words.push_back(text.substr(i, j - i));
      i = j;
    }
    at = end + 1;
    if (words.empty()) continue;
    const std::string step = "step " + std::to_string(steps.size() + 1);
    HermitageStep s{HermitageStep::Begin, 0, 0, 0, {}};
    if (words[0].size() != 2 || words[0][0] != 'T' || words[0][1] < '1' || words[0][1] > '9') {
      error = step + ": expected T1 .. T9, got '" + words[0] + "'";
      return false;
    }
    s.session = static_cast<uint8_t>(words[0][1] - '1');
    const std::string verb = words.size() > 1 ? words[1] : "";
    auto key = [&](size_t i) {
      if (words.size() <= i || (words[i] != "x" && words[i] != "y")) return false;
      s.key = words[i] == "x" ? 0 : 1;
      return true;
    };
    // A predicate: the words from i on (up to `end_word`), canonical; false when it does not parse.
    auto predicate = [&](size_t i, size_t end_word) {
      std::string text;
      for (size_t w = i; w < end_word && w < words.size(); ++w) {
        if (!text.empty()) text += ' ';
        text += words[w];
      }
      const ParsedPredicate p = parse_predicate(text);
      s.predicate = p.predicate.text;
      return p.error.empty() && i < end_word;
    };
    auto number = [&](size_t i, int64_t& out) {
      if (words.size() <= i) return false;
      char* e = nullptr;
      out = std::strtoll(words[i].c_str(), &e, 10);
      return e && *e == '\0' && !words[i].empty();
    };
    bool ok = true;
    if (verb == "select") s.kind = HermitageStep::Select, ok = predicate(2, words.size());
    else if (verb == "insert" || verb == "update")
      s.kind = verb == "insert" ? HermitageStep::Insert : HermitageStep::Update,
      ok = words.size() == 4 && number(2, s.key) && number(3, s.value);
    else if (verb == "delete-where") s.kind = HermitageStep::DeleteWhere, ok = predicate(2, words.size());
    else if (verb == "update-where")
      s.kind = HermitageStep::UpdateWhere,
      ok = words.size() >= 5 && words[words.size() - 2] == "add" && number(words.size() - 1, s.value) &&
           predicate(2, words.size() - 2);
    else if (verb == "begin") s.kind = HermitageStep::Begin, ok = words.size() == 2;
    else if (verb == "commit") s.kind = HermitageStep::Commit, ok = words.size() == 2;
    else if (verb == "abort") s.kind = HermitageStep::Abort, ok = words.size() == 2;
    else if (verb == "read") s.kind = HermitageStep::Read, ok = key(2) && words.size() == 3;
    else if (verb == "read-for-update") s.kind = HermitageStep::ReadForUpdate, ok = key(2) && words.size() == 3;
    else if (verb == "write") {
      s.kind = HermitageStep::Write;
      ok = key(2) && words.size() == 4;
      if (ok) {
        char* e = nullptr;
        s.value = std::strtoll(words[3].c_str(), &e, 10);
        ok = e && *e == '\0' && s.value > 0;
      }
    } else {
      ok = false;
    }
    if (!ok) {
      error = step + ": expected begin, commit, abort, read x|y, read-for-update x|y, write x|y VALUE (VALUE > 0), "
                     "select PREDICATE, insert ID VALUE, update ID VALUE, update-where PREDICATE add N or "
                     "delete-where PREDICATE";
      return false;
    }
    steps.push_back(s);
  }
  return true;
}

void record_predicate_write(const HermitageStep& s, const std::vector<std::pair<int64_t, int64_t>>& rows,
                            std::vector<HermitageOp>& ops) {
  ops.push_back({HermitageOp::Select, 0, std::nullopt, s.predicate, rows});
  for (const auto& [k, v] : rows)
    ops.push_back({HermitageOp::Write, k, s.kind == HermitageStep::UpdateWhere ? std::optional<int64_t>(v + s.value) : std::nullopt, {}, {}});
}

}  // namespace isoscope::runner
