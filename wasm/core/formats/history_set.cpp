#include "formats/history_set.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace isoscope {

namespace {

std::string_view dir_name(std::string_view path) {
  const size_t cut = path.find_last_of("/\\");
  return cut == std::string_view::npos ? std::string_view() : path.substr(0, cut);
}

// The format one file is recognised as, on its own; nullptr for none.
const FormatInfo* detect_file(const InputFile& f) {
  for (const FormatInfo& k : all_formats())
    if (k.detect(std::span<const InputFile>(&f, 1))) return &k;
  return nullptr;
}

// Formats whose history is a folder of files rather than one file.
bool folder_format(const FormatInfo* f) {
  const std::string_view n = f->name;
  return n == "cobra" || n == "dbcop-bincode";
}

}  // namespace

std::vector<HistoryPart> split_histories(std::span<const InputFile> files) {
  if (files.size() < 2) return {};
  struct Unit {
    const FormatInfo* format;
    bool folder;
    std::vector<uint32_t> files;
  };
  std::map<std::string, Unit> units;  // by name: sorted
  const FormatInfo* format = nullptr;
  for (uint32_t i = 0; i < files.size(); ++i) {
    const FormatInfo* f = detect_file(files[i]);
    if (!f) continue;
    if (format && f != format) return {};  // mixed formats: read_history names each
    format = f;
    const bool folder = folder_format(f);
    const std::string name(folder ? dir_name(files[i].name) : std::string_view(files[i].name));
    Unit& u = units[name];
    u.format = f;
    u.folder = folder;
    if (!folder) u.files.push_back(i);
  }
  if (units.size() < 2) return {};
  // a folder history takes every file of its folder (the reader decides what to use)
  for (uint32_t i = 0; i < files.size(); ++i) {
    auto it = units.find(std::string(dir_name(files[i].name)));
    if (it != units.end() && it->second.folder) it->second.files.push_back(i);
  }
  // one history file per folder (Jepsen's store/TEST/TIME/history.edn): named by its folder
  std::map<std::string, Unit> by_folder;
  for (auto& [name, u] : units)
    if (!u.folder && !dir_name(name).empty()) by_folder.emplace(std::string(dir_name(name)), u);
  if (by_folder.size() == units.size()) units = std::move(by_folder);
  // named relative to the folder that holds them all ("hist-00000", not "runs/hist-00000")
  std::string_view common = units.begin()->first;
  for (const auto& [name, u] : units) {
    size_t n = 0;
    while (n < common.size() && n < name.size() && common[n] == name[n]) ++n;
    common = common.substr(0, n);
  }
  const size_t cut = common.find_last_of("/\\");
  const size_t strip = cut == std::string_view::npos ? 0 : cut + 1;
  std::vector<HistoryPart> parts;
  for (auto& [name, u] : units) {
    std::string shown = name.substr(std::min(strip, name.size()));
    parts.push_back({shown.empty() ? (name.empty() ? std::string(".") : name) : shown, std::move(u.files)});
  }
  return parts;
}

}  // namespace isoscope
