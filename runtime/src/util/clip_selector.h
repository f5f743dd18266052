// clip_selector.h (internal to vatkit): the one rule by which a clip is picked from a list of
// named clips (a glTF file's animations, a .vat.glb's clip table): "#N" or a name.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "util/printable.h"
#include "vatkit/result.h"

namespace vatkit::detail {

inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

inline std::string plural_count(uint64_t n, const char* one, const char* many) {
  return cat({std::to_string(n), " ", n == 1 ? one : many});
}

// The clip's label: its name, or "#index" when it has none.
inline std::string clip_label_of(const std::string& name, uint64_t index) {
  return name.empty() ? cat({"#", std::to_string(index)}) : name;
}

// "a, b, c, ..." : the first 32 of `count` labels (`label(i)`), through printable(), for errors
// that say which names exist.
template <class Label>
inline std::string name_list(size_t count, const Label& label) {
  std::string list;
  const size_t shown = std::min<size_t>(count, 32);
  for (size_t a = 0; a < shown; ++a) {
    if (a) list.append(", ");
    list.append(printable(label(static_cast<int>(a))));
  }
  if (shown < count) list.append(", ...");
  return list;
}

// find_clip for anything with `count` clips: "#N" or a name (the first with it). `label(i)` is the
// clip's name or "#i", `name(i)` its name; `source` names the file in errors.
template <class Label, class Name>
inline Result<int> find_clip_in(const std::string& source, size_t count, const Label& label, const Name& name,
                                const std::string& selector) {
  auto clip_list = [&] { return name_list(count, label); };
  if (count == 0) {
    return make_error(ErrorCode::Argument, source,
                      cat({"has no animations, so there is no clip \"", printable(selector), "\""}));
  }
  if (!selector.empty() && selector[0] == '#') {
    uint64_t index = 0;
    const char* first = selector.data() + 1;
    const char* last = selector.data() + selector.size();
    const auto parsed = std::from_chars(first, last, index);
    if (first == last || parsed.ec != std::errc() || parsed.ptr != last) {
      return make_error(ErrorCode::Argument, source,
                        cat({"bad clip index \"", printable(selector), "\" (expected #N with N from 0 to ",
                             std::to_string(count - 1), ")"}));
    }
    if (index >= count) {
      return make_error(
          ErrorCode::Argument, source,
          cat({"no clip ", selector, ": the file has ", plural_count(count, "clip", "clips"), " (", clip_list(), ")"}));
    }
    return static_cast<int>(index);
  }
  for (size_t a = 0; a < count; ++a) {
    if (name(static_cast<int>(a)) == selector) return static_cast<int>(a);
  }
  return make_error(ErrorCode::Argument, source,
                    cat({"no clip named \"", printable(selector), "\" (clips: ", clip_list(), ")"}));
}

}  // namespace vatkit::detail
