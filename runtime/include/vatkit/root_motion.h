// vatkit/root_motion.h: how far an instance's root moves, and turns, between two clock times, on
// the playback the GPU draws (docs/root-motion.md works the cases with numbers).
//
// A clip's root motion (VatClip::root_motion, vat.h) is a per-row track A_r = (x, y, z, yaw):
// the model-space rigid motion, "turn by yaw about +y, then translate by (x, y, z)", that carries
// the baked (in-place) row r to where the source had it, relative to row 0. Between rows the four
// values are linear in the phase. A motion M = (t, yaw) maps a point p to R(yaw) p + t, R the turn
// about +y (glm::rotate(yaw, {0, 1, 0})); M1 M2 is (t1 + R(yaw1) t2, yaw1 + yaw2).
//
// Definition, one band (a Track playing a clip with a track, under playback.h's resolve()): the
// band's elapsed cycles u(t) = cycles_at(t) (the float32 value resolve() computes; before the
// start 0, at or after a finite play's end its n cycles) give its path
//  - Repeat and Once: G(u) = C^floor(s) A(s - floor(s)), s = u (s = -u for a negative
//    cycle_rate), C = A(1) the motion of one cycle. So k whole cycles move the root by C^k exactly
//    (a closed form, not a sum of frames), and a backwards band walks the same path backwards;
//  - PingPong: G(u) = A(phase), the phase resolve() plays (a traversal back returns);
// and its motion from t0 to t1 is G(u(t0))^-1 G(u(t1)), expressed in the instance's frame at t0.
// A finished band stands where its play ended (Rewind's jump back to the first row moves nothing),
// a band at speed 0 or before its start does not move, and a paused Playback (hold) moves only up
// to its hold: every time t reads instance_clock(t).
//
// Two bands (a cross-fade's outgoing band or a blend's B at weight w(t) = second_weight(t)): the
// instance moves at the blended velocity, as the decode blends the poses:
//   V(t) = (1 - w(t)) V_a(t) + w(t) V_b(t),
// V_x(t) a band's velocity in the instance's own frame (its body frame: d/dh G(u(t))^-1 G(u(t+h))
// at h = 0; linear velocity and turn rate), and the instance's frame follows V (dM/dt = M V).
// Where w is 0 over a stretch, this is the primary's motion above, exactly; elsewhere it is
// integrated piecewise between the row boundaries of both bands and the ramp's ends, the turn in
// closed form and the translation by 5-point Gauss-Legendre (exact where neither band turns; a
// fade of a walk turning a quarter per cycle agrees with a 20,000-step integration of V to 1e-9). Consecutive windows
// (t0, t1], (t1, t2] compose to (t0, t2] (to rounding).
//
// Cost: O(1) for one band (or a window where the second band has no weight); while both bands
// carry weight, O(rows either band crosses). Nothing is allocated. Pure: safe from any thread.
#pragma once

#include <cstdint>
#include <span>

#include <glm/glm.hpp>

#include "vatkit/playback.h"
#include "vatkit/vat.h"

namespace vatkit {

// A rigid motion in the ground plane plus a height: turn by `yaw` radians about +y, then
// translate by `translation` (model units). The instance's new world matrix is world * matrix().
struct RootDelta {
  glm::vec3 translation{0.0f};
  float yaw = 0.0f;

  glm::mat4 matrix() const;
};

// The root's velocity at a time, in the instance's frame: units and radians per second of clock.
struct RootVelocity {
  glm::vec3 linear{0.0f};
  float yaw_rate = 0.0f;
};

// The root motion one band plays: its clip's track (4 floats per row, VatClip::root_motion) and
// its rows; an empty track does not move.
struct BandRoot {
  std::span<const float> track;
  uint32_t rows = 1;
};

// The motion from t0 to t1 (t0 > t1: the inverse of t1 to t0), in the instance's frame at t0.
// `second` is ignored for a Single playback. Precondition: t0, t1 finite.
RootDelta root_motion_between(const Playback& playback, const BandRoot& primary, const BandRoot& second, float t0,
                              float t1);
// The same with each band's track taken from the Vat clip it plays (same first row and rows); a
// band of no clip, or of a clip without root motion, does not move.
RootDelta root_motion_between(const Vat& vat, const Playback& playback, float t0, float t1);

// V(t) above (right-continuous: at a row boundary, the row being entered).
RootVelocity root_velocity(const Playback& playback, const BandRoot& primary, const BandRoot& second, float t);
RootVelocity root_velocity(const Vat& vat, const Playback& playback, float t);

// The band's motion from the start of its track to phase p in [0, 1] (A(p) above).
RootDelta root_motion_at_phase(const BandRoot& band, double phase);

}  // namespace vatkit
