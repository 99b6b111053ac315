#include "runner/table_workload.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "model/predicates.h"

namespace isoscope::runner {

const char* table_step_name(TableStep::Kind k) {
  static constexpr const char* kNames[] = {"select", "read", "insert", "update", "delete", "update-where", "delete-where"};
  return kNames[k];
}

bool table_step_writes(TableStep::Kind k) { return k != TableStep::Select && k != TableStep::Read; }

std::vector<std::pair<int64_t, int64_t>> initial_table_rows(uint32_t keys, uint64_t seed) {
  Rng rng(seed * 0x9E3779B97F4A7C15ull ^ 0x726F7773ull);  // "rows": apart from the sessions' streams
  std::vector<uint32_t> all(keys);
  std::iota(all.begin(), all.end(), 0u);
  const uint32_t n = keys == 0 ? 0 : std::max<uint32_t>(1, (keys + 1) / 2);
  // The first n of a partial Fisher-Yates shuffle: n keys drawn without replacement.
  for (uint32_t i = 0; i < n; ++i) std::swap(all[i], all[i + rng.below(keys - i)]);
  std::vector<int64_t> values(n);
  std::iota(values.begin(), values.end(), int64_t{1});
  for (uint32_t i = n; i > 1; --i) std::swap(values[i - 1], values[rng.below(i)]);
  std::vector<std::pair<int64_t, int64_t>> rows(n);
  for (uint32_t i = 0; i < n; ++i) rows[i] = {all[i], values[i]};
  std::sort(rows.begin(), rows.end());
  return rows;
}

namespace {

std::string canonical(const std::string& text) {
  ParsedPredicate p = parse_predicate(text);
  return p.error.empty() ? p.predicate.text : text;  // every text below parses (tests/native/runner)
}

std::string num(int64_t v) { return std::to_string(v); }

}  // namespace

namespace {

// A predicate and the keys its conditions on the key admit (empty: it has none).
struct PredicateChoice {
  std::string text;
  std::vector<uint32_t> keys;
};

PredicateChoice choose_predicate(Rng& rng, const KeyPicker& keys, PredicateUse use) {
  const uint32_t n = keys.size();
  std::vector<uint32_t> admitted;
  auto admit = [&](uint32_t a, uint32_t b) {
    admitted.clear();
    for (uint32_t k = a; k <= b && k < n; ++k) admitted.push_back(k);
  };
  // A key range's width: about a quarter of the keys, at least two keys.
  const uint32_t width = std::max<uint32_t>(1, n / 4);
  auto range = [&](uint32_t w) {
    const uint32_t a = keys.pick(rng), b = std::min(n - 1, a + w);
    admit(a, b);
    return a == b ? "key = " + num(a) : "key between " + num(a) + " and " + num(b);
  };
  auto key_set = [&](uint32_t count) {
    std::vector<uint32_t> ks;
    for (uint32_t i = 0; i < count; ++i) ks.push_back(keys.pick(rng));
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    admitted = ks;
    if (ks.size() == 1) return "key = " + num(ks[0]);
    std::string s = "key in (";
    for (size_t i = 0; i < ks.size(); ++i) s += (i ? ", " : "") + num(ks[i]);
    return s + ")";
  };
  auto modulo = [&](uint32_t m_low, uint32_t m_high) {
    const uint32_t m = m_low + rng.below(m_high - m_low + 1);
    return "value % " + num(m) + " = " + num(rng.below(m));
  };
  const uint32_t u = rng.below(100);
  std::string text;
  switch (use) {
    case PredicateUse::Delete:
      text = u < 40 ? key_set(1 + rng.below(2)) : u < 70 ? range(1) : modulo(3, 4);
      break;
    case PredicateUse::Select:
    case PredicateUse::Update:
      if (u < 5) {
        text = use == PredicateUse::Select ? "true" : modulo(2, 4);
      } else if (u < 35) {
        text = modulo(2, 4);
      } else if (u < 60) {
        text = range(1 + rng.below(width));
      } else if (u < 72) {
        text = key_set(2 + rng.below(2));
      } else if (u < 82) {
        const uint32_t a = 1 + rng.below(std::max<uint32_t>(1, n - 1));
        const bool below = rng.chance(0.5);
        text = below ? "key < " + num(a) : "key >= " + num(a);
        if (below) admit(0, a - 1);
        else admit(a, n - 1);
      } else if (u < 90) {
        // The rows a predicate update has touched, or those it has not.
        text = std::string(rng.chance(0.5) ? "value >= " : "value < ") + num(kPredicateUpdateStep);
      } else {
        text = range(1 + rng.below(width)) + " and " + modulo(2, 2);
      }
      break;
  }
  return {canonical(text), std::move(admitted)};
}

}  // namespace

std::string random_predicate(Rng& rng, const KeyPicker& keys, PredicateUse use) { return choose_predicate(rng, keys, use).text; }

void TablePlanner::plan(Rng& rng, TableProgram& out) const {
  out.clear();
  const uint32_t n = p_.min_ops + rng.below(p_.max_ops - p_.min_ops + 1);
  PredicateChoice last;  // the transaction's last select's predicate
  auto predicate = [&](PredicateUse use) {
    if (!last.text.empty() && last.text != "true" && rng.chance(0.3)) return last;
    return choose_predicate(rng, keys_, use);
  };
  for (uint32_t i = 0; i < n; ++i) {
    TableStep s{TableStep::Read, 0, {}};
    if (rng.chance(p_.read_ratio)) {
      if (rng.chance(0.7)) {
        s.kind = TableStep::Select;
        last = predicate(PredicateUse::Select);
        s.predicate = last.text;
      } else {
        s.kind = TableStep::Read;
        s.key = keys_.pick(rng);
      }
    } else {
      const uint32_t u = rng.below(100);
      s.kind = u < 35   ? TableStep::Insert
               : u < 55 ? TableStep::Update
               : u < 70 ? TableStep::Delete
               : u < 85 ? TableStep::UpdateWhere
                        : TableStep::DeleteWhere;
      if (s.kind == TableStep::UpdateWhere) s.predicate = predicate(PredicateUse::Update).text;
      else if (s.kind == TableStep::DeleteWhere) s.predicate = random_predicate(rng, keys_, PredicateUse::Delete);
      // An insert after a select on keys goes, more often than not, among them: the phantom's
      // shape (a select finds no such row, then inserts one).
      else if (s.kind == TableStep::Insert && !last.keys.empty() && rng.chance(0.6)) s.key = last.keys[rng.below(static_cast<uint32_t>(last.keys.size()))];
      else s.key = keys_.pick(rng);
    }
    out.push_back(std::move(s));
  }
}

std::string predicate_sql(const std::string& predicate) {
  // The canonical text's words are SQL already but for the column names and "true".
  std::string out, word;
  char quote = 0;
  auto flush = [&] {
    out += word == "value" ? "v" : word == "key" ? "k" : word == "true" ? "1 = 1" : word;
    word.clear();
  };
  for (char ch : predicate) {
    if (quote) {  // a string literal, as it is
      const bool closes = ch == quote;
      out += closes ? '\'' : ch;
      if (closes) quote = 0;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(ch))) {
      word += ch;
      continue;
    }
    flush();
    if (ch == '\'' || ch == '"') quote = ch;
    out += ch == '"' ? '\'' : ch;
  }
  flush();
  return out;
}

std::string select_sql(const std::string& table, const std::string& predicate, bool for_update) {
  return "SELECT k, v FROM " + table + " WHERE " + predicate_sql(predicate) + " ORDER BY k" + (for_update ? " FOR UPDATE" : "");
}
std::string read_sql(const std::string& table, int64_t key) { return "SELECT k, v FROM " + table + " WHERE k = " + num(key); }
std::string insert_sql(const std::string& table, int64_t key, int64_t value) {
  return "INSERT INTO " + table + " (k, v) VALUES (" + num(key) + ", " + num(value) + ")";
}
std::string update_sql(const std::string& table, int64_t key, int64_t value) {
  return "UPDATE " + table + " SET v = " + num(value) + " WHERE k = " + num(key);
}
std::string add_sql(const std::string& table, int64_t key, int64_t delta) {
  return "UPDATE " + table + " SET v = v + " + num(delta) + " WHERE k = " + num(key);
}
std::string delete_sql(const std::string& table, int64_t key) { return "DELETE FROM " + table + " WHERE k = " + num(key); }
std::string update_where_sql(const std::string& table, const std::string& predicate, int64_t delta, bool returning) {
  return "UPDATE " + table + " SET v = v + " + num(delta) + " WHERE " + predicate_sql(predicate) + (returning ? " RETURNING k, v" : "");
}
std::string delete_where_sql(const std::string& table, const std::string& predicate, bool returning) {
  return "DELETE FROM " + table + " WHERE " + predicate_sql(predicate) + (returning ? " RETURNING k, v" : "");
}

std::vector<std::string> fill_table_sql(const std::string& table, const std::vector<std::pair<int64_t, int64_t>>& rows) {
  std::vector<std::string> out{"DELETE FROM " + table};
  for (size_t i = 0; i < rows.size();) {
    std::string sql = "INSERT INTO " + table + " (k, v) VALUES ";
    for (size_t n = 0; n < 1000 && i < rows.size(); ++n, ++i)
      sql += (n ? ", (" : "(") + num(rows[i].first) + ", " + num(rows[i].second) + ")";
    out.push_back(std::move(sql));
  }
  return out;
}

}  // namespace isoscope::runner
