#include "model/levels.h"

#include <algorithm>
#include <cctype>

namespace isoscope {

namespace {

constexpr const char* kLevelNames[kNumLevels] = {"RC",  "RR",   "RA",  "CC",  "PC", "SI",
                                                 "SER", "SSER", "WCC", "CCv", "CM", "LIN"};

// The transactional chain, weakest first: SSER => SER => SI => PC => CC => RA => RR => RC.
int chain_rank(Level l) {
  switch (l) {
    case Level::RC: return 0;
    case Level::RR: return 1;
    case Level::RA: return 2;
    case Level::CC: return 3;
    case Level::PC: return 4;
    case Level::SI: return 5;
    case Level::SER: return 6;
    case Level::SSER: return 7;
    default: return -1;
  }
}

}  // namespace

const char* level_name(Level l) { return kLevelNames[static_cast<int>(l)]; }

bool parse_level(std::string_view name, Level& out) {
  for (int i = 0; i < kNumLevels; ++i) {
    std::string_view n = kLevelNames[i];
    if (n.size() != name.size()) continue;
    bool same = true;
    for (size_t j = 0; j < n.size() && same; ++j)
      same = std::toupper(static_cast<unsigned char>(n[j])) ==
             std::toupper(static_cast<unsigned char>(name[j]));
    if (same) {
      out = static_cast<Level>(i);
      return true;
    }
  }
  return false;
}

std::string unknown_level_message(std::string_view name) {
  std::string known;
  for (int i = 0; i < kNumLevels; ++i) known += std::string(i ? ", " : "") + kLevelNames[i];
  return (name.empty() ? std::string("an empty level name") : "unknown level '" + std::string(name) + "'") +
         "; the levels are " + known;
}

std::string parse_level_list(std::string_view csv, std::vector<Level>& out) {
  out.clear();
  size_t begin = 0;
  while (begin <= csv.size()) {
    const size_t comma = std::min(csv.find(',', begin), csv.size());
    const std::string_view item = csv.substr(begin, comma - begin);
    Level l;
    if (!parse_level(item, l)) return unknown_level_message(item);
    out.push_back(l);
    begin = comma + 1;
  }
  return {};
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::Unknown: return "unknown";
    case Verdict::NotApplicable: return "n/a";
  }
  return "unknown";
}

bool is_transactional(Level l) { return chain_rank(l) >= 0; }

bool is_causal_model(Level l) { return l == Level::WCC || l == Level::CCv || l == Level::CM; }

namespace {

struct LevelText {
  const char* title;
  const char* summary;
};
// In the enum's order.
constexpr LevelText kLevelTexts[kNumLevels] = {
    {"Read committed", "Reads return committed data only, and never go back to older data within one transaction."},
    {"Repeatable read", "Reading a key twice in one transaction (before writing it) returns the same writer’s value."},
    {"Read atomic", "A transaction sees all of another transaction’s writes or none of them (no fractured reads)."},
    {"Causal consistency", "A transaction sees everything that causally precedes what it sees, in every session."},
    {"Prefix consistency", "Every transaction observes a prefix of one global commit order."},
    {"Snapshot isolation",
     "Each transaction reads one consistent snapshot, and no two concurrent transactions both write the same key."},
    {"Serializability", "The outcome equals some one-at-a-time execution of the committed transactions."},
    {"Strict serializability",
     "Serializable in an order that also respects real time: a transaction that finished before another started "
     "comes first."},
    {"Weak causal consistency",
     "Single-operation model: each read is consistent with the causal order of writes it can see."},
    {"Causal convergence", "Weak causal consistency plus one arbitration order on which all replicas converge."},
    {"Causal memory", "Weak causal consistency where each session’s reads respect its own causal past."},
    {"Linearizability",
     "Every operation takes effect atomically at one instant between its invocation and its completion."},
};

}  // namespace

const char* level_title(Level l) { return kLevelTexts[static_cast<int>(l)].title; }
const char* level_summary(Level l) { return kLevelTexts[static_cast<int>(l)].summary; }

bool is_strong(Level l) { return chain_rank(l) >= chain_rank(Level::PC); }

bool is_weaker(Level weaker, Level stronger) {
  int a = chain_rank(weaker), b = chain_rank(stronger);
  if (a >= 0 && b >= 0) return a < b;
  // Non-transactional causal models: CCv and CM both strengthen WCC.
  return weaker == Level::WCC && (stronger == Level::CCv || stronger == Level::CM);
}

}  // namespace isoscope
