// The conformance vector files (tests/conformance/playback_v*.jsonl): every line's query answered
// by the library and compared with its "expect", bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <functional>
#include <string>

#include "playback_json.h"

namespace vatkit::test {

// Checks every line of tests/conformance/`name`, calling seen(query, answer) for each line
// answered (for the caller's coverage counts); returns the number of lines.
inline size_t check_vector_file(const std::string& name,
                                const std::function<void(const FrameQuery&, const FrameAnswer&)>& seen) {
  const std::string path = std::string(VATKIT_SOURCE_DIR) + "/tests/conformance/" + name;
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::string line;
  size_t n = 0;
  while (std::getline(file, line)) {
    const std::string where = name + " line " + std::to_string(++n);
    Result<FrameQuery> q = parse_frame_query(line);
    if (!q || !q->expect) {
      ADD_FAILURE() << where << ": " << (q ? "no \"expect\"" : q.error().message);
      continue;
    }
    Result<FrameAnswer> a = run_frame_query(*q);
    if (!a) {
      ADD_FAILURE() << where << ": " << a.error().message;
      continue;
    }
    Result<void> same = check_frame_json(*q->expect, *a);
    EXPECT_TRUE(same.ok()) << where << ": " << (same.ok() ? "" : same.error().message);
    seen(*q, *a);
  }
  return n;
}

}  // namespace vatkit::test
