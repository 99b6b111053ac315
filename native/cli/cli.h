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

// Every message to standard error goes through here (printable: no control bytes).
void complain(const std::string& msg);
void print_input_error(const InputError& e);
// A usage error: the message, the usage text, exit status 2.
int usage_error(const std::string& msg);
void print_text(const std::string& text);

// The bytes of every file of an input; InputFile views point into `storage`.
struct LoadedInput {
  std::vector<std::string> storage;
  std::vector<InputFile> files;
};

// Plain input larger than this is refused (--max-input-bytes raises it).
extern uint64_t g_max_input_bytes;
// Reads PATH (a file, a directory, an archive) or - (stdin) into input; false with error set.
bool load_input(const std::string& path, LoadedInput& input, std::string& error);

// A count option's value (an integer or a float such as 1e6); false when it is not one.
bool parse_count(const char* s, double& out);
// A whole number in [0, max]; false otherwise.
bool parse_whole(const char* s, double max, double& out);
// Peak resident set size of this program (VmHWM).
long long peak_rss_bytes();
// Writes OUT (a path, or - for stdout) through fill; a format that cannot express the history or
// a failed write is an input error (exit status 2).
int write_output(const std::string& path, const std::function<std::optional<InputError>(TextOut&)>& fill);

// The commands: argc and argv after the command's name; each returns the exit status.
int run_check(int argc, char** argv);
int run_convert(int argc, char** argv);
int run_generate(int argc, char** argv);
int run_anomalies(int argc, char** argv);
int run_levels(int argc, char** argv);
int run_formats(int argc, char** argv);

}  // namespace isoscope::cli
