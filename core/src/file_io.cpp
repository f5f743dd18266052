// Atomic writes go through a uniquely named sibling file (same directory, so rename() cannot
// cross a file system) opened with O_EXCL and mode 0666, letting the umask give the final file
// the permissions any other newly created file would get.
#include "vatkit/file_io.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

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

Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path) {
  const std::string name = display(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(name, "cannot open (" + errno_text(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return make_error(name, "cannot stat (" + errno_text(error) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(name, S_ISDIR(st.st_mode) ? "is a directory, not a file" : "not a regular file");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (true) {
    if (done == bytes.size()) bytes.resize(bytes.size() + 65536);  // the file may have grown
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return make_error(name, "read failed (" + errno_text(error) + ")");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

}  // namespace vatkit
