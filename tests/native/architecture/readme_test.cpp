// The README speaks of the program as it is: its command-line block holds the program's usage,
// its list of formats names every reader, and its tree every folder of the C++ sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "test_util.h"

namespace fs = std::filesystem;

namespace {

std::string readme_section(const std::string& heading) {
  const std::string readme = slurp((fs::path(ISOSCOPE_SOURCE_DIR) / "README.md").string());
  const size_t begin = readme.find("\n" + heading + "\n");
  if (begin == std::string::npos) return {};
  const size_t end = readme.find("\n## ", begin + 1);
  return readme.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

TEST(Readme, TheCommandLineBlockIsTheProgramsUsage) {
  const std::string block = readme_section("## Command line");
  ASSERT_FALSE(block.empty()) << "README.md has no \"## Command line\" section";
  const CommandResult help = run_cli("--help");
  ASSERT_EQ(help.status, 0);
  std::istringstream in(help.out);
  std::string line;
  int lines = 0;
  std::getline(in, line);  // "usage:"
  while (std::getline(in, line) && !line.empty()) {
    ++lines;
    EXPECT_TRUE(contains(block, trimmed(line))) << "README.md's command line lacks: " << trimmed(line);
  }
  EXPECT_GT(lines, 10);
}

TEST(Readme, NamesEveryFormat) {
  const std::string section = readme_section("## Formats");
  const CommandResult formats = run_cli("formats");
  ASSERT_EQ(formats.status, 0);
  std::istringstream in(formats.out);
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = line.substr(0, line.find(' '));
    EXPECT_TRUE(contains(section, "`" + name + "`")) << "README.md's formats lack " << name;
  }
}

TEST(Readme, TheTreeShowsEveryFolderOfTheSources) {
  const std::string section = readme_section("## Architecture");
  for (const char* top : {"wasm", "wasm/core", "native"})
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(ISOSCOPE_SOURCE_DIR) / top))
      if (e.is_directory())
        EXPECT_TRUE(contains(section, e.path().filename().string() + "/"))
            << "README.md's tree lacks " << top << "/" << e.path().filename().string();
}
