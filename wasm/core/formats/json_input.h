// An input file as simdjson reads it: with SIMDJSON_PADDING readable bytes past the end.
// When the caller allocated them (InputFile::padding: the CLI and the wasm API do) the file is
// read in place; otherwise it is copied once. Internal to the JSON readers.
#pragma once
#include "formats/formats.h"
#include "simdjson.h"

namespace isoscope {

class JsonInput {
 public:
  explicit JsonInput(const InputFile& f) {
    if (f.padding >= simdjson::SIMDJSON_PADDING) {
      view_ = simdjson::padded_string_view(f.bytes.data(), f.bytes.size(), f.bytes.size() + f.padding);
    } else {
      copy_ = simdjson::padded_string(f.bytes.data(), f.bytes.size());
      view_ = copy_;
    }
  }
  JsonInput(const JsonInput&) = delete;
  JsonInput& operator=(const JsonInput&) = delete;

  const simdjson::padded_string_view& view() const { return view_; }
  const char* data() const { return view_.data(); }

 private:
  simdjson::padded_string copy_;
  simdjson::padded_string_view view_;
};

}  // namespace isoscope
