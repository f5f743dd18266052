// Root motion between two clock times (vatkit/root_motion.h), with hand-worked numbers: a band of
// 5 rows at 4 fps lasts 1 s, so at speed 1 its cycle rate is 1 and its phase at clock time t is
// t - start (every time below is exact in float32). The walk's track moves the root 0.25 forward
// (+z) per row, 1 per cycle; the run's 0.5 per row.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "playback_test_util.h"
#include "vatkit/playback.h"
#include "vatkit/root_motion.h"

namespace vatkit {
namespace {

// The 1 s band of 5 rows at 4 fps from `first_row`.
ClipBand band(uint32_t first_row = 0) { return test::band(first_row, 5, 4.0f); }

// One (x, y, z, yaw) per row: forward `step` per row, turning `turn` radians per row.
std::vector<float> track(float step, float turn = 0.0f, uint32_t rows = 5) {
  std::vector<float> out;
  for (uint32_t r = 0; r < rows; ++r) out.insert(out.end(), {0.0f, 0.0f, step * float(r), turn * float(r)});
  return out;
}

const std::vector<float> kWalk = track(0.25f);
const std::vector<float> kRun = track(0.5f);
const std::vector<float> kIdle;  // no motion

Playback compiled(const Instance& in) {
  Result<Playback> pb = compile(in);
  EXPECT_TRUE(pb.ok()) << pb.error().message;
  return *pb;
}

RootDelta between(const Instance& in, float t0, float t1, const std::vector<float>& a = kWalk,
                  const std::vector<float>& b = {}) {
  return root_motion_between(compiled(in), BandRoot{a, 5}, BandRoot{b, 5}, t0, t1);
}

Instance walking(float speed = 1.0f, LoopMode mode = LoopMode::Repeat, int32_t repetitions = kInfiniteRepetitions) {
  Instance in;
  in.clip = band();
  in.policy.speed = speed;
  in.policy.loop_mode = mode;
  in.policy.repetitions = repetitions;
  return in;
}

void expect_delta(const RootDelta& d, float x, float z, float yaw, float tolerance = 1e-6f) {
  EXPECT_NEAR(d.translation.x, x, tolerance);
  EXPECT_NEAR(d.translation.y, 0.0f, tolerance);
  EXPECT_NEAR(d.translation.z, z, tolerance);
  EXPECT_NEAR(d.yaw, yaw, tolerance);
}

TEST(RootMotion, LoopsAccumulateWholeCycles) {
  // 2.5 loops: 2.5 cycles' displacement, exactly; any window of 2.5 s the same.
  EXPECT_EQ(between(walking(), 0.0f, 2.5f).translation.z, 2.5f);
  EXPECT_EQ(between(walking(), 0.25f, 2.75f).translation.z, 2.5f);
  EXPECT_EQ(between(walking(), 1000.0f, 1002.5f).translation.z, 2.5f);
  // A window backwards in time is the inverse; before the start nothing moves.
  EXPECT_EQ(between(walking(), 2.5f, 0.0f).translation.z, -2.5f);
  EXPECT_EQ(between(walking(), -3.0f, 0.0f).translation.z, 0.0f);
}

TEST(RootMotion, SpeedScalesTheDistancePerSecond) {
  EXPECT_EQ(between(walking(2.0f), 0.0f, 1.25f).translation.z, 2.5f);
  EXPECT_EQ(between(walking(0.5f), 0.0f, 5.0f).translation.z, 2.5f);
  EXPECT_EQ(between(walking(0.0f), 0.0f, 5.0f).translation.z, 0.0f);
  // Backwards: the same path walked back.
  EXPECT_EQ(between(walking(-1.0f), 0.0f, 2.5f).translation.z, -2.5f);
}

TEST(RootMotion, PingPongReturnsAndEndsStop) {
  // An endless ping-pong: out 1 in the first traversal, back in the second.
  const Instance pp = walking(1.0f, LoopMode::PingPong, kInfiniteRepetitions);
  EXPECT_EQ(between(pp, 0.0f, 1.0f).translation.z, 1.0f);
  EXPECT_EQ(between(pp, 0.0f, 1.5f).translation.z, 0.5f);
  EXPECT_EQ(between(pp, 0.0f, 2.0f).translation.z, 0.0f);
  EXPECT_EQ(between(pp, 0.5f, 3.25f).translation.z, 0.75f - 0.5f);  // traversal 3 runs back: at phase 0.75
  // Once (either end mode): one cycle, then it stands; 3 repetitions: 3 cycles.
  EXPECT_EQ(between(walking(1.0f, LoopMode::Once, 1), 0.0f, 5.0f).translation.z, 1.0f);
  Instance rewind = walking(1.0f, LoopMode::Once, 1);
  rewind.policy.end_mode = EndMode::Rewind;
  EXPECT_EQ(between(rewind, 0.0f, 5.0f).translation.z, 1.0f);
  EXPECT_EQ(between(walking(1.0f, LoopMode::Repeat, 3), 0.0f, 10.0f).translation.z, 3.0f);
  EXPECT_EQ(between(walking(1.0f, LoopMode::Repeat, 3), 2.5f, 10.0f).translation.z, 0.5f);
  // A ping-pong of 3 traversals ends at its far end, 1 from the start.
  EXPECT_EQ(between(walking(1.0f, LoopMode::PingPong, 3), 0.0f, 10.0f).translation.z, 1.0f);
}

TEST(RootMotion, PauseHoldsAndResumeContinues) {
  const Playback pb = paused(compiled(walking()), 1.5f);
  EXPECT_EQ(root_motion_between(pb, BandRoot{kWalk, 5}, {}, 0.0f, 5.0f).translation.z, 1.5f);
  const Playback again = resumed(pb, 4.0f);  // from 4 s on it walks on from where it held
  EXPECT_EQ(root_motion_between(again, BandRoot{kWalk, 5}, {}, 4.0f, 5.0f).translation.z, 1.0f);
  EXPECT_EQ(root_velocity(pb, BandRoot{kWalk, 5}, {}, 2.0f).linear.z, 0.0f);
}

TEST(RootMotion, TurnsComposeInTheInstanceFrame) {
  // Forward 1 and a quarter turn per cycle: four cycles walk a square back to the start.
  const std::vector<float> square = track(0.25f, float(M_PI / 8.0));
  expect_delta(between(walking(), 0.0f, 1.0f, square), 0.0f, 1.0f, float(M_PI / 2.0));
  const RootDelta two = between(walking(), 0.0f, 2.0f, square);
  // The second cycle's forward (+z) is the first's +x after a quarter turn about +y.
  expect_delta(two, 1.0f, 1.0f, float(M_PI), 1e-6f);
  const RootDelta four = between(walking(), 0.0f, 4.0f, square);
  expect_delta(four, 0.0f, 0.0f, float(2.0 * M_PI), 1e-5f);
  // Consecutive windows compose to the whole: M(0, 2.7) = M(0, 1.3) M(1.3, 2.7).
  const glm::mat4 whole = between(walking(), 0.0f, 2.7f, square).matrix();
  const glm::mat4 parts =
      between(walking(), 0.0f, 1.3f, square).matrix() * between(walking(), 1.3f, 2.7f, square).matrix();
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(whole[c][r], parts[c][r], 1e-5f);
}

TEST(RootMotion, VelocityIsTheTrackSlopeTimesTheRate) {
  EXPECT_EQ(root_velocity(compiled(walking()), BandRoot{kWalk, 5}, {}, 0.5f).linear.z, 1.0f);
  EXPECT_EQ(root_velocity(compiled(walking(2.0f)), BandRoot{kWalk, 5}, {}, 0.5f).linear.z, 2.0f);
  EXPECT_EQ(root_velocity(compiled(walking(-1.0f)), BandRoot{kWalk, 5}, {}, 0.5f).linear.z, -1.0f);
  EXPECT_EQ(root_velocity(compiled(walking(1.0f, LoopMode::Once, 1)), BandRoot{kWalk, 5}, {}, 1.5f).linear.z, 0.0f);
  const Instance pp = walking(1.0f, LoopMode::PingPong, kInfiniteRepetitions);
  EXPECT_EQ(root_velocity(compiled(pp), BandRoot{kWalk, 5}, {}, 1.5f).linear.z, -1.0f);
}

// An idle fading in over a walk: the walk (outgoing) at weight w(t) = 1 - t over 1 s.
Instance walk_to_idle(float duration, FadeCurve curve) {
  Instance in;
  in.clip = band(5);
  in.fade_duration = duration;
  in.fade_curve = curve;
  in.from = Outgoing{band(0), 0.0f, {}};
  return in;
}

TEST(RootMotion, AFadeBlendsTheVelocities) {
  // The walk's velocity 1 at weight 1 - t: over the fade, the integral of 1 - t, 0.5; after it,
  // nothing more (the idle does not move).
  for (FadeCurve curve : {FadeCurve::Linear, FadeCurve::Smooth}) {
    SCOPED_TRACE(to_string(curve));
    EXPECT_NEAR(between(walk_to_idle(1.0f, curve), 0.0f, 1.0f, kIdle, kWalk).translation.z, 0.5f, 1e-6f);
    EXPECT_NEAR(between(walk_to_idle(1.0f, curve), 0.0f, 3.0f, kIdle, kWalk).translation.z, 0.5f, 1e-6f);
    EXPECT_NEAR(between(walk_to_idle(2.0f, curve), 0.0f, 2.0f, kIdle, kWalk).translation.z, 1.0f, 1e-6f);
  }
  // Linear: the first quarter second covers the integral of 1 - t over [0, 0.25], 0.21875; frame
  // by frame the same.
  EXPECT_NEAR(between(walk_to_idle(1.0f, FadeCurve::Linear), 0.0f, 0.25f, kIdle, kWalk).translation.z, 0.21875f, 1e-6f);
  float sum = 0.0f;
  for (int f = 0; f < 30; ++f) {
    sum += between(walk_to_idle(1.0f, FadeCurve::Linear), float(f) / 30.0f, float(f + 1) / 30.0f, kIdle, kWalk)
               .translation.z;
  }
  EXPECT_NEAR(sum, 0.5f, 1e-5f);
  // The velocity is the blend: 0.75 at t = 0.25.
  const Playback pb = compiled(walk_to_idle(1.0f, FadeCurve::Linear));
  EXPECT_NEAR(root_velocity(pb, BandRoot{kIdle, 5}, BandRoot{kWalk, 5}, 0.25f).linear.z, 0.75f, 1e-6f);
  // A walk fading into a run: 1 + (2 - 1)(1 - w) integrated: 1.5 over the 1 s fade.
  Instance to_run = walk_to_idle(1.0f, FadeCurve::Linear);
  EXPECT_NEAR(between(to_run, 0.0f, 1.0f, kRun, kWalk).translation.z, 1.5f, 1e-6f);
}

TEST(RootMotion, AFadeOfATurningWalkFollowsItsVelocity) {
  // The definition integrated independently: the instance's frame stepped through root_velocity
  // (midpoint rule, 20,000 steps) against root_motion_between's pieces, over a fade out of a walk
  // that turns a quarter per cycle.
  const std::vector<float> turning = track(0.25f, float(M_PI / 8.0));
  const Playback pb = compiled(walk_to_idle(1.0f, FadeCurve::Smooth));
  double x = 0.0, z = 0.0, yaw = 0.0;
  const int steps = 20000;
  for (int k = 0; k < steps; ++k) {
    const float t = (float(k) + 0.5f) / float(steps);
    const RootVelocity v = root_velocity(pb, BandRoot{kIdle, 5}, BandRoot{turning, 5}, t);
    const double h = 1.0 / steps, mid = yaw + 0.5 * double(v.yaw_rate) * h;
    x += (std::cos(mid) * v.linear.x + std::sin(mid) * v.linear.z) * h;
    z += (-std::sin(mid) * v.linear.x + std::cos(mid) * v.linear.z) * h;
    yaw += double(v.yaw_rate) * h;
  }
  const RootDelta d = root_motion_between(pb, BandRoot{kIdle, 5}, BandRoot{turning, 5}, 0.0f, 1.0f);
  EXPECT_NEAR(d.translation.x, x, 1e-5);
  EXPECT_NEAR(d.translation.z, z, 1e-5);
  EXPECT_NEAR(d.yaw, yaw, 1e-6);
  EXPECT_GT(std::fabs(d.translation.x), 0.01f);  // it turned while it walked
}

TEST(RootMotion, ABlendWeightsTheBands) {
  // A walk with a phase-synced run at weight 0.25: 0.75 x 1 + 0.25 x 2 per cycle.
  Instance in = walking();
  in.blend = Blend{band(5), 0.25f, BlendSync::Phase, std::nullopt};
  EXPECT_NEAR(between(in, 0.0f, 2.0f, kWalk, kRun).translation.z, 2.5f, 1e-5f);
  EXPECT_NEAR(between(in, 0.0f, 100.0f, kWalk, kRun).translation.z, 125.0f, 1e-3f);  // 400 rows, piece by piece
  EXPECT_NEAR(root_velocity(compiled(in), BandRoot{kWalk, 5}, BandRoot{kRun, 5}, 0.3f).linear.z, 1.25f, 1e-6f);
}

TEST(RootMotion, TheVatOverloadFindsEachClipsTrack) {
  Vat vat;
  VatClip walk;
  walk.rows = 5;
  walk.fps = 4.0f;
  walk.duration_s = 1.0f;
  walk.root_motion = RootMotion{RootMotionSource::Feet, "", -1, false, kWalk};
  VatClip idle = walk;
  idle.first_row = 5;
  idle.root_motion.reset();
  vat.clips = {walk, idle};
  vat.frame_rows = 10;
  EXPECT_EQ(root_motion_between(vat, compiled(walking()), 0.0f, 2.5f).translation.z, 2.5f);
  Instance idling = walking();
  idling.clip = band(5);
  EXPECT_EQ(root_motion_between(vat, compiled(idling), 0.0f, 2.5f).translation.z, 0.0f);
  EXPECT_EQ(root_velocity(vat, compiled(walking()), 0.1f).linear.z, 1.0f);
  // A phase: A(0.5) is row 2's.
  EXPECT_EQ(root_motion_at_phase(BandRoot{kWalk, 5}, 0.5).translation.z, 0.5f);
}

}  // namespace
}  // namespace vatkit
