// The playback controls (playback.h, instance_table.h): negative speed, pause, resume and turning
// back, with hand-worked numbers (docs/playback.md works the same cases), and the version 3
// conformance vectors, which an independent Python model answered
// (tests/conformance/make_playback_v3.py).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "playback_json.h"
#include "playback_test_util.h"
#include "playback_vectors.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

using test::band;
using test::expect_band;
using test::play;

// Band A: 5 rows from row 10 at 4 fps, 1 s long, so the cycle rate equals the speed.
const ClipBand kA = band(10, 5, 4.0f);

Instance a_at(float speed, LoopMode loop = LoopMode::Repeat, int reps = 0, EndMode end = EndMode::Clamp,
              float start = 2.0f) {
  Instance in = play(kA, start);
  in.policy.speed = speed;
  in.policy.loop_mode = loop;
  if (reps != 0) in.policy.repetitions = reps;
  in.policy.end_mode = end;
  return in;
}

// The same pose: every field but `wraps` (a turned band is a new play that has not wrapped yet).
bool same_pose(const PlaybackSample& x, const PlaybackSample& y) {
  PlaybackSample z = y;
  z.a.wraps = x.a.wraps;
  z.b.wraps = x.b.wraps;
  return x == z;
}

// ---- negative speed --------------------------------------------------------------------------------

TEST(PlaybackBackwards, RepeatRunsLastToFirstAndWrapsToTheLast) {
  const Instance in = a_at(-1.0f);
  const Playback p = *compile(in);
  EXPECT_EQ(p.primary.cycle_rate, -1.0f);
  EXPECT_EQ(p.primary.end_time, kNever);
  expect_band(resolve(in, 1.0f).a, 14, 14, 0.0f, 1.0f, false, false, "before the start: the last row");
  expect_band(resolve(in, 2.0f).a, 14, 14, 0.0f, 1.0f, false, false, "at the start");
  // u = 0.375: phase 1 - 0.375 = 0.625, x = 2.5.
  expect_band(resolve(in, 2.375f).a, 12, 13, 0.5f, 0.625f, false, false, "first cycle");
  // u = 1.125: the second cycle (wraps), phase 0.875, x = 3.5.
  expect_band(resolve(in, 3.125f).a, 13, 14, 0.5f, 0.875f, true, false, "second cycle");
  EXPECT_FALSE(ends_at(in).has_value());
}

TEST(PlaybackBackwards, OnceEndsOnTheFirstRowAndRewindsToTheLast) {
  const Instance clamp = a_at(-1.0f, LoopMode::Once);
  const Instance rewind = a_at(-1.0f, LoopMode::Once, 0, EndMode::Rewind);
  EXPECT_EQ(compile(clamp)->primary.end_phase, 0.0f);
  EXPECT_EQ(compile(rewind)->primary.end_phase, 1.0f);
  expect_band(resolve(clamp, 2.75f).a, 11, 12, 0.0f, 0.25f, false, false, "playing");
  EXPECT_EQ(ends_at(clamp), 3.0f);
  expect_band(resolve(clamp, 3.0f).a, 10, 11, 0.0f, 0.0f, false, true, "Clamp: where it ended");
  expect_band(resolve(rewind, 3.0f).a, 14, 14, 0.0f, 1.0f, false, true, "Rewind: where it began");
  // Speed -2: the same play in half the time.
  EXPECT_EQ(ends_at(a_at(-2.0f, LoopMode::Once)), 2.5f);
}

TEST(PlaybackBackwards, PingPongMirrorsEveryTraversal) {
  const Instance in = a_at(-1.0f, LoopMode::PingPong, 2);
  // Traversal 0 runs last -> first: u = 0.25 -> phase 0.75; traversal 1 first -> last.
  expect_band(resolve(in, 2.25f).a, 13, 14, 0.0f, 0.75f, false, false, "traversal 0");
  expect_band(resolve(in, 3.25f).a, 11, 12, 0.0f, 0.25f, false, false, "traversal 1");
  // An even count ends where it began: the last row (the mirror of forward's first).
  expect_band(resolve(in, 4.0f).a, 14, 14, 0.0f, 1.0f, false, true, "ended");
  EXPECT_EQ(ends_at(in), 4.0f);
}

TEST(PlaybackBackwards, IsTheMirrorOfTheForwardPlayEverywhere) {
  for (LoopMode loop : {LoopMode::Repeat, LoopMode::Once, LoopMode::PingPong}) {
    for (int reps : {0, -1, 1, 2, 3}) {
      for (EndMode end : {EndMode::Clamp, EndMode::Rewind}) {
        const Playback fwd = *compile(a_at(1.7f, loop, reps, end));
        const Playback back = *compile(a_at(-1.7f, loop, reps, end));
        EXPECT_EQ(back.primary.end_time, fwd.primary.end_time);
        for (float t = 0.0f; t < 8.0f; t += 0.0625f) {
          const BandSample f = resolve(fwd, t).a;
          const BandSample b = resolve(back, t).a;
          EXPECT_EQ(b.phase, 1.0f - f.phase) << t;
          EXPECT_EQ(b.finished, f.finished) << t;
          EXPECT_EQ(b.wraps, f.wraps) << t;
        }
      }
    }
  }
}

TEST(PlaybackBackwards, BlendsAndFadesKeepTheirBandsDirections) {
  Instance in = a_at(-1.0f);
  in.blend = Blend{band(100, 21, 24.0f), 0.5f, BlendSync::Phase};
  PlaybackSample s = resolve(in, 2.375f);
  EXPECT_EQ(s.b.phase, 0.625f);  // B follows A's phase
  in.blend->sync = BlendSync::Time;
  EXPECT_EQ(compile(in)->second.cycle_rate, -24.0f / 20.0f);  // B shares the negative speed
  // A fade from a band playing backwards into one playing forwards: each keeps its own.
  Instance fade = a_at(1.0f);
  fade.fade_duration = 1.0f;
  fade.from = Outgoing{kA, 2.0f, {}};
  fade.from->policy.speed = -1.0f;
  s = resolve(fade, 2.25f);
  EXPECT_EQ(s.a.phase, 0.25f);
  EXPECT_EQ(s.b.phase, 0.75f);
  EXPECT_EQ(s.weight, 0.75f);
}

// ---- pause and resume ------------------------------------------------------------------------------

TEST(PlaybackPause, HoldsThePoseBitForBitAndResumesFromIt) {
  InstanceTable table(1);
  ASSERT_TRUE(set_instance(table, 0, a_at(1.0f, LoopMode::Repeat, 0, EndMode::Clamp, 0.0f), 0.0f).ok());
  const Playback original = playback(table, 0);
  ASSERT_TRUE(pause(table, 0, 0.6f).ok());
  EXPECT_EQ(table.row(0).texels[5], glm::vec4(0.0f, 0.0f, 0.6f, 1.0f));  // hold, paused
  const PlaybackSample held = resolve(original, 0.6f);
  // u = 0.6: x = 2.4 -> row 12, mix 0.4 (float32).
  EXPECT_EQ(held.a.row, 12u);
  EXPECT_NEAR(held.a.mix, 0.4f, 1e-6f);
  for (float t : {0.6f, 0.7f, 1.0f, 1e6f}) EXPECT_EQ(resolve(table, 0, t), held) << t;
  EXPECT_EQ(resolve(table, 0, 0.5f), resolve(original, 0.5f));  // before the pause: unchanged
  ASSERT_TRUE(pause(table, 0, 0.9f).ok());                      // paused already: no change
  EXPECT_EQ(*playback(table, 0).hold, 0.6f);

  ASSERT_TRUE(resume(table, 0, 2.0f).ok());
  const Playback back = playback(table, 0);
  EXPECT_FALSE(back.hold.has_value());
  EXPECT_EQ(back.primary.start_time, 1.4f);  // moved by 2 - 0.6
  EXPECT_EQ(resolve(table, 0, 2.0f), held);  // no jump
  // 0.5 s later it shows what it would have shown 0.5 s after the pause.
  EXPECT_EQ(resolve(table, 0, 2.5f), resolve(original, 1.1f));
  EXPECT_EQ(table.row(0).texels[5], glm::vec4(0.0f));  // playing again: the row's reserved zeros
}

TEST(PlaybackPause, HoldsEndsAndFadesAndMovesThemOnResume) {
  InstanceTable table(1);
  ASSERT_TRUE(set_instance(table, 0, a_at(1.0f, LoopMode::Once, 0, EndMode::Clamp, 0.0f), 0.0f).ok());
  ASSERT_TRUE(set_instance(table, 0, play(band(100, 21, 24.0f), 0.25f, 1.0f), 0.25f).ok());  // fades over A
  std::vector<PlaybackEvent> events;
  ASSERT_TRUE(pause(table, 0, 0.5f).ok());
  EXPECT_FALSE(next_event(table).has_value());  // a paused row has no pending events
  const PlaybackSample held = resolve(table, 0, 0.5f);
  EXPECT_EQ(held.weight, 0.75f);  // the fade's weight is held too
  EXPECT_EQ(resolve(table, 0, 3.0f), held);
  ASSERT_TRUE(resume(table, 0, 2.5f).ok());
  EXPECT_EQ(resolve(table, 0, 2.5f), held);
  EXPECT_EQ(resolve(table, 0, 2.75f).weight, 0.5f);  // the fade goes on from where it was
  pop_events(table, 10.0f, events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::FadeEnd);
  EXPECT_EQ(events[0].time, 3.25f);  // 1.25 + 2 s of pause
}

TEST(PlaybackPause, ResumeOffTheGridStaysWithinTheClocksStep) {
  const Playback p = *compile(a_at(1.3f, LoopMode::Repeat, 0, EndMode::Clamp, 0.1f));
  const Playback held = paused(p, 1.1f);
  for (float now : {1.2f, 3.3f, 37.9f, 1000.7f}) {
    const Playback r = resumed(held, now);
    const float want = resolve(p, 1.1f).a.phase;
    const float got = resolve(r, now).a.phase;
    // Bound: (ulp(now) + ulp(start)) x rate cycles.
    const float bound = 2.0f * clock_resolution(now) * 1.3f;
    EXPECT_LE(std::fabs(got - want), bound) << now;
  }
  // Within one power of two of the pause the search finds an exact start.
  EXPECT_EQ(resolve(resumed(held, 1.2f), 1.2f), resolve(p, 1.1f));
}

TEST(PlaybackPause, ASetInstanceResumesFirst) {
  InstanceTable table(1);
  ASSERT_TRUE(set_instance(table, 0, a_at(1.0f, LoopMode::Repeat, 0, EndMode::Clamp, 0.0f), 0.0f).ok());
  ASSERT_TRUE(pause(table, 0, 0.25f).ok());
  ASSERT_TRUE(set_instance(table, 0, play(band(100, 21, 24.0f), 2.0f, 1.0f), 2.0f).ok());
  const Playback p = playback(table, 0);
  EXPECT_FALSE(p.hold.has_value());
  EXPECT_EQ(p.kind, MixKind::Fade);
  EXPECT_EQ(p.second.start_time, 1.75f);  // the outgoing band resumed from its held pose
  EXPECT_EQ(resolve(table, 0, 2.0f).b.phase, 0.25f);
}

// ---- turning back ----------------------------------------------------------------------------------

TEST(PlaybackTurnBack, RepeatRetracesFromThePoseItShows) {
  const Playback p = *compile(a_at(1.0f, LoopMode::Repeat, 0, EndMode::Clamp, 0.0f));
  const Playback t = turned_back(p, 1.45f);
  EXPECT_EQ(t.primary.cycle_rate, -1.0f);
  EXPECT_EQ(t.primary.repetitions, kInfiniteRepetitions);
  // u = 1.45: the turned play is 2 - 1.45 = 0.55 cycles in, so it started at 0.9.
  EXPECT_NEAR(t.primary.start_time, 0.9f, 1e-6f);
  EXPECT_TRUE(same_pose(resolve(t, 1.45f), resolve(p, 1.45f)));  // no jump
  EXPECT_FALSE(resolve(t, 1.45f).a.wraps);                       // a new play
  // 0.25 s later it shows what the forward play showed 0.25 s before the turn.
  EXPECT_NEAR(resolve(t, 1.7f).a.phase, 0.2f, 1e-6f);
  EXPECT_NEAR(resolve(t, 2.45f).a.phase, 0.45f, 1e-6f);  // and through the seam, backwards
}

TEST(PlaybackTurnBack, AFinitePlayEndsWhereItBegan) {
  // Once at speed 1 turned at 0.3: it plays 0.3 s back and holds the first row.
  const Playback once = *compile(a_at(1.0f, LoopMode::Once, 0, EndMode::Rewind, 0.0f));
  const Playback t = turned_back(once, 0.3f);
  EXPECT_EQ(t.primary.repetitions, 1);
  EXPECT_EQ(resolve(t, 0.3f), resolve(once, 0.3f));
  EXPECT_NEAR(*ends_at(t), 0.6f, 1e-6f);
  expect_band(resolve(t, 0.7f).a, 10, 11, 0.0f, 0.0f, false, true, "ended on the first row");
  // PingPong x2 turned at 1.45 (phase 0.55, running back): 3 traversals, 1.55 in, ending at 2.9.
  const Playback pp = *compile(a_at(1.0f, LoopMode::PingPong, 2, EndMode::Clamp, 0.0f));
  const Playback tp = turned_back(pp, 1.45f);
  EXPECT_EQ(tp.primary.repetitions, 3);
  EXPECT_EQ(resolve(tp, 1.45f), resolve(pp, 1.45f));
  EXPECT_NEAR(resolve(tp, 2.0f).a.phase, 0.9f, 1e-6f);  // the forward play's phase at 0.9
  EXPECT_NEAR(*ends_at(tp), 2.9f, 1e-6f);
  EXPECT_EQ(resolve(tp, 3.0f).a.phase, 0.0f);
}

TEST(PlaybackTurnBack, TwiceGoesOnWhereTheOriginalWould) {
  // Repeat x3 (3 s): back at 2.5 to u = 2.2 at 2.8, forward again: 0.8 cycles left, ends at 3.6.
  const Playback p = *compile(a_at(1.0f, LoopMode::Repeat, 3, EndMode::Clamp, 0.0f));
  const Playback t = turned_back(turned_back(p, 2.5f), 2.8f);
  EXPECT_GT(t.primary.cycle_rate, 0.0f);
  EXPECT_NEAR(resolve(t, 2.8f).a.phase, 0.2f, 1e-6f);
  EXPECT_NEAR(*ends_at(t), 3.6f, 1e-6f);
  EXPECT_EQ(resolve(t, 4.0f).a.phase, 1.0f);  // Clamp: the original's last row
}

TEST(PlaybackTurnBack, LeavesBandsWithNoMotionAlone) {
  const Playback later = *compile(a_at(1.0f));                                    // starts at 2
  EXPECT_EQ(turned_back(later, 1.0f), later);                                     // not started
  const Playback once = *compile(a_at(1.0f, LoopMode::Once, 0, EndMode::Clamp));  // ends at 3
  EXPECT_EQ(turned_back(once, 3.5f), once);                                       // finished
  const Playback still = *compile(a_at(0.0f));
  EXPECT_EQ(turned_back(still, 3.5f), still);  // holding
}

TEST(PlaybackTurnBack, WhilePausedTurnsAtTheHeldPose) {
  InstanceTable table(1);
  ASSERT_TRUE(set_instance(table, 0, a_at(1.0f, LoopMode::Repeat, 0, EndMode::Clamp, 0.0f), 0.0f).ok());
  ASSERT_TRUE(pause(table, 0, 1.25f).ok());
  const PlaybackSample held = resolve(table, 0, 1.25f);
  ASSERT_TRUE(turn_back(table, 0, 1.5f).ok());
  EXPECT_TRUE(same_pose(resolve(table, 0, 1.75f), held));  // still paused, same pose
  ASSERT_TRUE(resume(table, 0, 2.0f).ok());
  EXPECT_TRUE(same_pose(resolve(table, 0, 2.0f), held));
  EXPECT_NEAR(resolve(table, 0, 2.125f).a.phase, 0.125f, 1e-6f);  // from 0.25 backwards
}

TEST(PlaybackControls, RefuseANonFiniteNowOrAnUnwrittenRow) {
  InstanceTable table(2);
  ASSERT_TRUE(set_instance(table, 0, a_at(1.0f), 0.0f).ok());
  const Result<void> r = pause(table, 0, std::nanf(""));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "instance 0: `now` must be finite and within +-1e18 s");
  const Result<void> u = turn_back(table, 1, 1.0f);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().message, "instance 1: not written yet (set_instance first)");
}

TEST(PlaybackControls, PackedRowsRoundTrip) {
  Playback p = turned_back(paused(*compile(a_at(-1.5f, LoopMode::PingPong, 4)), 2.3f), 2.4f);
  EXPECT_EQ(unpack(pack(p)), p);
  EXPECT_EQ(resolve(pack(p), 2.9f), resolve(p, 2.9f));
  p.hold = -0.0f;
  EXPECT_EQ(unpack(pack(p)), p);
}

TEST(PlaybackControls, RebaseKeepsAPausedPose) {
  InstanceTable table(1);
  ASSERT_TRUE(set_instance(table, 0, a_at(1.0f, LoopMode::Repeat, 0, EndMode::Clamp, 0.0f), 0.0f).ok());
  ASSERT_TRUE(pause(table, 0, 9.75f).ok());
  const PlaybackSample held = resolve(table, 0, 12.0f);
  const RebaseReport report = rebase_clock(table, 12.5f);
  EXPECT_EQ(report.shift, 12.0f);
  EXPECT_EQ(*playback(table, 0).hold, -2.25f);
  EXPECT_EQ(resolve(table, 0, 0.5f), held);
}

// ---- the version 3 vectors -------------------------------------------------------------------------

TEST(PlaybackConformance, LibraryMatchesTheControlsVectors) {
  size_t pauses = 0, turns = 0, backwards = 0, finished = 0, wraps = 0, fades = 0;
  const size_t n = test::check_vector_file("playback_v3.jsonl", [&](const FrameQuery& q, const FrameAnswer& a) {
    for (const FrameWrite& w : q.writes) {
      pauses += w.control == FrameControl::Pause;
      turns += w.control == FrameControl::TurnBack;
    }
    backwards += q.instance.policy.speed.value_or(1.0f) < 0.0f;
    finished += a.frame.a.finished;
    wraps += a.frame.a.wraps;
    fades += a.frame.kind == MixKind::Fade;
  });
  // The file covers what it claims to (see make_playback_v3.py).
  EXPECT_GE(n, 700u);
  EXPECT_GE(pauses, 100u);
  EXPECT_GE(turns, 200u);
  EXPECT_GE(backwards, 300u);
  EXPECT_GE(finished, 100u);
  EXPECT_GE(wraps, 50u);
  EXPECT_GE(fades, 15u);
}

}  // namespace
}  // namespace vatkit
