// One classification of a dependency cycle by its edges, with the common names as refinements.
// The strong checkers and the mini-transaction checkers name their cycles here; the weak
// checkers name theirs by the axiom that produced the inferred edge (read committed: a
// non-monotonic read; read atomic: a fractured read or a session guarantee; causal: a causality
// violation), which is the same refinement seen from the axiom.
#pragma once
#include <cstddef>
#include <vector>

#include "checkers/result.h"
#include "model/anomaly_kinds.h"

namespace isoscope {

// Edges of the cycle in order (each one's target is the next one's source).
AnomalyKind classify_cycle(const History& h, const std::vector<AnomalyEdge>& cycle);

// The kinds a failing level found: counts per kind (from every anomaly the checker returned),
// most specific kind first, each with its smallest example; reorders r.anomalies so that those
// examples come first (truncation keeps them). `exhaustive`: the checker lists every anomaly it
// finds (otherwise the counts are lower bounds).
void summarize_kinds(LevelResult& r, bool exhaustive);

// Every lost update of the history: two committed transactions that read one version of a key
// and both write that key (snapshot isolation forbids it whatever else happened). Registers only
// (list-append histories: none). `total` is how many there are; at most `max` are built.
std::vector<Anomaly> lost_updates(const History& h, size_t max, size_t& total);

// The report's naming rules over all its levels (check_history's last step):
//   - a failing level whose level forbids lost updates (SI and above) names every lost update;
//   - an anomaly of a failing level is never of a kind that a passing level forbids: such a
//     name comes from a search's particular choices (a cycle that a weaker level's search
//     avoided), and the anomaly is renamed to what the failing level adds over the passing
//     ones (SER over SI: a write skew, or G2 beyond two transactions).
void name_anomalies(const History& h, CheckReport& report, size_t max_anomalies);
// The same for one level, against the levels decided so far (decide_level applies it at once,
// so a level checked alone, as the web app does, names its lost updates too).
void name_level(const History& h, CheckReport& report, Level level, size_t max_anomalies);

}  // namespace isoscope
