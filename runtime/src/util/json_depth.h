// The nesting bound for every JSON text that vatkit reads from outside (glTF, the .vat.glb JSON
// chunk, playback query lines). nlohmann parses without recursion, but dumping a value, comparing
// two values and tinygltf's walk over `extras` recurse once per level: a file or line nesting
// 100,000 arrays would overflow the stack. Checking the text before parsing keeps every later
// step bounded, whatever it does with the values. Also the one clean-up of nlohmann's exception
// texts into error messages (json_error_text).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace vatkit::detail {

// glTF needs about 10 levels, a playback query 5; 64 leaves room for `extras` and extensions.
constexpr int kMaxJsonDepth = 64;

// Whether the objects and arrays of `text` nest no deeper than kMaxJsonDepth (brackets inside
// strings do not count). A linear scan without recursion; malformed text is left to the parser.
inline bool json_depth_ok(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) return false;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;  // never below 0: closers before their openers must not buy room for later ones
    }
  }
  return true;
}

// The reason given when json_depth_ok fails.
inline constexpr const char* kJsonTooDeep = "nested deeper than 64 levels";
static_assert(kMaxJsonDepth == 64, "kJsonTooDeep names the bound");

// An exception's what() from nlohmann's parser as one line of an error message: its
// "[json.exception.parse_error.101] " prefix dropped, newlines made spaces.
inline std::string json_error_text(std::string_view what) {
  const size_t bracket = what.find("] ");
  if (what.rfind("[json.exception.", 0) == 0 && bracket != std::string_view::npos) what.remove_prefix(bracket + 2);
  std::string text(what);
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

}  // namespace vatkit::detail
