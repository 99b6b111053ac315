// Files that are plainly not histories (formats/not_history.h) are named for what they are,
// before the readers' diagnostics: "this is a PNG image, not a history".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/formats.h"
#include "formats/not_history.h"

using namespace isoscope;

namespace {
InputError read_error(const std::vector<std::pair<std::string, std::string>>& named) {
  std::vector<InputFile> files;
  for (const auto& [name, bytes] : named) files.push_back({name, bytes});
  Expected<History> h = read_history(files);
  EXPECT_FALSE(h.ok());
  return h.ok() ? InputError{} : h.error();
}
const std::string kPng("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", 20);  // the signature and the IHDR header
}  // namespace

TEST(NotHistory, ImagesAndDocumentsAreNamed) {
  EXPECT_EQ(known_non_history(kPng), "a PNG image");
  EXPECT_EQ(known_non_history("%PDF-1.7\n%\xe2\xe3"), "a PDF document");
  EXPECT_EQ(known_non_history(std::string("\xff\xd8\xff\xe0\0\x10JFIF", 10)), "a JPEG image");
  EXPECT_EQ(known_non_history("{\"sessions\": []}"), "");
  EXPECT_EQ(known_non_history("r(1,2,3,4)\n"), "");

  InputError e = read_error({{"photo.png", kPng}});
  EXPECT_EQ(e.message.rfind("this is a PNG image, not a history. What each reader found: ", 0), 0u) << e.message;
  EXPECT_EQ(e.file, "photo.png");
  EXPECT_EQ(e.line, -1);
  EXPECT_FALSE(e.format_unrecognised);  // no format to offer for an image

  e = read_error({{"a.png", kPng}, {"b.pdf", "%PDF-1.4\n"}});
  EXPECT_EQ(e.message.rfind("none of these 2 files is a history: a.png is a PNG image, b.pdf is a PDF document", 0), 0u) << e.message;
  // a history beside an image is not "no history": the readers' diagnosis stands
  e = read_error({{"notes.txt", "hello, not a history\n"}});
  EXPECT_EQ(e.message.find("not a history."), std::string::npos) << e.message;
}
