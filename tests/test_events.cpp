// Clip events crossed between two clock times (vatkit/events.h), with hand-worked numbers: a band
// of 5 rows at 4 fps lasts 1 s, so at speed 1 its cycle rate is 1 and cycle position c is reached
// at clock time start + c exactly (every number below is exact in float32).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "playback_vectors.h"
#include "vatkit/events.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

ClipBand band(uint32_t first_row = 0, uint32_t rows = 5, float fps = 4.0f) {
  ClipBand b;
  b.first_row = first_row;
  b.rows = rows;
  b.fps = fps;
  return b;
}

// Events at phases 0, 0.25 and 1 of a 1 s clip.
const std::vector<ClipEvent> kEvents = {{"start", 0.0f}, {"step", 0.25f}, {"end", 1.0f}};

std::vector<FiredEvent> crossed(const Instance& in, float t0, float t1, const std::vector<ClipEvent>& events = kEvents,
                                const std::vector<ClipEvent>& second = {}) {
  Result<Playback> pb = compile(in);
  EXPECT_TRUE(pb.ok()) << pb.error().message;
  std::vector<FiredEvent> out;
  events_crossed(*pb, BandEvents{events, 1.0f, 0}, BandEvents{second, 1.0f, 1}, t0, t1, out);
  return out;
}

std::vector<float> times(const std::vector<FiredEvent>& fired) {
  std::vector<float> out;
  for (const FiredEvent& f : fired) out.push_back(f.time);
  return out;
}
std::vector<uint32_t> indices(const std::vector<FiredEvent>& fired) {
  std::vector<uint32_t> out;
  for (const FiredEvent& f : fired) out.push_back(f.event);
  return out;
}

TEST(ClipEvents, RepeatFiresEveryCycle) {
  Instance in;
  in.clip = band();
  in.start_time = 10.0f;
  const auto fired = crossed(in, 9.0f, 12.5f);
  // start at c = 0, 1, 2 (10, 11, 12 s); step at 10.25, 11.25, 12.25; end at 11 and 12 (c = 1, 2:
  // the same instant as the next cycle's start, reported first, being the earlier position's).
  EXPECT_EQ(times(fired), (std::vector<float>{10.0f, 10.25f, 11.0f, 11.0f, 11.25f, 12.0f, 12.0f, 12.25f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 0, 1}));
  EXPECT_EQ(fired[3].cycle, 1u);
  EXPECT_EQ(fired[2].cycle, 0u);
  for (const FiredEvent& f : fired) EXPECT_EQ(f.weight, 1.0f);
}

TEST(ClipEvents, WindowsAreHalfOpenAndAddUp) {
  Instance in;
  in.clip = band();
  in.policy.speed = 2.0f;  // cycle rate 2: c is reached at c / 2 s
  const auto whole = crossed(in, -1.0f, 3.0f);
  EXPECT_EQ(whole.size(), 1u + 3u * 6u);  // start at 0, then start/step/end per half second
  EXPECT_EQ(whole[1].time, 0.125f);
  std::vector<FiredEvent> pieces;
  for (float t = -1.0f; t < 3.0f; t += 0.0625f) {
    const auto part = crossed(in, t, t + 0.0625f);
    pieces.insert(pieces.end(), part.begin(), part.end());
  }
  EXPECT_EQ(pieces, whole);
  // t0 == t1, or t0 > t1: nothing.
  EXPECT_TRUE(crossed(in, 1.0f, 1.0f).empty());
  EXPECT_TRUE(crossed(in, 2.0f, 1.0f).empty());
  // A crossing at t0 itself was reported by the window ending there.
  EXPECT_EQ(times(crossed(in, 0.0625f, 0.125f)), (std::vector<float>{0.125f}));
  EXPECT_TRUE(crossed(in, 0.125f, 0.1875f).empty());
}

TEST(ClipEvents, OnceAndRepetitionsStopAtTheEnd) {
  Instance once;
  once.clip = band();
  once.policy.loop_mode = LoopMode::Once;
  // start 0, step 0.25, end at 1 (= end_time); cycle 1 never plays: no start at 1.
  EXPECT_EQ(times(crossed(once, -1.0f, 5.0f)), (std::vector<float>{0.0f, 0.25f, 1.0f}));
  Instance twice = once;
  twice.policy.loop_mode = LoopMode::Repeat;
  twice.policy.repetitions = 2;
  twice.policy.end_mode = EndMode::Rewind;  // the jump back to row 0 at the end crosses nothing
  EXPECT_EQ(indices(crossed(twice, -1.0f, 5.0f)), (std::vector<uint32_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(times(crossed(twice, -1.0f, 5.0f)).back(), 2.0f);
  EXPECT_EQ(*ends_at(twice), 2.0f);
  EXPECT_TRUE(crossed(twice, 2.0f, 100.0f).empty());  // finished: nothing after
}

TEST(ClipEvents, PingPongFiresTurningPointsOnce) {
  Instance in;
  in.clip = band();
  in.policy.loop_mode = LoopMode::PingPong;
  in.policy.repetitions = 3;
  // Forward 0..1: start 0, step 0.25, end 1; backward 1..2: step at 1.75 (start and end are the
  // turning points, fired once, by the forward passes); forward 2..3: start 2, step 2.25, end 3.
  const auto fired = crossed(in, -1.0f, 10.0f);
  EXPECT_EQ(times(fired), (std::vector<float>{0.0f, 0.25f, 1.0f, 1.75f, 2.0f, 2.25f, 3.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{0, 1, 2, 1, 0, 1, 2}));
  EXPECT_EQ(fired[3].cycle, 1u);
  // Two traversals end on the first row: the start event at c = 2 is the last, in traversal 1.
  in.policy.repetitions = 2;
  const auto two = crossed(in, -1.0f, 10.0f);
  EXPECT_EQ(times(two), (std::vector<float>{0.0f, 0.25f, 1.0f, 1.75f, 2.0f}));
  EXPECT_EQ(two.back().event, 0u);
  EXPECT_EQ(two.back().cycle, 1u);
  EXPECT_EQ(resolve(in, 2.0f).a.phase, 0.0f);
}

TEST(ClipEvents, SpeedZeroAndBeforeTheStartCrossNothing) {
  Instance in;
  in.clip = band();
  in.start_time = 5.0f;
  EXPECT_TRUE(crossed(in, 0.0f, 4.5f).empty());
  EXPECT_EQ(times(crossed(in, 0.0f, 5.0f)), (std::vector<float>{5.0f}));  // the start, at start_time
  in.policy.speed = 0.0f;
  EXPECT_TRUE(crossed(in, 0.0f, 100.0f).empty());
}

TEST(ClipEvents, OutgoingBandFiresWhileItsWeightIsAboveZero) {
  Instance in;
  in.clip = band(5, 5, 4.0f);
  in.start_time = 2.0f;
  in.fade_duration = 0.5f;  // the outgoing band's weight falls from 1 at 2 s to 0 at 2.5 s
  Outgoing from;
  from.clip = band();
  from.start_time = 0.0f;
  in.from = from;
  const std::vector<ClipEvent> incoming = {{"land", 0.125f}};
  const auto fired = crossed(in, 1.5f, 3.0f, incoming, kEvents);
  // Outgoing (band 1): end and start at 2 s (weight 1; the incoming band's weight is 0 there),
  // step at 2.25 s (weight 0.5); nothing at 2.5 s and after (its fade is over). Incoming (band 0):
  // land at 2.125 s (weight 1 - 0.25).
  ASSERT_EQ(fired.size(), 4u);
  EXPECT_EQ(fired[0].band, 1);
  EXPECT_EQ(fired[0].time, 2.0f);
  EXPECT_EQ(fired[0].weight, 1.0f);
  EXPECT_EQ(fired[2].band, 0);
  EXPECT_EQ(fired[2].time, 2.125f);
  EXPECT_EQ(fired[2].weight, 0.25f);
  EXPECT_EQ(fired[3].band, 1);
  EXPECT_EQ(fired[3].time, 2.25f);
  EXPECT_EQ(fired[3].weight, 0.5f);
  EXPECT_EQ(fired[3].event, 1u);
}

TEST(ClipEvents, PhaseSyncedBlendFiresAtTheFirstBandsRate) {
  Instance in;
  in.clip = band();
  Blend b;
  b.clip = band(5, 9, 4.0f);  // a 2 s clip played in A's 1 s cycle
  b.weight = 0.25f;
  in.blend = b;
  const std::vector<ClipEvent> second = {{"b_half", 1.0f}};  // phase 0.5 of B's 2 s clip
  Result<Playback> pb = compile(in);
  ASSERT_TRUE(pb.ok());
  std::vector<FiredEvent> fired;
  events_crossed(*pb, BandEvents{{}, 1.0f, 0}, BandEvents{second, 2.0f, 1}, 0.0f, 2.0f, fired);
  EXPECT_EQ(times(fired), (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(fired[0].weight, 0.25f);
}

TEST(ClipEvents, BackwardsRepeatFiresInReverseAtTheMirroredPhases) {
  Instance in;
  in.clip = band();
  in.start_time = 10.0f;
  in.policy.speed = -1.0f;  // cycle rate -1: the phase runs 1 -> 0 in each cycle
  const auto fired = crossed(in, 9.0f, 12.5f);
  // end (phase 1) at c = 0, 1, 2 (10, 11, 12 s); step (phase 0.25) at c = 0.75, 1.75; start
  // (phase 0) at c = 1, 2, each cycle's end, reported before the next cycle's end event.
  EXPECT_EQ(times(fired), (std::vector<float>{10.0f, 10.75f, 11.0f, 11.0f, 11.75f, 12.0f, 12.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{2, 1, 0, 2, 1, 0, 2}));
  EXPECT_EQ(fired[2].cycle, 0u);
  EXPECT_EQ(fired[3].cycle, 1u);
  EXPECT_EQ(resolve(in, 10.75f).a.phase, 0.25f);
  EXPECT_EQ(resolve(in, 11.75f).a.phase, 0.25f);
  EXPECT_EQ(resolve(in, 10.0f).a.phase, 1.0f);
}

TEST(ClipEvents, BackwardsOnceEndsOnItsStartEvent) {
  Instance in;
  in.clip = band();
  in.policy.loop_mode = LoopMode::Once;
  in.policy.speed = -1.0f;
  // end at 0, step at 0.75, start at 1 = end_time, where the band holds phase 0.
  const auto fired = crossed(in, -1.0f, 5.0f);
  EXPECT_EQ(times(fired), (std::vector<float>{0.0f, 0.75f, 1.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{2, 1, 0}));
  EXPECT_EQ(*ends_at(in), 1.0f);
  EXPECT_EQ(resolve(in, 1.0f).a.phase, 0.0f);
  EXPECT_TRUE(crossed(in, 1.0f, 5.0f).empty());
  in.policy.end_mode = EndMode::Rewind;  // the jump back to the last row crosses nothing
  EXPECT_EQ(times(crossed(in, -1.0f, 5.0f)), (std::vector<float>{0.0f, 0.75f, 1.0f}));
  EXPECT_EQ(resolve(in, 1.0f).a.phase, 1.0f);
}

TEST(ClipEvents, BackwardsPingPongFiresTurningPointsOnce) {
  Instance in;
  in.clip = band();
  in.policy.loop_mode = LoopMode::PingPong;
  in.policy.repetitions = 3;
  in.policy.speed = -1.0f;
  // Traversal 0 runs 1 -> 0: end at 0, step 0.75, start 1; traversal 1 runs 0 -> 1: step at 1.25
  // only (its ends are turning points, fired by the even traversals); traversal 2 runs 1 -> 0:
  // end 2, step 2.75, start 3 (the end, phase 0).
  const auto fired = crossed(in, -1.0f, 10.0f);
  EXPECT_EQ(times(fired), (std::vector<float>{0.0f, 0.75f, 1.0f, 1.25f, 2.0f, 2.75f, 3.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{2, 1, 0, 1, 2, 1, 0}));
  EXPECT_EQ(fired[3].cycle, 1u);
  EXPECT_EQ(fired[4].cycle, 2u);
  EXPECT_EQ(resolve(in, 1.25f).a.phase, 0.25f);
  EXPECT_EQ(resolve(in, 3.0f).a.phase, 0.0f);
  // Two traversals end on the last row: the end event at c = 2 is the last, in traversal 1.
  in.policy.repetitions = 2;
  const auto two = crossed(in, -1.0f, 10.0f);
  EXPECT_EQ(times(two), (std::vector<float>{0.0f, 0.75f, 1.0f, 1.25f, 2.0f}));
  EXPECT_EQ(two.back().event, 2u);
  EXPECT_EQ(two.back().cycle, 1u);
  EXPECT_EQ(resolve(in, 2.0f).a.phase, 1.0f);
}

TEST(ClipEvents, APausedPlaybackFiresNothingAfterItsHold) {
  Instance in;
  in.clip = band();
  const Playback pb = paused(compile(in).value(), 1.25f);  // held exactly on the second step
  std::vector<FiredEvent> fired;
  events_crossed(pb, BandEvents{kEvents, 1.0f, 0}, {}, -1.0f, 100.0f, fired);
  EXPECT_EQ(times(fired), (std::vector<float>{0.0f, 0.25f, 1.0f, 1.0f, 1.25f}));
  fired.clear();
  events_crossed(pb, BandEvents{kEvents, 1.0f, 0}, {}, 1.25f, 100.0f, fired);
  EXPECT_TRUE(fired.empty());
  EXPECT_EQ(events_crossed_bound(pb, BandEvents{kEvents, 1.0f, 0}, {}, 1.25f, 100.0f), 0.0);
}

TEST(ClipEvents, AResumedPlaybackGoesOnWithoutFiringTheHeldEventAgain) {
  Instance in;
  in.clip = band();
  const Playback held = paused(compile(in).value(), 1.25f);
  const Playback pb = resumed(held, 3.0f);  // starts 1.75 s later: at 3 s it shows the step's phase
  ASSERT_EQ(pb.primary.start_time, 1.75f);
  std::vector<FiredEvent> fired;
  events_crossed(held, BandEvents{kEvents, 1.0f, 0}, {}, 1.0f, 3.0f, fired);  // the step at 1.25
  events_crossed(pb, BandEvents{kEvents, 1.0f, 0}, {}, 3.0f, 5.0f, fired);
  // The step at c = 1.25 is not fired again at 3 s; then end/start at c = 2 (3.75 s), step at
  // c = 2.25 (4 s), end/start at c = 3 (4.75 s), step at c = 3.25 (5 s).
  EXPECT_EQ(times(fired), (std::vector<float>{1.25f, 3.75f, 3.75f, 4.0f, 4.75f, 4.75f, 5.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{1, 2, 0, 1, 2, 0, 1}));
}

TEST(ClipEvents, TurningBackRefiresTheEventsInReverse) {
  Instance in;
  in.clip = band();
  // At 2.5 s (c = 2.5, phase 0.5) the band turns: start 2, cycle rate -1, so the step passed at
  // 2.25 s fires again at 2.75 s, then the cycle's start at 3 s, then the previous cycle's end...
  const Playback pb = turned_back(compile(in).value(), 2.5f);
  ASSERT_EQ(pb.primary.start_time, 2.0f);
  ASSERT_EQ(pb.primary.cycle_rate, -1.0f);
  std::vector<FiredEvent> fired;
  events_crossed(pb, BandEvents{kEvents, 1.0f, 0}, {}, 2.5f, 4.0f, fired);
  EXPECT_EQ(times(fired), (std::vector<float>{2.75f, 3.0f, 3.0f, 3.75f, 4.0f, 4.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{1, 0, 2, 1, 0, 2}));
  // Turned exactly on the step (2.25 s, fired by the forward play): it does not fire again there.
  const Playback on_step = turned_back(compile(in).value(), 2.25f);
  fired.clear();
  events_crossed(on_step, BandEvents{kEvents, 1.0f, 0}, {}, 2.25f, 3.0f, fired);
  EXPECT_EQ(times(fired), (std::vector<float>{2.5f, 2.5f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{0, 2}));
  // A finite play retraces to where it began and ends there: a Once turned at 0.5 s fires the
  // step at 0.75 s and its start event at 1 s, its end (phase 0, its first row).
  in.policy.loop_mode = LoopMode::Once;
  const Playback once = turned_back(compile(in).value(), 0.5f);
  fired.clear();
  events_crossed(once, BandEvents{kEvents, 1.0f, 0}, {}, 0.5f, 5.0f, fired);
  EXPECT_EQ(times(fired), (std::vector<float>{0.75f, 1.0f}));
  EXPECT_EQ(indices(fired), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(once.primary.end_time, 1.0f);
  EXPECT_EQ(resolve(once, 1.0f).a.phase, 0.0f);
}

// The GPU's elapsed cycles (playback.h), written out again.
float cycles(const Track& t, float time) {
  return std::min(std::max(time - t.start_time, 0.0f) * std::fabs(t.cycle_rate), 16777216.0f);
}

// At the returned time T the band has reached the event's position and one float before T it had
// not; the band's phase there is the event's (modulo 1 for a Repeat's end) within the phase the
// clock's last step moved: over random instances, speeds and clocks.
// Checks one fired event against its track: at T the band has reached the event's position c and
// one float before T it had not; unless finished there (its last position, c = n), the band's phase
// is the event's (modulo 1 for a Repeat's end) within the phase the clock's last step moved.
void expect_agrees(const Track& track, const FiredEvent& f, double phi, const std::string& what) {
  // The phase falls in this cycle: a PingPong's odd traversal, or any cycle of a negative rate.
  const bool backward = (track.loop_mode == LoopMode::PingPong && f.cycle % 2 == 1) != (track.cycle_rate < 0.0f);
  const double c = backward ? f.cycle + 1.0 - phi : f.cycle + phi;
  const float before = std::nextafter(f.time, -INFINITY);
  EXPECT_GE(double(cycles(track, f.time)), c) << what;
  if (c > 0.0) {
    EXPECT_LT(double(cycles(track, before)), c) << what;
  }
  const BandSample s = resolve_track(track, f.time);
  if (s.finished) {
    EXPECT_EQ(c, double(track.repetitions)) << what;  // the last cycle's end, at end_time
    EXPECT_EQ(f.time, track.end_time) << what;
    return;
  }
  const double ulp = std::ldexp(1.0, std::ilogb(std::max(1.0f, float(f.cycle) + 1.0f)) - 22);
  const double step = double(cycles(track, f.time)) - double(cycles(track, before));
  double diff = std::fabs(double(s.phase) - phi);
  if (track.loop_mode == LoopMode::Repeat) diff = std::min(diff, std::fabs(diff - 1.0));
  EXPECT_LE(std::max(0.0, diff - step), ulp) << what << ": phase " << s.phase << ", event phase " << phi << ", cycle "
                                             << f.cycle << ", u " << cycles(track, f.time) << ", step " << step;
}

// Over random instances (loop and end modes, repetitions, speeds of either sign, clocks) with a
// time-synced blend whose band B has its own events, some paused, resumed or turned back at a
// random time: every event of both bands agrees with resolve_track, and none fires after a hold.
TEST(ClipEvents, FiringTimesAgreeWithResolve) {
  std::mt19937 rng(20261203);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  auto random_events = [&](float duration) {
    std::vector<ClipEvent> events;
    for (float t = 0.0f; events.size() < 4;)
      events.push_back({"e", t = std::min(duration, t + duration * unit(rng) / 2)});
    return events;
  };
  size_t checked[2] = {0, 0};
  for (int trial = 0; trial < 300; ++trial) {
    Instance in;
    in.clip = band(0, 2 + rng() % 60, 10.0f + 50.0f * unit(rng));
    in.start_time = 1000.0f * unit(rng) - 500.0f;
    in.policy.speed = (rng() % 2 ? -1.0f : 1.0f) * (0.1f + 3.0f * unit(rng));
    in.policy.loop_mode = LoopMode(rng() % 3);
    in.policy.end_mode = EndMode(rng() % 2);
    if (rng() % 2) in.policy.repetitions = 1 + int32_t(rng() % 7);
    Blend b;
    b.clip = band(100, 2 + rng() % 60, 10.0f + 50.0f * unit(rng));
    b.weight = 0.25f + 0.5f * unit(rng);
    b.sync = BlendSync::Time;
    in.blend = b;
    const float da = float(in.clip.rows - 1) / in.clip.fps, db = float(b.clip.rows - 1) / b.clip.fps;
    const std::vector<ClipEvent> ea = random_events(da), eb = random_events(db);
    Result<Playback> pb = compile(in);
    ASSERT_TRUE(pb.ok());
    const float t0 = in.start_time + 30.0f * unit(rng) - 5.0f;
    const float control_at = t0 + 20.0f * unit(rng);
    switch (trial % 4) {  // 0: as compiled
      case 1: *pb = paused(*pb, control_at); break;
      case 2: *pb = resumed(paused(*pb, control_at - 3.0f * unit(rng)), control_at); break;
      case 3: *pb = turned_back(*pb, control_at); break;
    }
    std::vector<FiredEvent> fired;
    events_crossed(*pb, BandEvents{ea, da, 0}, BandEvents{eb, db, 1}, t0, t0 + 20.0f, fired);
    for (size_t i = 0; i < fired.size(); ++i) {
      const FiredEvent& f = fired[i];
      if (i > 0) {
        EXPECT_LE(fired[i - 1].time, f.time);
      }
      if (pb->hold) {
        EXPECT_LE(f.time, *pb->hold);
      }
      const std::string what = "trial " + std::to_string(trial) + " band " + std::to_string(f.band);
      if (f.band == 0) expect_agrees(pb->primary, f, event_phase(ea[f.event], da), what);
      if (f.band == 1) expect_agrees(pb->second, f, event_phase(eb[f.event], db), what);
      ++checked[f.band];
    }
  }
  EXPECT_GT(checked[0], 1000u);
  EXPECT_GT(checked[1], 1000u);
}

TEST(ClipEvents, RebasedClocksFireTheSameEvents) {
  Instance in;
  in.clip = band();
  in.start_time = 3000.25f;  // within kRebaseFoldAfterSeconds of now: shifted exactly
  Result<InstanceTable> table = make_instance_table(std::span<const Instance>(&in, 1));
  ASSERT_TRUE(table.ok());
  std::vector<FiredEvent> before, after;
  events_crossed(playback(*table, 0), BandEvents{kEvents, 1.0f, 0}, {}, 3100.0f, 3103.0f, before);
  const RebaseReport report = rebase_clock(*table, 3100.0f);
  EXPECT_EQ(report.shift, 3100.0f);
  events_crossed(playback(*table, 0), BandEvents{kEvents, 1.0f, 0}, {}, 0.0f, 3.0f, after);
  ASSERT_EQ(before.size(), after.size());
  ASSERT_EQ(before.size(), 9u);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].event, after[i].event);
    EXPECT_EQ(before[i].cycle, after[i].cycle);
    // The rebased clock is finer: an event fires at its old time less the shift, or at most one
    // of the old clock's steps (2^-12 s at 3100 s) earlier, where (t - start) rounds up to it.
    EXPECT_LE(after[i].time, before[i].time - report.shift);
    EXPECT_GE(after[i].time, before[i].time - report.shift - clock_resolution(before[i].time));
  }
}

TEST(ClipEvents, FoldedTracksFireTheSameEventsWithinTheOldClocksStep) {
  // Started 3100 s before the rebase: rebase_clock advances the start by whole cycles instead
  // (instance_table.h), so the phase moves by no more than the rounding it already carried.
  Instance in;
  in.clip = band(0, 5, 3.0f);  // 4/3 s cycles: positions are not on the old clock's grid
  in.start_time = 0.1f;
  Result<InstanceTable> table = make_instance_table(std::span<const Instance>(&in, 1));
  ASSERT_TRUE(table.ok());
  std::vector<FiredEvent> before, after;
  events_crossed(playback(*table, 0), BandEvents{kEvents, 1.0f, 0}, {}, 3100.0f, 3110.0f, before);
  const RebaseReport report = rebase_clock(*table, 3100.0f);
  ASSERT_EQ(report.folded, 1u);
  events_crossed(playback(*table, 0), BandEvents{kEvents, 1.0f, 0}, {}, 0.0f, 10.0f, after);
  ASSERT_EQ(before.size(), after.size());
  ASSERT_GT(before.size(), 20u);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].event, after[i].event);
    EXPECT_NEAR(after[i].time, before[i].time - report.shift, 2.0f * clock_resolution(before[i].time));
  }
}

TEST(ClipEvents, TheVatOverloadFindsEachBandsClip) {
  Vat vat;
  VatClip walk;
  walk.first_row = 0;
  walk.rows = 5;
  walk.fps = 4.0f;
  walk.duration_s = 1.0f;
  walk.events = {{"step_l", 0.25f}, {"step_r", 0.75f}};
  VatClip idle = walk;
  idle.first_row = 5;
  idle.events.clear();
  vat.clips = {idle, walk};
  Instance in;
  in.clip = clip_band(vat, 1u);
  std::vector<FiredEvent> fired;
  events_crossed(vat, compile(in).value(), 0.0f, 1.0f, fired);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].clip, 1u);
  EXPECT_EQ(vat.clips[fired[1].clip].events[fired[1].event].name, "step_r");
  EXPECT_EQ(fired[1].time, 0.75f);
}

// tests/conformance/events_v1.jsonl: queries answered by an independent Python model of the
// definition (make_events_v1.py): every event time and weight bit for bit, names, bands, order.
TEST(ClipEvents, LibraryMatchesTheEventVectors) {
  size_t events = 0, second_band = 0, backwards = 0, controls = 0, partial_weight = 0, silent = 0;
  const size_t n = test::check_vector_file("events_v1.jsonl", [&](const FrameQuery& q, const FrameAnswer& a) {
    ASSERT_TRUE(a.events.has_value());
    events += a.events->size();
    silent += a.events->empty();
    for (const FrameEvent& e : *a.events) {
      second_band += e.band == 1;
      partial_weight += e.weight < 1.0f;
    }
    backwards += q.instance.policy.speed.value_or(1.0f) < 0.0f;
    controls += !q.writes.empty();
  });
  // The file covers what it claims to (see make_events_v1.py).
  EXPECT_GE(n, 1000u);
  EXPECT_GE(events, 2500u);
  EXPECT_GE(second_band, 50u);
  EXPECT_GE(partial_weight, 120u);
  EXPECT_GE(backwards, 350u);
  EXPECT_GE(controls, 70u);
  EXPECT_GE(silent, 200u);
}

}  // namespace
}  // namespace vatkit
