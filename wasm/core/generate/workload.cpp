#include "generate/workload.h"

#include <cstdio>
#include <string>

namespace isoscope {

bool parse_workload_mix(std::string_view text, WorkloadMix& out) {
  if (text == "cobra") {
    out = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    return true;
  }
  if (text == "polysi" || text == "random") {
    out = {};
    return true;
  }
  double f[3] = {0, 0, 0};
  char tail = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%lf,%lf,%lf%c", &f[0], &f[1], &f[2], &tail) != 3) return false;
  if (!(f[0] >= 0 && f[1] >= 0 && f[2] >= 0 && f[0] + f[1] + f[2] <= 1 + 1e-9)) return false;
  out = {f[0], f[1], f[2]};
  return true;
}

const char* workload_name(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::Registers: return "registers";
    case WorkloadKind::ListAppend: return "list-append";
    case WorkloadKind::MiniTxn: return "mini-transactions";
    case WorkloadKind::Lightweight: return "lightweight-transactions";
  }
  return "?";
}

void WorkloadPlanner::plan(Rng& rng, TxnProgram& out) const {
  out.clear();
  switch (p_.kind) {
    case WorkloadKind::Registers: plan_registers(rng, out, false); break;
    case WorkloadKind::ListAppend: plan_registers(rng, out, true); break;
    case WorkloadKind::MiniTxn: plan_mini(rng, out); break;
    case WorkloadKind::Lightweight:
      out.push_back({StepKind::Read, keys_.pick(rng)});
      if (!rng.chance(p_.read_ratio)) out.back().kind = StepKind::CompareAndSet;
      break;
  }
}

void WorkloadPlanner::plan_registers(Rng& rng, TxnProgram& out, bool lists) const {
  const StepKind read = lists ? StepKind::ReadList : StepKind::Read;
  const StepKind write = lists ? StepKind::Append : StepKind::Write;
  const uint32_t n = p_.min_ops + rng.below(p_.max_ops - p_.min_ops + 1);
  const double u = rng.uniform();
  const WorkloadMix& m = p_.mix;
  if (u < m.read_only) {
    for (uint32_t i = 0; i < n; ++i) out.push_back({read, keys_.pick(rng)});
  } else if (u < m.read_only + m.write_only) {
    for (uint32_t i = 0; i < n; ++i) out.push_back({write, keys_.pick(rng)});
  } else if (u < m.read_only + m.write_only + m.read_modify_write) {
    for (uint32_t i = 0; i < n; i += 2) {
      const uint32_t k = keys_.pick(rng);
      out.push_back({read, k});
      if (i + 1 < n) out.push_back({write, k});
    }
  } else {
    for (uint32_t i = 0; i < n; ++i) out.push_back({rng.chance(p_.read_ratio) ? read : write, keys_.pick(rng)});
  }
}

void WorkloadPlanner::plan_mini(Rng& rng, TxnProgram& out) const {
  // The templates of the header comment, over key slots x (0) and y (1).
  struct Step {
    bool write;
    uint8_t slot;
  };
  static const std::vector<Step> kTemplates[6] = {
      {{false, 0}},
      {{false, 0}, {false, 1}},
      {{false, 0}, {true, 0}},
      {{false, 0}, {false, 1}, {true, 0}},
      {{false, 0}, {false, 1}, {true, 0}, {true, 1}},
      {{false, 0}, {true, 0}, {false, 1}, {true, 1}},
  };
  const bool two = keys_.size() >= 2 && rng.chance(p_.two_key_ratio);
  int t;
  if (rng.chance(p_.read_only_ratio))
    t = two ? 1 : 0;
  else
    t = two ? 3 + static_cast<int>(rng.below(3)) : 2;
  uint32_t key[2];
  key[0] = keys_.pick(rng);
  key[1] = two ? keys_.pick_other(rng, key[0]) : key[0];
  for (const Step& s : kTemplates[t]) out.push_back({s.write ? StepKind::Write : StepKind::Read, key[s.slot]});
}

}  // namespace isoscope
