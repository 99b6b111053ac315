// What the `isoscope` command's files share (main.cpp dispatches to one file per command:
// check_command.cpp, convert_command.cpp, generate_command.cpp, listing_commands.cpp;
// run_command.cpp for `isoscope run`): the usage text, messages, reading PATH|- and writing OUT|-.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "formats/formats.h"
#include "model/errors.h"
#include "util/text_out.h"

namespace isoscope::cli {

extern const char* kUsage;

// Every message to standard error goes through here: it quotes paths, keys and ids from the
// input, which are printed without the control bytes a terminal would act on.
void complain(const std::string& msg);
// An input error for the terminal; when no format was recognised, how to choose one.
void print_input_error(const InputError& e);
// A usage error: the message, the usage text, exit status 2.
int usage_error(const std::string& msg);
// Text for people on standard output (the check report): printable, lines kept.
void print_text(const std::string& text);

// The bytes of every file of an input; InputFile views point into `storage`.
struct LoadedInput {
  std::vector<std::string> storage;
  std::vector<InputFile> files;
};

// Plain input larger than max_bytes is refused (--max-input-bytes raises it; by default
// kMaxInputBytes): a stream without end, such as an endless pipe, must not grow until the
// machine runs out of memory.
inline constexpr uint64_t kMaxInputBytes = uint64_t{4} << 30;
// Reads PATH (a file, a directory, an archive) or - (stdin) into input; false with error set.
bool load_input(const std::string& path, uint64_t max_bytes, LoadedInput& input, std::string& error);

// A finite non-negative number (no inf, nan or trailing characters).
bool parse_count(const char* s, double& out);
// A whole number from 0 to max.
bool parse_whole(const char* s, double max, double& out);
// An option's value: a finite number from lo to hi (parse_whole_in: a whole one); false for
// anything else, a missing value (nullptr) included.
bool parse_in(const char* s, double lo, double hi, double& out);
bool parse_whole_in(const char* s, double lo, double hi, double& out);
// Peak resident set size of this program. VmHWM, unlike getrusage's ru_maxrss, starts afresh
// at exec, so a parent's memory (a benchmark driver that forked us) is not counted.
long long peak_rss_bytes();
// Writes OUT (a path, or - for stdout) through fill, which streams into a TextOut; a format that
// cannot express the history (fill's error) or a failed write is an input error.
int write_output(const std::string& path, const std::function<std::optional<InputError>(TextOut&)>& fill);

// The commands: argc and argv after the command's name; each returns the exit status.
int run_check(int argc, char** argv);
int run_convert(int argc, char** argv);
int run_generate(int argc, char** argv);
int run_anomalies(int argc, char** argv);
int run_levels(int argc, char** argv);
int run_formats(int argc, char** argv);

}  // namespace isoscope::cli
