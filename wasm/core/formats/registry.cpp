// The table of formats, in auto-detection order (most specific first), and read_history().
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "formats/archive.h"
#include "formats/formats.h"
#include "formats/not_history.h"
#include "formats/reader_util.h"
#include "util/memory.h"

namespace isoscope {

namespace {
const FormatInfo kFormats[] = {
    {"isoscope", "isoscope JSON (the canonical format)", 8, detect_isoscope_json, read_isoscope_json},
    // Importers. Binary and directory formats first (decided by file names and magic
    // bytes), then JSON shapes, then the line-based text formats, which tell each other apart by
    // their first lines: "r(1,2,3,4)" plume, "r 1 2" awdit-test, "[x:=1]" dbcop-text.
    {"cobra", "Cobra logs (.log files, one per client)", 4, detect_cobra, read_cobra},
    {"dbcop-bincode", "dbcop history (bincode binary)", 4, detect_dbcop_bincode, read_dbcop_bincode},
    {"dbcop-json", "dbcop history (JSON)", 8, detect_dbcop_json, read_dbcop_json},
    // Jepsen's object histories (:f :read/:write/:cas, ...) before Elle's transactional ones.
    {"jepsen", "Jepsen / Knossos / Porcupine object history (register, cas, key-value; EDN or JSON)", 12, detect_jepsen, read_jepsen},
    {"elle", "Elle / Jepsen history (EDN)", 10, detect_elle, read_elle},
    {"jepsen-log", "Jepsen log lines (jepsen.util - process :type :f value; Porcupine's etcd logs)", 12, detect_jepsen_log, read_jepsen_log},
        {"plume", "Plume / PolySI text (r(k,v,s,t) lines)", 3, detect_plume, read_plume, plume_memory_estimate},
    // awdit-test reserves 3.5 bytes of History per input byte before it reads a line (in wasm
    // a reservation takes heap, touched or not): 5 covers that, the input and the interners.
    {"awdit-test", "AWDIT test text", 5, detect_awdit_test, read_awdit_test},
    {"dbcop-text", "dbcop text ([x:=1] transactions)", 4, detect_dbcop_text, read_dbcop_text},
};
}  // namespace

std::span<const FormatInfo> all_formats() { return kFormats; }

const FormatInfo* find_format(std::string_view name) {
  for (const FormatInfo& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

namespace {

// The error when reading files as format f would take more memory than there is (FormatInfo::
// load_factor): in wasm a failed allocation would abort the module.
std::optional<InputError> memory_refusal(const FormatInfo& f, std::span<const InputFile> files) {
  uint64_t bytes = 0;
  for (const InputFile& file : files) bytes += file.bytes.size();
  const uint64_t need = f.memory_estimate ? f.memory_estimate(files) : bytes * f.load_factor;
  if (need <= SIZE_MAX && can_allocate(static_cast<size_t>(need))) return std::nullopt;
  InputError e;
  e.file = files.size() == 1 ? files[0].name : std::string();
  e.message = "reading this " + std::string(f.name) + " input (" + std::to_string(bytes >> 20) + " MB) needs about " +
              std::to_string(need >> 20) + " MB of memory, more than is available (a browser tab has 4 GB in all; "
              "the command line has the machine's)";
  return e;
}

// A duplicate write found by the builder names its two operations by session and position;
// the input is read once more (only on this error) with a locator, so the message also gives
// the line (the byte, in binary formats) of each.
InputError locate_duplicate(const FormatInfo& f, std::span<const InputFile> files, InputError e) {
  if (files.size() != 1) return e;
  OpLocator locator{{static_cast<uint32_t>(e.duplicate_ops[0]), static_cast<uint32_t>(e.duplicate_ops[1])}};
  (void)f.read(files, &locator);
  if (locator.offset[0] < 0 || locator.offset[1] < 0) return e;
  const bool binary = std::string_view(f.name) == "cobra" || std::string_view(f.name) == "dbcop-bincode";
  e.file = files[0].name;
  InputError first;
  first.offset = locator.offset[0];
  e.offset = locator.offset[1];
  if (binary) {
    e.message += " (the first write at byte " + std::to_string(first.offset) + ")";
  } else {
    locate_line(files[0].bytes, first);
    locate_line(files[0].bytes, e);
    e.message += " (the first write at line " + std::to_string(first.line) + ")";
  }
  return e;
}

// Reads files as format f after the memory check. Every reader run goes through here, the
// diagnosis of an unrecognised input's included.
Expected<History> read_within_memory(const FormatInfo& f, std::span<const InputFile> files) {
  if (std::optional<InputError> e = memory_refusal(f, files)) return std::move(*e);
  Expected<History> h = f.read(files, nullptr);
  if (!h && h.error().duplicate_ops[0] >= 0) return locate_duplicate(f, files, h.error());
  // One rule for every format: a history without transactions is an error, not a pass. An
  // empty recording almost always means the run or its export failed, and a "pass" on nothing
  // would hide that; several readers refused it already, in their own words.
  // The exception is the spec's own: an object history (Jepsen registers) with no client
  // operation, only nemesis records, passes LIN.
  if (h && h->num_txns() == 0 && h->registers.empty()) {
    std::string message = "the history holds no transactions: expected at least one";
    if (h->dropped_events > 0)
      message += " (" + std::to_string(h->dropped_events) + " events were read and left out: " + h->dropped[0].reason + ")";
    if (files.size() != 1) return input_error(message);
    const bool binary = std::string_view(f.name) == "cobra" || std::string_view(f.name) == "dbcop-bincode";
    return binary ? input_error(message, files[0].name) : fmt::text_error(files[0], files[0].bytes.size(), message);
  }
  return h;
}

// The format the files' layout names, whatever their content: *.log files are Cobra's (one log
// per client), when there are several or the one is binary (a NUL byte in its first 4 KB: no
// text history holds one). A dbcop folder's history.bincode is detected by name already.
const FormatInfo* layout_format(std::span<const InputFile> files) {
  for (const InputFile& f : files)
    if (f.name_ends_with(".log") &&
        (files.size() > 1 || f.bytes.substr(0, 4096).find('\0') != std::string_view::npos))
      return find_format("cobra");
  return nullptr;
}

// No detector recognised the input. When the layout names a format, its reader's error is the
// answer (it names the file). Otherwise every reader tries it, each after the memory estimate,
// and the error of the one that got furthest (by line, then byte: a binary reader's garbage
// numbers reach far in any text, so a text reader's line wins) is reported with its location,
// followed by the others' reasons, so a valid file with one bad number says where, not just
// "unrecognised". A reader that succeeds is named but not used: detection decides, or the
// user's choice of format does.
InputError explain_unrecognised(std::span<const InputFile> files) {
  if (const FormatInfo* layout = layout_format(files)) {
    Expected<History> h = read_within_memory(*layout, files);
    if (!h.ok()) {
      InputError e = h.error();
      if (e.file.empty()) e.file = files[0].name;
      e.message = std::string("could not recognise the format; .log files are ") + layout->title +
                  ", and reading them so failed: " + e.message;
      e.format_unrecognised = true;
      return e;
    }
  }
  struct Attempt {
    const FormatInfo* format;
    InputError error;
    bool ok = false;
  };
  std::vector<Attempt> attempts;
  size_t refused = 0;
  for (const FormatInfo& f : kFormats) {
    if (std::optional<InputError> e = memory_refusal(f, files)) {
      attempts.push_back({&f, std::move(*e), false});
      ++refused;
      continue;
    }
    Expected<History> h = f.read(files, nullptr);
    attempts.push_back({&f, h.ok() ? InputError{} : h.error(), h.ok()});
  }
  if (refused == attempts.size()) {
    uint64_t bytes = 0;
    for (const InputFile& file : files) bytes += file.bytes.size();
    const FormatInfo* lightest = kFormats;
    for (const FormatInfo& f : kFormats)
      if (f.load_factor < lightest->load_factor) lightest = &f;
    InputError e = input_error(
        "could not recognise the format, and no reader can try this " + std::to_string(bytes >> 20) +
            " MB input in the memory available (the lightest, " + lightest->name + ", needs about " +
            std::to_string((bytes * lightest->load_factor) >> 20) + " MB; a browser tab has 4 GB in all)",
        files[0].name);
    e.format_unrecognised = true;
    return e;
  }
  auto reach = [](const InputError& e) {
    return std::pair<int64_t, int64_t>(e.line, e.offset);
  };
  const Attempt* best = &attempts[0];
  for (const Attempt& a : attempts) {
    if (a.ok) {
      InputError e;
      e.file = files[0].name;
      e.message = std::string("could not recognise the format, but it reads as ") + a.format->name;
      e.format_unrecognised = true;
      e.readable_as = a.format->name;
      return e;
    }
    if (reach(a.error) > reach(best->error)) best = &a;
  }
  InputError e = best->error;
  if (e.file.empty()) e.file = files[0].name;
  e.message = std::string("could not recognise the format; read as ") + best->format->name +
              " (the reader that got furthest), " + e.message + ". The other readers: ";
  bool first = true;
  for (const Attempt& a : attempts) {
    if (&a == best) continue;
    std::string why = a.error.message;
    if (why.size() > 90) why = why.substr(0, 87) + "...";
    e.message += (first ? "" : "; ") + std::string(a.format->name) + ": " + why;
    first = false;
  }
  e.format_unrecognised = true;
  return e;
}


// The format a single file is recognised as, or nullptr.
const FormatInfo* detect_one(const InputFile& f) {
  for (const FormatInfo& k : kFormats)
    if (k.detect(std::span<const InputFile>(&f, 1))) return &k;
  return nullptr;
}

// Several files hold one history (a folder of Cobra logs, a dbcop history folder). When they
// are recognised as histories of different formats, reading one kind and ignoring the others
// would drop data silently: say which file is in which format instead.
std::optional<InputError> mixed_formats(std::span<const InputFile> files) {
  std::vector<std::pair<const FormatInfo*, std::vector<std::string_view>>> seen;
  for (const InputFile& f : files) {
    const FormatInfo* k = detect_one(f);
    if (!k) continue;  // not a history (a README, a configuration file): the reader decides
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == k; });
    if (it == seen.end()) seen.push_back({k, {f.name}});
    else it->second.push_back(f.name);
  }
  if (seen.size() < 2) return std::nullopt;
  InputError e;
  e.message = "these files hold histories of different formats: ";
  for (size_t i = 0; i < seen.size(); ++i) {
    const auto& [k, names] = seen[i];
    e.message += (i ? "; " : "") + std::string(names[0]) +
                 (names.size() > 1 ? " and " + std::to_string(names.size() - 1) + " more" : std::string()) + " " +
                 (names.size() > 1 ? "are " : "is ") + k->name;
  }
  e.message += ". Check one history at a time";
  return e;
}

Expected<History> read_expanded(std::span<const InputFile> files, std::string_view format) {
  InputError e;
  if (files.empty()) {
    e.message = "no input files (an empty directory?)";
    return e;
  }
  if (!format.empty()) {
    const FormatInfo* f = find_format(format);
    if (!f) {
      e.message = "unknown format '" + std::string(format) + "'; known formats:";
      for (const FormatInfo& k : kFormats) e.message += std::string(" ") + k.name;
      return e;
    }
    return read_within_memory(*f, files);
  }
  if (files.size() > 1)
    if (std::optional<InputError> mixed = mixed_formats(files)) return std::move(*mixed);
  for (const FormatInfo& f : kFormats)
    if (f.detect(files)) return read_within_memory(f, files);
  // Archives are expanded one level deep, so one inside another arrives here unread: named as
  // such, with no place inside its compressed bytes and no other format to try.
  for (const InputFile& f : files)
    if (archive_kind(f.bytes) != ArchiveKind::None)
      return input_error("an archive inside an archive is not read (only one level is expanded): "
                         "expected the history files themselves; unpack it first", f.name);
  e.file = files[0].name;
  bool empty = true, blank = true;
  for (const InputFile& f : files) {
    empty = empty && f.bytes.empty();
    for (size_t i = fmt::bom_length(f.bytes); i < f.bytes.size() && blank; ++i) blank = fmt::is_space(f.bytes[i]);
  }
  if (empty || blank) {
    e.message = empty ? "the input is empty: expected a history" : "the input holds only white space: expected a history";
  } else {
    e = explain_unrecognised(files);
    if (std::optional<std::string> what = not_a_history(files)) {  // formats/not_history.h
      e.message = *what + ". What each reader found: " + e.message;
      e.line = e.column = e.offset = -1;
      e.file = files.size() == 1 ? files[0].name : std::string();
      e.format_unrecognised = false;  // no format reads an image
      e.readable_as.clear();
    }
  }
  return e;
}
}  // namespace

std::optional<InputError> unique_values_error(const History& h, std::span<const InputFile> files) {
  std::optional<InputError> e = repeated_write_error(h, files.size() == 1 ? files[0].name : std::string());
  if (!e) return e;
  if (const FormatInfo* f = find_format(h.format)) return locate_duplicate(*f, files, std::move(*e));
  return e;
}

std::optional<InputError> apply_input_options(History& h, std::span<const InputFile> files, const InputOptions& o) {
  if (o.unique_values && h.registers.empty())
    if (std::optional<InputError> e = unique_values_error(h, files)) return e;
  if (o.initial) return set_initial_value(h, *o.initial, files);
  return std::nullopt;
}

std::optional<InputError> set_initial_value(History& h, std::string_view value, std::span<const InputFile> files) {
  const std::string file = files.size() == 1 ? files[0].name : std::string();
  if (h.registers.empty())
    return fmt::input_error(file, "--initial gives the objects of a register, key-value or multi-register history "
                                  "(Jepsen, Knossos, Porcupine) their first value; this is a " + h.format +
                                  " history of transactions, whose format says what its keys start with");
  if (h.registers.model == ObjectModel::Mutex)
    return fmt::input_error(file, "--initial does not apply to a mutex history: a mutex starts free");
  if (value.empty()) return fmt::input_error(file, "--initial needs a value: an integer, nil or a string");
  int64_t n;
  const char* p = value.data();
  if (value == "nil") h.registers.initial = h.initial ? *h.initial : h.values.intern_null();
  else if (fmt::parse_i64(p, value.data() + value.size(), n) && p == value.data() + value.size())
    h.registers.initial = h.values.intern_int(n);
  else
    h.registers.initial = h.values.intern_str(value.front() == ':' ? value.substr(1) : value);
  return std::nullopt;
}

// Archives (zip, gzip) are expanded here, the one place every front end passes through; the
// expanded bytes live only for this call, since a History owns all its data.
Expected<History> read_history(std::span<const InputFile> files, std::string_view format,
                               uint64_t max_expanded_bytes) {
  // A folder's dot files and __MACOSX (skipped_in_folder) are no part of its history, whichever
  // front end listed them: a lone h.json beside .DS_Store is one JSON file.
  std::vector<InputFile> kept;
  if (files.size() > 1 &&
      std::any_of(files.begin(), files.end(), [](const InputFile& f) { return skipped_in_folder(f.base_name()); })) {
    for (const InputFile& f : files)
      if (!skipped_in_folder(f.base_name())) kept.push_back(f);
    if (kept.empty()) return fmt::input_error(files[0].name, "the folder holds only hidden files (names starting with '.'): expected a history");
    files = kept;
  }
  // A format the user named wins over a tar header: the reader decides what the bytes are.
  const bool tar_is_data = !format.empty();
  bool any_archive = false;
  for (const InputFile& f : files) {
    const ArchiveKind k = archive_kind(f.bytes);
    any_archive = any_archive || (k != ArchiveKind::None && !(k == ArchiveKind::Tar && tar_is_data));
  }
  if (!any_archive) return read_expanded(files, format);
  ExpandedInput expanded;
  ArchiveLimits limits;
  limits.tar_passes_through = tar_is_data;
  if (max_expanded_bytes > 0) limits.max_total_bytes = max_expanded_bytes;
  if (std::optional<InputError> err = expand_archives(files, expanded, limits)) return std::move(*err);
  return read_expanded(expanded.files, format);
}

}  // namespace isoscope
