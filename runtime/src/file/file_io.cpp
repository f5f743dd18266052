// Outputs: how a destination path is resolved and written (see file_io.h for the rules). A
// replacement goes through a uniquely named sibling opened with O_EXCL | O_NOFOLLOW (same
// directory, so rename() cannot cross a file system); a new file's temporary is created with mode
// 0666, letting the umask give it the permissions any other newly created file would get.
//
// The signal registry is fixed static storage that a handler may read without allocating or
// locking: each slot is free (0), being filled (1) or names a live temporary (2); the handler
// unlinks the live ones. Registration happens right after the temporary is created, and a slot is
// freed right after the temporary was renamed or removed, so the handler at worst unlinks a name
// that no longer exists.
#include "vatkit/file_io.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
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

// ---- the registry of live temporaries, read by the signal handler ----

constexpr int kSlots = 64;
struct TempSlot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' states");
TempSlot g_slots[kSlots];

int register_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  const int saved_errno = errno;
  for (TempSlot& slot : g_slots) {
    if (slot.state.load() == 2) ::unlink(slot.path);
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  errno = saved_errno;
  // Blocked while this handler runs: delivered, with its default action, as it returns.
  ::raise(signal_number);
}

// ---- where an output goes ----

struct Destination {
  std::filesystem::path path;  // the file to replace or create, or the path to open in place
  int descriptor = -1;         // a descriptor of this process to write (a /proc/self/fd/N link)
  bool in_place = false;       // open `path` and write it directly
  bool append = false;         // in place onto a regular file (another process's descriptor link)
  bool exists = false;         // a regular file is there (its mode in `st`)
  struct stat st {};
};

// N when `link` is the descriptor link /proc/PID/fd/N of this process (what /dev/stdout,
// /dev/fd/N and /proc/self/fd/N lead to), else -1.
int own_descriptor(const std::filesystem::path& link) {
  char dir[PATH_MAX];
  if (::realpath(link.parent_path().empty() ? "." : link.parent_path().c_str(), dir) == nullptr) return -1;
  if (std::string(dir) != "/proc/" + std::to_string(::getpid()) + "/fd") return -1;
  const std::string n = link.filename().string();
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(n);
}

// Follows `path` through symbolic links to the name that ends the chain (an existing non-link, or
// a name that does not exist yet). Stops at a descriptor link of this process (`descriptor` set to
// its number): it names an open file, not a path to replace. `through_proc` is set when a link
// points into /proc (another process's descriptor links, which only the kernel can resolve).
Result<std::filesystem::path> follow_links(const std::filesystem::path& path, const std::string& name,
                                           int& descriptor, bool& through_proc) {
  std::filesystem::path p = path;
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return p;
      return make_error(name, "cannot stat " + p.string() + " (" + errno_text(errno) + ")");
    }
    if (!S_ISLNK(st.st_mode)) return p;
    if ((descriptor = own_descriptor(p)) >= 0) return p;
    std::string link(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n < 0 || static_cast<size_t>(n) >= link.size()) {
      return make_error(name, "cannot read the symbolic link " + p.string());
    }
    link.resize(static_cast<size_t>(n));
    if (link.rfind("/proc/", 0) == 0) through_proc = true;
    const std::filesystem::path next(link);
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return make_error(name, "too many levels of symbolic links");
}

Result<Destination> find_destination(const std::filesystem::path& path, const std::string& name) {
  if (path.empty()) return make_error(name, "an empty name is not a file name");
  Destination d;
  bool through_proc = false;
  Result<std::filesystem::path> final_path = follow_links(path, name, d.descriptor, through_proc);
  if (!final_path) return final_path.error();
  if (d.descriptor >= 0) return d;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return make_error(name, "is a directory, not a file");
    if (S_ISBLK(st.st_mode)) return make_error(name, "is a block device: vatkit writes no devices but character devices");
    if (S_ISSOCK(st.st_mode)) return make_error(name, "is a socket, not a file");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      d.path = path;
      d.in_place = true;
      return d;
    }
    if (!S_ISREG(st.st_mode)) return make_error(name, "not a regular file");
    struct stat final_st {};
    // Another process's descriptor link, or a chain that does not lead to the file the kernel
    // found (a race): write through the path as given, as a shell would.
    if (through_proc || ::lstat(final_path->c_str(), &final_st) != 0 || final_st.st_dev != st.st_dev ||
        final_st.st_ino != st.st_ino) {
      d.path = path;
      d.in_place = true;
      d.append = true;
      return d;
    }
    d.path = *final_path;
    d.exists = true;
    d.st = st;
    return d;
  }
  if (errno != ENOENT) return make_error(name, "cannot stat (" + errno_text(errno) + ")");
  if (!final_path->has_filename()) return make_error(name, "not a file name");
  d.path = *final_path;
  return d;
}

// ".NAME.vatkit-PID-N.tmp" with NAME cut to 64 bytes: within NAME_MAX whatever the name's length.
std::string temporary_name(const std::filesystem::path& target, unsigned counter) {
  constexpr size_t kNameBytes = 64;
  const std::string base = target.filename().string();
  // Appends rather than operator+ chains: g++ 12 warns falsely (-Wrestrict) on the latter.
  std::string name = ".";
  name.append(base, 0, kNameBytes);
  name.append(".vatkit-");
  name.append(std::to_string(::getpid()));
  name.append("-");
  name.append(std::to_string(counter));
  name.append(".tmp");
  return name;
}

}  // namespace

Result<OutputFile> OutputFile::create(const std::filesystem::path& path) {
  const std::string name = path.string();
  Result<Destination> found = find_destination(path, name);
  if (!found) return found.error();
  const Destination& d = *found;

  OutputFile out;
  out.name_ = name;
  out.target_ = d.path;
  if (d.descriptor >= 0 || d.in_place) {
    // This process's own descriptor is duplicated: the bytes land where it points, at its offset
    // (what the process prints to it afterwards follows them).
    if (d.descriptor >= 0) {
      out.fd_ = ::fcntl(d.descriptor, F_DUPFD_CLOEXEC, 0);
    } else {
      out.fd_ = ::open(d.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (d.append ? O_APPEND : 0));
    }
    if (out.fd_ < 0) return make_error(name, "cannot open (" + errno_text(errno) + ")");
    struct stat st {};
    // Checked again on the open file: the path may have changed since it was looked at.
    if (::fstat(out.fd_, &st) != 0 || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
      return make_error(name, "not a file, character device or FIFO");
    }
    return out;
  }

  static std::atomic<unsigned> counter{0};
  const std::filesystem::path dir = d.path.has_parent_path() ? d.path.parent_path() : ".";
  int open_error = 0;
  for (int attempt = 0; attempt < 100 && out.fd_ < 0; ++attempt) {
    out.temp_ = dir / temporary_name(d.path, counter.fetch_add(1));
    out.fd_ = ::open(out.temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    open_error = out.fd_ < 0 ? errno : 0;
    if (out.fd_ < 0 && open_error != EEXIST) break;
  }
  if (out.fd_ < 0) {
    out.temp_.clear();
    return make_error(name, "cannot create a temporary file next to it (" + errno_text(open_error) + ")");
  }
  out.slot_ = register_temporary(out.temp_.string());
  if (d.exists) {
    // The replacement keeps the owner (where the process may set it: root) and never widens the
    // permissions. fchown before fchmod: a change of owner may clear mode bits.
    if (::fchown(out.fd_, d.st.st_uid, d.st.st_gid) != 0 && errno != EPERM) {
      const int error = errno;
      out.abandon();
      return make_error(name, "cannot give the new file the old one's owner (" + errno_text(error) + ")");
    }
    if (::fchmod(out.fd_, d.st.st_mode & 0777) != 0) {
      const int error = errno;
      out.abandon();
      return make_error(name, "cannot give the new file the old one's permissions (" + errno_text(error) + ")");
    }
  }
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : name_(std::move(other.name_)),
      target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      fd_(other.fd_),
      slot_(other.slot_),
      size_(other.size_),
      done_(other.done_) {
  other.fd_ = -1;
  other.slot_ = -1;
  other.temp_.clear();
  other.done_ = true;
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    abandon();
    name_ = std::move(other.name_);
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    fd_ = other.fd_;
    slot_ = other.slot_;
    size_ = other.size_;
    done_ = other.done_;
    other.fd_ = -1;
    other.slot_ = -1;
    other.temp_.clear();
    other.done_ = true;
  }
  return *this;
}

OutputFile::~OutputFile() { abandon(); }

void OutputFile::abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  unregister_temporary(slot_);
  slot_ = -1;
  done_ = true;
}

Result<void> OutputFile::write(std::span<const uint8_t> bytes) {
  if (done_ || fd_ < 0) return make_error(name_, "write after the output was finished or abandoned");
  if (const int error = write_all(fd_, bytes)) {
    abandon();
    return make_error(name_, "write failed (" + errno_text(error) + ")");
  }
  size_ += bytes.size();
  return {};
}

Result<void> OutputFile::write(std::string_view text) {
  return write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Result<void> OutputFile::finish() {
  if (done_) return make_error(name_, "the output was committed or abandoned");
  if (fd_ < 0) return {};
  // In place (a device, a FIFO, a descriptor): nothing to flush to disk.
  if (!temp_.empty() && ::fsync(fd_) != 0) {
    const int error = errno;
    abandon();
    return make_error(name_, "fsync failed (" + errno_text(error) + ")");
  }
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) {
    const int error = errno;
    abandon();
    return make_error(name_, "close failed (" + errno_text(error) + ")");
  }
  return {};
}

Result<void> OutputFile::commit() {
  if (Result<void> finished = finish(); !finished) return finished;
  if (temp_.empty()) {  // in place
    done_ = true;
    return {};
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    abandon();
    return make_error(name_, "cannot replace it (" + errno_text(error) + ")");
  }
  temp_.clear();
  unregister_temporary(slot_);
  slot_ = -1;
  done_ = true;
  return {};
}

Result<void> write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  const std::span<const uint8_t> pieces[1] = {bytes};
  return write_file_atomic_pieces(path, pieces);
}

Result<void> write_file_atomic_pieces(const std::filesystem::path& path,
                                      std::span<const std::span<const uint8_t>> pieces) {
  Result<OutputFile> out = OutputFile::create(path);
  if (!out) return out.error();
  for (const std::span<const uint8_t>& bytes : pieces) {
    if (Result<void> written = out->write(bytes); !written) return written;
  }
  return out->commit();
}

void remove_temporaries_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_reraise;
  sigemptyset(&action.sa_mask);
  for (const int s : kCleanupSignals) sigaddset(&action.sa_mask, s);
  for (const int s : kCleanupSignals) {
    struct sigaction old {};
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(s, &action, nullptr);
  }
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
  std::string name = path.string();
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
      // Every byte fstat promised is in: probe for more into a small buffer rather than growing
      // the vector (which would reallocate and copy the whole file just to find the end).
      uint8_t probe[4096];
      ssize_t n;
      do n = ::pread(fd_, probe, sizeof probe, static_cast<off_t>(offset + done));
      while (n < 0 && errno == EINTR);
      if (n < 0) return make_error(name_, "read failed (" + errno_text(errno) + ")");
      if (n == 0) break;
      if (done + static_cast<uint64_t>(n) > max_bytes) return too_large(done + static_cast<uint64_t>(n));
      bytes.insert(bytes.end(), probe, probe + n);  // the file grew (or /proc said 0): keep going
      done += static_cast<size_t>(n);
      continue;
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
