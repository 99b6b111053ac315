// Sets of histories. dbcop and PolySI write one folder per run (hist-00000/, hist-00001/, ...),
// Jepsen a folder per test, Cobra a folder of logs per run; people drop two EDN files at once.
// Such an input is several histories, each checked on its own, never one history stitched from
// all of them. The command line (`isoscope check DIR`) and the wasm API both split inputs here.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/formats.h"

namespace isoscope {

// One history of a set: its name (the folder or file that holds it) and its files, as indices
// into the input's files.
struct HistoryPart {
  std::string name;
  std::vector<uint32_t> files;
};

// The histories that files hold when they hold two or more of one format, sorted by name; empty
// when they hold one history (or none that is recognised, or histories of different formats:
// read_history explains those). A history of a folder format (Cobra logs, a dbcop
// history.bincode) is the folder that holds it, with every file in that folder; a history of a
// file format (EDN, JSON, plume, ...) is its file. Files that hold no history (a README,
// Jepsen's results.edn) belong to no part.
std::vector<HistoryPart> split_histories(std::span<const InputFile> files);

}  // namespace isoscope
