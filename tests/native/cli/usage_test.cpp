// The command line's usage: a usage error exits 2, numbers and level lists are validated, every
// subcommand has --help, and there is --version.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

TEST(CliUsage, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli("check --level XYZ x.json").status, 2);
  EXPECT_EQ(run_cli("check").status, 2);
  EXPECT_EQ(run_cli("frobnicate").status, 2);
  EXPECT_EQ(run_cli("check /nonexistent/file.json").status, 2);
  EXPECT_EQ(run_cli("check --format nope x.json").status, 2);
}

TEST(CliUsage, NumbersAndLevelsAreValidated) {
  for (const char* bad : {"inf", "1e300", "1.5", "-1", "nan", "7x", ""}) {
    const CommandResult r = run_cli(std::string("check --max-anomalies '") + bad + "' x.json");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_TRUE(contains(r.err, "--max-anomalies needs a whole number")) << bad << ": " << r.err;
  }
  CommandResult r = run_cli("check --level '' x.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--level: an empty level name; the levels are RC, RR")) << r.err;
  r = run_cli("check --level SER,XYZ x.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--level: unknown level 'XYZ'; the levels are")) << r.err;
  r = run_cli("generate --sessions 2.5 -");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--sessions needs a whole number")) << r.err;
  // generate and run read --mix alike: trailing junk is an error
  for (const char* cmd : {"generate --engine si --mix 0.2,0.2,0.2junk -", "run sqlite::memory: --mix 0.2,0.2,0.2junk"}) {
    r = run_cli(cmd);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_TRUE(contains(r.err, "--mix needs cobra, polysi, random or RO,WO,RMW")) << cmd << ": " << r.err;
  }
}

TEST(CliUsage, HelpOnEverySubcommandAndVersion) {
  for (const char* cmd : {"check", "convert", "generate", "anomalies"}) {
    const CommandResult r = run_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_TRUE(contains(r.out, "usage:")) << cmd;
  }
  const CommandResult v = run_cli("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_TRUE(contains(v.out, "isoscope 0.1.0")) << v.out;
}
