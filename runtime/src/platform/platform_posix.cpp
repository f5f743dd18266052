// platform.h on POSIX systems.
//
// Outputs: a replacement's temporary is opened with O_EXCL | O_NOFOLLOW in the target's own
// directory (so rename() cannot cross a file system) and mode 0666, letting the umask give it the
// permissions any other newly created file would get; keep_attributes then narrows them to the
// old file's.
#include "platform/platform.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace vatkit::platform {

std::string error_text(int error) { return std::strerror(error); }

unsigned long process_id() { return static_cast<unsigned long>(::getpid()); }

namespace {

int fd_of(FileHandle file) { return static_cast<int>(file); }

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

}  // namespace

Result<InputHandle> open_input(const std::filesystem::path& path, const std::string& name) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
  // O_NOCTTY: a terminal device must not become the controlling terminal.
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return make_error(ErrorCode::Io, name, "cannot open (" + error_text(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return make_error(ErrorCode::Io, name, "cannot stat (" + error_text(error) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::Io, name, kind_of(st.st_mode));
  }
  // A regular file: reads block as usual from here (O_NONBLOCK only mattered for open()).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int error = errno;
    ::close(fd);
    return make_error(ErrorCode::Io, name, "cannot set up reading (" + error_text(error) + ")");
  }
  return InputHandle{fd, static_cast<uint64_t>(st.st_size)};
}

int read_at(FileHandle file, uint64_t offset, std::span<uint8_t> out, size_t& got) {
  ssize_t n;
  do n = ::pread(fd_of(file), out.data(), out.size(), static_cast<off_t>(offset));
  while (n < 0 && errno == EINTR);
  if (n < 0) return errno;
  got = static_cast<size_t>(n);
  return 0;
}

// ---- where an output goes ----

namespace {

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
Result<std::filesystem::path> follow_links(const std::filesystem::path& path, const std::string& name, int& descriptor,
                                           bool& through_proc) {
  std::filesystem::path p = path;
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return p;
      return make_error(ErrorCode::Io, name, "cannot stat " + p.string() + " (" + error_text(errno) + ")");
    }
    if (!S_ISLNK(st.st_mode)) return p;
    if ((descriptor = own_descriptor(p)) >= 0) return p;
    std::string link(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n < 0 || static_cast<size_t>(n) >= link.size()) {
      return make_error(ErrorCode::Io, name, "cannot read the symbolic link " + p.string());
    }
    link.resize(static_cast<size_t>(n));
    if (link.rfind("/proc/", 0) == 0) through_proc = true;
    const std::filesystem::path next(link);
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return make_error(ErrorCode::Io, name, "too many levels of symbolic links");
}

// The destination as found on the file system, before anything is opened.
struct Destination {
  std::filesystem::path path;  // the file to replace or create, or the path to open in place
  int descriptor = -1;         // a descriptor of this process to write (a /proc/self/fd/N link)
  bool in_place = false;       // open `path` and write it directly
  bool append = false;         // in place onto a regular file (another process's descriptor link)
  bool exists = false;         // a regular file is there (its mode in `st`)
  struct stat st {};
};

Result<Destination> find_destination(const std::filesystem::path& path, const std::string& name) {
  Destination d;
  bool through_proc = false;
  Result<std::filesystem::path> final_path = follow_links(path, name, d.descriptor, through_proc);
  if (!final_path) return final_path.error();
  if (d.descriptor >= 0) return d;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return make_error(ErrorCode::Io, name, "is a directory, not a file");
    if (S_ISBLK(st.st_mode))
      return make_error(ErrorCode::Io, name, "is a block device: vatkit writes no devices but character devices");
    if (S_ISSOCK(st.st_mode)) return make_error(ErrorCode::Io, name, "is a socket, not a file");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      d.path = path;
      d.in_place = true;
      return d;
    }
    if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::Io, name, "not a regular file");
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
  if (errno != ENOENT) return make_error(ErrorCode::Io, name, "cannot stat (" + error_text(errno) + ")");
  if (!final_path->has_filename()) return make_error(ErrorCode::Io, name, "not a file name");
  d.path = *final_path;
  return d;
}

}  // namespace

Result<OutputTarget> find_output(const std::filesystem::path& path, const std::string& name) {
  Result<Destination> found = find_destination(path, name);
  if (!found) return found.error();
  const Destination& d = *found;
  OutputTarget target;
  target.path = d.path;
  if (d.descriptor >= 0 || d.in_place) {
    // This process's own descriptor is duplicated: the bytes land where it points, at its offset
    // (what the process prints to it afterwards follows them).
    int fd;
    if (d.descriptor >= 0) {
      fd = ::fcntl(d.descriptor, F_DUPFD_CLOEXEC, 0);
    } else {
      fd = ::open(d.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (d.append ? O_APPEND : 0));
    }
    if (fd < 0) return make_error(ErrorCode::Io, name, "cannot open (" + error_text(errno) + ")");
    target.in_place = fd;
    struct stat st {};
    // Checked again on the open file: the path may have changed since it was looked at.
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
      ::close(fd);
      return make_error(ErrorCode::Io, name, "not a file, character device or FIFO");
    }
    return target;
  }
  target.exists = d.exists;
  target.mode = d.st.st_mode;
  target.owner = d.st.st_uid;
  target.group = d.st.st_gid;
  return target;
}

int create_new(const std::filesystem::path& path, FileHandle& out) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  out = fd;
  return 0;
}

bool name_taken(int error) { return error == EEXIST; }

Result<void> keep_attributes(FileHandle file, const OutputTarget& target, const std::string& name) {
  if (!target.exists) return {};
  // The replacement keeps the owner (where the process may set it: root) and never widens the
  // permissions. fchown before fchmod: a change of owner may clear mode bits.
  if (::fchown(fd_of(file), target.owner, target.group) != 0 && errno != EPERM) {
    return make_error(ErrorCode::Io, name, "cannot give the new file the old one's owner (" + error_text(errno) + ")");
  }
  if (::fchmod(fd_of(file), target.mode & 0777) != 0) {
    return make_error(ErrorCode::Io, name,
                      "cannot give the new file the old one's permissions (" + error_text(errno) + ")");
  }
  return {};
}

int write_all(FileHandle file, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_of(file), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

int flush_to_disk(FileHandle file) { return ::fsync(fd_of(file)) == 0 ? 0 : errno; }

int close(FileHandle file) { return ::close(fd_of(file)) == 0 ? 0 : errno; }

int replace(const std::filesystem::path& from, const std::filesystem::path& to) {
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

void remove(const std::filesystem::path& path) { ::unlink(path.c_str()); }

// ---- signal-time cleanup ----

namespace {

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
void (*g_cleanup)() = nullptr;

extern "C" void cleanup_and_reraise(int signal_number) {
  const int saved_errno = errno;
  g_cleanup();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  errno = saved_errno;
  // Blocked while this handler runs: delivered, with its default action, as it returns.
  ::raise(signal_number);
}

}  // namespace

void remove_while_ending(const NativeChar* path) { ::unlink(path); }

void on_termination_request(void (*cleanup)()) {
  g_cleanup = cleanup;
  struct sigaction action {};
  action.sa_handler = cleanup_and_reraise;
  sigemptyset(&action.sa_mask);
  for (const int s : kCleanupSignals) sigaddset(&action.sa_mask, s);
  for (const int s : kCleanupSignals) {
    struct sigaction old {};
    // A signal the process ignores (SIG_IGN, e.g. under nohup) stays ignored.
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(s, &action, nullptr);
  }
}

// ---- memory ----

void* allocate_aligned(size_t align, size_t bytes, bool huge_pages) {
  void* p = std::aligned_alloc(align, bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p != nullptr && huge_pages) madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)huge_pages;
#endif
  return p;
}

void free_aligned(void* p) { std::free(p); }

}  // namespace vatkit::platform
