// grpc_channel.h against a fake server on loopback that speaks just enough HTTP/2 by hand (frames,
// HPACK literals): calls that share one connection, gRPC's status from the trailers and from a
// trailers-only reply, a connection the server closes during a call (an error: the request may
// have been carried out) and while idle (replaced before the next request), a server that never
// answers, and one that is not there. Built where etcd's libraries are (CMake's
// ISOSCOPE_HAVE_GRPC_CHANNEL).
#ifdef ISOSCOPE_HAVE_GRPC_CHANNEL
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "runner/grpc_channel.h"

using namespace isoscope::runner;

namespace {

// One accepted connection of the fake server.
struct FakeH2Conn {
  int fd = -1;

  bool read_exact(void* to, size_t n) {
    auto* p = static_cast<char*>(to);
    while (n > 0) {
      const ssize_t r = ::recv(fd, p, n, 0);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }
  // The client's preface (its magic; its SETTINGS frame is read as any frame).
  bool read_preface() {
    char magic[24];
    return read_exact(magic, sizeof magic) && std::string(magic, 24) == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  }
  // Frames until one ends a stream (END_STREAM on HEADERS or DATA): that request's stream and
  // its DATA; false at the end of the connection.
  bool read_request(uint32_t& stream, std::string& data) {
    data.clear();
    for (;;) {
      uint8_t h[9];
      if (!read_exact(h, 9)) return false;
      const size_t len = size_t{h[0]} << 16 | size_t{h[1]} << 8 | h[2];
      std::string payload(len, '\0');
      if (len && !read_exact(payload.data(), len)) return false;
      stream = (uint32_t{h[5]} << 24 | uint32_t{h[6]} << 16 | uint32_t{h[7]} << 8 | h[8]) & 0x7fffffff;
      if (h[3] == 0) data += payload;
      if ((h[3] == 0 || h[3] == 1) && (h[4] & 1)) return true;
    }
  }
  void frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
    std::string f;
    f += static_cast<char>(payload.size() >> 16);
    f += static_cast<char>(payload.size() >> 8);
    f += static_cast<char>(payload.size());
    f += static_cast<char>(type);
    f += static_cast<char>(flags);
    f += static_cast<char>(stream >> 24);
    f += static_cast<char>(stream >> 16);
    f += static_cast<char>(stream >> 8);
    f += static_cast<char>(stream);
    f += payload;
    ::send(fd, f.data(), f.size(), MSG_NOSIGNAL);
  }
  void settings() { frame(4, 0, 0, ""); }
  // HPACK: a literal header field without indexing, a new name (both shorter than 127 bytes).
  static std::string field(const std::string& name, const std::string& value) {
    return std::string(1, '\0') + static_cast<char>(name.size()) + name + static_cast<char>(value.size()) + value;
  }
  // ":status: 200" is the static table's entry 8.
  static std::string response_headers() { return "\x88" + field("content-type", "application/grpc"); }
  static std::string status_fields(int code, const std::string& message) {
    std::string f = field("grpc-status", std::to_string(code));
    if (!message.empty()) f += field("grpc-message", message);
    return f;
  }
  // A whole reply: headers, one DATA frame with message framed, trailers.
  void reply(uint32_t stream, const std::string& message) {
    frame(1, 4, stream, response_headers());  // END_HEADERS
    std::string framed(5, '\0');
    framed[4] = static_cast<char>(message.size());
    frame(0, 0, stream, framed + message);
    frame(1, 5, stream, status_fields(0, ""));  // END_STREAM | END_HEADERS
  }
  // A reply that is only its status (gRPC's trailers-only form).
  void error_reply(uint32_t stream, int code, const std::string& message) {
    frame(1, 5, stream, response_headers() + status_fields(code, message));
  }
};

// A server on 127.0.0.1 that runs one script per connection it accepts, in turn, in a thread.
class FakeH2Server {
 public:
  explicit FakeH2Server(std::vector<std::function<void(FakeH2Conn&)>> scripts) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listen_fd_, 4);
    socklen_t len = sizeof a;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, scripts = std::move(scripts)] {
      for (const auto& script : scripts) {
        FakeH2Conn c;
        c.fd = ::accept(listen_fd_, nullptr, nullptr);
        if (c.fd < 0) return;
        ++accepted_;
        script(c);
        ::close(c.fd);
      }
    });
  }
  ~FakeH2Server() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

std::string grpc_channel_test_request(const std::string& message) {
  std::string r;
  isoscope::runner::etcd::grpc_message_begin(r);
  r += message;
  isoscope::runner::etcd::grpc_message_end(r);
  return r;
}

}  // namespace

TEST(GrpcChannel, CallsShareOneConnection) {
  std::vector<std::string> requests;  // read once the server's thread has ended
  int accepted = 0;
  {
    FakeH2Server server({[&](FakeH2Conn& c) {
      uint32_t stream = 0;
      std::string data;
      if (!c.read_preface()) return;
      c.settings();
      for (int i = 0; i < 3 && c.read_request(stream, data); ++i) {
        requests.push_back(data);
        if (i == 0) c.reply(stream, "first");
        else if (i == 1) c.error_reply(stream, 14, "etcdserver:%20leader%20changed");
        else c.reply(stream, "third");
      }
    }});
    GrpcChannel ch("127.0.0.1", server.port(), "fake", 1000, 2000);
    std::string error, body;
    ASSERT_TRUE(ch.open(error)) << error;
    etcd::GrpcReplyStatus status;
    ASSERT_TRUE(ch.call("/etcdserverpb.KV/Range", grpc_channel_test_request("req1"), status, body, error)) << error;
    EXPECT_EQ(status.http_status, 200);
    EXPECT_EQ(status.grpc_status, 0);
    std::string_view message;
    ASSERT_TRUE(etcd::grpc_message(body, message));
    EXPECT_EQ(message, "first");
    ASSERT_TRUE(ch.call("/etcdserverpb.KV/Txn", grpc_channel_test_request("req2"), status, body, error)) << error;
    EXPECT_EQ(status.grpc_status, etcd::kGrpcUnavailable);
    EXPECT_EQ(status.grpc_message, "etcdserver: leader changed");
    EXPECT_TRUE(body.empty());
    ASSERT_TRUE(ch.call("/etcdserverpb.KV/Range", grpc_channel_test_request("req3"), status, body, error)) << error;
    ASSERT_TRUE(etcd::grpc_message(body, message));
    EXPECT_EQ(message, "third");
    ch.close();
    accepted = server.accepted();
  }
  EXPECT_EQ(accepted, 1);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1], grpc_channel_test_request("req2"));
}

TEST(GrpcChannel, ConnectionClosedDuringACallIsAnErrorThenReplaced) {
  FakeH2Server server({[](FakeH2Conn& c) {
                         uint32_t stream = 0;
                         std::string data;
                         if (c.read_preface()) c.settings();
                         c.read_request(stream, data);  // then closed without a reply
                       },
                       [](FakeH2Conn& c) {
                         uint32_t stream = 0;
                         std::string data;
                         if (!c.read_preface()) return;
                         c.settings();
                         if (c.read_request(stream, data)) c.reply(stream, "again");
                       }});
  GrpcChannel ch("127.0.0.1", server.port(), "etcd at fake", 1000, 2000);
  std::string error, body;
  etcd::GrpcReplyStatus status;
  EXPECT_FALSE(ch.call("/etcdserverpb.KV/Txn", grpc_channel_test_request("x"), status, body, error));
  EXPECT_EQ(error, "etcd at fake: the server closed the connection (waiting for the reply to Txn)");
  // The next call connects again.
  ASSERT_TRUE(ch.call("/etcdserverpb.KV/Range", grpc_channel_test_request("y"), status, body, error)) << error;
  std::string_view message;
  ASSERT_TRUE(etcd::grpc_message(body, message));
  EXPECT_EQ(message, "again");
}

TEST(GrpcChannel, IdleConnectionClosedIsReplacedBeforeTheRequest) {
  std::atomic<bool> first_closed{false};
  FakeH2Server server({[&](FakeH2Conn& c) {
                         uint32_t stream = 0;
                         std::string data;
                         if (!c.read_preface()) return;
                         c.settings();
                         if (c.read_request(stream, data)) c.reply(stream, "one");
                         ::shutdown(c.fd, SHUT_RDWR);
                         first_closed = true;
                       },
                       [](FakeH2Conn& c) {
                         uint32_t stream = 0;
                         std::string data;
                         if (!c.read_preface()) return;
                         c.settings();
                         if (c.read_request(stream, data)) c.reply(stream, "two");
                       }});
  GrpcChannel ch("127.0.0.1", server.port(), "fake", 1000, 2000);
  std::string error, body;
  etcd::GrpcReplyStatus status;
  ASSERT_TRUE(ch.call("/etcdserverpb.KV/Range", grpc_channel_test_request("a"), status, body, error)) << error;
  while (!first_closed) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the end of file on its way
  ASSERT_TRUE(ch.call("/etcdserverpb.KV/Txn", grpc_channel_test_request("b"), status, body, error)) << error;
  std::string_view message;
  ASSERT_TRUE(etcd::grpc_message(body, message));
  EXPECT_EQ(message, "two");
  EXPECT_EQ(server.accepted(), 2);
}

TEST(GrpcChannel, SilentServerAndNoServer) {
  {
    // Accepts, never answers (as a stopped process's kernel does): the settings never come.
    FakeH2Server server({[](FakeH2Conn& c) {
      char buf[256];
      while (::recv(c.fd, buf, sizeof buf, 0) > 0) {
      }
    }});
    GrpcChannel ch("127.0.0.1", server.port(), "fake", 1000, 200);
    std::string error;
    EXPECT_FALSE(ch.open(error));
    EXPECT_EQ(error, "fake: no answer within 200 ms (waiting for the server's HTTP/2 settings)");
  }
  // A port nobody listens on: the port of a server that has ended.
  int port = 0;
  { port = FakeH2Server({}).port(); }
  GrpcChannel ch("127.0.0.1", port, "fake", 1000, 200);
  std::string error, body;
  etcd::GrpcReplyStatus status;
  EXPECT_FALSE(ch.call("/etcdserverpb.KV/Range", grpc_channel_test_request("a"), status, body, error));
  EXPECT_EQ(error.rfind("fake: cannot connect: ", 0), 0u) << error;
}

#endif
