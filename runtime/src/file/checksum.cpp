// The .vat.glb checksum (checksum.h; docs/format.md, "Checksum"): locating the digits in the
// JSON chunk without parsing it, hashing the file with them read as '0', and sealing a file that
// was written with sixteen '0' digits.
#include "file/checksum.h"

#include <cassert>
#include <cstring>

#include "file/glb.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace vatkit::vat_file_detail {

std::optional<size_t> find_checksum_digits(std::span<const uint8_t> file, std::span<const uint8_t> json_chunk,
                                           std::string* why) {
  const std::string_view text(reinterpret_cast<const char*>(json_chunk.data()), json_chunk.size());
  const std::string_view key(kChecksumKey, kChecksumKeyLength);
  const size_t first = text.find(key);
  if (first == std::string_view::npos) {
    if (why) *why = "missing (no \"checksum\":\" in the JSON chunk)";
    return std::nullopt;
  }
  if (text.find(key, first + 1) != std::string_view::npos) {
    if (why) *why = "the JSON chunk has more than one \"checksum\":\"";
    return std::nullopt;
  }
  const size_t digits = first + kChecksumKeyLength;
  if (digits + kChecksumDigits >= text.size() || text[digits + kChecksumDigits] != '"') {
    if (why) *why = "not a string of 16 hex digits";
    return std::nullopt;
  }
  return static_cast<size_t>(json_chunk.data() - file.data()) + digits;
}

uint64_t content_checksum(std::span<const uint8_t> file, size_t digits_offset,
                          std::span<const std::span<const uint8_t>> rest) {
  assert(digits_offset + kChecksumDigits <= file.size());
  static constexpr char kZeros[kChecksumDigits + 1] = "0000000000000000";
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, file.data(), digits_offset);
  XXH3_64bits_update(&state, kZeros, kChecksumDigits);
  XXH3_64bits_update(&state, file.data() + digits_offset + kChecksumDigits,
                     file.size() - digits_offset - kChecksumDigits);
  for (const std::span<const uint8_t>& piece : rest) XXH3_64bits_update(&state, piece.data(), piece.size());
  return XXH3_64bits_digest(&state);
}

std::string checksum_hex(uint64_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kChecksumDigits, '0');
  for (size_t i = 0; i < kChecksumDigits; ++i) out[kChecksumDigits - 1 - i] = kHex[(value >> (4 * i)) & 15];
  return out;
}

bool seal_checksum(std::span<uint8_t> head, std::span<const uint8_t> json_chunk,
                   std::span<const std::span<const uint8_t>> rest) {
  const std::optional<size_t> digits = find_checksum_digits(head, json_chunk, nullptr);
  if (!digits) return false;
  const std::string hex = checksum_hex(content_checksum(head, *digits, rest));
  std::memcpy(head.data() + *digits, hex.data(), kChecksumDigits);
  return true;
}

bool reseal_checksum(std::span<uint8_t> file) {
  Result<glb::Chunks> chunks = glb::split_glb(file, "");
  return chunks && seal_checksum(file, chunks->json, {});
}

}  // namespace vatkit::vat_file_detail
