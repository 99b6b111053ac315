#include "runner/grpc_channel.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "runner/database.h"

namespace isoscope::runner {

namespace {

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

// Waits until fd is ready for events or the deadline: 1 ready, 0 timed out, -1 failed (errno).
int wait_fd(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    const int64_t left = deadline_ms - now_ms();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(left));
    if (rc < 0 && errno == EINTR) continue;
    return rc;
  }
}

nghttp2_nv header(const char* name, size_t name_len, const char* value, size_t value_len) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name)), reinterpret_cast<uint8_t*>(const_cast<char*>(value)), name_len,
          value_len, NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

}  // namespace

// nghttp2's callbacks, into the channel that is their session's user data. They only note what
// arrived for the call in progress; pump() decides.
struct GrpcChannel::Callbacks {
  static int frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self) {
    auto* c = static_cast<GrpcChannel*>(self);
    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK)) c->settings_received_ = true;
    return 0;
  }
  static int header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t name_len, const uint8_t* value,
                    size_t value_len, uint8_t, void* self) {
    auto* c = static_cast<GrpcChannel*>(self);
    if (frame->hd.stream_id == c->stream_id_ && c->status_)
      etcd::grpc_reply_field({reinterpret_cast<const char*>(name), name_len}, {reinterpret_cast<const char*>(value), value_len}, *c->status_);
    return 0;
  }
  static int data(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len, void* self) {
    auto* c = static_cast<GrpcChannel*>(self);
    if (stream_id == c->stream_id_ && c->body_) c->body_->append(reinterpret_cast<const char*>(data), len);
    return 0;
  }
  static int stream_close(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* self) {
    auto* c = static_cast<GrpcChannel*>(self);
    if (stream_id == c->stream_id_) {
      c->stream_closed_ = true;
      c->stream_error_ = error_code;
    }
    return 0;
  }
  // The request's body, copied into the DATA frame nghttp2 makes.
  static ssize_t read_request(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags, nghttp2_data_source*, void* self) {
    auto* c = static_cast<GrpcChannel*>(self);
    const size_t n = std::min(length, c->request_.size() - c->request_sent_);
    std::memcpy(buf, c->request_.data() + c->request_sent_, n);
    c->request_sent_ += n;
    if (c->request_sent_ == c->request_.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
};

GrpcChannel::GrpcChannel(std::string host, int port, std::string where, int connect_timeout_ms, int call_timeout_ms)
    : host_(std::move(host)), where_(std::move(where)), port_(port), connect_timeout_ms_(connect_timeout_ms), call_timeout_ms_(call_timeout_ms) {
  authority_ = host_port_text(host_, port_);
}

GrpcChannel::~GrpcChannel() { close(); }

void GrpcChannel::close() {
  if (session_) nghttp2_session_del(session_);
  session_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  settings_received_ = false;
  stream_id_ = 0;
}

void GrpcChannel::fail(std::string& error, std::string_view what, const char* detail) {
  error = where_;
  error += ": ";
  error += what;
  if (detail) {
    error += ": ";
    error += detail;
  }
  close();
}

bool GrpcChannel::open(std::string& error) {
  if (session_) return true;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(port_);
  if (const int rc = ::getaddrinfo(host_.c_str(), port.c_str(), &hints, &found); rc != 0) {
    fail(error, "cannot resolve the host", gai_strerror(rc));
    return false;
  }
  const int64_t connect_deadline = now_ms() + connect_timeout_ms_;
  std::string why = "no address";
  for (addrinfo* a = found; a && fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc < 0 && errno == EINPROGRESS) {
      rc = wait_fd(fd, POLLOUT, connect_deadline);
      int so_error = 0;
      socklen_t len = sizeof so_error;
      if (rc == 0) {
        errno = ETIMEDOUT;
        rc = -1;
      } else if (rc > 0 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error != 0) {
        errno = so_error;
        rc = -1;
      } else if (rc > 0) {
        rc = 0;
      }
    }
    if (rc < 0) {
      why = std::strerror(errno);
      ::close(fd);
      continue;
    }
    fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) {
    fail(error, "cannot connect", why.c_str());
    return false;
  }
  // A request is one write and waits for its reply: Nagle's delay would hold the next one.
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) {
    fail(error, "cannot make nghttp2's callbacks", nullptr);
    return false;
  }
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Callbacks::frame_recv);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Callbacks::header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Callbacks::data);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Callbacks::stream_close);
  const int rc = nghttp2_session_client_new(&session_, callbacks, this);
  nghttp2_session_callbacks_del(callbacks);
  if (rc != 0) {
    session_ = nullptr;
    fail(error, "cannot make an nghttp2 session", nghttp2_strerror(rc));
    return false;
  }
  // The client preface goes with these settings. The server pushes nothing to a gRPC client.
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0}};
  if (const int s = nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 1); s != 0) {
    fail(error, "cannot queue HTTP/2 settings", nghttp2_strerror(s));
    return false;
  }
  // The server's settings: it speaks HTTP/2 and is not stopped.
  return pump(now_ms() + call_timeout_ms_, [&] { return settings_received_; }, {}, error);
}

bool GrpcChannel::flush(int64_t deadline_ms, std::string& error) {
  out_.clear();
  for (;;) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      fail(error, "HTTP/2 error", nghttp2_strerror(static_cast<int>(n)));
      return false;
    }
    if (n == 0) break;
    out_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  for (size_t sent = 0; sent < out_.size();) {
    const ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      fail(error, "cannot send", std::strerror(errno));
      return false;
    }
    const int rc = wait_fd(fd_, POLLOUT, deadline_ms);
    if (rc <= 0) {
      fail(error, rc == 0 ? "cannot send within the timeout" : "cannot send", rc == 0 ? nullptr : std::strerror(errno));
      return false;
    }
  }
  return true;
}

template <class Done>
bool GrpcChannel::pump(int64_t deadline_ms, Done&& done, std::string_view method, std::string& error) {
  const auto waiting_for = [&] { return method.empty() ? std::string("the server's HTTP/2 settings") : "the reply to " + std::string(method); };
  uint8_t buf[16384];
  for (;;) {
    if (!flush(deadline_ms, error)) return false;
    if (done()) return true;
    // Waiting first: what was just sent has not been answered yet (a read now would find nothing,
    // one system call more a request).
    const int rc = wait_fd(fd_, POLLIN, deadline_ms);
    if (rc == 0) {
      fail(error, "no answer within " + std::to_string(call_timeout_ms_) + " ms (waiting for " + waiting_for() + ")", nullptr);
      return false;
    }
    if (rc < 0) {
      fail(error, "cannot wait for the server", std::strerror(errno));
      return false;
    }
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0) {
      fail(error, "the server closed the connection (waiting for " + waiting_for() + ")", nullptr);
      return false;
    }
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      fail(error, "cannot receive", std::strerror(errno));
      return false;
    }
    const ssize_t used = nghttp2_session_mem_recv(session_, buf, static_cast<size_t>(n));
    if (used < 0) {
      fail(error, "HTTP/2 error", nghttp2_strerror(static_cast<int>(used)));
      return false;
    }
  }
}

bool GrpcChannel::drain_idle() {
  uint8_t buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (nghttp2_session_mem_recv(session_, buf, static_cast<size_t>(n)) < 0) return false;
  }
}

bool GrpcChannel::call(const char* path, std::string_view request, etcd::GrpcReplyStatus& status, std::string& body, std::string& error) {
  status.clear();
  body.clear();
  // An idle connection the server ended (a restart, a GOAWAY): replaced before anything is sent,
  // so the request is not lost with it.
  if (session_ && (!drain_idle() || !nghttp2_session_check_request_allowed(session_))) close();
  if (!open(error)) return false;
  const size_t path_len = std::strlen(path);
  const nghttp2_nv headers[] = {
      header(":method", 7, "POST", 4),
      header(":scheme", 7, "http", 4),
      header(":path", 5, path, path_len),
      header(":authority", 10, authority_.data(), authority_.size()),
      header("content-type", 12, "application/grpc", 16),
      header("te", 2, "trailers", 8),
  };
  nghttp2_data_provider provider{};
  provider.read_callback = &Callbacks::read_request;
  request_ = request;
  request_sent_ = 0;
  status_ = &status;
  body_ = &body;
  stream_closed_ = false;
  stream_error_ = 0;
  const int32_t id = nghttp2_submit_request(session_, nullptr, headers, sizeof headers / sizeof headers[0], &provider, nullptr);
  if (id < 0) {
    status_ = nullptr;
    body_ = nullptr;
    fail(error, "cannot queue the request", nghttp2_strerror(id));
    return false;
  }
  stream_id_ = id;
  std::string_view method = path;
  method.remove_prefix(method.rfind('/') + 1);  // "Range", "Txn"
  const bool ok = pump(now_ms() + call_timeout_ms_, [&] { return stream_closed_; }, method, error);
  status_ = nullptr;
  body_ = nullptr;
  request_ = {};
  if (!ok) return false;
  stream_id_ = 0;
  // Reset by the server, or cut short by a GOAWAY, before gRPC's status arrived.
  if (stream_error_ != 0 && status.grpc_status < 0) {
    error = where_;
    error += ": the server reset the stream of ";
    error += path;
    error += ": ";
    error += nghttp2_http2_strerror(stream_error_);
    return false;
  }
  return true;
}

}  // namespace isoscope::runner
