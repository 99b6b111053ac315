// Long names and values that cannot be mistaken for one another (issue 35, classes 11 and 12).
// A 1 MiB key, value or transaction id is shown shortened in every explanation ("kkkk…[key 1,
// 1048576 bytes]") and carried whole once, in the result JSON's "names"; a string never prints
// like nil, null or a number.
#include <gtest/gtest.h>

#include <string>

#include "formats/formats.h"
#include "model/history.h"
#include "report/result_json.h"
#include "test_util.h"
#include "util/json.h"

namespace {

using namespace isoscope;

size_t count_of(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + part.size())) ++n;
  return n;
}

const std::string kLong(1 << 20, 'k');   // the long name
const std::string kLong2(1 << 20, 'q');  // another one

// A lost update (SI, SER and SSER fail) whose key, values or transaction id are long.
std::string lost_update(const std::string& key, const std::string& v1, const std::string& v2, const std::string& id) {
  const std::string k = json_quote(key);
  return "{\"format\": \"isoscope/1\", \"initial\": 0, \"sessions\": [\n"
         "[{\"id\": " + json_quote(id) + ", \"ops\": [[\"r\", " + k + ", 0], [\"w\", " + k + ", " + v1 + "]], \"start\": 1, \"end\": 5}],\n"
         "[{\"ops\": [[\"r\", " + k + ", 0], [\"w\", " + k + ", " + v2 + "]], \"start\": 2, \"end\": 6}],\n"
         "[{\"ops\": [[\"r\", " + k + ", " + v2 + "], [\"w\", \"y\", " + v1 + "]], \"start\": 7, \"end\": 8}]]}\n";
}

struct Variant {
  const char* name;
  std::string history;
  std::string whole;  // the long name, as it is in the JSON result
};

std::vector<Variant> variants() {
  return {
      {"key", lost_update(kLong, "1", "2", "t1"), kLong},
      {"value", lost_update("x", json_quote(kLong), json_quote(kLong2), "t1"), kLong},
      {"id", lost_update("x", "1", "2", kLong), kLong},
      {"key-and-values", lost_update(kLong, json_quote(kLong2), "\"v\"", "t1"), kLong2},
  };
}

TEST(LongNames, TextExplanationsAreBounded) {
  for (const Variant& v : variants()) {
    const std::string path = temp_file(std::string("long-") + v.name + ".json", v.history);
    const CommandResult r = run_cli("check " + shell_quote(path));
    EXPECT_EQ(r.status, 1) << v.name << r.err;
    EXPECT_NE(r.out.find("LostUpdate"), std::string::npos) << v.name;
    // Each explanation names the long name by its first bytes and size, never whole.
    EXPECT_LT(r.out.size() + r.err.size(), 8000u) << v.name;
    EXPECT_NE(r.out.find("1048576 bytes]"), std::string::npos) << v.name << r.out.substr(0, 2000);
  }
}

TEST(LongNames, JsonCarriesEachLongNameOnce) {
  for (const Variant& v : variants()) {
    const std::string path = temp_file(std::string("long-") + v.name + ".json", v.history);
    const CommandResult r = run_cli("check --json " + shell_quote(path));
    EXPECT_EQ(r.status, 1) << v.name << r.err;
    EXPECT_EQ(count_of(r.out, v.whole), 1u) << v.name;
    // Two long names at most (key-and-values), each once, and a bounded rest.
    EXPECT_LT(r.out.size(), 2 * kLong.size() + 64000) << v.name;
    EXPECT_NE(r.out.find("\"names\""), std::string::npos) << v.name;
  }
}

TEST(LongNames, ModelAndPageJsonStoreTheNameOnce) {
  const std::string text = lost_update(kLong, json_quote(kLong2), "\"v\"", "t1");
  const std::vector<InputFile> files{{"h.json", text}};
  Expected<History> h = read_history(files);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  ASSERT_EQ(h->keys.long_names().size(), 1u);
  ASSERT_EQ(h->values.long_names().size(), 1u);
  EXPECT_EQ(h->keys.display(h->keys.long_names()[0]), std::string(32, 'k') + "\u2026[key 1, 1048576 bytes]");
  EXPECT_EQ(h->values.display(h->values.long_names()[0]), std::string(32, 'q') + "\u2026[value 1, 1048576 bytes]");
  // A copy of the history (a counterexample, a shrinking step) shares the characters.
  const History copy = *h;
  EXPECT_EQ(&copy.keys.as_str(copy.keys.long_names()[0]), &h->keys.as_str(h->keys.long_names()[0]));
  // The page's history view names the long key and value by reference; "names" has them whole.
  const std::string txns = transactions_json(*h, 0, static_cast<uint32_t>(h->txns.size()));
  EXPECT_LT(txns.size(), 8000u);
  EXPECT_NE(txns.find("\"name\": \"key 1\""), std::string::npos) << txns;
  const std::string names = names_json(*h);
  EXPECT_EQ(count_of(names, kLong), 1u);
  EXPECT_EQ(count_of(names, kLong2), 1u);
  EXPECT_LT(names.size(), 2 * kLong.size() + 200);
}

TEST(LongNames, ShortenedKeepsCharactersWhole) {
  std::string s;
  for (int i = 0; i < 40; ++i) s += "\xc3\xa9";  // é, two bytes each
  const std::string t = shortened(s, "key 1");
  EXPECT_EQ(t.substr(0, 32), s.substr(0, 32));
  EXPECT_EQ(t.substr(32), "\u2026[key 1, 80 bytes]");
  std::string odd = "a" + s;  // a cut at 32 bytes would split an é: 31 bytes are kept
  EXPECT_EQ(shortened(odd).substr(0, 31), odd.substr(0, 31));
  EXPECT_EQ(shortened(odd).substr(31), "\u2026[81 bytes]");
  EXPECT_EQ(shortened("short"), "short");
}

// Class 12: a string prints so that it never looks like nil, null, a number or a boolean.
TEST(ValuePrinting, StringsNeverLookLikeOtherValues) {
  Interner values(true, "value");
  const std::string null_text = values.display(values.intern_null());
  const std::string seven = values.display(values.intern_int(7));
  EXPECT_EQ(null_text, "null");
  for (const char* s : {"nil", "null", "7", "-1", "", "a b", "true", "false", "1.5", "r(x, 1)", "[1 2]"}) {
    const std::string shown = values.display(values.intern_str(s));
    EXPECT_NE(shown, "nil") << s;
    EXPECT_NE(shown, null_text) << s;
    EXPECT_NE(shown, seven) << s;
    EXPECT_EQ(shown, json_quote(s)) << s;  // quoted (as JSON writes these)
  }
  for (const char* s : {"x", "acct-3", "k_1", "a.b"}) EXPECT_EQ(values.display(values.intern_str(s)), s);
  // a quote or backslash inside is escaped; "nil\u200b" (a zero-width space) is quoted too
  EXPECT_EQ(values.display(values.intern_str("a\"b\\")), "\"a\\\"b\\\\\"");
  EXPECT_EQ(values.display(values.intern_str("nil\u200b")), "\"nil\u200b\"");
}

// LIN's explanation on a register: it read the string "nil" where the register holds nil.
TEST(ValuePrinting, LinSaysStringNilIsNotNil) {
  for (const char* value : {"\"nil\"", "\"null\""}) {
    const std::string edn = std::string("[{:process 0, :type :invoke, :f :read, :value nil}\n") +
                            "{:process 0, :type :ok, :f :read, :value " + value + "}]\n";
    const std::string path = temp_file("string-nil.edn", edn);
    const CommandResult r = run_cli("check --level LIN " + shell_quote(path));
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find(std::string("read ") + value + " where"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("holds nil"), std::string::npos) << r.out;
  }
}

// Transactional explanations: a string read that no one wrote is told apart from null and nil.
TEST(ValuePrinting, TransactionalTextQuotesLookalikes) {
  for (const char* v : {"nil", "null", "7", "true", "a b"}) {
    const std::string text = std::string("{\"sessions\": [[[[\"w\", \"x\", 7]]], [[[\"r\", \"x\", ") + json_quote(v) + "]]]]}";
    const std::string path = temp_file("lookalike.json", text);
    const CommandResult r = run_cli("check --level RC " + shell_quote(path));
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("reads r(x, " + json_quote(v) + ")"), std::string::npos) << r.out;
  }
}

}  // namespace
