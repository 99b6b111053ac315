// Text that goes to a string, or to a file in 1 MB pieces: where every writer of text (the
// formats' writers, the register-history generator) puts it.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace isoscope {

class TextOut {
 public:
  explicit TextOut(std::FILE* file = nullptr) : file_(file) {}
  void put(std::string_view s) {
    buf_.append(s.data(), s.size());
    if (file_ && buf_.size() >= (1u << 20)) flush();
  }
  void put(char c) { buf_ += c; }
  // Writes what is buffered to the file; false once any write failed.
  bool flush() {
    if (file_ && !buf_.empty()) {
      ok_ = ok_ && std::fwrite(buf_.data(), 1, buf_.size(), file_) == buf_.size();
      buf_.clear();
    }
    return ok_;
  }
  std::string& text() { return buf_; }  // without a file: everything written

 private:
  std::FILE* file_;
  std::string buf_;
  bool ok_ = true;
};

}  // namespace isoscope
