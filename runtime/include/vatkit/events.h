// vatkit/events.h: the named clip events (footsteps, hit frames; VatClip::events) an instance
// crosses between two clock times, each with the clock time it fired.
//
// Definition (docs/events.md works the cases with numbers). An event at time_s of a clip of
// duration D has phase phi = time_s / D (0 when D = 0). A band playing under a Track (playback.h)
// has elapsed cycles u(t) = cycles_at(t) = min(max(t - start_time, 0) * cycle_rate, 2^24), the
// float32 value resolve() computes (|cycle_rate|: u grows whichever way the band plays). The event
// is crossed at every cycle position c where the band's phase is phi. A cycle k runs forward
// (phase 0 -> 1) or back (1 -> 0: a PingPong's odd traversal, or any cycle of a band with a
// negative cycle_rate, the two cancelling: a backwards PingPong's odd traversals run forward):
//  - c = k + phi in a cycle that runs forward, c = k + 1 - phi in one that runs back, so a
//    backwards band crosses its events in reverse order within each cycle;
//  - Repeat and Once: in every cycle (phi = 1 and the next cycle's phi = 0 share a position but
//    are two events; backwards, phi = 0 and the next cycle's phi = 1);
//  - PingPong: an event at a turning point (phi 0 or 1) fires once there, counted in the even
//    traversal (k even) that starts or ends there;
//  - only positions 0 <= c <= n of cycles k < n for a band of n repetitions (its last cycle's end,
//    c = n, fires at Track::end_time; cycle n never starts, so a Repeat's phase 0 (backwards: 1)
//    does not fire there; nothing fires after: a finished band, Rewind's jump to its first pose included,
//    crosses nothing); a band with cycle_rate 0 (speed 0) crosses nothing.
// Position c fires at T(c): start_time for c = 0, else the smallest float32 clock time t with
// u(t) >= c. So at T(c) resolve_track's phase is phi within float32 rounding of u (taken modulo 1
// for a Repeat's cycle end, which resolve reads as the next cycle's start, unless the band finished
// there under Clamp), and T is exact however many loops, speeds and rebases came before.
//
// Playback controls (playback.h). A paused Playback (hold set) crosses only what its bands cross
// up to the hold: events in (t0, min(t1, hold)]; the held instant itself fires once, in the window
// that contains it. A resumed or turned-back Playback is a Playback like any other: its rewritten
// start times and rates say what it crosses from the write on. So a caller that writes a control at
// `now` asks the old Playback for (.., now] and the new one for (now, ..]: across a pause and resume
// at the same pose nothing fires twice (the resumed band is at position u(hold) at `now`, so a
// crossing at the hold is not in (now, ..]; where resumed() cannot reproduce the held pose bit for
// bit, a crossing within that rounding of the hold may fire again); a turned-back band crosses the
// events it passed again in reverse as it retraces them, but not one crossed exactly at the turn
// (up to the float32 rounding of the turned band's position there: its phase is the old one's bit
// for bit, its cycle position 1 - that phase rounded).
//
// events_crossed(t0, t1) reports every crossing with t0 < T <= t1: consecutive frames (t0, t1],
// (t1, t2] report each crossing once. Both bands of a Playback fire: the primary at weight
// 1 - w(T), the second (a fade's outgoing band, a blend's B) at w(T) = second_weight(T), each only
// where its weight is > 0 (an outgoing band stops firing when its fade ends; a phase-synced blend's
// B fires at A's rate). Order: by T; at equal T the primary's first, then by position.
//
// Cost: O(log E + events crossed) per band for E events of its clip (each crossing's time is a
// 32-step search over the floats); the Vat overload adds O(clips) to find the bands' clips. Nothing
// is allocated but the output's growth. Pure functions: safe from any number of threads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vatkit/playback.h"
#include "vatkit/vat.h"

namespace vatkit {

// One crossing of one event.
struct FiredEvent {
  float time = 0.0f;    // T(c), the clock time it fired
  uint32_t clip = 0;    // Vat::clips index (BandEvents::clip)
  uint32_t event = 0;   // index in that clip's events
  uint32_t cycle = 0;   // the cycle (traversal, for PingPong) it fired in
  uint8_t band = 0;     // 0: the primary band (PlaybackSample::a), 1: the second (b)
  float weight = 1.0f;  // the band's weight at `time`, > 0

  friend bool operator==(const FiredEvent&, const FiredEvent&) = default;
};

// The events one band plays: a clip's list (in time order, as VatClip::events) and its duration.
struct BandEvents {
  std::span<const ClipEvent> events;
  float duration_s = 0.0f;
  uint32_t clip = 0;  // reported in FiredEvent::clip
};

// Appends to `out` the crossings of both bands with t0 < T <= t1 (T <= hold while paused), in
// order (above). `second` is ignored for a Single playback. Precondition: t0, t1 finite; nothing is
// reported unless t0 < t1.
void events_crossed(const Playback& playback, const BandEvents& primary, const BandEvents& second, float t0, float t1,
                    std::vector<FiredEvent>& out);

// The same with each band's events taken from the Vat clip whose band it plays (same first row
// and rows); a band that is no clip of `vat` has none.
void events_crossed(const Vat& vat, const Playback& playback, float t0, float t1, std::vector<FiredEvent>& out);

// An upper bound, O(1), of how many crossings events_crossed(playback, primary, second, t0, t1)
// appends: the cycles each band spans times its events (saturating). For a caller that caps its
// output before the work (a long span of a fast band crosses up to 2^24 cycles' events). A paused
// Playback's span ends at its hold here too.
double events_crossed_bound(const Playback& playback, const BandEvents& primary, const BandEvents& second, float t0,
                            float t1);

// An event's phase in its clip, time_s / duration_s in double (0 for a clip of duration 0).
double event_phase(const ClipEvent& event, float duration_s);

// T(c) above: the clock time a track reaches cycle position c >= 0 (kNever if it never does).
float crossing_time(const Track& track, double cycle_position);

}  // namespace vatkit
