// List-append histories (Elle): every read of a list observes a prefix of the key's one true
// append order, so any two reads of the same key must be prefix-compatible. A pair that is not
// (neither list is a prefix of the other) is an "IncompatibleOrder" anomaly: no order of the
// appends explains both reads. Elle reports it as :incompatible-order; it fails every level.
#pragma once
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// One anomaly per key whose committed list reads are not pairwise prefix-compatible; it names
// the longest read of the key and the first read that is not its prefix. Also reports a list
// that holds the same element twice ("DuplicateElements"). Empty for histories without lists.
std::vector<Anomaly> check_list_prefixes(const History& h);

}  // namespace isoscope
