// vatkit/file_io.h: reading and writing whole files, with errors as values.
//
// write_file_atomic is how vatkit writes every output file (.glb, .vat.glb, JSON): the bytes go
// to a temporary file in the destination's directory, are flushed to disk (fsync), then the
// temporary is renamed over the destination. A reader therefore sees the old file or the complete
// new one, never a partial one, and a failed write leaves nothing behind (the temporary is
// removed). What it does not do: create missing directories, or fsync the directory itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "vatkit/result.h"

namespace vatkit {

// Writes `bytes` to `path` atomically (see above). Errors name the path and the reason, e.g.
//     "out/x.glb: cannot create a temporary file next to it (No such file or directory)".
Result<void> write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes);

// The same for a file given in pieces, written one after another (the caller need not join
// them into one buffer first: save_vat writes a baked file straight from its planes).
Result<void> write_file_atomic_pieces(const std::filesystem::path& path,
                                      std::span<const std::span<const uint8_t>> pieces);

// An input file, open for reading. Every file vatkit reads goes through open(), which never
// blocks and accepts only a regular file: it opens with O_NONBLOCK (so a FIFO with no writer
// cannot hang it), checks the descriptor with fstat, refuses anything but a regular file (a
// FIFO, a device such as /dev/zero, a socket, a directory) by name, and only then makes the
// descriptor blocking again. Sizes come from that fstat, so a caller can refuse a declared length
// before it allocates anything.
class InputFile {
 public:
  static Result<InputFile> open(const std::filesystem::path& path);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  const std::string& name() const { return name_; }  // the path, for messages
  uint64_t size() const { return size_; }             // bytes, as fstat saw them at open()

  // Reads exactly out.size() bytes at `offset`; fails (naming the path) when the file is shorter.
  Result<void> read_at(uint64_t offset, std::span<uint8_t> out) const;

  // Reads from `offset` to the end of the file, at most `max_bytes`: fails when more is there,
  // checked against size() before a byte is read and again while reading (files in /proc say
  // 0 and have more; a file may grow). `what` names the limit in that message.
  Result<std::vector<uint8_t>> read_rest(uint64_t offset, uint64_t max_bytes, const std::string& what) const;

 private:
  InputFile(int fd, std::string name, uint64_t size) : fd_(fd), name_(std::move(name)), size_(size) {}
  int fd_ = -1;
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
