// Atomic writes go through a uniquely named sibling file (same directory, so rename() cannot
// cross a file system) opened with O_EXCL and mode 0666, letting the umask give the final file
// the permissions any other newly created file would get.
#include "vatkit/file_io.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vatkit {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

std::string display(const std::filesystem::path& path) { return path.string(); }

// Writes all of `bytes`, retrying short writes and EINTR. Returns 0 or an errno value.
int write_all(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

Result<void> write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  const std::span<const uint8_t> pieces[1] = {bytes};
  return write_file_atomic_pieces(path, pieces);
}

Result<void> write_file_atomic_pieces(const std::filesystem::path& path,
                                      std::span<const std::span<const uint8_t>> pieces) {
  const std::string name = display(path);
  if (path.empty() || !path.has_filename()) return make_error(name, "not a file name");
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";

  static std::atomic<unsigned> counter{0};
  std::filesystem::path temp;
  int fd = -1;
  int open_error = 0;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    // Appends rather than operator+ chains: g++ 12 warns falsely (-Wrestrict) on the latter.
    std::string temp_name = ".";
    temp_name.append(path.filename().string());
    temp_name.append(".tmp");
    temp_name.append(std::to_string(::getpid()));
    temp_name.append("_");
    temp_name.append(std::to_string(counter.fetch_add(1)));
    temp = dir / temp_name;
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    open_error = fd < 0 ? errno : 0;
    if (fd < 0 && open_error != EEXIST) break;
  }
  if (fd < 0) {
    return make_error(name, "cannot create a temporary file next to it (" +
                                errno_text(open_error) + ")");
  }

  auto fail = [&](const std::string& what, int error) -> Result<void> {
    ::close(fd);
    ::unlink(temp.c_str());
    return make_error(name, what + " (" + errno_text(error) + ")");
  };
  for (const std::span<const uint8_t>& bytes : pieces) {
    if (const int error = write_all(fd, bytes)) return fail("write failed", error);
  }
  if (::fsync(fd) != 0) return fail("fsync failed", errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return make_error(name, "close failed (" + errno_text(error) + ")");
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return make_error(name, "cannot replace it (" + errno_text(error) + ")");
  }
  return {};
}

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

std::string bytes_text(uint64_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

Result<InputFile> InputFile::open(const std::filesystem::path& path) {
  std::string name = display(path);
  if (path.empty()) return make_error("<input>", "no file name given");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
  // O_NOCTTY: a terminal device must not become the controlling terminal.
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return make_error(name, "cannot open (" + errno_text(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return make_error(name, "cannot stat (" + errno_text(error) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(name, kind_of(st.st_mode));
  }
  // A regular file: reads block as usual from here (O_NONBLOCK only mattered for open()).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int error = errno;
    ::close(fd);
    return make_error(name, "cannot set up reading (" + errno_text(error) + ")");
  }
  return InputFile(fd, std::move(name), static_cast<uint64_t>(st.st_size));
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
    size_ = other.size_;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> InputFile::read_at(uint64_t offset, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(name_, "read failed (" + errno_text(errno) + ")");
    }
    if (n == 0) {
      return make_error(name_, "ends at " + bytes_text(offset + done) + ", but " + bytes_text(offset + out.size()) +
                                   " were expected (truncated, or changed while being read)");
    }
    done += static_cast<size_t>(n);
  }
  return {};
}

Result<std::vector<uint8_t>> InputFile::read_rest(uint64_t offset, uint64_t max_bytes, const std::string& what) const {
  const uint64_t expected = size_ > offset ? size_ - offset : 0;
  auto too_large = [&](uint64_t at_least) {
    return make_error(name_, (at_least == expected ? "is " : "has at least ") + bytes_text(at_least) +
                                 (offset ? " from byte " + std::to_string(offset) : std::string()) + ", more than " +
                                 what + " (" + bytes_text(max_bytes) + ")");
  };
  if (expected > max_bytes) return too_large(expected);
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(static_cast<size_t>(expected));
  } catch (const std::bad_alloc&) {
    return make_error(name_, "out of memory reading " + bytes_text(expected));
  }
  size_t done = 0;
  while (true) {
    if (done == bytes.size()) {
      if (done >= max_bytes) {
        // Full: one more byte would be over the limit.
        uint8_t probe;
        ssize_t n;
        do n = ::pread(fd_, &probe, 1, static_cast<off_t>(offset + done));
        while (n < 0 && errno == EINTR);
        if (n > 0) return too_large(done + 1);
        if (n < 0) return make_error(name_, "read failed (" + errno_text(errno) + ")");
        break;
      }
      bytes.resize(static_cast<size_t>(std::min<uint64_t>(max_bytes, bytes.size() + 65536)));  // it may have grown
    }
    const ssize_t n = ::pread(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(name_, "read failed (" + errno_text(errno) + ")");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, uint64_t max_bytes) {
  Result<InputFile> file = InputFile::open(path);
  if (!file) return file.error();
  return file->read_rest(0, max_bytes, "the most this reads");
}

}  // namespace vatkit
