// vatkit/file_io.h: reading and writing whole files, with errors as values.
//
// OutputFile is how vatkit writes every output (.glb, .vat.glb, PNG, JSON); write_file_atomic and
// write_file_atomic_pieces are one-call forms of it. What an output path gets depends on what is
// there when the output is created:
//   - nothing (or a symbolic link to nothing): a new file, created through a temporary sibling
//     and renamed into place by commit(); its mode is 0666 less the umask, like any new file.
//   - a regular file: replaced atomically. The bytes go to a temporary file in the same
//     directory, are flushed to disk (fsync), then commit() renames the temporary over the
//     file, so a reader sees the old file or the complete new one, never a partial one. The new
//     file gets the old one's permission bits (never wider; the set-user-ID, set-group-ID and
//     sticky bits are not carried) and, where the process may (root), its owner and group.
//     Other hard links to the old file keep the old bytes.
//   - a symbolic link: followed to its final target, which is replaced as above in the target's
//     own directory; the link stays a link and points at the new file.
//   - a descriptor link of the process (/dev/stdout, /dev/fd/N, /proc/self/fd/N): that open
//     descriptor is written (duplicated, so at its offset, whatever it is: a file, a pipe, a
//     terminal, a socket), never replaced.
//   - a character device or FIFO (/dev/null, a terminal, a named pipe): written in place, no
//     temporary, as a shell redirection would; what was written stays written if the command
//     then fails. Another process's descriptor link (/proc/PID/fd/N) to a regular file is opened
//     and appended to.
//   - a directory, socket or block device: refused, nothing written.
// A failed or abandoned output (never committed) leaves nothing behind: the destructor removes
// the temporary. What is not done: create missing directories, or fsync the directory itself.
// The rules above are POSIX's. On Windows: nothing there gives a new file and a file is replaced
// through a temporary as above (FlushFileBuffers, then MoveFileExW with MOVEFILE_REPLACE_EXISTING
// and MOVEFILE_WRITE_THROUGH), the new file getting the permissions the directory gives a new
// file; a character device or pipe (NUL, CON, a named pipe) is written in place; a directory is
// refused; a symbolic link is replaced by the file, not followed.
//
// Signals: a process killed by SIGINT, SIGTERM or SIGHUP would leave its temporaries behind. A
// program that wants them removed calls remove_temporaries_on_signals() once (the vatkit CLI's
// main does); the library never installs signal handlers by itself.
//
// Cost: every call blocks on the file system; commit()/finish() fsync. Threads: one OutputFile or
// InputFile is used by one thread at a time; different ones may be used concurrently (the
// registry of temporaries the signal handler reads is lock-free atomics).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vatkit/result.h"

namespace vatkit {

// One output being written: create(), write() any number of times, commit(). Move-only.
class OutputFile {
 public:
  // Opens the output for `path` (see above). Errors name the path and the reason, e.g.
  //     "out/x.glb: cannot create a temporary file next to it (No such file or directory)",
  //     "out: is a directory, not a file". An empty path is refused ("an empty name").
  static Result<OutputFile> create(const std::filesystem::path& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Removes the temporary of an output never committed.
  ~OutputFile();

  // Appends bytes. After a failed write the output is abandoned (temporary removed) and every
  // later call fails.
  Result<void> write(std::span<const uint8_t> bytes);
  Result<void> write(std::string_view text);

  // Flushes the bytes to disk and closes the file, leaving commit() only the rename: for a
  // program that holds many finished outputs until it commits them all. No write() after it.
  Result<void> finish();

  // Makes the output visible: finish(), then rename over the destination (in place: close). Once.
  Result<void> commit();

  // Bytes written so far.
  uint64_t size() const { return size_; }

 private:
  OutputFile() = default;
  void abandon();

  std::string name_;              // the path as given, for messages
  std::filesystem::path target_;  // what commit() renames over (symbolic links followed)
  std::filesystem::path temp_;    // empty when written in place
  std::intptr_t file_ = -1;       // the open file (a descriptor, or a Windows HANDLE), or -1
  int signal_entry_ = -1;         // this temporary's place in the signal registry, or -1
  uint64_t size_ = 0;
  bool done_ = false;  // committed, failed or moved from
};

// Writes `bytes` to `path` through an OutputFile: created, written, committed.
Result<void> write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes);

// The same for a file given in pieces, written one after another (the caller need not join
// them into one buffer first: save_vat writes a baked file straight from its planes).
Result<void> write_file_atomic_pieces(const std::filesystem::path& path,
                                      std::span<const std::span<const uint8_t>> pieces);

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporaries of the outputs
// being written (up to 64 at once; beyond that a temporary is still removed on every other path
// but not on a signal), restore the signal's default action and raise it again, so the process
// ends as the signal meant. A signal the process ignores (SIG_IGN, e.g. under nohup) stays
// ignored. Call it once, early, from a program's main; it replaces earlier handlers for those
// three signals. On Windows it installs a console control handler instead (SetConsoleCtrlHandler:
// Ctrl+C, Ctrl+Break, closing the console, log-off, shut-down) that deletes the temporaries and
// lets the process end as it would have; a process ended by TerminateProcess (taskkill /F) runs
// no handler and leaves them behind, as SIGKILL does.
void remove_temporaries_on_signals();

// An input file, open for reading. Every file vatkit reads goes through open(), which never
// blocks and accepts only a regular file: it opens with O_NONBLOCK (so a FIFO with no writer
// cannot hang it), checks the descriptor with fstat, refuses anything but a regular file (a
// FIFO, a device such as /dev/zero, a socket, a directory) by name, and only then makes the
// descriptor blocking again. Sizes come from that fstat, so a caller can refuse a declared length
// before it allocates anything. On Windows the file is opened with CreateFileW and refused,
// before a byte is read, unless it is a file on a disk (not a directory, a pipe or a device).
// Other processes may go on reading, writing, renaming and deleting it meanwhile.
class InputFile {
 public:
  static Result<InputFile> open(const std::filesystem::path& path);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  const std::string& name() const { return name_; }  // the path, for messages
  uint64_t size() const { return size_; }            // bytes, as fstat saw them at open()

  // Reads exactly out.size() bytes at `offset`; fails (naming the path) when the file is shorter.
  Result<void> read_at(uint64_t offset, std::span<uint8_t> out) const;

  // Reads from `offset` to the end of the file, at most `max_bytes`: fails when more is there,
  // checked against size() before a byte is read and again while reading (files in /proc say
  // 0 and have more; a file may grow). `what` names the limit in that message.
  Result<std::vector<uint8_t>> read_rest(uint64_t offset, uint64_t max_bytes, const std::string& what) const;

 private:
  InputFile(std::intptr_t file, std::string name, uint64_t size) : file_(file), name_(std::move(name)), size_(size) {}
  std::intptr_t file_ = -1;  // a descriptor, or a Windows HANDLE
  std::string name_;
  uint64_t size_ = 0;
};

// No limit for read_file (a file's size is still bounded by memory).
inline constexpr uint64_t kNoReadLimit = ~uint64_t{0};

// Reads the whole file through InputFile::open (so only a regular file, never blocking), at most
// `max_bytes` (refused, before reading, when the file is larger). Errors name the path: missing,
// a directory, a FIFO or device, too large, unreadable.
Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, uint64_t max_bytes = kNoReadLimit);

}  // namespace vatkit
