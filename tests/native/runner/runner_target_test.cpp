// `isoscope run`'s targets and list texts (native/runner/database.cpp): what each URL means, and
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

// Issue 35, class 9: targets follow each client library's URL conventions. libpq's URIs: an
// IPv6 address in brackets, %XX escapes in the host (a socket folder), connection keywords as
// query parameters; MariaDB: the same brackets, a socket path as the host or ?socket=.
TEST(RunnerTarget, Ipv6AddressesGoInBrackets) {
  Target t;
  std::string err;
  for (const char* url : {"postgresql://u:p@[::1]:6000/db", "postgres://u@[::1]:6000/db", "mariadb://u:p@[::1]:6000/db"}) {
    ASSERT_TRUE(parse_target(url, t, err)) << url << ": " << err;
    EXPECT_EQ(t.host, "::1") << url;  // what the client library gets: the address, not "[::1]"
    EXPECT_EQ(t.port, 6000) << url;
    EXPECT_EQ(t.database, "db") << url;
    EXPECT_NE(t.display.find("[::1]:6000"), std::string::npos) << t.display;
  }
  // No port: the default, not "'1]' is not a port number".
  ASSERT_TRUE(parse_target("postgresql://u:p@[::1]/db", t, err)) << err;
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, 5432);
  ASSERT_TRUE(parse_target("mysql://u@[2001:db8::7]/db", t, err)) << err;
  EXPECT_EQ(t.host, "2001:db8::7");
  EXPECT_EQ(t.port, 3306);
  // An address without brackets is a located error, not a port.
  EXPECT_FALSE(parse_target("postgresql://u@::1/db", t, err));
  EXPECT_NE(err.find("brackets"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("postgresql://u@[::1/db", t, err));
  EXPECT_NE(err.find("]"), std::string::npos) << err;
}

TEST(RunnerTarget, SocketFoldersAndConnectionKeywords) {
  Target t;
  std::string err;
  // A percent-encoded socket folder as the host is decoded.
  ASSERT_TRUE(parse_target("postgresql://u@%2Fvar%2Frun%2Fpostgresql/db", t, err)) << err;
  EXPECT_EQ(t.host, "/var/run/postgresql");
  EXPECT_TRUE(t.session_vars.empty());
  // ?host= is libpq's connection keyword, not a session variable; so are sslmode and the others.
  ASSERT_TRUE(parse_target("postgresql://u@/db?host=%2Ftmp%2Fpg&sslmode=disable&lock_timeout=5s", t, err)) << err;
  EXPECT_EQ(t.host, "/tmp/pg");
  ASSERT_EQ(t.session_vars.size(), 1u);
  EXPECT_EQ(t.session_vars[0].first, "lock_timeout");
  bool host = false, sslmode = false;
  for (const auto& [k, v] : t.connection_params) {
    host |= k == "host" && v == "/tmp/pg";
    sslmode |= k == "sslmode" && v == "disable";
  }
  EXPECT_TRUE(host && sslmode);
  ASSERT_TRUE(parse_target("postgresql:///db?host=/tmp/pg&port=6001", t, err)) << err;
  EXPECT_EQ(t.host, "/tmp/pg");
  EXPECT_EQ(t.port, 6001);
  EXPECT_TRUE(t.session_vars.empty());
  // MariaDB: a socket path as the host (encoded, or in parentheses), or ?socket=.
  for (const char* url : {"mariadb://u@%2Frun%2Fmysqld%2Fmysqld.sock/db", "mariadb://u@(/run/mysqld/mysqld.sock)/db",
                          "mysql://u@localhost/db?socket=%2Frun%2Fmysqld%2Fmysqld.sock"}) {
    ASSERT_TRUE(parse_target(url, t, err)) << url << ": " << err;
    EXPECT_EQ(t.host, "/run/mysqld/mysqld.sock") << url;
    EXPECT_TRUE(t.session_vars.empty()) << url;
  }
  // %XX in the user and the database too.
  ASSERT_TRUE(parse_target("postgresql://a%20b@h/d%2Fb", t, err)) << err;
  EXPECT_EQ(t.user, "a b");
  EXPECT_EQ(t.database, "d/b");
}

// Issue 35, class 5: a session variable's name is a plain identifier, whatever it decodes to.
TEST(RunnerTarget, SessionVariableNamesArePlainIdentifiers) {
  Target t;
  std::string err;
  for (const char* url : {"mariadb://u@h/db?x%3Bdrop=1", "mariadb://u@h/db?global.max_connections=1",
                          "mariadb://u@h/db?%40%40global.sql_mode=x", "mariadb://u@h/db?a%20b=1", "mariadb://u@h/db?1x=1",
                          "mariadb://u@h/db?sql_mode%3D%27%27%2CGLOBAL%20max_connections=1"}) {
    EXPECT_FALSE(parse_target(url, t, err)) << url;
    EXPECT_NE(err.find("not a variable name"), std::string::npos) << url << ": " << err;
  }
}

// Issue 35, class 8: no message quotes a password, whatever was mistyped.
TEST(RunnerTarget, MessagesNeverHoldThePassword) {
  Target t;
  std::string err;
  for (const char* url : {"postgressql://alice:Sup3rS3cret@db/x", "postgresql:/alice:Sup3rS3cret@db/x",
                          "mysq://alice:Sup3rS3cret@db:3306/x", "alice:Sup3rS3cret@db/x",
                          "postgresql://alice:Sup3rS3cret@db:54x/x", "postgresql://alice:Sup3rS3cret@db:5432",
                          "mariadb://alice:Sup3rS3cret@db/x?oops", "mariadb://alice:Sup3rS3cret@db/x?b%20d=1",
                          "postgresql://alice:Sup3r/S3cret@db/x?password", "postgresql://alice:Sup3rS3cret@[::1/x"}) {
    EXPECT_FALSE(parse_target(url, t, err)) << url;
    EXPECT_EQ(err.find("Sup3r"), std::string::npos) << url << ": " << err;
    EXPECT_EQ(err.find("S3cret"), std::string::npos) << url << ": " << err;
  }
  EXPECT_EQ(redact_password("'postgresql://a:pw@h/d' and 'mysql://b:x%40y@h/d'"),
            "'postgresql://a:***@h/d' and 'mysql://b:***@h/d'");
  ASSERT_TRUE(parse_target("postgresql://alice:Sup3r@S3cret@db/x?password=Sup3rS3cret", t, err)) << err;
  EXPECT_EQ(t.display.find("Sup3r"), std::string::npos) << t.display;
  EXPECT_EQ(redact_password("'postgressql://a@h/d?sslmode=require&password=Sup3rS3cret&sslpassword=S3cret'"),
            "'postgressql://a@h/d?sslmode=require&password=***********&sslpassword=******'");
  char arg[] = "postgresql://alice:Sup3rS3cret@db/x?password=Sup3rS3cret&sslmode=require";
  mask_password_in_place(arg);
  EXPECT_STREQ(arg, "postgresql://alice:xxxxxxxxxxx@db/x?password=***********&sslmode=require");
  const std::string url = "postgresql://alice:Sup3r@S3cret@db/x";
  const auto [b, e] = password_span(url);
  EXPECT_EQ(url.substr(b, e - b), "Sup3r@S3cret");
}

// Issue 35, class 6: the runner's table names. A random id from the system's source (two runs,
// even two processes 1 in two containers, never share one), and the names --cleanup may touch:
// the runner's, of this form or of the earlier <pid>_<seed> form, and nothing else.
TEST(RunnerTarget, TableNamesAreRandomAndRecognised) {
  std::string err;
  const std::string a = new_run_id(err), b = new_run_id(err);
  ASSERT_EQ(a.size(), 16u) << err;
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
  const Schema s = run_schema(a, RunTable::Registers, 8);
  EXPECT_EQ(s.registers, "isoscope_run_" + a + "_registers");
  EXPECT_TRUE(s.lists.empty());
  EXPECT_EQ(run_schema(a, RunTable::Lists, 8).lists, "isoscope_run_" + a + "_lists");
  std::string id;
  ASSERT_TRUE(runner_table(s.registers, id));
  EXPECT_EQ(id, a);
  EXPECT_EQ(run_schema(b, RunTable::Rows, 8).registers, "isoscope_run_" + b + "_rows");
  ASSERT_TRUE(runner_table("isoscope_run_" + b + "_rows", id));
  EXPECT_EQ(id, b);
  ASSERT_TRUE(runner_table("isoscope_run_1_7_lists", id));
  EXPECT_TRUE(id.empty());
  for (const char* other : {"isoscope_run_", "isoscope_run_x_registers", "isoscope_run_0123456789abcdeF_registers",
                            "isoscope_run_0123456789abcdef_registers2", "isoscope_run_1_registers", "isoscope_run_1__registers",
                            "isoscope_run_0123456789abcdef", "orders", "isoscope_run_1_7_lists; DROP TABLE x",
                            "isoscope_run_1_7_rows"})
    EXPECT_FALSE(runner_table(other, id)) << other;
}
