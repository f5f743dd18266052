// platform.h (internal to vatkit): every call the runtime makes to the operating system, behind
// one small interface. platform_posix.cpp implements it with POSIX calls (Linux, and any other
// POSIX system), platform_windows.cpp with Win32 calls; runtime/CMakeLists.txt compiles one of
// the two. Everything above this interface (file_io.cpp, vat_read.cpp, the baker) is portable.
//
// Errors: a function that can fail returns the system's error code (errno on POSIX,
// GetLastError() on Windows; 0 for success) or a Result whose message already names the file
// ("NAME: what", `name` being the path as the caller gave it). error_text() spells a code.
//
// What each system does where the two differ (vatkit/file_io.h states it for callers):
//   - Outputs, POSIX: symbolic links are followed to their target, descriptor links of the
//     process (/dev/stdout, /proc/self/fd/N) write that descriptor, character devices and FIFOs
//     are written in place, and a replacement keeps the old file's owner and permission bits.
//   - Outputs, Windows: a character device or pipe (NUL, CON, \\.\pipe\...) is written in place;
//     anything else that is not a directory is created or replaced through a temporary, which
//     MoveFileExW (MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) moves over it. A symbolic
//     link is replaced, not followed; the new file's permissions are those the directory gives
//     a new file.
//   - Signal-time cleanup of temporaries, POSIX: handlers for SIGINT, SIGTERM and SIGHUP.
//     Windows: a console control handler (Ctrl+C, Ctrl+Break, the console closing, log-off,
//     shut-down) that marks the temporaries for deletion and lets the next handler end the
//     process. A process ended by TerminateProcess (Task Manager, taskkill /F) runs no handler
//     and leaves its temporaries behind, as SIGKILL does on POSIX.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "vatkit/result.h"

namespace vatkit::platform {

// An open file: a POSIX descriptor, or a Windows HANDLE's value. kNoFile when none.
using FileHandle = std::intptr_t;
inline constexpr FileHandle kNoFile = -1;

// The message of an error code, e.g. "No such file or directory".
std::string error_text(int error);

// The current process's id (names of temporaries).
unsigned long process_id();

// ---- inputs ----

struct InputHandle {
  FileHandle handle = kNoFile;
  uint64_t size = 0;  // bytes, as the system said when the file was opened
};

// Opens a regular file for reading without ever blocking (a FIFO with no writer cannot hang it);
// anything else (a directory, a FIFO, a device, a socket) is refused by kind ("NAME: is a FIFO
// (named pipe), not a regular file"), before a byte is read.
Result<InputHandle> open_input(const std::filesystem::path& path, const std::string& name);

// One positional read of at most out.size() bytes at `offset` (interrupted reads are retried):
// sets `got` (0 at the end of the file) and returns 0, or returns the error.
int read_at(FileHandle file, uint64_t offset, std::span<uint8_t> out, size_t& got);

// ---- outputs ----

// Where an output goes, by the rules above.
struct OutputTarget {
  // Written in place (no temporary): the destination, already open for writing.
  FileHandle in_place = kNoFile;
  // Otherwise: the file to create or replace (symbolic links followed where the system does).
  std::filesystem::path path;
  // A regular file is there: its permission bits, owner and group (POSIX; unused on Windows).
  bool exists = false;
  uint32_t mode = 0, owner = 0, group = 0;
};

// Resolves `path` to its OutputTarget, opening it when it is written in place. A directory (and,
// on POSIX, a socket or block device) is refused.
Result<OutputTarget> find_output(const std::filesystem::path& path, const std::string& name);

// Creates the new file `path` for writing, never through an existing name or link: 0 with `out`
// set, or the error (name_taken(error) when something is there already).
int create_new(const std::filesystem::path& path, FileHandle& out);
bool name_taken(int error);

// Gives `file`, the replacement of target.path, what the old file had that a new one must keep
// (POSIX: its owner where the process may set it, and its permission bits, never wider).
Result<void> keep_attributes(FileHandle file, const OutputTarget& target, const std::string& name);

// Writes all of `bytes` (short and interrupted writes retried): 0 or the error.
int write_all(FileHandle file, std::span<const uint8_t> bytes);

// Flushes the file's bytes to the disk (fsync, FlushFileBuffers): 0 or the error.
int flush_to_disk(FileHandle file);

// Closes the file: 0 or the error.
int close(FileHandle file);

// Renames `from` over `to` atomically (a reader sees the old file or the new one), replacing a
// file that is there: 0 or the error.
int replace(const std::filesystem::path& from, const std::filesystem::path& to);

// Removes the file, if it is there (errors are ignored: used on the way out of a failure).
void remove(const std::filesystem::path& path);

// ---- signal-time cleanup ----

// What a cleanup routine can remove while the process is being ended: the native spelling of a
// path, copied into static storage (no allocation, no lock).
using NativeChar = std::filesystem::path::value_type;

// Removes `path` from a signal handler (POSIX: async-signal-safe) or a console control handler
// (Windows: the file, possibly still open here, is deleted when the process ends).
void remove_while_ending(const NativeChar* path);

// Installs `cleanup` to run when the process is asked to end (see the top of this header), after
// which the process ends as it would have without it. Called once; replaces earlier handlers.
void on_termination_request(void (*cleanup)());

// ---- memory ----

// Uninitialized memory, `align`-aligned (a power of two, at least 64) and `bytes` long (a
// multiple of `align`); with `huge_pages`, transparent huge pages are asked for where the system
// has them (Linux). nullptr when the memory is not there. Release with free_aligned.
void* allocate_aligned(size_t align, size_t bytes, bool huge_pages);
void free_aligned(void* p);

}  // namespace vatkit::platform
