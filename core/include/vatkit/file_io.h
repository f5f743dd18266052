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

// Reads the whole file. Errors name the path: missing, a directory, unreadable.
Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path);

}  // namespace vatkit
