// Pieces of playback shared by its source files (not installed).
#pragma once

#include <cstdint>

#include "vatkit/playback.h"

namespace vatkit {

// Times (start times, fade starts) are refused beyond this magnitude, so that a difference of two
// of them, or of one and any finite clock, stays finite in float32.
inline constexpr float kMaxTimeMagnitude = 1e18f;

namespace playback_detail {

// Floats mapped onto unsigned integers in the same order (-0 and +0 adjacent).
uint32_t order_key(float f);
float from_order_key(uint32_t key);

// The GPU's elapsed cycles: min(max(time - start, 0) * rate, 2^24).
float cycles_at(const Track& t, float time);

// Track::end_time for a track whose other fields are set; `moving` is speed != 0.
float end_time_of(const Track& t, bool moving);

// The float32 hold near `ideal` at which paused `p` shows `want` (controls.cpp's search; the
// nearest to `ideal` when none does).
float hold_showing(const Playback& p, const PlaybackSample& want, double ideal);

// The smallest float t > lo with pred(t), for a predicate that is monotone in t and false at lo;
// kNever when it is false even at FLT_MAX. Binary search over the floats' order (32 steps).
template <class Pred>
float smallest_time(float lo, Pred&& pred) {
  if (!pred(kNever)) return kNever;
  uint32_t lo_key = order_key(lo);      // pred false
  uint32_t hi_key = order_key(kNever);  // pred true
  while (hi_key - lo_key > 1) {
    const uint32_t mid = lo_key + (hi_key - lo_key) / 2;
    if (pred(from_order_key(mid))) {
      hi_key = mid;
    } else {
      lo_key = mid;
    }
  }
  return from_order_key(hi_key);
}

}  // namespace playback_detail
}  // namespace vatkit
