// The playback controls (playback.h): pause, resume and turn back, as pure functions of a
// Playback. They choose new start times in double and keep the float32 among the nearest few that
// reproduces, at the moment of the write, the very sample resolve showed (no jump).
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "playback/playback_internal.h"
#include "vatkit/playback.h"

namespace vatkit {

namespace {

// Float32 steps searched on each side of the ideal value: enough to cover the rounding of the
// ideal itself and of one subtraction at either end.
constexpr int kSearchSteps = 4;

// The float32 within kSearchSteps steps of `ideal` that minimises miss(candidate) (0: reproduces
// what is wanted bit for bit); ties go to the candidate nearest `ideal`.
template <class Miss>
float best_float(double ideal, Miss&& miss) {
  const auto center = static_cast<float>(std::clamp(ideal, -double(kNever), double(kNever)));
  float best = center;
  double best_miss = miss(center);
  double best_distance = std::fabs(double(center) - ideal);
  float lo = center, hi = center;
  for (int i = 0; i < kSearchSteps && best_miss > 0.0; ++i) {
    lo = std::nextafter(lo, -kNever);
    hi = std::nextafter(hi, kNever);
    for (float c : {lo, hi}) {
      const double m = miss(c);
      const double d = std::fabs(double(c) - ideal);
      if (m < best_miss || (m == best_miss && d < best_distance)) {
        best = c;
        best_miss = m;
        best_distance = d;
      }
    }
  }
  return best;
}

// 0 when `got` is the sample wanted; otherwise the phase difference, plus 2 when `finished`
// differs and 1 when `wraps` does (a sample that flips either is never the nearest).
double sample_miss(const BandSample& got, const BandSample& want) {
  if (got == want) return 0.0;
  return std::fabs(double(got.phase) - double(want.phase)) + (got.finished != want.finished ? 2.0 : 0.0) +
         (got.wraps != want.wraps ? 1.0 : 0.0);
}

// sample_miss, but `wraps` does not count: a turned band is a new play, which has not wrapped yet.
double pose_miss(const BandSample& got, BandSample want) {
  want.wraps = got.wraps;
  return sample_miss(got, want);
}

// `t` starting at `start` (its end recomputed on the new start; an endless or holding band keeps
// kNever).
Track started_at(Track t, float start) {
  const bool never = t.end_time == kNever;
  t.start_time = start;
  t.end_time = never ? kNever : playback_detail::end_time_of(t, /*moving=*/true);
  return t;
}

// `t` (shown at `from` = the instance's clock) starting `ideal_start` instead, the float32 start
// chosen so that at `at` it shows what it showed at `from`.
Track moved(const Track& t, float from, float at, double ideal_start) {
  const BandSample want = resolve_track(t, from);
  const float start =
      best_float(ideal_start, [&](float s) { return sample_miss(resolve_track(started_at(t, s), at), want); });
  return started_at(t, start);
}

// The band playing the other way from its phase at `clock` (playback.h: turned_back).
Track turned(const Track& t, float clock) {
  const bool moving = t.cycle_rate != 0.0f && clock > t.start_time && clock < t.end_time;
  if (!moving) return t;
  const double u = playback_detail::cycles_at(t, clock);
  const double k = std::floor(u);
  // The turned play lasts n cycles, the last u of them retracing this one; a PingPong's count is
  // odd so that its traversals line up with these (the mirror of an odd count is the retrace).
  double n = k + 1.0;
  if (t.loop_mode == LoopMode::PingPong && std::fmod(n, 2.0) == 0.0) n += 1.0;
  Track r = t;
  r.cycle_rate = -t.cycle_rate;
  const bool endless = t.repetitions == kInfiniteRepetitions || n > double(kMaxRepetitions);
  r.repetitions = endless ? kInfiniteRepetitions : int32_t(n);
  r.end_phase = r.cycle_rate < 0.0f ? 0.0f : 1.0f;  // where the retrace ends: the play's first pose
  r.end_time = endless ? kNever : 0.0f;             // recomputed by started_at
  const double elapsed = n - u;                     // (0, 2] cycles into the turned play
  const double ideal = double(clock) - elapsed / std::fabs(double(t.cycle_rate));
  const BandSample want = resolve_track(t, clock);
  const float start =
      best_float(ideal, [&](float s) { return pose_miss(resolve_track(started_at(r, s), clock), want); });
  return started_at(r, start);
}

}  // namespace

namespace playback_detail {

float hold_showing(const Playback& p, const PlaybackSample& want, double ideal) {
  return best_float(ideal, [&](float h) {
    Playback q = p;
    q.hold = h;
    const PlaybackSample got = resolve(q, h);
    if (got == want) return 0.0;
    return sample_miss(got.a, want.a) + sample_miss(got.b, want.b) +
           std::fabs(double(got.weight) - double(want.weight));
  });
}

}  // namespace playback_detail

Playback paused(const Playback& p, float now) {
  if (p.hold && *p.hold <= now) return p;
  Playback r = p;
  r.hold = now;
  return r;
}

Playback resumed(const Playback& p, float now) {
  Playback r = p;
  r.hold.reset();
  if (!p.hold || !(now > *p.hold)) return r;  // not paused, or resumed before the pause began
  const float hold = *p.hold;
  const double shift = double(now) - double(hold);
  for (Track* t : {&r.primary, &r.second}) {
    if (hold >= t->end_time) continue;  // finished by the pause: its end pose does not depend on time
    *t = moved(*t, hold, now, double(t->start_time) + shift);
  }
  if (r.ramp_rate != 0.0f) {
    auto progress = [&](float at, float start) { return std::min(std::max((at - start) * r.ramp_rate, 0.0f), 1.0f); };
    const float want = progress(hold, p.ramp_start);
    r.ramp_start = best_float(double(p.ramp_start) + shift,
                              [&](float s) { return std::fabs(double(progress(now, s)) - double(want)); });
  }
  return r;
}

Playback turned_back(const Playback& p, float now) {
  const float clock = instance_clock(p, now);
  Playback r = p;
  r.primary = turned(p.primary, clock);
  r.second = p.kind == MixKind::Single ? r.primary : turned(p.second, clock);
  return r;
}

}  // namespace vatkit
