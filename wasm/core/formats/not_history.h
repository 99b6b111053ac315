// Files that are plainly something else: an image, a PDF, an office document, a program. Said
// first ("this is a PNG image, not a history"), before what each reader found, which for
// such a file is only noise.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "formats/formats.h"

namespace isoscope {

// What the bytes are by their magic number ("a PNG image", "a PDF document"), or "" for
// anything that might be a history.
std::string_view known_non_history(std::string_view bytes);

// When every non-empty file is a known non-history: one sentence ("this is a PNG image, not a
// history"; with several files, each named); else nullopt.
std::optional<std::string> not_a_history(std::span<const InputFile> files);

}  // namespace isoscope
