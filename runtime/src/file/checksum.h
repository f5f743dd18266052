// checksum.h (internal to vatkit::runtime, not installed; checksum.cpp implements it): the
// .vat.glb checksum, used by the reader and the writer, and exposed for the tests and the fuzz
// target, which mutate files on purpose and need to re-seal them so that the validation behind
// the checksum is reached.
//
// The checksum (docs/format.md, "Checksum"): XXH3-64, seed 0, over every byte of the file, with
// the 16 hex digits of extensions.VATKIT_vertex_animation.checksum replaced by '0' (0x30). The
// digits are located as the 16 bytes after the only occurrence of the 12 bytes
// `"checksum":"` in the JSON chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace vatkit::vat_file_detail {

inline constexpr char kChecksumKey[] = "\"checksum\":\"";  // 12 bytes, no terminator counted
inline constexpr size_t kChecksumKeyLength = sizeof(kChecksumKey) - 1;
inline constexpr size_t kChecksumDigits = 16;

// Where the checksum digits are in `file`, given the JSON chunk's bytes inside it: the file
// offset of the first digit. Fails (nullopt, with `why` set) when the key is missing, occurs more
// than once, or is not followed by 16 bytes and a closing quote inside the JSON chunk.
std::optional<size_t> find_checksum_digits(std::span<const uint8_t> file, std::span<const uint8_t> json_chunk,
                                           std::string* why);

// The XXH3-64 of `file` with the 16 bytes at `digits_offset` read as '0', followed by the bytes
// of `rest` (the remaining pieces of a file written in pieces; none for a whole file).
uint64_t content_checksum(std::span<const uint8_t> file, size_t digits_offset,
                          std::span<const std::span<const uint8_t>> rest = {});

// 16 lowercase hex digits, most significant first.
std::string checksum_hex(uint64_t value);

// Rewrites the checksum digits of a .vat.glb so they match its content. False when the file is
// not a GLB with a locatable checksum (then nothing is changed).
bool reseal_checksum(std::span<uint8_t> file);

// The same for a file in pieces: `head` holds its first bytes, the JSON chunk (`json_chunk`,
// inside `head`) among them, and `rest` the pieces after it.
bool seal_checksum(std::span<uint8_t> head, std::span<const uint8_t> json_chunk,
                   std::span<const std::span<const uint8_t>> rest);

}  // namespace vatkit::vat_file_detail
