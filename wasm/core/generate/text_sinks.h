// Generator sinks that write text as the history is generated (no History in memory):
// the canonical JSON and plume.
#pragma once
#include <cstdio>
#include <memory>
#include <string_view>

#include "generate/random_history.h"

namespace isoscope {

// Returns nullptr for a format that cannot be streamed. finish() closes the document.
class TextSink : public GenSink {
 public:
  virtual void finish() = 0;
};
std::unique_ptr<TextSink> make_text_sink(std::string_view format, std::FILE* out);

}  // namespace isoscope
