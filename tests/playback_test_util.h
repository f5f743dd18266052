// Shorthands of the playback tests (test_playback*.cpp): a clip band and an instance playing it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "vatkit/playback.h"

namespace vatkit::test {

// A clip of `rows` rows from `first_row` at `fps`, with the default playback policy.
inline ClipBand band(uint32_t first_row, uint32_t rows, float fps) {
  ClipBand b;
  b.first_row = first_row;
  b.rows = rows;
  b.fps = fps;
  return b;
}

// An instance that starts playing `clip` at `start` (fading in over `fade` seconds).
inline Instance play(const ClipBand& clip, float start, float fade = 0.0f) {
  Instance in;
  in.clip = clip;
  in.start_time = start;
  in.fade_duration = fade;
  return in;
}

// Every field of a band sample, each named in the failure message with `where`.
inline void expect_band(const BandSample& f, uint32_t row, uint32_t next, float mix, float phase, bool wraps,
                        bool finished, const std::string& where) {
  EXPECT_EQ(f.row, row) << where;
  EXPECT_EQ(f.row_next, next) << where;
  EXPECT_EQ(f.mix, mix) << where;
  EXPECT_EQ(f.phase, phase) << where;
  EXPECT_EQ(f.wraps, wraps) << where;
  EXPECT_EQ(f.finished, finished) << where;
}

}  // namespace vatkit::test
