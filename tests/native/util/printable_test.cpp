// Printable text (util/printable.h): what a terminal acts on is escaped, the rest kept.
#include <gtest/gtest.h>

#include <string>

#include "util/printable.h"

TEST(Printable, EscapesWhatATerminalActsOnAndKeepsTheRest) {
  using isoscope::printable;
  EXPECT_EQ(printable("plain k\xc3\xa9y"), "plain k\xc3\xa9y");  // UTF-8 stays
  EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(printable("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(printable("x\xc2\x9b" "2Jy"), "x\\xc2\\x9b2Jy");   // U+009B, CSI
  EXPECT_EQ(printable("x\x9b" "2Jy"), "x\\x9b2Jy");            // a raw C1 byte, not UTF-8
  EXPECT_EQ(printable("\xe2\x80\xae" "evil"), "\\xe2\\x80\\xaeevil");  // right-to-left override
  EXPECT_EQ(printable("a\r\nb\tc"), "a\\x0d\\x0ab\\x09c");
  EXPECT_EQ(printable("a\r\nb\tc", /*keep_lines=*/true), "a\\x0d\nb\tc");
  EXPECT_EQ(printable(std::string("n\0l", 3)), "n\\x00l");
  const std::string once = printable("\x1b\xff\xc2\x85");
  EXPECT_EQ(printable(once), once);
}
