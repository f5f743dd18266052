// vatkit/instance_table.h: the per-instance playback table of a crowd, the packed layout the GPU
// reads, the one write that changes an instance's animation, and the long-session clock rebase.
//
// The GPU reads one row of six RGBA32F texels per instance, keyed by the instance's LOGICAL index
// (the index the caller gave set_instance), never by its position in the drawn list: culling, sorting and
// compaction reorder draws, not rows. Row i starts at texel 6 i of a linear texel array (a buffer
// texture, an SSBO, or a 2D texture of width W texels, W a multiple of 6: x = (6 i + j) % W,
// y = (6 i + j) / W). All numbers are float32; integers are exact (below 2^24).
//
//   texel | x              | y           | z              | w
//   ------+----------------+-------------+----------------+-------------
//   0     | A first_row    | A rows      | A loop_mode    | A end_phase      primary band (A)
//   1     | A start_time   | A cycle_rate| A end_time     | A repetitions    primary timing
//   2     | B first_row    | B rows      | B loop_mode    | B end_phase      second band (B)
//   3     | B start_time   | B cycle_rate| B end_time     | B repetitions    second timing
//   4     | weight_from    | weight_to   | ramp_start     | ramp_rate        B's weight ramp
//   5     | kind           | curve       | hold           | paused           pause (0, 0: playing)
//
// loop_mode: 0 Repeat, 1 Once, 2 PingPong. kind: 0 Single, 1 Fade, 2 Blend. curve: 0 linear,
// 1 smoothstep. end_time kNever (FLT_MAX) = never. A Single row repeats texels 0-1 in 2-3 and has
// weights 0. paused is 1 while Playback::hold is set (hold in 5.z), else 0 (and 5.z is 0); a
// negative cycle_rate plays the band backwards. The GPU needs texels 0-4 and texels 5.yzw
// (resolve in playback.h, field for field); repetitions and kind are there for the CPU (rebase,
// PlaybackSample::kind).
//
// Writes are events: set_instance marks one row dirty, nothing is written per frame, and
// take_dirty hands the changed rows to the uploader as ranges. The table also keeps the next
// events of the crowd (a one-shot finishing, a fade ending) in a min-heap, so the caller can
// chain clips by popping due events instead of polling every instance.
//
// Threads: an InstanceTable is not synchronized: writes (set_instance, write_playback, take_dirty,
// next_event, pop_events, rebase_clock, resize) need exclusive access; const reads may run
// concurrently with each other. Costs are per function below; nothing uses a thread pool.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <glm/vec4.hpp>

#include "vatkit/playback.h"
#include "vatkit/result.h"

namespace vatkit {

inline constexpr uint32_t kInstanceTexels = 6;

// One instance's row, as uploaded.
struct PackedInstance {
  std::array<glm::vec4, kInstanceTexels> texels{};
};
static_assert(sizeof(PackedInstance) == kInstanceTexels * 16);

// Exact inverses for every Playback that compile() or set_instance() produces (unpack(pack(p)) ==
// p, bit for bit), and resolve(unpack(row), t) is what the GPU computes from the row.
PackedInstance pack(const Playback& playback);
Playback unpack(const PackedInstance& row);
inline PlaybackSample resolve(const PackedInstance& row, float time) { return resolve(unpack(row), time); }

// Rows [first, first + count).
struct RowRange {
  uint32_t first = 0;
  uint32_t count = 0;
  friend bool operator==(const RowRange&, const RowRange&) = default;
};

enum class EventKind : uint8_t {
  End = 0,      // the primary band finishes (ends_at): chain the next clip here
  FadeEnd = 1,  // the second band's weight reached its final value (a fade's outgoing band is gone)
};

struct PlaybackEvent {
  float time = 0.0f;  // clock seconds
  uint32_t index = 0;
  EventKind kind = EventKind::End;
  friend bool operator==(const PlaybackEvent&, const PlaybackEvent&) = default;
};

// What rebase_clock did (declared here for the table's friend list).
inline constexpr double kRebaseFoldAfterSeconds = 256.0;  // elapsed ulp there: 2^-16 s

struct RebaseReport {
  float shift = 0.0f;    // subtract from the clock
  uint32_t exact = 0;    // tracks shifted exactly (or finished)
  uint32_t folded = 0;   // tracks advanced by whole cycles
  uint32_t rounded = 0;  // tracks whose start could only be rounded (first cycle, slow)
};

class InstanceTable {
 public:
  // `count` unwritten rows (each holds row 0); `frame_rows` > 0 makes set_instance refuse bands
  // past that row (pass Vat::frame_rows).
  explicit InstanceTable(uint32_t count = 0, uint32_t frame_rows = 0);

  uint32_t size() const { return uint32_t(rows_.size()); }
  uint32_t frame_rows() const { return frame_rows_; }
  // Adds unwritten rows or drops the last ones (their events go; the dropped rows are not dirty).
  void resize(uint32_t count);

  std::span<const PackedInstance> rows() const { return rows_; }
  // The upload source: 24 floats per instance.
  std::span<const float> floats() const {
    return {reinterpret_cast<const float*>(rows_.data()), rows_.size() * kInstanceTexels * 4};
  }
  const PackedInstance& row(uint32_t index) const { return rows_[index]; }
  bool written(uint32_t index) const { return written_[index] != 0; }

 private:
  struct HeapEntry {
    float time;
    uint32_t index;
    uint32_t generation;
    EventKind kind;
  };
  std::vector<PackedInstance> rows_;
  std::vector<uint8_t> written_;
  std::vector<uint32_t> generation_;
  std::vector<uint8_t> dirty_flag_;
  std::vector<uint32_t> dirty_;
  std::vector<HeapEntry> heap_;
  uint32_t frame_rows_ = 0;

  void store(uint32_t index, const Playback& playback);
  void push_events(uint32_t index, const Playback& playback);
  void drop_stale_events();

  friend Result<void> set_instance(InstanceTable&, uint32_t, const Instance&, float);
  friend void write_playback(InstanceTable&, uint32_t, const Playback&);
  friend void take_dirty(InstanceTable&, std::vector<RowRange>&, uint32_t);
  friend size_t dirty_count(const InstanceTable&);
  friend std::optional<PlaybackEvent> next_event(InstanceTable&);
  friend size_t pop_events(InstanceTable&, float, std::vector<PlaybackEvent>&);
  friend RebaseReport rebase_clock(InstanceTable&, float);
};

// Changes instance `index`'s animation at clock time `now` (three-vat's setVATInstance). With
// instance.fade_duration > 0 the change cross-fades from what the instance showed at `now`, over
// that many seconds from `now`, the outgoing band playing on. What was on screen is at most two
// bands X (primary) and Y (second, weight w); the new instance is one band N, or a blend A + B:
//  - N is X (a re-issue, or a retarget during a fade): Y keeps fading from w to 0. No pop.
//  - N is Y (turning back during a fade): X fades out from 1 - w to 0. No pop.
//  - A + B is X + Y (a blend whose weight changes): the weight ramps from w to the new weight.
//  - otherwise the screen collapses to its dominant band D (Y when w > 0.5, else X), and N fades in
//    over D (D fades from 1 to 0), or the blend ramps in from D (D is A: B from 0; D is B: from 1).
//    The collapse pops by the weight it drops: at most min(w, 1 - w) times the distance between
//    the two poses on screen (docs/playback.md has the measured numbers).
// A paused instance is resumed at `now` first (playback.h: resumed), so a fade starts from the
// held pose and the new instance plays. "Is" compares the resolved tracks: same band, start, rate and policy; a track
// rebase_clock folded is the instance it came from (re-issued with its start time minus the shift), and the table keeps
// the folded track. Errors: what compile() refuses, a band past frame_rows, instance.from set (this fills it), a
// non-finite `now`, and a fade into a blend from a band that is neither A nor B (that needs three bands: fade to A, and
// on its FadeEnd event write the blend with weight_from 0). A first write, or fade_duration 0, cuts. On error the table
// is unchanged. `index` must be < size(). Cost: O(log events) (the heap push); allocates only when the dirty list or
// the heap grows.
Result<void> set_instance(InstanceTable& table, uint32_t index, const Instance& instance, float now);

// The playback controls (playback.h: paused, resumed, turned_back, which say what each does) as
// table writes at clock time `now`: each rewrites row `index`, marks it dirty and replaces its
// pending events (a paused row has none until it resumes: a pause holds its end and its fade).
// Errors: a non-finite `now`, a row never written. `index` must be < size(). O(log events).
Result<void> pause(InstanceTable& table, uint32_t index, float now);
Result<void> resume(InstanceTable& table, uint32_t index, float now);
Result<void> turn_back(InstanceTable& table, uint32_t index, float now);

// Writes a Playback as is (a restore, or one built by hand). No validation beyond asserts.
void write_playback(InstanceTable& table, uint32_t index, const Playback& playback);

// three-vat's createVATPlaybackTexture: a table holding `instances`, written without fades.
// Errors: what set_instance refuses, for the first instance it refuses. O(instances), allocates.
Result<InstanceTable> make_instance_table(std::span<const Instance> instances, uint32_t frame_rows = 0);

Playback playback(const InstanceTable& table, uint32_t index);  // unpack(table.row(index))
PlaybackSample resolve(const InstanceTable& table, uint32_t index, float time);
std::optional<float> ends_at(const InstanceTable& table, uint32_t index);

// Appends the rows written since the last call as sorted, disjoint ranges, merging ranges separated
// by at most `merge_gap` clean rows (fewer, larger uploads), and forgets them. Writing one instance
// of a million gives one range of one row. O(d log d) for d dirty rows, not O(size()).
void take_dirty(InstanceTable& table, std::vector<RowRange>& out, uint32_t merge_gap = 0);
size_t dirty_count(const InstanceTable& table);  // rows waiting, each counted once

// The earliest pending event (stale ones, from rows written since, are skipped), or nothing.
std::optional<PlaybackEvent> next_event(InstanceTable& table);
// Appends every pending event with time <= until, earliest first (ties: by index, End before
// FadeEnd), and removes them. A write that supersedes a row drops its pending events; the new
// row's events are pending from the write on, even those already in the past.
size_t pop_events(InstanceTable& table, float until, std::vector<PlaybackEvent>& out);

// Long sessions. The clock is a float32 on the GPU: at 1 hour its ulp is 2^-12 s (0.007 rows at
// 30 fps), at 24 hours 2^-7 s (0.23 rows: a visible stutter), and a loop started long ago loses
// phase resolution the same way through time - start_time. rebase_clock(table, now) moves the
// clock's origin by shift = floor(now) (0 when now < 1): the caller's clock becomes now - shift,
// and every row is rewritten so that, at every clock time t >= now, resolve(row', t - shift)
// equals resolve(row, t):
//  - exactly (bit for bit, at every time the old clock can express) for every track that started
//    less than kRebaseFoldAfterSeconds before `now` or has not started yet, and for every
//    finished track (its end pose does not depend on time);
//  - a track playing for longer has a coarse phase however the clock is rebased (time -
//    start_time is large): its start is advanced by whole cycles (even ones for PingPong, keeping
//    one for a Repeat's `wraps`; the repetitions left shrink by as many), which keeps every field
//    and moves the phase by no more than the float32 rounding it already carried, and restores
//    full resolution (docs/playback.md measures both);
//  - a weight ramp that is over becomes a constant; a fade that is over becomes Single;
//  - a paused row is rebased at its held clock (min(now, hold)) and its hold shifts with the
//    clock (exactly when float32 holds hold - shift: always when hold >= now / 2, Sterbenz).
// Pending events shift with their rows. Every row is marked dirty. Call it when the clock passes
// an hour or so; the GPU and the table must switch clocks on the same frame, and the caller
// subtracts the shift from the start times it keeps (set_instance recognises a re-issued
// instance by them, folded tracks included). O(size() + events); rebuilds the event heap.
// Precondition: `now` is finite (a clock time; checked by assert in debug builds).
RebaseReport rebase_clock(InstanceTable& table, float now);

// The float32 clock's resolution at `clock` seconds: the gap to the next float (its ulp).
float clock_resolution(float clock);

}  // namespace vatkit
