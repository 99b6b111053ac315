// The `isoscope` command (docs/cli.md): a thin layer over the core library.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <string>

#include "cli/cli.h"
#include "cli/exit_status.h"

using namespace isoscope;
using namespace isoscope::cli;

// `isoscope run` (run_command.cpp) and `isoscope hermitage` (hermitage_command.cpp).
int run_database_command(int argc, char** argv, long long (*peak_rss)());
int run_hermitage_command(int argc, char** argv);

int run(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return kExitPass;
  }
  if (cmd == "--version" || cmd == "version") {
    std::printf("isoscope %s\n", ISOSCOPE_VERSION);
    return kExitPass;
  }
  if (cmd == "run") return run_database_command(argc - 2, argv + 2, peak_rss_bytes);  // its own --help
  if (cmd == "hermitage") return run_hermitage_command(argc - 2, argv + 2);         // its own --help
  // --help anywhere after a command: that command's usage (the one usage text), exit 0.
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);
      return kExitPass;
    }
  if (cmd == "check") return run_check(argc - 2, argv + 2);
  if (cmd == "convert") return run_convert(argc - 2, argv + 2);
  if (cmd == "generate") return run_generate(argc - 2, argv + 2);
  if (cmd == "anomalies") return run_anomalies(argc - 2, argv + 2);
  if (cmd == "formats") return run_formats(argc - 2, argv + 2);
  if (cmd == "levels") return run_levels(argc - 2, argv + 2);
  return usage_error("unknown command '" + cmd + "'");
}

// Nothing escapes as an abort: memory exhaustion and file-system failures end with a message
// and the input-error status.
// Output that could not be written (a full disk, a closed pipe, /dev/full) is a failure with a
// message, whatever the command: a verdict or a file that never arrived must not exit 0.
int finish_output(int status) {
  // A write that failed earlier left its reason in errno (nothing else fails after the output).
  int err = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed) err = errno;
  if (flushed && !std::ferror(stdout)) return status;
  std::fprintf(stderr, "isoscope: cannot write to standard output%s%s\n", err ? ": " : "",
               err ? std::strerror(err) : "");
  return kExitInput;
}

int main(int argc, char** argv) {
  try {
    return finish_output(run(argc, argv));
  } catch (const std::bad_alloc&) {
    std::fputs("isoscope: not enough memory for this input (pass --max-input-bytes to bound it, or check fewer levels)\n", stderr);
  } catch (const std::filesystem::filesystem_error& e) {
    complain(e.what());
  } catch (const std::exception& e) {
    complain(e.what());
  }
  return kExitInput;
}
