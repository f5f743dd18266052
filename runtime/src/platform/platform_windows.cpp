// platform.h on Windows (Win32; built with MinGW-w64 and tested under Wine: docs/building.md).
//
// Paths go to the wide-character (W) functions as std::filesystem::path holds them (UTF-16), so
// any name the file system allows works. Handles are opened without inheritance (the Windows
// form of O_CLOEXEC). A temporary is opened with FILE_SHARE_DELETE so that the console control
// handler can delete it while it is still open.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <malloc.h>

#include <algorithm>
#include <string>

#include "platform/platform.h"

namespace vatkit::platform {

namespace {

HANDLE handle_of(FileHandle file) { return reinterpret_cast<HANDLE>(file); }
FileHandle value_of(HANDLE h) { return reinterpret_cast<FileHandle>(h); }
int last_error() { return static_cast<int>(::GetLastError()); }

// ReadFile and WriteFile take a DWORD count: larger spans go in pieces of 1 GiB.
constexpr size_t kMaxIo = size_t(1) << 30;

}  // namespace

std::string error_text(int error) {
  wchar_t* text = nullptr;
  const DWORD n =
      ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                       nullptr, static_cast<DWORD>(error), 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string out;
  if (n != 0 && text != nullptr) {
    const int bytes = ::WideCharToMultiByte(CP_UTF8, 0, text, static_cast<int>(n), nullptr, 0, nullptr, nullptr);
    out.resize(static_cast<size_t>(std::max(bytes, 0)));
    ::WideCharToMultiByte(CP_UTF8, 0, text, static_cast<int>(n), out.data(), bytes, nullptr, nullptr);
  }
  if (text != nullptr) ::LocalFree(text);
  // System messages end in ".\r\n"; a message here is spliced into one line, like strerror's.
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ' || out.back() == '.')) {
    out.pop_back();
  }
  return out.empty() ? "Windows error " + std::to_string(error) : out;
}

unsigned long process_id() { return ::GetCurrentProcessId(); }

// ---- inputs ----

Result<InputHandle> open_input(const std::filesystem::path& path, const std::string& name) {
  // FILE_FLAG_BACKUP_SEMANTICS opens a directory too, so that it is refused by kind below rather
  // than as "access denied". Other processes may go on reading, writing and renaming the file.
  const HANDLE h = ::CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                 nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (h == INVALID_HANDLE_VALUE)
    return make_error(ErrorCode::Io, name, "cannot open (" + error_text(last_error()) + ")");
  const char* refused = nullptr;
  switch (::GetFileType(h)) {
    case FILE_TYPE_DISK: break;
    case FILE_TYPE_CHAR: refused = "is a character device, not a regular file"; break;
    case FILE_TYPE_PIPE: refused = "is a FIFO (named pipe), not a regular file"; break;
    default: refused = "is not a regular file"; break;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (refused == nullptr) {
    if (!::GetFileInformationByHandle(h, &info)) {
      const int error = last_error();
      ::CloseHandle(h);
      return make_error(ErrorCode::Io, name, "cannot stat (" + error_text(error) + ")");
    }
    if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) refused = "is a directory, not a file";
  }
  if (refused != nullptr) {
    ::CloseHandle(h);
    return make_error(ErrorCode::Io, name, refused);
  }
  const uint64_t size = (uint64_t(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  return InputHandle{value_of(h), size};
}

int read_at(FileHandle file, uint64_t offset, std::span<uint8_t> out, size_t& got) {
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(offset);
  at.OffsetHigh = static_cast<DWORD>(offset >> 32);
  DWORD n = 0;
  if (!::ReadFile(handle_of(file), out.data(), static_cast<DWORD>(std::min(out.size(), kMaxIo)), &n, &at)) {
    const int error = last_error();
    if (error != ERROR_HANDLE_EOF) return error;  // reading at or past the end: 0 bytes
    n = 0;
  }
  got = n;
  return 0;
}

// ---- outputs ----

Result<OutputTarget> find_output(const std::filesystem::path& path, const std::string& name) {
  OutputTarget target;
  target.path = path;
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY)) {
    return make_error(ErrorCode::Io, name, "is a directory, not a file");
  }
  // Opened to see what is there (device names such as NUL have no attributes to ask): a file on
  // a disk is replaced, a character device or pipe is written in place through this handle.
  const HANDLE h = ::CreateFileW(path.c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                                 OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    const int error = last_error();
    // Nothing there, or its folder missing (then creating the temporary says so).
    if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) {
      if (!path.has_filename()) return make_error(ErrorCode::Io, name, "not a file name");
      return target;
    }
    // A file that cannot be opened for writing (read-only, in use) may still be replaced: the
    // replacement says why not when it cannot.
    if (attributes != INVALID_FILE_ATTRIBUTES) {
      target.exists = true;
      return target;
    }
    return make_error(ErrorCode::Io, name, "cannot open (" + error_text(error) + ")");
  }
  const DWORD type = ::GetFileType(h);
  if (type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE) {
    target.in_place = value_of(h);
    return target;
  }
  ::CloseHandle(h);
  target.exists = true;
  return target;
}

int create_new(const std::filesystem::path& path, FileHandle& out) {
  // CREATE_NEW fails on any existing name, a symbolic link included (O_EXCL | O_NOFOLLOW).
  const HANDLE h = ::CreateFileW(path.c_str(), GENERIC_WRITE, FILE_SHARE_DELETE, nullptr, CREATE_NEW,
                                 FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return last_error();
  out = value_of(h);
  return 0;
}

bool name_taken(int error) { return error == ERROR_FILE_EXISTS || error == ERROR_ALREADY_EXISTS; }

Result<void> keep_attributes(FileHandle, const OutputTarget&, const std::string&) { return {}; }

int write_all(FileHandle file, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    DWORD n = 0;
    const DWORD piece = static_cast<DWORD>(std::min(bytes.size() - done, kMaxIo));
    if (!::WriteFile(handle_of(file), bytes.data() + done, piece, &n, nullptr)) return last_error();
    done += n;
  }
  return 0;
}

int flush_to_disk(FileHandle file) { return ::FlushFileBuffers(handle_of(file)) ? 0 : last_error(); }

int close(FileHandle file) { return ::CloseHandle(handle_of(file)) ? 0 : last_error(); }

int replace(const std::filesystem::path& from, const std::filesystem::path& to) {
  return ::MoveFileExW(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : last_error();
}

void remove(const std::filesystem::path& path) { ::DeleteFileW(path.c_str()); }

// ---- console control cleanup ----

namespace {

void (*g_cleanup)() = nullptr;

BOOL WINAPI cleanup_on_control(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT: g_cleanup(); break;
    default: break;
  }
  // Not handled: the next handler (in the end the default one, ExitProcess) ends the process.
  return FALSE;
}

}  // namespace

// The handle of an open temporary is this process's: DeleteFileW marks the file, which goes when
// the process ends and the handle closes.
void remove_while_ending(const NativeChar* path) { ::DeleteFileW(path); }

void on_termination_request(void (*cleanup)()) {
  g_cleanup = cleanup;
  ::SetConsoleCtrlHandler(cleanup_on_control, TRUE);
}

// ---- memory ----

// No transparent huge pages (large pages need a privilege and locked memory).
void* allocate_aligned(size_t align, size_t bytes, bool) { return ::_aligned_malloc(bytes, align); }

void free_aligned(void* p) { ::_aligned_free(p); }

}  // namespace vatkit::platform
