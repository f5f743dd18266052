// The instance table (instance_table.h): the packed layout texel by texel, packing and unpacking
// as exact inverses (and resolve on the float32 row equal to resolve on the instance),
// set_instance's transition rule case by case, dirty ranges on a million rows, the event heap,
// and the clock rebase (exact where the times shift exactly, folded loops within the old clock's
// rounding, the documented float32 resolution).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "playback_test_util.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

using test::band;
using test::play;

// Three clips of a small VAT: walk (rows 0-30, 1 s), run (31-51, 2/3 s), wave (52-112, 2 s).
const ClipBand kWalk = band(0, 31, 30.0f);
const ClipBand kRun = band(31, 21, 30.0f);
const ClipBand kWave = band(52, 61, 30.0f);

Instance random_instance(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Instance in;
  in.clip = band(rng() % 1000, 1 + rng() % 90, 10.0f + 50.0f * u(rng));
  in.start_time = -20.0f + 40.0f * u(rng);
  if (rng() % 2) in.policy.speed = 3.0f * u(rng);
  if (rng() % 2) in.policy.loop_mode = LoopMode(rng() % 3);
  if (rng() % 2) in.policy.repetitions = rng() % 3 ? int(1 + rng() % 6) : -1;
  if (rng() % 2) in.policy.end_mode = EndMode(rng() % 2);
  if (rng() % 3) in.clip.defaults.loop_mode = LoopMode(rng() % 3);
  switch (rng() % 3) {
    case 0: break;
    case 1:
      in.blend = Blend{band(rng() % 1000, 1 + rng() % 90, 24.0f), u(rng), BlendSync(rng() % 2)};
      if (rng() % 2) {
        in.blend->weight_from = u(rng);
        in.fade_duration = 0.1f + u(rng);
      }
      break;
    case 2:
      in.from = Outgoing{band(rng() % 1000, 1 + rng() % 90, 30.0f), in.start_time - 3.0f * u(rng), {}};
      in.fade_duration = 0.05f + 2.0f * u(rng);
      in.fade_curve = FadeCurve(rng() % 2);
      in.fade_weight = 0.1f + 0.9f * u(rng);
      break;
  }
  return in;
}

// ---- packing -------------------------------------------------------------------------------------

TEST(InstanceTablePack, LayoutTexelByTexel) {
  Instance in = play(band(40, 13, 8.0f), 2.5f, 0.5f);
  in.policy.loop_mode = LoopMode::PingPong;
  in.policy.repetitions = 4;
  in.policy.speed = 1.5f;
  in.from = Outgoing{band(7, 5, 4.0f), 1.0f, {}};
  in.from->policy.end_mode = EndMode::Rewind;
  in.from->policy.loop_mode = LoopMode::Once;
  in.fade_curve = FadeCurve::Smooth;
  in.fade_start = 3.0f;
  const PackedInstance r = pack(compile(in).value());
  // Primary: rows 40..52, PingPong x4 (even: ends on the first row), 1.5 x 8 / 12 = 1 cycle/s.
  EXPECT_EQ(r.texels[0], glm::vec4(40, 13, 2, 0));
  EXPECT_EQ(r.texels[1], glm::vec4(2.5f, 1.0f, 6.5f, 4));
  // Second: rows 7..11, Once (1 play), rewinds, 1 cycle/s from t = 1.
  EXPECT_EQ(r.texels[2], glm::vec4(7, 5, 1, 0));
  EXPECT_EQ(r.texels[3], glm::vec4(1.0f, 1.0f, 2.0f, 1));
  EXPECT_EQ(r.texels[4], glm::vec4(1.0f, 0.0f, 3.0f, 2.0f));  // from 1 to 0 at t = 3 over 0.5 s
  EXPECT_EQ(r.texels[5], glm::vec4(1, 1, 0, 0));              // Fade, smoothstep
  // An endless loop's end is FLT_MAX; a Single row repeats the primary texels.
  const PackedInstance s = pack(compile(play(kWalk, 0.0f)).value());
  EXPECT_EQ(s.texels[1].z, kNever);
  EXPECT_EQ(s.texels[1].w, -1.0f);
  EXPECT_EQ(s.texels[2], s.texels[0]);
  EXPECT_EQ(s.texels[3], s.texels[1]);
  EXPECT_EQ(s.texels[4], glm::vec4(0.0f));
  EXPECT_EQ(s.texels[5], glm::vec4(0.0f));
}

TEST(InstanceTablePack, PackAndUnpackAreExactInverses) {
  std::mt19937 rng(11);
  InstanceTable table(1);
  for (int c = 0; c < 3000; ++c) {
    const Instance in = random_instance(rng);
    Result<Playback> p = compile(in);
    ASSERT_TRUE(p.ok()) << c << ": " << p.error().message;
    const PackedInstance row = pack(*p);
    ASSERT_EQ(unpack(row), *p) << c;
    const PackedInstance again = pack(unpack(row));
    ASSERT_EQ(std::memcmp(&again, &row, sizeof(row)), 0) << c;
    // Through bytes, as the GPU gets them: 24 float32 values.
    float bytes[24];
    std::memcpy(bytes, &row, sizeof(bytes));
    PackedInstance uploaded;
    std::memcpy(&uploaded, bytes, sizeof(bytes));
    for (int k = 0; k < 10; ++k) {
      const float t = in.start_time - 2.0f + float(rng() % 10000) * 0.002f;
      ASSERT_EQ(resolve(uploaded, t), resolve(in, t)) << c << " t " << t;
    }
    // Playbacks that set_instance builds (fades from what was on screen) round-trip too.
    Instance next = random_instance(rng);
    next.from.reset();
    next.fade_duration = 0.3f;
    if (set_instance(table, 0, next, in.start_time + 1.0f).ok()) {
      ASSERT_EQ(pack(playback(table, 0)).texels, table.row(0).texels);
      ASSERT_EQ(unpack(table.row(0)), playback(table, 0));
    }
  }
}

// ---- set_instance's transition rule --------------------------------------------------------------

TEST(InstanceTableSet, FirstWriteAndZeroFadeCut) {
  InstanceTable table(3);
  ASSERT_TRUE(set_instance(table, 1, play(kWalk, 0.0f, 0.5f), 0.0f).ok());
  EXPECT_EQ(playback(table, 1).kind, MixKind::Single);  // nothing was on screen
  ASSERT_TRUE(set_instance(table, 1, play(kRun, 2.0f), 2.0f).ok());
  EXPECT_EQ(playback(table, 1), compile(play(kRun, 2.0f)).value());
  EXPECT_FALSE(table.written(0));
  EXPECT_EQ(resolve(table, 0, 5.0f).a.row, 0u);  // an unwritten row holds row 0
}

TEST(InstanceTableSet, FadeStartsFromWhatIsOnScreen) {
  InstanceTable table(1);
  Instance walk = play(kWalk, -0.3f);
  walk.policy.speed = 1.25f;
  ASSERT_TRUE(set_instance(table, 0, walk, 0.0f).ok());
  const PlaybackSample before = resolve(table, 0, 1.0f);
  ASSERT_TRUE(set_instance(table, 0, play(kRun, 1.0f, 0.5f), 1.0f).ok());
  const Playback p = playback(table, 0);
  EXPECT_EQ(p.kind, MixKind::Fade);
  EXPECT_EQ(p.second, compile(walk)->primary);  // the walk, still playing with its start and speed
  EXPECT_EQ(p.ramp_start, 1.0f);
  const PlaybackSample at = resolve(table, 0, 1.0f);
  EXPECT_EQ(at.b, before.a);  // at the write the screen shows exactly what it showed
  EXPECT_EQ(at.weight, 1.0f);
  EXPECT_EQ(resolve(table, 0, 1.25f).weight, 0.5f);
  EXPECT_EQ(resolve(table, 0, 1.25f).b, resolve(walk, 1.25f).a);  // not frozen
  EXPECT_EQ(resolve(table, 0, 1.5f).kind, MixKind::Single);
}

struct Midfade {
  InstanceTable table{1};
  PlaybackSample shown;
  Midfade(float now) {  // walk, then run faded in over 1 s at t = 1; `now` into that fade
    EXPECT_TRUE(set_instance(table, 0, play(kWalk, 0.0f), 0.0f).ok());
    EXPECT_TRUE(set_instance(table, 0, play(kRun, 1.0f, 1.0f), 1.0f).ok());
    shown = resolve(table, 0, now);
  }
};

TEST(InstanceTableSet, RetargetKeepsTheOutgoingWeight) {
  Midfade m(1.25f);  // walk at 0.75
  ASSERT_TRUE(set_instance(m.table, 0, play(kRun, 1.0f, 0.5f), 1.25f).ok());
  const Playback p = playback(m.table, 0);
  EXPECT_EQ(p.weight_from, 0.75f);
  EXPECT_EQ(resolve(m.table, 0, 1.25f), m.shown);  // no pop
  EXPECT_EQ(resolve(m.table, 0, 1.5f).weight, 0.375f);
  EXPECT_EQ(resolve(m.table, 0, 1.75f).kind, MixKind::Single);  // the new, shorter fade is over
}

TEST(InstanceTableSet, TurningBackFadesFromWhereItIs) {
  Midfade m(1.25f);  // walk 0.75, run 0.25: go back to the walk (the same track)
  ASSERT_TRUE(set_instance(m.table, 0, play(kWalk, 0.0f, 0.5f), 1.25f).ok());
  const PlaybackSample now = resolve(m.table, 0, 1.25f);
  EXPECT_EQ(now.a, m.shown.b);  // the walk is primary again
  EXPECT_EQ(now.b, m.shown.a);  // the run fades out from its 0.25
  EXPECT_EQ(now.weight, 0.25f);
  EXPECT_EQ(resolve(m.table, 0, 1.75f).kind, MixKind::Single);
}

TEST(InstanceTableSet, ANewClipCollapsesToTheDominantBand) {
  {
    Midfade m(1.3f);  // walk 0.7 dominates: the wave fades in over the walk
    ASSERT_TRUE(set_instance(m.table, 0, play(kWave, 1.3f, 0.5f), 1.3f).ok());
    const PlaybackSample f = resolve(m.table, 0, 1.3f);
    EXPECT_EQ(f.b, m.shown.b);
    EXPECT_EQ(f.weight, 1.0f);
    EXPECT_EQ(playback(m.table, 0).second, compile(play(kWalk, 0.0f))->primary);
  }
  {
    Midfade m(1.7f);  // run 0.7 dominates: the wave fades in over the run
    ASSERT_TRUE(set_instance(m.table, 0, play(kWave, 1.7f, 0.5f), 1.7f).ok());
    const PlaybackSample f = resolve(m.table, 0, 1.7f);
    EXPECT_EQ(f.b, m.shown.a);
    EXPECT_EQ(f.weight, 1.0f);
  }
  {
    Midfade m(1.5f);  // a tie goes to the primary (the incoming run)
    ASSERT_TRUE(set_instance(m.table, 0, play(kWave, 1.5f, 0.5f), 1.5f).ok());
    EXPECT_EQ(resolve(m.table, 0, 1.5f).b, m.shown.a);
  }
}

TEST(InstanceTableSet, BlendWeightChangesRamp) {
  InstanceTable table(1);
  Instance loco = play(kWalk, 0.0f);
  loco.blend = Blend{kRun, 0.2f, BlendSync::Phase};
  ASSERT_TRUE(set_instance(table, 0, loco, 0.0f).ok());
  loco.blend->weight = 0.8f;
  loco.fade_duration = 1.0f;
  ASSERT_TRUE(set_instance(table, 0, loco, 3.0f).ok());
  EXPECT_EQ(resolve(table, 0, 3.0f).weight, 0.2f);
  EXPECT_NEAR(resolve(table, 0, 3.5f).weight, 0.5f, 1e-6f);
  EXPECT_EQ(resolve(table, 0, 4.0f).weight, 0.8f);
  EXPECT_EQ(resolve(table, 0, 3.5f).a.phase, resolve(table, 0, 3.5f).b.phase);
  // From the walk alone into the walk + run blend: B ramps in from 0.
  InstanceTable t2(1);
  ASSERT_TRUE(set_instance(t2, 0, play(kWalk, 0.0f), 0.0f).ok());
  ASSERT_TRUE(set_instance(t2, 0, loco, 2.0f).ok());
  EXPECT_EQ(resolve(t2, 0, 2.0f).weight, 0.0f);
  EXPECT_EQ(resolve(t2, 0, 2.0f).a, resolve(play(kWalk, 0.0f), 2.0f).a);
  EXPECT_EQ(resolve(t2, 0, 3.0f).weight, 0.8f);
  // From B alone (time sync: B keeps A's clock, so a run with the walk's start is B): from 1.
  InstanceTable t3(1);
  ASSERT_TRUE(set_instance(t3, 0, play(kRun, 0.0f), 0.0f).ok());
  Instance timed = loco;
  timed.blend->sync = BlendSync::Time;
  ASSERT_TRUE(set_instance(t3, 0, timed, 2.0f).ok());
  EXPECT_EQ(resolve(t3, 0, 2.0f).weight, 1.0f);
  EXPECT_EQ(resolve(t3, 0, 2.0f).b, resolve(play(kRun, 0.0f), 2.0f).a);
}

TEST(InstanceTableSet, RefusalsLeaveTheTableUnchanged) {
  InstanceTable table(2, /*frame_rows=*/113);
  ASSERT_TRUE(set_instance(table, 0, play(kWave, 0.0f), 0.0f).ok());
  std::vector<RowRange> ranges;
  take_dirty(table, ranges);
  const PackedInstance before = table.row(0);
  Instance blend = play(kWalk, 0.0f, 0.5f);  // a fade into walk + run from the wave: 3 bands
  blend.blend = Blend{kRun, 0.5f};
  Result<void> r = set_instance(table, 0, blend, 1.0f);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("needs the blend's band A or B on screen"), std::string::npos);
  Instance far = play(band(100, 20, 30.0f), 0.0f);
  r = set_instance(table, 0, far, 1.0f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "instance 0: clip rows [100, 120) run past the VAT's 113 frame rows");
  Instance hand = play(kWalk, 0.0f, 0.5f);
  hand.from = Outgoing{kRun, 0.0f, {}};
  EXPECT_FALSE(set_instance(table, 0, hand, 1.0f).ok());
  EXPECT_FALSE(set_instance(table, 0, play(kWalk, 0.0f), NAN).ok());
  EXPECT_EQ(std::memcmp(&before, &table.row(0), sizeof(before)), 0);
  EXPECT_EQ(dirty_count(table), 0u);
  EXPECT_EQ(next_event(table), std::nullopt);
}

// ---- dirty ranges --------------------------------------------------------------------------------

TEST(InstanceTableDirty, OneInstanceOfAMillionIsOneRow) {
  InstanceTable table(1000000);
  std::vector<RowRange> ranges;
  take_dirty(table, ranges);
  EXPECT_TRUE(ranges.empty());  // creating a table writes nothing
  ASSERT_TRUE(set_instance(table, 654321, play(kWalk, 1.0f), 1.0f).ok());
  take_dirty(table, ranges);
  EXPECT_EQ(ranges, (std::vector<RowRange>{{654321, 1}}));
  ranges.clear();
  take_dirty(table, ranges);
  EXPECT_TRUE(ranges.empty());  // taken once
  for (uint32_t i : {7u, 5u, 6u, 6u, 100u, 999999u}) ASSERT_TRUE(set_instance(table, i, play(kRun, 2.0f), 2.0f).ok());
  EXPECT_EQ(dirty_count(table), 5u);
  take_dirty(table, ranges);
  EXPECT_EQ(ranges, (std::vector<RowRange>{{5, 3}, {100, 1}, {999999, 1}}));
  ranges.clear();
  for (uint32_t i : {5u, 100u, 250u}) ASSERT_TRUE(set_instance(table, i, play(kWalk, 3.0f), 3.0f).ok());
  take_dirty(table, ranges, /*merge_gap=*/94);  // rows 6..99 are 94 clean rows: merged
  EXPECT_EQ(ranges, (std::vector<RowRange>{{5, 96}, {250, 1}}));
  // Appended after what the caller holds, never merged into it.
  ranges = {{0, 1}};
  ASSERT_TRUE(set_instance(table, 1, play(kWalk, 3.0f), 3.0f).ok());
  take_dirty(table, ranges, 10);
  EXPECT_EQ(ranges, (std::vector<RowRange>{{0, 1}, {1, 1}}));
  // The floats the uploader reads for a range are the rows' texels.
  EXPECT_EQ(table.floats().size(), size_t(1000000) * 24);
  EXPECT_EQ(table.floats()[size_t(250) * 24 + 4], 3.0f);  // texel 1.x: start time
}

TEST(InstanceTableDirty, ResizeKeepsRowsAndDropsTheirRecords) {
  InstanceTable table(10);
  ASSERT_TRUE(set_instance(table, 9, play(kWalk, 0.0f), 0.0f).ok());
  ASSERT_TRUE(set_instance(table, 2, play(kWalk, 0.0f), 0.0f).ok());
  table.resize(5);
  std::vector<RowRange> ranges;
  take_dirty(table, ranges);
  EXPECT_EQ(ranges, (std::vector<RowRange>{{2, 1}}));
  table.resize(20);
  EXPECT_TRUE(table.written(2));
  EXPECT_FALSE(table.written(9));
}

// ---- events --------------------------------------------------------------------------------------

TEST(InstanceTableEvents, OneShotsEndInOrderAndRewritesDropStaleEvents) {
  InstanceTable table(5);
  for (uint32_t i = 0; i < 5; ++i) {
    Instance hit = play(kWalk, float(i) * 0.25f);  // 1 s one-shots ending at 1, 1.25, ...
    hit.policy.loop_mode = LoopMode::Once;
    ASSERT_TRUE(set_instance(table, i, hit, 0.0f).ok());
  }
  ASSERT_TRUE(set_instance(table, 2, play(kWalk, 0.0f), 0.5f).ok());  // 2 loops now: no end
  ASSERT_EQ(next_event(table), (PlaybackEvent{1.0f, 0, EventKind::End}));
  std::vector<PlaybackEvent> due;
  EXPECT_EQ(pop_events(table, 1.3f, due), 2u);
  EXPECT_EQ(due, (std::vector<PlaybackEvent>{{1.0f, 0, EventKind::End}, {1.25f, 1, EventKind::End}}));
  // Chaining: at the end of instance 3, start a run there, fading over the held end pose.
  due.clear();
  EXPECT_EQ(pop_events(table, 1.8f, due), 1u);
  ASSERT_EQ(due[0].index, 3u);
  ASSERT_TRUE(set_instance(table, 3, play(kRun, due[0].time, 0.25f), due[0].time).ok());
  due.clear();
  EXPECT_EQ(pop_events(table, 10.0f, due), 2u);
  EXPECT_EQ(due, (std::vector<PlaybackEvent>{{2.0f, 3, EventKind::FadeEnd}, {2.0f, 4, EventKind::End}}));
  EXPECT_EQ(next_event(table), std::nullopt);
  EXPECT_EQ(ends_at(table, 4), 2.0f);
  EXPECT_EQ(ends_at(table, 2), std::nullopt);
}

TEST(InstanceTableEvents, TheHeapStaysSmallUnderManyRewrites) {
  InstanceTable table(10);
  Instance hit = play(kWalk, 0.0f);
  hit.policy.loop_mode = LoopMode::Once;
  for (int k = 0; k < 10000; ++k) {
    hit.start_time = float(k) * 0.01f;
    ASSERT_TRUE(set_instance(table, uint32_t(k % 10), hit, hit.start_time).ok());
  }
  std::vector<PlaybackEvent> due;
  EXPECT_EQ(pop_events(table, 1e9f, due), 10u);  // only the live events
  for (size_t i = 0; i < due.size(); ++i) EXPECT_EQ(due[i].time, ends_at(table, due[i].index));
}

// ---- the clock rebase ----------------------------------------------------------------------------

TEST(InstanceTableRebase, Float32ClockResolution) {
  // The numbers docs/playback.md quotes.
  EXPECT_EQ(clock_resolution(3600.0f), std::ldexp(1.0f, -12));     // 244 us
  EXPECT_EQ(clock_resolution(86400.0f), std::ldexp(1.0f, -7));     // 7.8 ms
  EXPECT_NEAR(clock_resolution(3600.0f) * 30.0f, 0.0073f, 1e-4f);  // rows at 30 fps
  EXPECT_NEAR(clock_resolution(86400.0f) * 30.0f, 0.234f, 1e-3f);
  EXPECT_EQ(clock_resolution(1.0f), std::ldexp(1.0f, -23));
}

// The true (real-number) phase of a track, with its float32 start and rate taken as exact.
double true_phase(const Track& t, double time, long* cycle = nullptr) {
  const double u = std::max(time - double(t.start_time), 0.0) * std::fabs(double(t.cycle_rate));
  const double k = std::floor(u);
  if (cycle) *cycle = long(k);
  const double p = u - k;
  const bool backwards = (t.loop_mode == LoopMode::PingPong && std::fmod(k, 2.0) == 1.0) != (t.cycle_rate < 0.0f);
  return backwards ? 1.0 - p : p;  // a negative rate mirrors the phase
}

TEST(InstanceTableRebase, RecentInstancesResolveBitForBit) {
  std::mt19937 rng(17);
  const float now = 3600.37f;
  InstanceTable table(2000);
  for (uint32_t i = 0; i < table.size(); ++i) {
    Instance in = random_instance(rng);
    in.start_time = now - 100.0f + float(rng() % 100000) * 0.001f;  // the last 100 s
    if (in.fade_start) in.fade_start = in.start_time;
    in.from.reset();
    in.fade_duration = rng() % 2 || in.blend ? 0.0f : 0.25f;
    ASSERT_TRUE(set_instance(table, i, play(kWave, now - 200.0f), now - 200.0f).ok());
    ASSERT_TRUE(set_instance(table, i, in, in.start_time).ok()) << i;
  }
  const InstanceTable old = table;
  std::vector<RowRange> ranges;
  take_dirty(table, ranges);
  const RebaseReport report = rebase_clock(table, now);
  EXPECT_EQ(report.shift, 3600.0f);
  EXPECT_GT(report.exact, 2000u);
  EXPECT_EQ(report.folded + report.rounded, 0u);
  EXPECT_EQ(dirty_count(table), 2000u);  // every row rewritten
  // Every time the old clock could express from `now` on (t - shift is then exact).
  for (uint32_t i = 0; i < table.size(); ++i) {
    for (int k = 0; k < 40; ++k) {
      const float t = now + float(k) * 0.37f + float(rng() % 1000) * ldexp(1.0f, -12);
      const float t2 = t - report.shift;
      ASSERT_EQ(double(t2), double(t) - report.shift);
      const PlaybackSample before = resolve(old, i, t);
      const PlaybackSample after = resolve(table, i, t2);
      ASSERT_EQ(after, before) << "instance " << i << " t " << t;
    }
    const std::optional<float> end_before = ends_at(old, i), end_after = ends_at(table, i);
    ASSERT_EQ(end_before.has_value(), end_after.has_value());
    if (end_before && *end_before > now) {
      // Recomputed on the finer clock: where the old end shifts exactly, at most one old ulp
      // earlier; where it does not (a far end), within an ulp either way.
      const double shifted = double(*end_before) - report.shift;
      const double old_ulp = clock_resolution(*end_before);
      if (double(float(shifted)) == shifted) {
        EXPECT_LE(double(*end_after), shifted);
        EXPECT_GE(double(*end_after), shifted - old_ulp);
      } else {
        EXPECT_NEAR(double(*end_after), shifted, old_ulp);
      }
    }
  }
}

TEST(InstanceTableRebase, OldLoopsAreFoldedAndRegainResolution) {
  std::mt19937 rng(23);
  const float now = 86400.5f;  // a day
  InstanceTable table(600);
  for (uint32_t i = 0; i < table.size(); ++i) {
    Instance in = play(band(0, 2 + rng() % 60, 30.0f), float(rng() % 100000) * 0.001f);   // day 0
    in.policy.speed = (i % 4 == 1 ? -1.0f : 1.0f) * (0.5f + float(rng() % 100) * 0.02f);  // a quarter backwards
    in.policy.loop_mode = i % 3 == 0 ? LoopMode::PingPong : LoopMode::Repeat;
    in.policy.repetitions = i % 5 == 0 ? 10000000 : -1;  // finite but far from its end, or endless
    if (i % 7 == 0) in.blend = Blend{band(100, 2 + rng() % 40, 24.0f), 0.5f, BlendSync(i % 2)};
    ASSERT_TRUE(set_instance(table, i, in, 0.0f).ok());
  }
  const InstanceTable old = table;
  const RebaseReport report = rebase_clock(table, now);
  EXPECT_EQ(report.shift, 86400.0f);
  EXPECT_GT(report.folded, 600u);
  double worst_before = 0.0, worst_after = 0.0, worst_jump = 0.0;
  for (uint32_t i = 0; i < table.size(); ++i) {
    const Playback p_old = playback(old, i), p_new = playback(table, i);
    EXPECT_EQ(p_new.primary.repetitions == -1, p_old.primary.repetitions == -1);
    for (int k = 0; k < 20; ++k) {
      const float t = now + float(k) * 0.25f;
      const PlaybackSample before = resolve(old, i, t), after = resolve(table, i, t - report.shift);
      EXPECT_EQ(after.a.wraps, before.a.wraps);
      EXPECT_EQ(after.a.finished, before.a.finished);
      EXPECT_EQ(after.kind, before.kind);
      const double truth = true_phase(p_old.primary, double(t));
      auto circular = [](double a, double b) { return std::min(std::fabs(a - b), 1.0 - std::fabs(a - b)); };
      worst_before = std::max(worst_before, circular(before.a.phase, truth));
      worst_after = std::max(worst_after, circular(after.a.phase, truth));
      worst_jump = std::max(worst_jump, circular(after.a.phase, before.a.phase));
      if (p_old.kind == MixKind::Blend) {
        worst_after = std::max(worst_after, circular(after.b.phase, true_phase(p_old.second, double(t))));
      }
    }
  }
  // Before: the day-old elapsed time has 7.8 ms steps (at up to 2.5 cycles/s of 2..61-row bands).
  const double old_step = double(clock_resolution(now)) * 2.5 * 30.0;  // cycles, worst band
  EXPECT_LE(worst_before, old_step);
  EXPECT_GT(worst_before, 1e-4);  // the loss the rebase repairs is real
  EXPECT_LT(worst_after, 1e-4);   // after: the phase is back to float32 resolution
  EXPECT_LE(worst_jump, worst_before + worst_after);
  std::printf("[          ] a day in: phase error before rebase %.2e cycles, after %.2e\n", worst_before, worst_after);
}

// After a rebase, a caller re-issues the instances it wrote with their start times minus the
// shift (docs/playback.md). A loop playing for longer than kRebaseFoldAfterSeconds was folded
// (its start advanced by whole cycles, its repetitions shrunk): set_instance must still see it
// as the band on screen, or a fade into a blend with it is refused and turning back mid-fade
// pops to the dominant band.
TEST(InstanceTableRebase, ReissuedInstancesAreRecognisedAfterAFold) {
  const float before = 3300.0f, fade_at = 3600.2f, now = 3600.5f;
  Instance walk = play(kWalk, before);
  Instance walk_finite = walk;
  walk_finite.policy.repetitions = 100000;
  Instance bounce = play(kWave, before);
  bounce.policy.loop_mode = LoopMode::PingPong;
  bounce.policy.repetitions = -1;
  InstanceTable table(4);
  ASSERT_TRUE(set_instance(table, 0, walk, before).ok());
  ASSERT_TRUE(set_instance(table, 1, walk, before).ok());
  ASSERT_TRUE(set_instance(table, 1, play(kRun, fade_at, 1.0f), fade_at).ok());  // walk fading out
  ASSERT_TRUE(set_instance(table, 2, walk_finite, before).ok());
  ASSERT_TRUE(set_instance(table, 3, bounce, before).ok());
  const RebaseReport report = rebase_clock(table, now);
  ASSERT_EQ(report.shift, 3600.0f);
  ASSERT_GE(report.folded, 4u);
  auto reissued = [&](Instance in) {
    in.start_time -= report.shift;  // exact in float32 here
    return in;
  };
  const float t = now - report.shift;
  ASSERT_NE(playback(table, 0).primary, compile(reissued(walk)).value().primary)
      << "not folded: the test tests nothing";

  // A fade into a blend of the (folded) walk and the run.
  for (uint32_t i : {0u, 2u}) {
    Instance blend = reissued(i == 0 ? walk : walk_finite);
    blend.blend = Blend{kRun, 0.5f, BlendSync::Phase};
    blend.blend->weight_from = 0.0f;
    blend.fade_duration = 0.5f;
    const PlaybackSample shown = resolve(table, i, t);
    ASSERT_TRUE(set_instance(table, i, blend, t).ok()) << i;
    const PlaybackSample after = resolve(table, i, t);
    EXPECT_EQ(after.a, shown.a) << i;  // the walk goes on where it was: its folded track is kept
    EXPECT_EQ(after.weight, 0.0f) << i;
  }
  // Turning back to the walk mid-fade: the weights swap, nothing pops.
  {
    const PlaybackSample shown = resolve(table, 1, t);
    ASSERT_EQ(shown.kind, MixKind::Fade);
    ASSERT_GT(shown.weight, 0.0f);
    Instance back = reissued(walk);
    back.fade_duration = 0.5f;
    ASSERT_TRUE(set_instance(table, 1, back, t).ok());
    const PlaybackSample after = resolve(table, 1, t);
    EXPECT_EQ(after.a, shown.b);
    EXPECT_EQ(after.b, shown.a);
    EXPECT_NEAR(after.weight, 1.0f - shown.weight, 1e-6f);
  }
  // A PingPong folded by an even count is the same band; a start half a cycle off is not.
  {
    const PlaybackSample shown = resolve(table, 3, t);
    Instance again = reissued(bounce);
    again.fade_duration = 0.5f;
    ASSERT_TRUE(set_instance(table, 3, again, t).ok());
    EXPECT_EQ(resolve(table, 3, t), shown);
    Instance other = again;
    other.start_time += 1.0f;  // half of the wave's 2 s cycle
    ASSERT_TRUE(set_instance(table, 3, other, t).ok());
    EXPECT_EQ(playback(table, 3).kind, MixKind::Fade);  // a new band fades in
  }
}

TEST(InstanceTableRebase, FinishedTracksAndOverFadesStayPut) {
  InstanceTable table(3);
  Instance death = play(kWave, 10.0f);
  death.policy.loop_mode = LoopMode::Once;
  ASSERT_TRUE(set_instance(table, 0, death, 10.0f).ok());  // over at 12
  ASSERT_TRUE(set_instance(table, 1, play(kWalk, 100.0f), 100.0f).ok());
  ASSERT_TRUE(set_instance(table, 1, play(kRun, 101.0f, 0.5f), 101.0f).ok());  // over at 101.5
  ASSERT_TRUE(set_instance(table, 2, play(kWalk, 5000.0f), 5000.0f).ok());
  ASSERT_TRUE(set_instance(table, 2, play(kRun, 5001.0f, 1000.0f), 5001.0f).ok());  // a long fade
  const InstanceTable old = table;
  std::vector<PlaybackEvent> due;
  pop_events(table, 5000.0f, due);
  const RebaseReport report = rebase_clock(table, 5600.25f);
  EXPECT_EQ(report.shift, 5600.0f);
  for (float t : {5600.25f, 5601.0f, 6000.0f, 6001.0f, 6500.0f}) {
    for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(resolve(table, i, t - 5600.0f), resolve(old, i, t)) << i << " " << t;
  }
  EXPECT_TRUE(resolve(table, 0, 0.25f).a.finished);
  EXPECT_EQ(playback(table, 1).kind, MixKind::Single);  // the fade was over
  EXPECT_EQ(playback(table, 2).kind, MixKind::Fade);    // still fading: its event moved with it
  const std::optional<PlaybackEvent> next = next_event(table);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->index, 2u);
  EXPECT_EQ(next->kind, EventKind::FadeEnd);
  EXPECT_EQ(next->time, ramp_ends_at(playback(table, 2)));  // recomputed on the finer clock
  EXPECT_NEAR(next->time, 6001.0f - 5600.0f, clock_resolution(6001.0f));
}

}  // namespace
}  // namespace vatkit
