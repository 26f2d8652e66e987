#include "service/service.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "stowage/error.h"

namespace stowage::service {

std::size_t StringSource::read(char* buf, std::size_t n) {
  const std::size_t count = std::min(n, data_.size());
  std::copy_n(data_.data(), count, buf);
  data_.remove_prefix(count);
  return count;
}

FileSource::FileSource(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) {
    throw Error::io("cannot open " + path_ + ": " + std::strerror(errno));
  }
}

FileSource::~FileSource() { ::close(fd_); }

std::size_t FileSource::read(char* buf, std::size_t n) {
  for (;;) {
    const ssize_t count = ::read(fd_, buf, n);
    if (count >= 0) return static_cast<std::size_t>(count);
    if (errno != EINTR) {
      throw Error::io("cannot read " + path_ + ": " + std::strerror(errno));
    }
  }
}

std::string_view to_string(Disposition disposition) {
  return disposition == Disposition::Inline ? "inline" : "attachment";
}

}  // namespace stowage::service
