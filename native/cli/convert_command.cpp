// `isoscope convert`: a history from any format read into one isoscope writes.
#include <cstdio>
#include <string>

#include "cli/cli.h"
#include "cli/exit_status.h"
#include "formats/formats.h"
#include "formats/writers.h"
#include "util/printable.h"

namespace isoscope::cli {

int run_convert(int argc, char** argv) {
  std::string to, format;
  std::vector<std::string> positional;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--to" && i + 1 < argc) to = argv[++i];
    else if (a == "--format" && i + 1 < argc) format = argv[++i];
    else if (a.size() > 1 && a[0] == '-' && a != "-") return usage_error("unknown option '" + a + "'");
    else positional.push_back(a);
  }
  if (to != "isoscope" && to != "plume" && to != "jepsen")
    return usage_error("convert needs --to isoscope, --to plume or --to jepsen");
  if (positional.size() != 2) return usage_error("convert needs PATH and OUT");
  LoadedInput input;
  std::string error;
  if (!load_input(positional[0], kMaxInputBytes, input, error)) {
    complain(error);
    return kExitInput;
  }
  Expected<History> h = read_history(input.files, format);
  if (!h) {
    print_input_error(h.error());
    return kExitInput;
  }
  // An object history's operations are no transactions: isoscope JSON and plume would read back
  // as a different history (check would judge other semantics), so only Jepsen EDN holds one.
  const bool objects = !h->registers.empty();
  if (objects != (to == "jepsen")) {
    complain(objects ? "cannot write " + to + ": this " + h->format + " history is of single-object operations (a " +
                           object_model_name(h->registers.model) + "), which " + to +
                           " cannot hold; --to jepsen writes it as Jepsen EDN, which reads back to the same operations"
                     : std::string("cannot write jepsen: Jepsen EDN holds histories of single-object operations "
                                   "(registers, key-value stores, mutexes); this ") + h->format +
                           " history is of transactions: use --to isoscope or --to plume");
    return kExitInput;
  }
  if (to == "jepsen")
    return write_output(positional[1], [&](TextOut& out) {
      out.put(write_jepsen_edn(*h));
      return std::optional<InputError>();
    });
  if (to == "plume") {
    if (std::optional<InputError> e = plume_cannot_express(*h)) {
      complain("cannot write plume: " + e->message);
      return kExitInput;
    }
    // The one loss that changes what a check of OUT can say: nothing is dropped silently.
    if (h->has_timestamps)
      complain("note: plume has no timestamps, so the transactions' times are left out and SSER and LIN cannot be "
               "decided on what is written (--to isoscope keeps them)");
  }
  return write_output(positional[1], [&](TextOut& out) {
    std::unique_ptr<HistoryWriter> w = make_writer(to, out);
    write_history(*h, *w);
    return w->error();
  });
}

}  // namespace isoscope::cli
