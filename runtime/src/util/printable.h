// vatkit/printable.h: text from a file made safe to show on a terminal or in a log.
//
// Names in glTF and .vat.glb files (clips, nodes, meshes, materials, slots, images, skins,
// scenes), URIs and file names are arbitrary bytes. Printed raw, they can drive the reader's
// terminal (ESC sequences, a carriage return that overwrites the line, BEL) or reorder what is
// displayed (Unicode bidirectional controls). Every text that vatkit prints and every Error
// message quotes such text through printable().
#pragma once

#include <string>
#include <string_view>

namespace vatkit {

enum class Backslash {
  Escape,  // "\" becomes "\\": the mapping is reversible (the default, for quoting a name)
  Keep,    // "\" stays: for a whole message whose names were already escaped (idempotent then)
};

// `text` with valid, printable UTF-8 kept as is and everything else escaped:
//   - bytes 0x00-0x1F and 0x7F as \xNN (two lowercase hex digits), e.g. ESC as \x1b;
//   - bytes that are not part of well-formed UTF-8 (stray continuation bytes, overlong forms,
//     surrogates, code points above U+10FFFF, truncated sequences) as \xNN, one per byte;
//   - the C1 controls U+0080-U+009F, the bidirectional marks and controls U+061C, U+200E,
//     U+200F, U+202A-U+202E, U+2066-U+2069 and the separators U+2028, U+2029 as \u{XXXX}
//     (uppercase hex, at least 2 digits), e.g. U+202E as \u{202E};
//   - "\" as "\\" unless `backslash` is Keep.
// The result is valid UTF-8 and holds no control character and no bidirectional control.
std::string printable(std::string_view text, Backslash backslash = Backslash::Escape);

}  // namespace vatkit
