// `isoscope run`'s targets and list texts (wasm/runner/database.cpp): what each URL means, and
// the clear errors of the ones that mean nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runner/backends.h"
#include "runner/client_libraries.h"

using namespace isoscope::runner;

TEST(RunnerTarget, PostgresUrl) {
  Target t;
  std::string err;
  ASSERT_TRUE(parse_target("postgresql://alice:s%40cret@db.example:6543/shop?lock_timeout=5s", t, err)) << err;
  EXPECT_EQ(t.kind, DbKind::PostgreSQL);
  EXPECT_EQ(t.user, "alice");
  EXPECT_EQ(t.password, "s@cret");
  EXPECT_EQ(t.host, "db.example");
  EXPECT_EQ(t.port, 6543);
  EXPECT_EQ(t.database, "shop");
  ASSERT_EQ(t.session_vars.size(), 1u);
  EXPECT_EQ(t.session_vars[0].first, "lock_timeout");
  EXPECT_EQ(t.display, "postgresql://alice@db.example:6543/shop");  // never the password
}

TEST(RunnerTarget, MariaDbAndMysqlDefaults) {
  Target t;
  std::string err;
  ASSERT_TRUE(parse_target("mysql://root@localhost/test", t, err)) << err;
  EXPECT_EQ(t.kind, DbKind::MariaDB);
  EXPECT_EQ(t.port, 3306);
  ASSERT_TRUE(parse_target("sqlite:/tmp/x.db", t, err));
  EXPECT_EQ(t.kind, DbKind::SQLite);
  EXPECT_EQ(t.path, "/tmp/x.db");
}

TEST(RunnerTarget, BadTargetsAreClearErrors) {
  Target t;
  std::string err;
  EXPECT_FALSE(parse_target("oracle://x/y", t, err));
  EXPECT_NE(err.find("not a target"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("postgresql://u@h:99999/db", t, err));
  EXPECT_NE(err.find("not a port number"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("postgresql://u@h:5432", t, err));
  EXPECT_NE(err.find("database name"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("mariadb://u@h/db?x;drop=1", t, err));
  EXPECT_NE(err.find("not a variable name"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("sqlite:", t, err));
}

TEST(RunnerTarget, SqliteRefusesWeakerLevelsNamingThem) {
  Target t;
  std::string err;
  ASSERT_TRUE(parse_target("sqlite:/tmp/never-created.db", t, err));
  EXPECT_EQ(open_database(t, Isolation::ReadCommitted, err), nullptr);
  EXPECT_NE(err.find("SQLite"), std::string::npos) << err;
  EXPECT_NE(err.find("read-committed"), std::string::npos) << err;
}

TEST(RunnerTarget, ListTexts) {
  std::vector<int64_t> v;
  ASSERT_TRUE(parse_list_text(" 1 5 9", v));
  EXPECT_EQ(v, (std::vector<int64_t>{1, 5, 9}));
  ASSERT_TRUE(parse_list_text("", v));
  EXPECT_TRUE(v.empty());
  EXPECT_FALSE(parse_list_text("1 x", v));
}

// The client libraries (and their dozens of dependencies) cost every start of the program 3 ms
// when linked: they are loaded when a database of their kind is opened, and not before.
TEST(RunnerClientLibraries, LoadedOnlyWhenADatabaseOfTheirKindOpens) {
  auto mapped = [] {
    std::ifstream f("/proc/self/maps");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  const std::string before = mapped();
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before.find("libpq.so"), std::string::npos);
  EXPECT_EQ(before.find("libmariadb.so"), std::string::npos);
  std::string err;
  ASSERT_TRUE(load_client_library(DbKind::MariaDB, err)) << err;  // (true too when not built in)
  ASSERT_TRUE(load_client_library(DbKind::MariaDB, err)) << err;  // loaded once
}
