// Predicates of predicate reads (docs/formats.md, "Rows that come and go"): a small language
// over a row (key, value), parsed once per distinct text and interned in a PredicateTable.
//
//   predicate := "true" | condition ("and" condition)*
//   condition := field op literal                       value >= 10, key = 'a'
//              | field "%" integer ("=" | "!=") integer value % 3 = 0
//              | field "in" "(" literal ("," literal)* ")"
//              | field "between" literal "and" literal  (both ends included)
//   field     := "key" | "value"      op := = != <> < <= > >=
//   literal   := an integer, or a string in single or double quotes
//
// A row is a key whose value is not null: null is absence, and an absent key matches no
// predicate. Integers compare as numbers and strings as bytes; an integer and a string are never
// equal and never ordered (so `value < 3` does not match "a", and `value != 3` does). `%` is the
// remainder with the dividend's sign (C, SQL), defined for integers only.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/interner.h"

namespace isoscope {

struct Literal {
  bool is_int = true;
  int64_t i = 0;
  std::string s;
};

struct Condition {
  enum class Op : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, ModEq, ModNe, In, Between } op = Op::Eq;
  bool on_key = false;          // the key, else the value
  std::vector<Literal> args;    // Eq..Ge: one; ModEq/ModNe: divisor, remainder; In: the set;
                                // Between: low, high
};

struct Predicate {
  std::vector<Condition> all;  // a conjunction; empty: true
  std::string text;            // canonical: "value % 3 = 0 and key in (1, 2)"
};

// The predicate written in `text`, or the reason it is not one ("expected ... at column N").
struct ParsedPredicate {
  Predicate predicate;
  std::string error;  // empty when parsed
};
ParsedPredicate parse_predicate(std::string_view text);

// Whether the row (key, value) matches p; false when value is null (absent).
bool predicate_matches(const Predicate& p, const Interner& keys, uint32_t key, const Interner& values, uint32_t value);

// The distinct predicates of a history, by canonical text.
class PredicateTable {
 public:
  uint32_t add(Predicate p) {
    for (uint32_t i = 0; i < list_.size(); ++i)
      if (list_[i].text == p.text) return i;
    list_.push_back(std::move(p));
    return static_cast<uint32_t>(list_.size() - 1);
  }
  const Predicate& operator[](uint32_t i) const { return list_[i]; }
  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }

 private:
  std::vector<Predicate> list_;
};

}  // namespace isoscope
