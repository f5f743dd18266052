// Root motion between two clock times (root_motion.h): one band in closed form (whole cycles as a
// power of the cycle's motion), two bands by integrating the blended velocity piece by piece.
#include "vatkit/root_motion.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "playback/playback_internal.h"

namespace vatkit {

namespace {

// A rigid motion (turn about +y by yaw, then translate), in double.
struct Motion {
  double x = 0.0, y = 0.0, z = 0.0, yaw = 0.0;
};

// R(yaw) (x, z): glm::rotate(yaw, +y) applied to (x, 0, z).
void turn(double yaw, double& x, double& z) {
  const double c = std::cos(yaw), s = std::sin(yaw);
  const double nx = c * x + s * z;
  z = -s * x + c * z;
  x = nx;
}

Motion compose(const Motion& a, const Motion& b) {
  double x = b.x, z = b.z;
  turn(a.yaw, x, z);
  return {a.x + x, a.y + b.y, a.z + z, a.yaw + b.yaw};
}

Motion inverse(const Motion& a) {
  double x = -a.x, z = -a.z;
  turn(-a.yaw, x, z);
  return {x, -a.y, z, -a.yaw};
}

// C^m for an integer m, in closed form: the turn m yaw, the translation t (1 + q + ... + q^(m-1))
// with q the turn, (1 - q^m) / (1 - q) = R((m - 1) yaw / 2) sin(m yaw / 2) / sin(yaw / 2).
Motion power(const Motion& c, double m) {
  if (m < 0.0) return inverse(power(c, -m));
  const double half = std::sin(0.5 * c.yaw);
  double x = c.x, z = c.z;
  if (std::fabs(half) < 1e-12) {
    x *= m;
    z *= m;
  } else {
    const double scale = std::sin(0.5 * m * c.yaw) / half;
    x *= scale;
    z *= scale;
    turn(0.5 * (m - 1.0) * c.yaw, x, z);
  }
  return {x, m * c.y, z, m * c.yaw};
}

// One band: its track and how it plays.
struct Band {
  const Track* track = nullptr;
  BandRoot root;

  bool moves() const { return root.rows > 1 && root.track.size() >= size_t(root.rows) * 4; }
  double last() const { return double(root.rows - 1); }
  double value(uint32_t row, int k) const { return double(root.track[size_t(row) * 4 + size_t(k)]); }
  // A(phase): linear between rows.
  Motion at(double phase) const {
    if (!moves()) return {};
    const double x = std::clamp(phase, 0.0, 1.0) * last();
    const auto i = uint32_t(std::min(std::floor(x), last() - 1.0));
    const double f = x - double(i);
    auto lerp = [&](int k) { return value(i, k) + (value(i + 1, k) - value(i, k)) * f; };
    return {lerp(0), lerp(1), lerp(2), lerp(3)};
  }
  double cycles(double u) const {  // u clamped to a finite play's count
    return track->repetitions == kInfiniteRepetitions ? u : std::min(u, double(track->repetitions));
  }
  bool ping_pong() const { return track->loop_mode == LoopMode::PingPong; }
  bool mirrored() const { return track->cycle_rate < 0.0f; }
  // G(u) (root_motion.h).
  Motion path(double u) const {
    if (!moves() || track->cycle_rate == 0.0f) return {};
    u = cycles(u);
    if (ping_pong()) return at(ping_pong_phase(u));
    const double s = mirrored() ? -u : u;
    const double k = std::floor(s);
    return compose(power(at(1.0), k), at(s - k));
  }
  double ping_pong_phase(double u) const {
    double k = std::floor(u);
    double f = u - k;
    if (k > 0.0 && f == 0.0) {  // a turning point: the end of traversal k - 1
      k -= 1.0;
      f = 1.0;
    }
    const bool back = (std::fmod(k, 2.0) == 1.0) != mirrored();
    return back ? 1.0 - f : f;
  }
  // Elapsed cycles at a clock time, in double (the quadrature's; the closed form reads the float
  // cycles_at).
  double cycles_double(double t) const {
    const double u = std::max(t - double(track->start_time), 0.0) * std::fabs(double(track->cycle_rate));
    return cycles(std::min(u, double(kMaxCycles)));
  }
  // The band's velocity in its body frame at elapsed cycles u, moving forward in time (the row
  // being entered). 0 before the start, after the end, at speed 0.
  Motion velocity(double u) const {
    if (!moves() || track->cycle_rate == 0.0f || u < 0.0) return {};
    if (track->repetitions != kInfiniteRepetitions && u >= double(track->repetitions)) return {};
    const double k = std::floor(u);
    const double f = u - k;
    const bool back = ((ping_pong() && std::fmod(k, 2.0) == 1.0) != mirrored());
    const double phase = back ? 1.0 - f : f;
    const double x = phase * last();
    // Forward in time the phase rises (row floor(x)) or falls (row ceil(x) - 1).
    double row = back ? std::ceil(x) - 1.0 : std::floor(x);
    row = std::clamp(row, 0.0, last() - 1.0);
    const auto i = uint32_t(row);
    const double rate = std::fabs(double(track->cycle_rate)) * last() * (back ? -1.0 : 1.0);  // rows per second
    Motion v{(value(i + 1, 0) - value(i, 0)) * rate, (value(i + 1, 1) - value(i, 1)) * rate,
             (value(i + 1, 2) - value(i, 2)) * rate, (value(i + 1, 3) - value(i, 3)) * rate};
    const double yaw_here = value(i, 3) + (value(i + 1, 3) - value(i, 3)) * (x - row);
    turn(-yaw_here, v.x, v.z);  // into the body frame
    return v;
  }
  // Where this band may change its velocity after a (before b): its start, its end and its first
  // row boundary after a (next_break asks again from there, so a window costs O(rows crossed)).
  template <class F>
  void breaks(double a, double b, F&& add) const {
    if (!moves() || track->cycle_rate == 0.0f) return;
    const double start = double(track->start_time);
    const double rows_per_s = std::fabs(double(track->cycle_rate)) * last();
    add(start);
    if (track->end_time != kNever) add(double(track->end_time));
    // The first row boundary after a (one more where rounding puts it at a itself).
    const double j = std::floor(std::max(a - start, 0.0) * rows_per_s) + 1.0;
    const double t = start + j / rows_per_s;
    if (t < b) add(t > a ? t : start + (j + 1.0) / rows_per_s);
  }
};

double weight_double(const Playback& pb, double t) {
  if (pb.kind == MixKind::Single) return 0.0;
  double p = std::clamp((t - double(pb.ramp_start)) * double(pb.ramp_rate), 0.0, 1.0);
  const double c = pb.curve == FadeCurve::Smooth ? p * p * (3.0 - 2.0 * p) : p;
  return double(pb.weight_from) * (1.0 - c) + double(pb.weight_to) * c;
}

// W(t) = the integral of w from a to t, in closed form (the curve's antiderivative).
double weight_integral(const Playback& pb, double a, double t) {
  if (pb.kind == MixKind::Single) return 0.0;
  const double wf = double(pb.weight_from), wt = double(pb.weight_to), rate = double(pb.ramp_rate);
  if (rate == 0.0) return wf * (t - a);
  auto anti = [&](double time) {  // an antiderivative of w, continuous in time
    const double raw = (time - double(pb.ramp_start)) * rate;
    const double p = std::clamp(raw, 0.0, 1.0);
    const double ic = pb.curve == FadeCurve::Smooth ? p * p * p - 0.5 * p * p * p * p : 0.5 * p * p;
    const double c_integral = ic / rate + std::max(raw - 1.0, 0.0) / rate;  // the integral of c dt
    return wf * time + (wt - wf) * c_integral;
  };
  return anti(t) - anti(a);
}

// The motion over [a, b], a piece where each band stays in one row: the turn in closed form, the
// translation by Gauss-Legendre.
Motion piece(const Playback& pb, const Band& A, const Band& B, double a, double b) {
  const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
  const Motion va = A.velocity(A.cycles_double(mid)), vb = B.velocity(B.cycles_double(mid));
  // Each band's body-frame translation velocity turns against its own yaw rate within the row.
  auto band_v = [&](const Motion& v, double dt, double& x, double& z) {
    x = v.x;
    z = v.z;
    turn(-v.yaw * dt, x, z);
  };
  auto heading = [&](double t) { return va.yaw * (t - a) + (vb.yaw - va.yaw) * weight_integral(pb, a, t); };
  // The body velocities above are those at the piece's middle; shift them to time t.
  static constexpr std::array<double, 5> kNode = {0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640,
                                                  0.9061798459386640};
  static constexpr std::array<double, 5> kWeight = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                                    0.2369268850561891, 0.2369268850561891};
  Motion out;
  for (size_t n = 0; n < kNode.size(); ++n) {
    const double t = mid + half * kNode[n];
    const double w = weight_double(pb, t);
    double ax, az, bx, bz;
    band_v(va, t - mid, ax, az);
    band_v(vb, t - mid, bx, bz);
    double x = (1.0 - w) * ax + w * bx, z = (1.0 - w) * az + w * bz;
    turn(heading(t), x, z);
    out.x += kWeight[n] * half * x;
    out.z += kWeight[n] * half * z;
    out.y += kWeight[n] * half * ((1.0 - w) * va.y + w * vb.y);
  }
  out.yaw = heading(b);
  return out;
}

// Whether the second band carries no weight anywhere in [a, b] (w is monotone between the ramp's
// ends, which are break points).
bool second_silent(const Playback& pb, double a, double b) {
  return pb.kind == MixKind::Single || (weight_double(pb, a) == 0.0 && weight_double(pb, b) == 0.0);
}

Motion one_band(const Band& band, float c0, float c1) {
  return compose(inverse(band.path(double(playback_detail::cycles_at(*band.track, c0)))),
                 band.path(double(playback_detail::cycles_at(*band.track, c1))));
}

// t0 <= t1 (clocks).
Motion forward_motion(const Playback& pb, const Band& A, const Band& B, float c0, float c1) {
  if (!(c0 < c1)) return {};
  if (second_silent(pb, c0, c1)) return one_band(A, c0, c1);  // w is monotone: 0 at both ends, 0 between
  // Break points: the ramp's ends and both bands' row boundaries, then each piece in turn.
  const double a = c0, b = c1;
  double cursor = a;
  Motion out;
  auto next_break = [&](double after) {
    double best = b;
    auto add = [&](double t) {
      if (t > after && t < best) best = t;
    };
    if (pb.ramp_rate != 0.0f) {
      add(double(pb.ramp_start));
      add(double(pb.ramp_start) + 1.0 / double(pb.ramp_rate));
    }
    A.breaks(after, best, add);
    if (pb.kind != MixKind::Single) B.breaks(after, best, add);
    return best;
  };
  while (cursor < b) {
    const double end = next_break(cursor);
    if (second_silent(pb, cursor, end)) {
      out = compose(out, one_band(A, float(cursor), float(end)));
    } else {
      out = compose(out, piece(pb, A, B, cursor, end));
    }
    cursor = end;
  }
  return out;
}

RootDelta to_delta(const Motion& m) { return RootDelta{glm::vec3(float(m.x), float(m.y), float(m.z)), float(m.yaw)}; }

BandRoot root_of(const Vat& vat, const Track& t) {
  for (const VatClip& c : vat.clips) {
    if (c.first_row == t.first_row && c.rows == t.rows && c.root_motion) return BandRoot{c.root_motion->track, c.rows};
  }
  return {};
}

}  // namespace

glm::mat4 RootDelta::matrix() const {
  return glm::rotate(glm::translate(glm::mat4(1.0f), translation), yaw, glm::vec3(0.0f, 1.0f, 0.0f));
}

RootDelta root_motion_at_phase(const BandRoot& band, double phase) {
  Track t;
  return to_delta(Band{&t, band}.at(phase));
}

RootDelta root_motion_between(const Playback& pb, const BandRoot& primary, const BandRoot& second, float t0, float t1) {
  const Band A{&pb.primary, primary}, B{&pb.second, pb.kind == MixKind::Single ? BandRoot{} : second};
  const float c0 = instance_clock(pb, t0), c1 = instance_clock(pb, t1);
  if (c1 < c0) return to_delta(inverse(forward_motion(pb, A, B, c1, c0)));
  return to_delta(forward_motion(pb, A, B, c0, c1));
}

RootDelta root_motion_between(const Vat& vat, const Playback& pb, float t0, float t1) {
  return root_motion_between(pb, root_of(vat, pb.primary),
                             pb.kind == MixKind::Single ? BandRoot{} : root_of(vat, pb.second), t0, t1);
}

RootVelocity root_velocity(const Playback& pb, const BandRoot& primary, const BandRoot& second, float t) {
  if (pb.hold && t >= *pb.hold) return {};
  const Band A{&pb.primary, primary}, B{&pb.second, pb.kind == MixKind::Single ? BandRoot{} : second};
  const double w = weight_double(pb, t);
  const Motion va = A.velocity(double(playback_detail::cycles_at(pb.primary, t)));
  const Motion vb = w > 0.0 ? B.velocity(double(playback_detail::cycles_at(pb.second, t))) : Motion{};
  auto mix = [&](double x, double y) { return float((1.0 - w) * x + w * y); };
  return RootVelocity{glm::vec3(mix(va.x, vb.x), mix(va.y, vb.y), mix(va.z, vb.z)), mix(va.yaw, vb.yaw)};
}

RootVelocity root_velocity(const Vat& vat, const Playback& pb, float t) {
  return root_velocity(pb, root_of(vat, pb.primary), pb.kind == MixKind::Single ? BandRoot{} : root_of(vat, pb.second),
                       t);
}

}  // namespace vatkit
