// The key-value targets of `isoscope run` without a server: etcd's and Redis's URLs (member
// lists, defaults, a password never shown), and etcd's JSON gateway encoding (etcd_json.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "runner/backends.h"
#include "runner/etcd_json.h"

using namespace isoscope::runner;

TEST(KvTargets, EtcdMemberList) {
  Target t;
  std::string err;
  ASSERT_TRUE(parse_target("etcd://127.0.0.1:2379,db2.example:32379,[::1]:4001", t, err)) << err;
  EXPECT_EQ(t.kind, DbKind::Etcd);
  ASSERT_EQ(t.members.size(), 3u);
  EXPECT_EQ(t.members[0], (std::pair<std::string, int>{"127.0.0.1", 2379}));
  EXPECT_EQ(t.members[1], (std::pair<std::string, int>{"db2.example", 32379}));
  EXPECT_EQ(t.members[2], (std::pair<std::string, int>{"::1", 4001}));
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, 2379);
  EXPECT_EQ(t.display, "etcd://127.0.0.1:2379,db2.example:32379,[::1]:4001");
  EXPECT_FALSE(t.serializable_reads);
  ASSERT_TRUE(parse_target("etcd://localhost", t, err)) << err;
  ASSERT_EQ(t.members.size(), 1u);
  EXPECT_EQ(t.members[0].second, 2379);  // etcd's client port
}

TEST(KvTargets, EtcdBadUrlsAreClearErrors) {
  Target t;
  std::string err;
  EXPECT_FALSE(parse_target("etcd://h:2379,,h:2380", t, err));
  EXPECT_NE(err.find("no host"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("etcd://h:99999", t, err));
  EXPECT_NE(err.find("not a port number"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("etcd://h:2379/prefix", t, err));
  EXPECT_NE(err.find("nothing follows"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("etcd://root:s3cretpw@h:2379", t, err));
  EXPECT_EQ(err.find("s3cretpw"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("etcd://h:2379?reads=serializable", t, err));
  EXPECT_NE(err.find("--reads"), std::string::npos) << err;
}

TEST(KvTargets, RedisUrlNeverShowsItsPassword) {
  Target t;
  std::string err;
  ::unsetenv("REDISCLI_AUTH");
  ASSERT_TRUE(parse_target("redis://default:hunter%402@127.0.0.1:6380/3", t, err)) << err;
  EXPECT_EQ(t.kind, DbKind::Redis);
  EXPECT_EQ(t.user, "default");
  EXPECT_EQ(t.password, "hunter@2");
  EXPECT_EQ(t.password_source, "url");
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, 6380);
  EXPECT_EQ(t.database, "3");
  EXPECT_EQ(t.display, "redis://default@127.0.0.1:6380/3");
  // Without a user (Redis's classic requirepass), and the defaults.
  ASSERT_TRUE(parse_target("redis://:topsecret@cache.example", t, err)) << err;
  EXPECT_EQ(t.password, "topsecret");
  EXPECT_EQ(t.port, 6379);
  EXPECT_EQ(t.display.find("topsecret"), std::string::npos) << t.display;
  // Every message that quotes the URL leaves the password out.
  EXPECT_EQ(redact_password("cannot reach redis://default:topsecret@cache.example:6379/0"),
            "cannot reach redis://default:***@cache.example:6379/0");
  char arg[] = "redis://default:topsecret@cache.example:6379";
  mask_password_in_place(arg);
  EXPECT_EQ(std::strstr(arg, "topsecret"), nullptr) << arg;
  EXPECT_FALSE(parse_target("redis://:topsecret@h:6379/zero", t, err));
  EXPECT_NE(err.find("is a number"), std::string::npos) << err;
  EXPECT_EQ(err.find("topsecret"), std::string::npos) << err;
  EXPECT_FALSE(parse_target("redis://:topsecret@h:6379,h2:6379", t, err));
  EXPECT_EQ(err.find("topsecret"), std::string::npos) << err;
  // The environment's password (redis-cli's variable).
  ::setenv("REDISCLI_AUTH", "fromenv", 1);
  ASSERT_TRUE(parse_target("redis://127.0.0.1:6379", t, err)) << err;
  EXPECT_EQ(t.password, "fromenv");
  EXPECT_EQ(t.password_source, "environment");
  ::unsetenv("REDISCLI_AUTH");
}

TEST(KvTargets, KeyValueTargetsAreSerializableOnly) {
  Target t;
  std::string err;
  ASSERT_TRUE(parse_target("etcd://127.0.0.1:1", t, err)) << err;
  EXPECT_EQ(open_database(t, Isolation::ReadCommitted, err), nullptr);
  EXPECT_NE(err.find("read-committed"), std::string::npos) << err;
  ASSERT_TRUE(parse_target("redis://127.0.0.1:1", t, err)) << err;
  EXPECT_EQ(open_database(t, Isolation::RepeatableRead, err), nullptr);
  EXPECT_NE(err.find("repeatable-read"), std::string::npos) << err;
}

TEST(EtcdGateway, Base64RoundTrips) {
  EXPECT_EQ(etcd::base64_encode(""), "");
  EXPECT_EQ(etcd::base64_encode("f"), "Zg==");
  EXPECT_EQ(etcd::base64_encode("fo"), "Zm8=");
  EXPECT_EQ(etcd::base64_encode("foo"), "Zm9v");
  EXPECT_EQ(etcd::base64_encode("isoscope_run_x/7"), "aXNvc2NvcGVfcnVuX3gvNw==");
  std::string out;
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10 z", 5)}) {
    ASSERT_TRUE(etcd::base64_decode(etcd::base64_encode(s), out)) << s;
    EXPECT_EQ(out, s);
  }
  ASSERT_TRUE(etcd::base64_decode("Zm9v", out));
  EXPECT_EQ(out, "foo");
  EXPECT_FALSE(etcd::base64_decode("Zm9v!", out));
  EXPECT_FALSE(etcd::base64_decode("Z", out));
}

TEST(EtcdGateway, PrefixEnd) {
  EXPECT_EQ(etcd::prefix_end("isoscope_runs/"), "isoscope_runs0");
  EXPECT_EQ(etcd::prefix_end(std::string("a\xff", 2)), "b");
}

TEST(EtcdGateway, Requests) {
  // The first read of a transaction: the latest revision, linearizable.
  EXPECT_EQ(etcd::range_request("k/1", "", 0, false), "{\"key\": \"ay8x\"}");
  // The later ones at its revision, from the member's own state.
  EXPECT_EQ(etcd::range_request("k/1", "", 42, true), "{\"key\": \"ay8x\", \"revision\": \"42\", \"serializable\": true}");
  EXPECT_EQ(etcd::range_request("p/", "p0", 0, false, 10), "{\"key\": \"cC8=\", \"range_end\": \"cDA=\", \"limit\": \"10\"}");
  // A commit: the keys read unchanged (an absent one still absent), then the writes.
  EXPECT_EQ(etcd::txn_request({{"k/1", 7}, {"k/2", 0}}, {{"k/1", "12"}}),
            "{\"compare\": [{\"key\": \"ay8x\", \"result\": \"EQUAL\", \"target\": \"MOD\", \"mod_revision\": \"7\"}, "
            "{\"key\": \"ay8y\", \"result\": \"EQUAL\", \"target\": \"CREATE\", \"create_revision\": \"0\"}], "
            "\"success\": [{\"request_put\": {\"key\": \"ay8x\", \"value\": \"MTI=\"}}]}");
  EXPECT_EQ(etcd::delete_range_request("p/", "p0"), "{\"key\": \"cC8=\", \"range_end\": \"cDA=\"}");
}

TEST(EtcdGateway, Replies) {
  // As etcd 3.4's gateway writes them: 64-bit integers as strings, defaults left out.
  etcd::RangeResponse r;
  std::string err;
  ASSERT_TRUE(etcd::parse_range_response(
      R"({"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437","revision":"9","raft_term":"2"},)"
      R"("kvs":[{"key":"ay8x","create_revision":"2","mod_revision":"8","version":"3","value":"MTI="}],"count":"1"})",
      r, err))
      << err;
  EXPECT_EQ(r.revision, 9);
  ASSERT_EQ(r.kvs.size(), 1u);
  EXPECT_EQ(r.kvs[0].key, "k/1");
  EXPECT_EQ(r.kvs[0].value, "12");
  EXPECT_EQ(r.kvs[0].create_revision, 2);
  EXPECT_EQ(r.kvs[0].mod_revision, 8);
  // An absent key: no kvs. An empty value: no "value".
  ASSERT_TRUE(etcd::parse_range_response(R"({"header":{"revision":"9"}})", r, err)) << err;
  EXPECT_TRUE(r.kvs.empty());
  ASSERT_TRUE(etcd::parse_range_response(R"({"header":{"revision":"9"},"kvs":[{"key":"ay8x","mod_revision":"3"}]})", r, err));
  EXPECT_EQ(r.kvs[0].value, "");
  EXPECT_FALSE(etcd::parse_range_response(R"({"kvs":[]})", r, err));
  EXPECT_FALSE(etcd::parse_range_response("<html>", r, err));
  bool succeeded = true;
  int64_t revision = 0;
  ASSERT_TRUE(etcd::parse_txn_response(R"({"header":{"revision":"10"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"10"}}}]})",
                                       succeeded, revision, err));
  EXPECT_TRUE(succeeded);
  EXPECT_EQ(revision, 10);
  ASSERT_TRUE(etcd::parse_txn_response(R"({"header":{"revision":"10"}})", succeeded, revision, err));
  EXPECT_FALSE(succeeded);  // a failed compare leaves "succeeded" out
  int code = 0;
  std::string message;
  ASSERT_TRUE(etcd::parse_gateway_error(R"({"error":"etcdserver: mvcc: required revision has been compacted","code":11,"message":"etcdserver: mvcc: required revision has been compacted"})",
                                        code, message));
  EXPECT_EQ(code, 11);
  EXPECT_NE(message.find("compacted"), std::string::npos);
  std::string server, cluster;
  ASSERT_TRUE(etcd::parse_version(R"({"etcdserver":"3.4.23","etcdcluster":"3.4.0"})", server, cluster));
  EXPECT_EQ(server, "3.4.23");
  std::vector<std::string> members;
  ASSERT_TRUE(etcd::parse_member_list(
      R"({"header":{"revision":"1"},"members":[{"ID":"1","name":"n1","peerURLs":["http://127.0.0.1:2380"],"clientURLs":["http://127.0.0.1:2379"]}]})",
      members, err));
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0], "n1=http://127.0.0.1:2379");
}
