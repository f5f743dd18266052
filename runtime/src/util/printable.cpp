#include "util/printable.h"

#include <cstdint>
#include <cstdio>

namespace vatkit {
namespace {

bool shown_escaped(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629, Unicode table 3-7) and its
// code point, or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view text, size_t i, uint32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) low = 0xA0;   // overlong
    if (b0 == 0xED) high = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) low = 0x90;   // overlong
    if (b0 == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  for (size_t k = 1; k < length; ++k) {
    const uint8_t b = byte(i + k);
    if (b < (k == 1 ? low : 0x80) || b > (k == 1 ? high : 0xBF)) return 0;
    cp = cp << 6 | (b & 0x3Fu);
  }
  return length;
}

}  // namespace

std::string printable(std::string_view text, Backslash backslash) {
  std::string out;
  out.reserve(text.size());
  char buffer[16];
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (b == '\\') {
      out += backslash == Backslash::Escape ? "\\\\" : "\\";
      ++i;
    } else if (b >= 0x20 && b < 0x7F) {
      out += char(b);
      ++i;
    } else if (b < 0x80) {  // C0 controls and DEL
      std::snprintf(buffer, sizeof(buffer), "\\x%02x", b);
      out += buffer;
      ++i;
    } else {
      uint32_t cp = 0;
      const size_t length = utf8_sequence(text, i, cp);
      if (length == 0) {
        std::snprintf(buffer, sizeof(buffer), "\\x%02x", b);
        out += buffer;
        ++i;
      } else {
        if (shown_escaped(cp)) {
          std::snprintf(buffer, sizeof(buffer), "\\u{%02X}", cp);
          out += buffer;
        } else {
          out.append(text.substr(i, length));
        }
        i += length;
      }
    }
  }
  return out;
}

}  // namespace vatkit
