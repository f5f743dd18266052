// libFuzzer target for `vatkit frame`'s input: the bytes as text, one playback query per line.
// Each line must give either a one-line printable error (from parse_frame_query or
// run_frame_query) or an answer whose frame_json agrees with itself under check_frame_json, and
// a line's "expect" must be compared without incident. Anything else (a crash, a sanitizer
// report, an answer that does not match its own JSON, a malformed message) aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "playback_json.h"
#include "util/printable.h"

namespace {

void check_message(const std::string& message, std::string_view line) {
  if (message.empty() || message != vatkit::printable(message, vatkit::Backslash::Keep)) {
    std::fprintf(stderr, "malformed error message for line %.*s: %s\n", int(line.size()), line.data(), message.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    vatkit::Result<vatkit::FrameQuery> query = vatkit::parse_frame_query(line);
    if (!query) {
      check_message(query.error().message, line);
      continue;
    }
    vatkit::Result<vatkit::FrameAnswer> answer = vatkit::run_frame_query(*query);
    if (!answer) {
      check_message(answer.error().message, line);
      continue;
    }
    const std::string json = vatkit::frame_json(*answer);
    if (vatkit::Result<void> same = vatkit::check_frame_json(json, *answer); !same) {
      std::fprintf(stderr, "the answer does not match its own JSON %s: %s\n", json.c_str(),
                   same.error().message.c_str());
      std::abort();
    }
    if (query->expect) {
      if (vatkit::Result<void> r = vatkit::check_frame_json(*query->expect, *answer); !r) {
        check_message(r.error().message, line);
      }
    }
  }
  return 0;
}
