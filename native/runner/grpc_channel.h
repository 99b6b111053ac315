// A blocking HTTP/2 client for unary gRPC calls, on nghttp2 (the framing, HPACK, flow control;
// the socket is ours): one TCP connection without TLS (h2c with prior knowledge, which etcd's
// client port takes beside HTTP/1.1), kept open from one call to the next, one call at a time.
// etcd.cpp's sessions each own one, so a transaction's requests do not share a connection with
// another session's (a session's calls wait only on the server, as with the JSON gateway).
//
// libcurl's HTTP/2 (7.88) was tried first: it would not reuse a connection for a second gRPC
// call ("Error in the HTTP2 framing layer"), and a connection a call cost more than the gateway.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "runner/etcd_grpc.h"

struct nghttp2_session;

namespace isoscope::runner {

class GrpcChannel {
 public:
  // where names the server in errors ("etcd at 127.0.0.1:2379").
  GrpcChannel(std::string host, int port, std::string where, int connect_timeout_ms, int call_timeout_ms);
  ~GrpcChannel();
  GrpcChannel(const GrpcChannel&) = delete;
  GrpcChannel& operator=(const GrpcChannel&) = delete;

  // Connects: TCP within the connect timeout, then HTTP/2's settings exchange within the call
  // timeout (a server that accepts but does not answer, such as a paused one, fails here);
  // false with error. A connection already open is kept.
  bool open(std::string& error);
  // One unary call of path ("/etcdserverpb.KV/Range") with request (one gRPC message, framed):
  // true when the reply arrived whole, its header fields in status and its DATA in body (status
  // says whether it is a success); false with error when it did not (no connection, the
  // connection closed or failed, no reply within the call timeout, the stream reset): then the
  // request may or may not have been carried out. A connection the server closed or is closing
  // (GOAWAY) while idle is replaced before the request is sent.
  bool call(const char* path, std::string_view request, etcd::GrpcReplyStatus& status, std::string& body, std::string& error);
  // Ends the connection (the next call opens another).
  void close();

 private:
  struct Callbacks;
  friend struct Callbacks;

  // Sends what nghttp2 has queued, then reads and hands to nghttp2 until done() or the deadline
  // (CLOCK_MONOTONIC ms); false with error (naming the method waited for, none: the settings)
  // when the connection failed or the deadline passed.
  template <class Done>
  bool pump(int64_t deadline_ms, Done&& done, std::string_view method, std::string& error);
  bool flush(int64_t deadline_ms, std::string& error);
  // Takes what the server sent without waiting (a GOAWAY, an end of file, a PING); false when
  // the connection is unusable.
  bool drain_idle();
  // error = where: what[: detail]; the connection is closed.
  void fail(std::string& error, std::string_view what, const char* detail);

  std::string host_, authority_, where_;
  int port_;
  int connect_timeout_ms_, call_timeout_ms_;
  int fd_ = -1;
  nghttp2_session* session_ = nullptr;
  bool settings_received_ = false;
  // The call in progress.
  int32_t stream_id_ = 0;
  bool stream_closed_ = false;
  uint32_t stream_error_ = 0;
  std::string_view request_;
  size_t request_sent_ = 0;
  etcd::GrpcReplyStatus* status_ = nullptr;
  std::string* body_ = nullptr;
  std::string out_;  // bytes nghttp2 gave to send, written at once
};

}  // namespace isoscope::runner
