// Minimal JSON output helpers shared by the writers and the result report.
#pragma once
#include <string>
#include <string_view>

namespace isoscope {

// s as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);
// A finite number as JSON (integers without a fraction); non-finite numbers become null.
std::string json_number(double d);

}  // namespace isoscope
