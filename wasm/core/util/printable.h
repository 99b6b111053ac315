// Text for a terminal: user-supplied strings (file and entry names, keys, values, transaction
// ids) may hold control bytes, and an escape sequence printed raw would drive the terminal
// (move the cursor, retitle the window, hide what follows). Every text message and the text
// report pass through printable(); JSON output escapes on its own and stays exact.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace isoscope {

// s with every byte a terminal could act on written as \xNN: C0 controls (NUL, BEL, ESC, CR,
// ...), DEL, C1 controls (U+0080-U+009F, such as CSI U+009B), bidirectional overrides
// (U+202A-U+202E, U+2066-U+2069) and bytes that are not UTF-8 (a raw 0x9B is CSI to an 8-bit
// terminal). keep_lines keeps '\n' and '\t' (a report of several lines); other valid UTF-8 is
// kept. Idempotent: printable(printable(s)) == printable(s).
std::string printable(std::string_view s, bool keep_lines = false);

// Long names (keys, values, ids, any text from the input that a message repeats): beyond
// kLongText bytes a message shows the first kShownText bytes (cut at a character boundary),
// then "…[" what ", N bytes]": "kkkk…[key 1, 1048576 bytes]", "LLLL…[1048576 bytes]" (what
// empty). Shorter text is returned as it is.
inline constexpr size_t kLongText = 64;
inline constexpr size_t kShownText = 32;
std::string shortened(std::string_view s, std::string_view what = {});
// The first at most `bytes` bytes of s, not cutting a UTF-8 sequence in two.
std::string_view utf8_prefix(std::string_view s, size_t bytes);

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view s, size_t i);
// The code point of one well-formed sequence (as utf8_sequence measured it).
uint32_t utf8_code_point(std::string_view seq);
// Code points a terminal acts on beyond ASCII: C1 controls (U+0080-U+009F) and bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069).
bool is_terminal_control(uint32_t cp);

}  // namespace isoscope
