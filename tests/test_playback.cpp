// Playback semantics (playback.h): resolve against an independent brute-force reference that
// steps time and counts loops, every edge case three-vat's documentation names, ends_at against
// resolve, the default tiers, cross-fade weights, two-clip blends (phase and time sync), and the
// JSON-lines form with the conformance vectors of tests/conformance/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "playback_test_util.h"
#include "playback_vectors.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"
#include "playback_json.h"

namespace vatkit {
namespace {

using test::band;
using test::expect_band;

// ---- the brute-force reference -----------------------------------------------------------------
// Written from the documented semantics, not from resolve: a playhead on the clip's timeline
// [0, D] that moves by small steps, wraps (Repeat) or bounces (PingPong) at the ends, and counts
// every completed play. In double precision.

struct RefSpec {
  uint32_t first_row = 0, rows = 2;
  double fps = 30.0, speed = 1.0, start = 0.0;
  LoopMode loop = LoopMode::Repeat;
  int reps = -1;  // -1 endless (Once plays one)
  EndMode end = EndMode::Clamp;
};

struct RefAnswer {
  double phase = 0.0;  // [0, 1]
  long plays = 0;      // completed plays (traversals)
  bool finished = false;
  bool wraps = false;
};

RefAnswer reference(const RefSpec& s, double time) {
  RefAnswer r;
  const int n = s.loop == LoopMode::Once ? 1 : s.reps;
  auto end_phase = [&] {
    if (s.end == EndMode::Rewind) return 0.0;
    return (s.loop == LoopMode::PingPong && n % 2 == 0) ? 0.0 : 1.0;
  };
  if (s.rows == 1) {  // no duration: every play is over the moment it starts
    r.finished = n != -1 && s.speed > 0 && time >= s.start;
    r.phase = r.finished ? end_phase() : 0.0;
    return r;
  }
  const double d = (s.rows - 1) / s.fps;
  double remaining = std::max(time - s.start, 0.0) * s.speed;  // clip seconds to play
  const double h = d / 61.0;
  double pos = 0.0;
  int dir = 1;
  while (remaining > 0.0 && !r.finished) {
    const double step = std::min(h, remaining);
    remaining -= step;
    pos += dir * step;
    const bool hit = dir > 0 ? pos >= d : pos <= 0.0;
    if (!hit) continue;
    const double over = dir > 0 ? pos - d : -pos;
    ++r.plays;
    if (n != -1 && r.plays == n) {
      r.finished = true;
      break;
    }
    if (s.loop == LoopMode::PingPong) {
      dir = -dir;
      pos = dir > 0 ? over : d - over;
    } else {
      pos = over;
    }
  }
  r.phase = r.finished ? end_phase() : pos / d;
  r.wraps = s.loop == LoopMode::Repeat && !r.finished && r.plays >= 1;
  return r;
}

Instance instance_of(const RefSpec& s) {
  Instance in;
  in.clip.first_row = s.first_row;
  in.clip.rows = s.rows;
  in.clip.fps = float(s.fps);
  in.start_time = float(s.start);
  in.policy.speed = float(s.speed);
  in.policy.loop_mode = s.loop;
  in.policy.repetitions = s.reps;
  in.policy.end_mode = s.end;
  return in;
}

float ulp(float x) { return clock_resolution(x); }

Instance simple(uint32_t first, uint32_t rows, float fps, float start = 0.0f) {
  Instance in;
  in.clip = band(first, rows, fps);
  in.start_time = start;
  return in;
}

// ---- property test against the reference --------------------------------------------------------

TEST(PlaybackReference, RandomInstancesMatchTheSteppedReference) {
  std::mt19937 rng(20240611);
  const uint32_t rows_set[] = {1, 2, 3, 5, 17, 31, 100};
  const double fps_set[] = {1.0, 4.0, 24.0, 29.97, 30.0, 60.0};
  const double speed_set[] = {0.0, 0.25, 0.5, 1.0, 1.7, 3.0};
  const int reps_set[] = {-1, 1, 2, 3, 4, 7};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int compared = 0, skipped = 0;
  for (int c = 0; c < 3000; ++c) {
    RefSpec s;
    s.first_row = uint32_t(rng() % 500);
    s.rows = rows_set[rng() % 7];
    s.fps = fps_set[rng() % 6];
    s.speed = speed_set[rng() % 6];
    s.loop = LoopMode(rng() % 3);
    s.reps = reps_set[rng() % 6];
    s.end = EndMode(rng() % 2);
    s.start = float(-5.0 + 10.0 * unit(rng));  // a float32 start, as the table holds
    const Instance in = instance_of(s);
    const Playback pb = compile(in).value();
    const double d = s.rows > 1 ? (s.rows - 1) / s.fps : 1.0;
    const double span = s.speed > 0 ? 9.0 * d / s.speed : 5.0;
    for (int k = 0; k < 8; ++k) {
      const auto t = float(s.start - 1.0 + (span + 1.0) * unit(rng));
      const RefAnswer ref = reference(s, t);
      const BandSample f = resolve(pb, t).a;
      // float32 time: (t - start) and the product carry a few ulps; skip answers that close to
      // a loop boundary or a row boundary, where the discrete fields may legitimately differ.
      const double u = std::max(double(t) - s.start, 0.0) * s.speed / d;
      const double tol_u =
          4.0 * (double(ulp(std::max(std::fabs(t), std::fabs(float(s.start))))) * s.speed / d + double(ulp(float(u))));
      const double fu = u - std::floor(u);
      const double tend = s.loop == LoopMode::Once ? 1.0 : s.reps;
      const bool near_loop = u >= tol_u && (fu < tol_u || 1.0 - fu < tol_u);
      const bool near_end = s.reps != -1 && std::fabs(u - tend) < tol_u;
      if (s.rows > 1 && (near_loop || near_end)) {
        ++skipped;
        continue;
      }
      ++compared;
      ASSERT_EQ(f.finished, ref.finished) << "case " << c << " t " << t;
      ASSERT_EQ(f.wraps, ref.wraps) << "case " << c << " t " << t;
      ASSERT_NEAR(f.phase, ref.phase, tol_u + 1e-6) << "case " << c << " t " << t << " plays " << ref.plays;
      const double x = ref.phase * (s.rows - 1);
      const double tol_x = (tol_u + 1e-6) * (s.rows - 1);
      if (x - std::floor(x) > tol_x && std::ceil(x) - x > tol_x) {
        const auto row = uint32_t(std::floor(x));
        EXPECT_EQ(f.row, s.first_row + row) << "case " << c << " t " << t;
        EXPECT_EQ(f.row_next, s.first_row + std::min(row + 1, s.rows - 1)) << "case " << c;
        EXPECT_NEAR(f.mix, x - row, tol_x + 1e-5) << "case " << c;
      }
      EXPECT_GE(f.row, s.first_row);
      EXPECT_LT(f.row_next, s.first_row + s.rows);
      EXPECT_GE(f.mix, 0.0f);
      EXPECT_LT(f.mix, 1.0f);
    }
  }
  EXPECT_GT(compared, 20000);
  EXPECT_LT(skipped, compared / 20);
}

// Row, row_next and mix always come from the phase the same way, at every time.
TEST(PlaybackReference, RowsDeriveFromThePhase) {
  std::mt19937 rng(7);
  for (int c = 0; c < 2000; ++c) {
    RefSpec s;
    s.first_row = rng() % 1000;
    s.rows = 1 + rng() % 64;
    s.fps = 30.0;
    s.speed = 0.1 * (rng() % 30);
    s.loop = LoopMode(rng() % 3);
    s.reps = int(rng() % 5) - 1;
    if (s.reps == 0) s.reps = 2;
    s.end = EndMode(rng() % 2);
    const Playback pb = compile(instance_of(s)).value();
    const float t = float(rng() % 100000) / 1000.0f - 10.0f;
    const BandSample f = resolve(pb, t).a;
    const float x = f.phase * float(s.rows - 1);
    EXPECT_EQ(f.row, s.first_row + uint32_t(std::floor(x)));
    EXPECT_EQ(f.row_next, std::min(f.row + 1, s.first_row + s.rows - 1));
    EXPECT_EQ(f.mix, x - std::floor(x));
    EXPECT_GE(f.phase, 0.0f);
    EXPECT_LE(f.phase, 1.0f);
  }
}

// ---- the edge cases three-vat's documentation names ----------------------------------------------

// A band of 5 rows at 4 fps (D = 1 s) at rows 10..14: every time below is exact in float32.
constexpr uint32_t kFirst = 10;

Instance five(LoopMode loop, int reps = 0, EndMode end = EndMode::Clamp, float start = 2.0f) {
  Instance in = simple(kFirst, 5, 4.0f, start);
  in.policy.loop_mode = loop;
  if (reps != 0) in.policy.repetitions = reps;
  in.policy.end_mode = end;
  return in;
}

TEST(PlaybackEdges, TimeBeforeStartHoldsTheFirstRow) {
  for (LoopMode m : {LoopMode::Repeat, LoopMode::Once, LoopMode::PingPong}) {
    const Instance in = five(m, 0, EndMode::Clamp, 2.0f);
    expect_band(resolve(in, -100.0f).a, 10, 11, 0.0f, 0.0f, false, false, "long before");
    expect_band(resolve(in, 1.999f).a, 10, 11, 0.0f, 0.0f, false, false, "just before");
    expect_band(resolve(in, 2.0f).a, 10, 11, 0.0f, 0.0f, false, false, "at start");
  }
}

TEST(PlaybackEdges, ExactBandEnds) {
  // Once: the last row exactly at the end, and finished from that instant.
  const Instance once = five(LoopMode::Once);
  expect_band(resolve(once, 2.75f).a, 13, 14, 0.0f, 0.75f, false, false, "row 3 exactly");
  expect_band(resolve(once, 2.875f).a, 13, 14, 0.5f, 0.875f, false, false, "between rows 3 and 4");
  const BandSample before = resolve(once, std::nextafter(3.0f, 0.0f)).a;
  EXPECT_FALSE(before.finished);
  EXPECT_EQ(before.row, 13u);
  EXPECT_EQ(before.row_next, 14u);
  EXPECT_GT(before.mix, 0.999f);
  expect_band(resolve(once, 3.0f).a, 14, 14, 0.0f, 1.0f, false, true, "end");
  expect_band(resolve(once, 50.0f).a, 14, 14, 0.0f, 1.0f, false, true, "long after");
  EXPECT_EQ(ends_at(once), 3.0f);

  // Repeat: the seam is never interpolated; the cycle after it starts on the first row.
  const Instance loop = five(LoopMode::Repeat);
  expect_band(resolve(loop, 2.875f).a, 13, 14, 0.5f, 0.875f, false, false, "first cycle");
  expect_band(resolve(loop, 3.0f).a, 10, 11, 0.0f, 0.0f, true, false, "the seam");
  expect_band(resolve(loop, 3.125f).a, 10, 11, 0.5f, 0.125f, true, false, "second cycle");
  const BandSample late = resolve(loop, std::nextafter(3.0f, 0.0f)).a;
  EXPECT_EQ(late.row, 13u);
  EXPECT_EQ(late.row_next, 14u);  // toward the last row, not across the seam
  EXPECT_FALSE(late.wraps);
  EXPECT_EQ(ends_at(loop), std::nullopt);
}

TEST(PlaybackEdges, OneRowClips) {
  Instance in = simple(7, 1, 0.0f, 1.0f);
  in.policy.loop_mode = LoopMode::Once;
  expect_band(resolve(in, 0.0f).a, 7, 7, 0.0f, 0.0f, false, false, "before start");
  expect_band(resolve(in, 1.0f).a, 7, 7, 0.0f, 1.0f, false, true, "finished at once");
  EXPECT_EQ(ends_at(in), 1.0f);
  in.policy.end_mode = EndMode::Rewind;
  expect_band(resolve(in, 5.0f).a, 7, 7, 0.0f, 0.0f, false, true, "rewound");
  Instance loop = simple(7, 1, 0.0f, 1.0f);  // endless: never finishes
  expect_band(resolve(loop, 1e6f).a, 7, 7, 0.0f, 0.0f, false, false, "endless");
  EXPECT_EQ(ends_at(loop), std::nullopt);
  in.policy.speed = 0.0f;
  EXPECT_EQ(ends_at(in), std::nullopt);
  EXPECT_FALSE(resolve(in, 9.0f).a.finished);
}

TEST(PlaybackEdges, SpeedZeroHoldsTheFirstRowForEver) {
  for (LoopMode m : {LoopMode::Repeat, LoopMode::Once, LoopMode::PingPong}) {
    Instance in = five(m, 3);
    in.policy.speed = 0.0f;
    for (float t : {0.0f, 2.0f, 3.0f, 1e4f, 1e9f})
      expect_band(resolve(in, t).a, 10, 11, 0.0f, 0.0f, false, false, "speed 0");
    EXPECT_EQ(ends_at(in), std::nullopt);
  }
}

// A speed so small that the cycle rate is subnormal: GPUs that flush subnormals to zero would
// hold the first row where the CPU creeps, so the write refuses it; the smallest normal rate
// plays.
TEST(PlaybackEdges, SubnormalCycleRatesAreRefusedWhenWritten) {
  Instance in = five(LoopMode::Repeat);  // 5 rows at 4 fps: rate = speed
  in.policy.speed = 1e-40f;
  Result<Playback> p = compile(in);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("too slow for float32"), std::string::npos) << p.error().message;
  EXPECT_EQ(p.error().code, ErrorCode::Argument);
  in.policy.speed = std::numeric_limits<float>::min();
  ASSERT_TRUE(compile(in).ok());
  EXPECT_EQ(compile(in)->primary.cycle_rate, std::numeric_limits<float>::min());
}

TEST(PlaybackEdges, NonFiniteSpeedIsRefusedWhenWritten) {
  Instance in = five(LoopMode::Repeat);
  in.policy.speed = -std::numeric_limits<float>::infinity();
  Result<Playback> p = compile(in);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("instance.speed is not finite"), std::string::npos) << p.error().message;
  EXPECT_EQ(p.error().code, ErrorCode::Argument);
  InstanceTable table(4);
  Result<void> r = set_instance(table, 2, in, 0.0f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("instance 2: ", 0), 0u) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Argument);
  EXPECT_FALSE(table.written(2));
  EXPECT_EQ(dirty_count(table), 0u);
  in.policy.speed.reset();
  in.clip.defaults.speed = std::numeric_limits<float>::quiet_NaN();  // the clip tier is checked too
  EXPECT_FALSE(compile(in).ok());
  in.clip.defaults.speed = -2.0f;  // a negative speed plays backwards (test_playback_controls.cpp)
  EXPECT_TRUE(compile(in).ok());
}

TEST(PlaybackEdges, OnceWithRewind) {
  const Instance in = five(LoopMode::Once, 5 /* ignored: Once plays once */, EndMode::Rewind);
  expect_band(resolve(in, 2.5f).a, 12, 13, 0.0f, 0.5f, false, false, "playing");
  expect_band(resolve(in, 3.0f).a, 10, 11, 0.0f, 0.0f, false, true, "rewound at the end");
  expect_band(resolve(in, 100.0f).a, 10, 11, 0.0f, 0.0f, false, true, "stays rewound");
  EXPECT_EQ(ends_at(in), 3.0f);
  EXPECT_EQ(compile(in)->primary.repetitions, 1);
}

TEST(PlaybackEdges, PingPongOddAndEvenRepetitions) {
  const Instance odd = five(LoopMode::PingPong, 3);
  expect_band(resolve(odd, 2.25f).a, 11, 12, 0.0f, 0.25f, false, false, "forward");
  expect_band(resolve(odd, 3.0f).a, 14, 14, 0.0f, 1.0f, false, false, "the turn");
  expect_band(resolve(odd, 3.25f).a, 13, 14, 0.0f, 0.75f, false, false, "backward");
  expect_band(resolve(odd, 4.0f).a, 10, 11, 0.0f, 0.0f, false, false, "second turn");
  expect_band(resolve(odd, 4.5f).a, 12, 13, 0.0f, 0.5f, false, false, "forward again");
  expect_band(resolve(odd, 5.0f).a, 14, 14, 0.0f, 1.0f, false, true, "3 plays end on the last row");
  EXPECT_EQ(ends_at(odd), 5.0f);
  const Instance even = five(LoopMode::PingPong, 2);
  expect_band(resolve(even, 3.5f).a, 12, 13, 0.0f, 0.5f, false, false, "backward");
  expect_band(resolve(even, 4.0f).a, 10, 11, 0.0f, 0.0f, false, true, "2 plays end on the first row");
  expect_band(resolve(even, 9.0f).a, 10, 11, 0.0f, 0.0f, false, true, "held");
  EXPECT_EQ(ends_at(even), 4.0f);
  const Instance rewind = five(LoopMode::PingPong, 3, EndMode::Rewind);
  expect_band(resolve(rewind, 5.0f).a, 10, 11, 0.0f, 0.0f, false, true, "rewind");
}

TEST(PlaybackEdges, EndlessRepetitions) {
  for (LoopMode m : {LoopMode::Repeat, LoopMode::PingPong}) {
    const Instance in = five(m, -1);
    EXPECT_EQ(ends_at(in), std::nullopt);
    for (int cycle = 0; cycle < 1000; cycle += 37) {
      const float t = 2.0f + float(cycle) + 0.25f;
      const BandSample f = resolve(in, t).a;
      EXPECT_FALSE(f.finished);
      const bool back = m == LoopMode::PingPong && cycle % 2 == 1;
      EXPECT_EQ(f.phase, back ? 0.75f : 0.25f) << cycle;
      EXPECT_EQ(f.wraps, m == LoopMode::Repeat && cycle >= 1);
    }
  }
}

TEST(PlaybackEdges, VeryLargeTimes) {
  // Every field stays in its range and finite repetitions stay finished; an endless loop keeps
  // looping (with the float32 resolution of the elapsed time, which rebase_clock restores).
  for (LoopMode m : {LoopMode::Repeat, LoopMode::Once, LoopMode::PingPong}) {
    for (int reps : {-1, 3}) {
      const Instance in = five(m, reps, EndMode::Clamp, -3.0f);
      for (float t : {1e5f, 1e6f, 1e7f, 1e9f, 1e18f, 3e38f, -3e38f}) {
        const BandSample f = resolve(in, t).a;
        EXPECT_GE(f.row, kFirst);
        EXPECT_LE(f.row_next, kFirst + 4);
        EXPECT_GE(f.mix, 0.0f);
        EXPECT_LT(f.mix, 1.0f);
        EXPECT_TRUE(std::isfinite(f.phase));
        const bool finite = m == LoopMode::Once || reps != -1;
        EXPECT_EQ(f.finished, finite && t > 0.0f) << to_string(m) << " " << reps << " " << t;
      }
    }
  }
  // At 1e5 s the float32 clock still resolves 8 ms: the phase is the reference's within that.
  RefSpec s;
  s.rows = 5;
  s.fps = 4.0;
  s.start = -3.0;
  for (double t : {100000.3, 123456.789}) {
    const RefAnswer ref = reference(s, float(t));
    const BandSample f = resolve(instance_of(s), float(t)).a;
    EXPECT_NEAR(f.phase, ref.phase, 2.0 * ulp(float(t))) << t;
  }
  // Past 2^24 elapsed cycles the count is clamped: a defined pose, not a NaN.
  const BandSample f = resolve(five(LoopMode::Repeat, -1, EndMode::Clamp, 0.0f), 3e38f).a;
  EXPECT_EQ(f.row, kFirst);
  EXPECT_EQ(f.mix, 0.0f);
}

// ---- ends_at against resolve ---------------------------------------------------------------------

TEST(PlaybackEndsAt, FinishedFlipsExactlyThere) {
  std::mt19937 rng(99);
  int tested = 0;
  for (int c = 0; c < 3000; ++c) {
    RefSpec s;
    s.first_row = rng() % 100;
    s.rows = 1 + rng() % 80;
    s.fps = std::ldexp(double(1 + rng() % 1000), -int(rng() % 6));
    s.speed = (rng() % 50) * 0.07;
    s.loop = LoopMode(rng() % 3);
    s.reps = int(rng() % 9) - 1;
    if (s.reps == 0) s.reps = 1;
    s.end = EndMode(rng() % 2);
    s.start = double(float(-100.0 + (rng() % 200000) / 997.0));
    const Instance in = instance_of(s);
    const std::optional<float> end = ends_at(in);
    const bool finite = (s.loop == LoopMode::Once || s.reps != -1) && s.speed > 0.0;
    ASSERT_EQ(end.has_value(), finite) << c;
    if (!end) continue;
    ++tested;
    const Playback pb = compile(in).value();
    EXPECT_TRUE(resolve(pb, *end).a.finished) << c;
    EXPECT_FALSE(resolve(pb, std::nextafter(*end, -kNever)).a.finished) << c;
    EXPECT_TRUE(resolve(pb, std::nextafter(*end, kNever)).a.finished) << c;
    // And it is where the reference finishes, to float32 resolution.
    const int n = s.loop == LoopMode::Once ? 1 : s.reps;
    const double exact = s.rows > 1 ? s.start + n * ((s.rows - 1) / s.fps) / s.speed : s.start;
    EXPECT_NEAR(*end, exact, 4.0 * ulp(float(exact)) + 1e-6 * (std::fabs(s.start) + std::fabs(exact - s.start))) << c;
  }
  EXPECT_GT(tested, 1500);
}

// ---- the default tiers ---------------------------------------------------------------------------

TEST(PlaybackTiers, InstanceThenClipThenLibrary) {
  Instance in = simple(0, 31, 30.0f);
  ClipDefaults p = resolve_policy(in.policy, in.clip.defaults);  // library
  EXPECT_EQ(p.loop_mode, LoopMode::Repeat);
  EXPECT_EQ(p.repetitions, -1);
  EXPECT_EQ(p.end_mode, EndMode::Clamp);
  EXPECT_EQ(p.speed, 1.0f);

  in.clip.defaults.loop_mode = LoopMode::Once;  // a "death" clip: once, rewind, slow
  in.clip.defaults.end_mode = EndMode::Rewind;
  in.clip.defaults.speed = 0.5f;
  p = resolve_policy(in.policy, in.clip.defaults);
  EXPECT_EQ(p.loop_mode, LoopMode::Once);
  EXPECT_EQ(p.repetitions, 1);
  EXPECT_EQ(p.end_mode, EndMode::Rewind);
  EXPECT_EQ(p.speed, 0.5f);
  EXPECT_EQ(ends_at(in), 2.0f);  // 1 s of clip at half speed

  in.policy.speed = 2.0f;  // the instance overrides one field; the others still come from the clip
  p = resolve_policy(in.policy, in.clip.defaults);
  EXPECT_EQ(p.speed, 2.0f);
  EXPECT_EQ(p.end_mode, EndMode::Rewind);
  EXPECT_EQ(ends_at(in), 0.5f);
}

TEST(PlaybackTiers, ACountBelongsToItsLoopMode) {
  Instance in = simple(0, 5, 4.0f);
  in.clip.defaults.loop_mode = LoopMode::Repeat;
  in.clip.defaults.repetitions = 4;
  EXPECT_EQ(resolve_policy(in.policy, in.clip.defaults).repetitions, 4);
  in.policy.loop_mode = LoopMode::Repeat;  // naming the same mode keeps the clip's count
  EXPECT_EQ(resolve_policy(in.policy, in.clip.defaults).repetitions, 4);
  in.policy.loop_mode = LoopMode::PingPong;  // another mode: that mode's default count
  EXPECT_EQ(resolve_policy(in.policy, in.clip.defaults).repetitions, 1);
  in.policy.loop_mode = LoopMode::Once;  // a one-shot over a looping clip finishes
  EXPECT_EQ(ends_at(in), 1.0f);
  in.policy.loop_mode = LoopMode::PingPong;
  in.policy.repetitions = 3;  // an instance's own count always wins
  EXPECT_EQ(resolve_policy(in.policy, in.clip.defaults).repetitions, 3);
  // The clip names a count but no mode: the count belongs to the library mode, Repeat.
  Instance bare = simple(0, 5, 4.0f);
  bare.clip.defaults.repetitions = 2;
  EXPECT_EQ(resolve_policy(bare.policy, bare.clip.defaults).repetitions, 2);
  bare.policy.loop_mode = LoopMode::PingPong;
  EXPECT_EQ(resolve_policy(bare.policy, bare.clip.defaults).repetitions, 1);
}

TEST(PlaybackTiers, EveryModeButRepeatDefaultsToOnePlayAsInThreeVat) {
  // three-vat 2.1: "endless for LoopMode.Repeat and a single play for anything else". A default
  // PingPong plays one traversal and holds its last row (three.js's own LoopPingPong would bounce
  // for ever: write repetitions -1 for that).
  EXPECT_EQ(default_repetitions(LoopMode::Repeat), -1);
  EXPECT_EQ(default_repetitions(LoopMode::PingPong), 1);
  EXPECT_EQ(default_repetitions(LoopMode::Once), 1);
  Instance in = five(LoopMode::PingPong);  // 5 rows at 4 fps from t = 2: one traversal is 1 s
  EXPECT_EQ(ends_at(in), 3.0f);
  const PlaybackSample end = resolve(in, 2.0f + 1001.25f);
  EXPECT_TRUE(end.a.finished);
  EXPECT_EQ(end.a.phase, 1.0f);  // Clamp after an odd count: the last row
  in.policy.repetitions = -1;
  EXPECT_EQ(ends_at(in), std::nullopt);
  EXPECT_EQ(resolve(in, 2.0f + 1001.25f).a.phase, 0.75f);  // still bouncing, backwards
}

TEST(PlaybackTiers, BadPoliciesAreRefusedWithTheirName) {
  struct Case {
    const char* what;
    void (*mutate)(Instance&);
  };
  const Case cases[] = {
      {"repetitions 0", [](Instance& i) { i.policy.repetitions = 0; }},
      {"repetitions -2", [](Instance& i) { i.policy.repetitions = -2; }},
      {"clip.repetitions 20000000", [](Instance& i) { i.clip.defaults.repetitions = 20000000; }},
      {"at least one row", [](Instance& i) { i.clip.rows = 0; }},
      {"fps 0 must be finite and > 0", [](Instance& i) { i.clip.fps = 0.0f; }},
      {"fps nan", [](Instance& i) { i.clip.fps = NAN; }},
      {"runs past row 2^24", [](Instance& i) { i.clip.first_row = (1u << 24) - 2; }},
      {"start_time inf", [](Instance& i) { i.start_time = INFINITY; }},
      {"speed is not finite", [](Instance& i) { i.policy.speed = INFINITY; }},
      {"fade_duration -1", [](Instance& i) { i.fade_duration = -1.0f; }},
      {"blend.weight 1.5",
       [](Instance& i) {
         i.blend = Blend{band(0, 5, 4.0f), 1.5f};
       }},
      {"three bands",
       [](Instance& i) {
         i.blend = Blend{band(0, 5, 4.0f), 0.5f};
         i.from = Outgoing{band(0, 5, 4.0f), 0.0f, {}};
         i.fade_duration = 1.0f;
       }},
  };
  for (const Case& c : cases) {
    Instance in = simple(0, 5, 4.0f);
    c.mutate(in);
    Result<Playback> p = compile(in);
    ASSERT_FALSE(p.ok()) << c.what;
    EXPECT_NE(p.error().message.find(c.what), std::string::npos) << p.error().message;
    EXPECT_EQ(p.error().code, ErrorCode::Argument) << p.error().message;
    EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
  }
}

// ---- cross-fades ---------------------------------------------------------------------------------

Instance hand_fade(FadeCurve curve) {
  Instance in = simple(100, 31, 30.0f, 10.0f);  // the incoming clip, 1 s, starting at 10
  in.fade_duration = 2.0f;                      // longer than three-vat's 0.25 s cap, on purpose
  in.fade_curve = curve;
  in.from = Outgoing{band(0, 61, 30.0f), 7.0f, {}};  // a 2 s loop started at 7, playing on
  in.from->policy.speed = 0.5f;
  return in;
}

TEST(PlaybackFade, WeightFallsFromOneToZeroAlongTheCurve) {
  for (FadeCurve curve : {FadeCurve::Linear, FadeCurve::Smooth}) {
    const Playback pb = compile(hand_fade(curve)).value();
    EXPECT_EQ(pb.kind, MixKind::Fade);
    EXPECT_EQ(resolve(pb, 9.0f).weight, 1.0f);  // before the fade: all outgoing
    EXPECT_EQ(resolve(pb, 10.0f).weight, 1.0f);
    EXPECT_EQ(resolve(pb, 11.0f).weight, 0.5f);  // both curves pass 1/2 at the middle
    EXPECT_EQ(resolve(pb, 11.5f).weight, curve == FadeCurve::Linear ? 0.25f : 0.15625f);
    EXPECT_EQ(resolve(pb, 12.0f).weight, 0.0f);
    EXPECT_EQ(ramp_ends_at(pb), 12.0f);
    float last = 1.0f, max_step = 0.0f;
    for (int i = 0; i <= 300; ++i) {  // 60 Hz over the fade and after
      const PlaybackSample f = resolve(pb, 10.0f + float(i) / 60.0f);
      EXPECT_LE(f.weight, last);
      max_step = std::max(max_step, last - f.weight);
      last = f.weight;
    }
    // Slope bound: 1/60 s over 2 s, 1.5x at the middle of a smoothstep.
    EXPECT_LE(max_step, (curve == FadeCurve::Linear ? 1.0f : 1.5f) / 120.0f + 1e-6f);
  }
}

TEST(PlaybackFade, TheOutgoingBandKeepsPlaying) {
  const Playback pb = compile(hand_fade(FadeCurve::Linear)).value();
  // Outgoing: 61 rows at 30 fps (2 s) at half speed from t = 7: phase (t - 7) / 4.
  for (float t : {10.0f, 10.5f, 11.0f, 11.75f}) {
    const PlaybackSample f = resolve(pb, t);
    EXPECT_EQ(f.kind, MixKind::Fade);
    EXPECT_NEAR(f.b.phase, std::fmod((t - 7.0f) / 4.0f, 1.0f), 1e-6f) << t;
    EXPECT_NEAR(f.a.phase, std::fmod(t - 10.0f, 1.0f), 1e-6f) << t;
    EXPECT_LT(f.b.row, 61u);
    EXPECT_GE(f.a.row, 100u);
  }
  // Once the weight is 0 the outgoing band is gone: Single, b repeats a.
  const PlaybackSample after = resolve(pb, 12.5f);
  EXPECT_EQ(after.kind, MixKind::Single);
  EXPECT_EQ(after.weight, 0.0f);
  EXPECT_EQ(after.b, after.a);
  // An instance that is not fading reports b == a and weight 0 too.
  const PlaybackSample single = resolve(simple(0, 5, 4.0f), 0.3f);
  EXPECT_EQ(single.kind, MixKind::Single);
  EXPECT_EQ(single.b, single.a);
  EXPECT_EQ(single.weight, 0.0f);
}

TEST(PlaybackFade, OutgoingOneShotFinishesUnderItsOwnPolicy) {
  Instance in = hand_fade(FadeCurve::Linear);
  in.from->policy.loop_mode = LoopMode::Once;  // 2 s of clip at half speed from 7: ends at 11
  const Playback pb = compile(in).value();
  EXPECT_FALSE(resolve(pb, 10.9f).b.finished);
  const PlaybackSample f = resolve(pb, 11.5f);
  EXPECT_TRUE(f.b.finished);
  EXPECT_EQ(f.b.row, 60u);
  EXPECT_FALSE(f.a.finished);
  EXPECT_EQ(ends_at(pb), std::nullopt);  // the instance's own clip loops
}

// ---- two-clip blends -----------------------------------------------------------------------------

TEST(PlaybackBlend, PhaseSyncKeepsThePhasesEqual) {
  std::mt19937 rng(3);
  for (int c = 0; c < 200; ++c) {
    Instance in = simple(0, 2 + rng() % 40, 30.0f, float(rng() % 100) * 0.1f);  // "walk"
    in.policy.loop_mode = LoopMode(rng() % 3);
    in.policy.repetitions = int(rng() % 4) + 1;
    in.policy.speed = 0.25f * float(rng() % 9);
    in.blend = Blend{band(50, 2 + rng() % 60, 24.0f), 0.25f * float(rng() % 5), BlendSync::Phase};
    const Playback pb = compile(in).value();
    for (int k = 0; k < 50; ++k) {
      const PlaybackSample f = resolve(pb, float(rng() % 20000) * 0.001f);
      ASSERT_EQ(f.kind, MixKind::Blend);
      ASSERT_EQ(f.a.phase, f.b.phase);
      ASSERT_EQ(f.a.finished, f.b.finished);
      ASSERT_EQ(f.weight, in.blend->weight);
      ASSERT_GE(f.b.row, 50u);
    }
  }
}

TEST(PlaybackBlend, TimeSyncSharesTheClock) {
  Instance in = simple(0, 31, 30.0f, 1.0f);  // A: 1 s
  in.policy.speed = 2.0f;
  in.blend = Blend{band(40, 13, 8.0f), 0.7f, BlendSync::Time};  // B: 1.5 s
  const Playback pb = compile(in).value();
  for (float t : {1.0f, 1.3f, 1.9f, 2.6f, 7.1f}) {
    const PlaybackSample f = resolve(pb, t);
    const double clip_s = (t - 1.0) * 2.0;
    EXPECT_NEAR(f.a.phase, std::fmod(clip_s, 1.0), 1e-5) << t;
    EXPECT_NEAR(f.b.phase, std::fmod(clip_s, 1.5) / 1.5, 1e-5) << t;
    EXPECT_EQ(f.weight, 0.7f);
  }
}

TEST(PlaybackBlend, WeightRamp) {
  Instance in = simple(0, 31, 30.0f, 0.0f);
  in.blend = Blend{band(40, 13, 8.0f), 0.8f, BlendSync::Phase, 0.2f};
  in.fade_duration = 1.0f;
  in.fade_start = 5.0f;
  const Playback pb = compile(in).value();
  EXPECT_EQ(resolve(pb, 4.0f).weight, 0.2f);
  EXPECT_NEAR(resolve(pb, 5.5f).weight, 0.5f, 1e-6f);
  EXPECT_EQ(resolve(pb, 6.0f).weight, 0.8f);
  EXPECT_EQ(resolve(pb, 60.0f).weight, 0.8f);
  EXPECT_EQ(resolve(pb, 60.0f).kind, MixKind::Blend);
  EXPECT_EQ(ramp_ends_at(pb), 6.0f);
  in.blend->weight = 0.0f;  // a blend at weight 0 still reports its B band
  in.fade_duration = 0.0f;
  const PlaybackSample f = resolve(in, 1.0f);
  EXPECT_EQ(f.kind, MixKind::Blend);
  EXPECT_GE(f.b.row, 40u);
}

// ---- JSON lines and the conformance vectors ------------------------------------------------------

TEST(PlaybackJson, ParsesThreeVatNames) {
  Result<FrameQuery> q = parse_frame_query(
      R"({"instance": {"clip": {"startFrame": 10, "frames": 5, "fps": 4, "loopMode": "once",)"
      R"( "speed": 0.5}, "startTime": 2, "loopMode": "pingpong", "repetitions": 3, "endMode": "rewind",)"
      R"( "blend": {"clip": {"startFrame": 0, "frames": 3, "fps": 2}, "weight": 0.25, "sync": "time"},)"
      R"( "fadeDuration": 0.5, "fadeCurve": "smooth"}, "time": 2.5})");
  ASSERT_TRUE(q.ok()) << q.error().message;
  const Instance& in = q->instance;
  EXPECT_EQ(in.clip.first_row, 10u);
  EXPECT_EQ(in.clip.rows, 5u);
  EXPECT_EQ(in.clip.fps, 4.0f);
  EXPECT_EQ(in.clip.defaults.loop_mode, LoopMode::Once);
  EXPECT_EQ(in.clip.defaults.speed, 0.5f);
  EXPECT_EQ(in.start_time, 2.0f);
  EXPECT_EQ(in.policy.loop_mode, LoopMode::PingPong);
  EXPECT_EQ(in.policy.repetitions, 3);
  EXPECT_EQ(in.policy.end_mode, EndMode::Rewind);
  ASSERT_TRUE(in.blend.has_value());
  EXPECT_EQ(in.blend->sync, BlendSync::Time);
  EXPECT_EQ(in.fade_curve, FadeCurve::Smooth);
  EXPECT_EQ(q->time, 2.5f);
  Result<FrameAnswer> a = run_frame_query(*q);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(frame_json(*a),
            R"({"row": 11, "rowNext": 12, "mix": 0, "wraps": false, "finished": false, "phase": 0.25, )"
            R"("rowB": 0, "rowNextB": 1, "mixB": 0.5, "wrapsB": false, "finishedB": false, "phaseB": 0.25, )"
            R"("weight": 0.25, "kind": "blend", "endsAt": 8})");
}

TEST(PlaybackJson, BadLinesNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"not json", "not a JSON value"},
      {R"({"time": 1})", "line: missing \"instance\""},
      {R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": "30"}, "startTime": 0}, "time": 1})",
       "instance.clip.fps: expected a number"},
      {R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 30}, "starttime": 0}, "time": 1})",
       "instance: unknown field \"starttime\""},
      {R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 30})"
       R"(, "startTime": 0, "loopMode": "loop"}, "time": 1})",
       "instance.loopMode: expected \"repeat\", \"once\" or \"pingpong\""},
      {R"({"instance": {"clip": {"startFrame": 1.5, "frames": 5, "fps": 30}, "startTime": 0}, "time": 1})",
       "instance.clip.startFrame: expected an integer"},
      {R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 30}, "startTime": 0}, "time": 1e39})",
       "time: out of float32 range"},
      // An unsigned number past int64's range is out of range, not wrapped: 2^64 - 1 is not
      // repetitions -1 (endless).
      {R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 30})"
       R"(, "startTime": 0, "repetitions": 18446744073709551615}, "time": 1})",
       "instance.repetitions: out of range: 18446744073709551615"},
  };
  for (const auto& [line, want] : cases) {
    Result<FrameQuery> q = parse_frame_query(line);
    ASSERT_FALSE(q.ok()) << line;
    EXPECT_NE(q.error().message.find(want), std::string::npos) << q.error().message;
  }
  // Well-formed but refused by compile: the library's message.
  Result<FrameQuery> q = parse_frame_query(
      R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 30}, "startTime": 0, "speed": -3e38}, "time": 1})");
  ASSERT_TRUE(q.ok());
  Result<FrameAnswer> a = run_frame_query(*q);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("is too fast for float32"), std::string::npos) << a.error().message;
  EXPECT_EQ(a.error().code, ErrorCode::Argument);
}

// Nesting deeper than 64 levels is refused before anything walks the value: dumping or comparing
// 100,000 nested arrays recursively overflows the stack.
std::string nested(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }
const char* const kClip = R"({"clip": {"startFrame": 0, "frames": 5, "fps": 30}, "startTime": 0})";

TEST(PlaybackJson, DeepNestingIsRefused) {
  const std::string deep = nested(100000);
  const std::string lines[] = {
      R"({"instance": )" + deep + R"(, "time": 1})",
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1, "expect": {"row": )" + deep + "}}",
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1, "set": [{"now": 0, "instance": )" + deep + "}]}",
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1, "set": )" + deep + "}",
  };
  for (const std::string& line : lines) {
    Result<FrameQuery> q = parse_frame_query(line);
    ASSERT_FALSE(q.ok()) << line.substr(0, 80);
    EXPECT_EQ(q.error().message, "line: nested deeper than 64 levels");
    EXPECT_EQ(q.error().code, ErrorCode::Limit);
  }
  // 64 levels are read (and refused for what they are): the answer's own PlaybackSample with its "row"
  // (0) replaced by 62 nested arrays.
  const std::string query = R"({"instance": )" + std::string(kClip) + R"(, "time": 0)";
  Result<FrameQuery> plain = parse_frame_query(query + "}");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  Result<FrameAnswer> a = run_frame_query(*plain);
  ASSERT_TRUE(a.ok());
  std::string expect = frame_json(*a);
  ASSERT_EQ(expect.rfind("{\"row\": 0, ", 0), 0u) << expect;
  expect.replace(8, 1, nested(62));
  Result<FrameQuery> q = parse_frame_query(query + R"(, "expect": )" + expect + "}");
  ASSERT_TRUE(q.ok()) << q.error().message;
  Result<void> c = check_frame_json(*q->expect, *a);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message.rfind("row: expected [[[[", 0), 0u) << c.error().message;
  EXPECT_LT(c.error().message.size(), 120u) << "a value is shown shortened";
  // check_frame_json bounds its own input too.
  c = check_frame_json("{\"row\": " + deep + "}", *a);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "expect: nested deeper than 64 levels");
  EXPECT_EQ(c.error().code, ErrorCode::Limit);
}

// Keys and values from the line are quoted printably: no terminal control or bidirectional
// override reaches the message.
TEST(PlaybackJson, MessagesQuoteTheLinePrintably) {
  Result<FrameQuery> q = parse_frame_query(R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 30})"
                                           R"(, "startTime": 0, "\u001b[31m\r\u202e": 1}, "time": 1})");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message, "instance: unknown field \"\\x1b[31m\\x0d\\u{202E}\"");
  q = parse_frame_query(
      R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": "\u202e\u0007"}, "startTime": 0}, "time": 1})");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message, "instance.clip.fps: expected a number, got \"\\u202e\\u0007\"");
}

TEST(PlaybackJson, FloatsReadBackExactly) {
  std::mt19937 rng(5);
  for (int i = 0; i < 10000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (!std::isfinite(f)) continue;
    const std::string s = float_text(f);
    EXPECT_EQ(float(std::stod(s)), f) << s;
  }
}

// The conformance vectors: every line's query, answered by the library, equals its "expect".
TEST(PlaybackConformance, LibraryMatchesTheVectorFile) {
  size_t with_writes = 0, fades = 0, blends = 0, finished = 0, wraps = 0;
  const size_t n = test::check_vector_file("playback_v2.jsonl", [&](const FrameQuery& q, const FrameAnswer& a) {
    with_writes += !q.writes.empty();
    fades += a.frame.kind == MixKind::Fade;
    blends += a.frame.kind == MixKind::Blend;
    finished += a.frame.a.finished;
    wraps += a.frame.a.wraps;
  });
  // The file covers what it claims to (see make_playback_v2.py).
  EXPECT_GE(n, 300u);
  EXPECT_GE(with_writes, 30u);
  EXPECT_GE(fades, 30u);
  EXPECT_GE(blends, 20u);
  EXPECT_GE(finished, 30u);
  EXPECT_GE(wraps, 30u);
}

// The CLI (absent from the runtime-only test binary, tests/runtime, which defines no VATKIT_CLI):
// one PlaybackSample per line; a bad line is one error naming it, exit 1, after the answers of the lines
// before it (each answer is written as its line is read).
#if defined(VATKIT_CLI)
TEST(PlaybackCli, FrameCommand) {
  const std::string cli = VATKIT_CLI;
  const std::string good =
      R"({"instance": {"clip": {"startFrame": 10, "frames": 5, "fps": 4}, "startTime": 2}, "time": 3.125})";
  test::CommandResult r = test::run_command("printf '%s\\n\\n%s\\n' " + test::shell_quote(good) + " " +
                                            test::shell_quote(good) + " | " + test::shell_quote(cli) + " frame");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string frame =
      R"({"row": 10, "rowNext": 11, "mix": 0.5, "wraps": true, "finished": false, "phase": 0.125, )"
      R"("rowB": 10, "rowNextB": 11, "mixB": 0.5, "wrapsB": true, "finishedB": false, "phaseB": 0.125, )"
      R"("weight": 0, "kind": "single", "endsAt": null})";
  EXPECT_EQ(r.out, frame + "\n" + frame + "\n");
  r = test::run_command("printf '%s\\n%s\\n' " + test::shell_quote(good) + " " +
                        test::shell_quote(R"({"instance": {}, "time": 1})") + " | " + test::shell_quote(cli) +
                        " frame");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, frame + "\n");
  EXPECT_EQ(r.err, "vatkit: error: <stdin>: line 2: instance: missing \"clip\"\n");
  const std::string vectors = std::string(VATKIT_SOURCE_DIR) + "/tests/conformance/playback_v2.jsonl";
  r = test::run_command(test::shell_quote(cli) + " frame --check < " + test::shell_quote(vectors));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" frames match"), std::string::npos) << r.out;
  const std::string controls = std::string(VATKIT_SOURCE_DIR) + "/tests/conformance/playback_v3.jsonl";
  r = test::run_command(test::shell_quote(cli) + " frame --check < " + test::shell_quote(controls));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "815 frames match\n");
  const std::string events = std::string(VATKIT_SOURCE_DIR) + "/tests/conformance/events_v1.jsonl";
  r = test::run_command(test::shell_quote(cli) + " frame --check < " + test::shell_quote(events));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1003 frames match\n");
}

// 100,000 nested arrays in "instance", "expect" or "set": one error line naming the line, exit 1,
// no crash; the good line before it was already answered (answers stream), and one line only.
// A number beyond double's range makes nlohmann's parser throw out_of_range, not parse_error
// (fuzz_frame found it in "expect"): still one error line for that line, the next line answered.
TEST(PlaybackCli, NumberOverflowIsOneErrorLine) {
  const std::string good = R"({"instance": )" + std::string(kClip) + R"(, "time": 1})";
  const std::string bad[] = {
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1e4444})",
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1, "expect": {"row": -1e4444}})",
  };
  for (const std::string& line : bad) {
    const Result<FrameQuery> q = parse_frame_query(line);
    ASSERT_FALSE(q.ok()) << line;
    EXPECT_EQ(q.error().message.rfind("not a JSON value: number overflow parsing '", 0), 0u) << q.error().message;
    const std::filesystem::path input = test::scratch_dir("frame_overflow") / "in.jsonl";
    std::ofstream(input) << line << "\n" << good << "\n";
    const test::CommandResult r =
        test::run_command(test::shell_quote(VATKIT_CLI) + " frame --keep-going < " + test::shell_quote(input.string()));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(r.err.rfind("vatkit: error: <stdin>: line 1: not a JSON value: number overflow parsing '", 0), 0u)
        << r.err;
    EXPECT_NE(r.err.find("\nvatkit: error: <stdin>: 1 of 2 query lines were bad and skipped"), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  }
}

TEST(PlaybackCli, DeepNestingIsOneErrorLine) {
  const std::filesystem::path dir = test::scratch_dir("frame_deep");
  const std::string good = R"({"instance": )" + std::string(kClip) + R"(, "time": 1})";
  const std::string deep = nested(100000);
  const std::string lines[] = {
      R"({"instance": )" + deep + R"(, "time": 1})",
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1, "expect": )" + deep + "}",
      R"({"instance": )" + std::string(kClip) + R"(, "time": 1, "set": [{"now": 0, "instance": )" + deep + "}]}",
  };
  for (const std::string& line : lines) {
    const std::filesystem::path input = dir / "in.jsonl";
    std::ofstream(input) << good << "\n" << line << "\n";
    for (const char* mode : {"", " --annotate"}) {
      const test::CommandResult r = test::run_command(test::shell_quote(VATKIT_CLI) + " frame" + mode + " < " +
                                                      test::shell_quote(input.string()));
      EXPECT_EQ(r.exit_code, 1) << mode;
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << mode << r.out;
      EXPECT_EQ(r.out.find("nested"), std::string::npos) << mode;
      EXPECT_EQ(r.err, "vatkit: error: <stdin>: line 2: line: nested deeper than 64 levels\n") << mode;
    }
    std::ofstream(input) << line << "\n";
    const test::CommandResult r =
        test::run_command(test::shell_quote(VATKIT_CLI) + " frame --check < " + test::shell_quote(input.string()));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "vatkit: error: <stdin>: line 1: line: nested deeper than 64 levels\n");
  }
}
#endif  // VATKIT_CLI

}  // namespace
}  // namespace vatkit
