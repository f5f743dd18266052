// The named clip events (footsteps, hit frames) an instance crosses between two clock times, each
// with the clock time it fired: vatkit's runtime/include/vatkit/events.h transcribed, bit for bit
// (tests/conformance/events_v1.jsonl). docs/events.md has the definition and worked cases; in
// short, an event at phase phi of its clip fires at every cycle position where the band's phase
// is phi (a backwards cycle mirrors it, a ping-pong's turning points fire once), at the smallest
// float32 clock whose elapsed cycles reach that position, so consecutive frames (t0, t1],
// (t1, t2] report each crossing exactly once whatever the frame times, loops, speeds or fades.
import { LoopMode, MixKind, cyclesAt, instanceClock, secondWeight, smallestTime } from './playback.js';

const f32 = Math.fround;

/**
 * @typedef {object} BandEvents the events one band plays
 * @property {{name: string, time: number}[]} events in time order, times within the clip
 * @property {number} duration the clip's duration in seconds
 * @property {number} clip reported in each crossing's `clip`
 */

/**
 * @typedef {object} Crossing one crossing of one event
 * @property {number} time the clock time it fired (float32)
 * @property {number} clip the band's `clip`
 * @property {number} event the index in that band's events
 * @property {number} cycle the cycle (a ping-pong's traversal) it fired in
 * @property {number} band 0: the primary band (sample.a); 1: the second (sample.b)
 * @property {number} weight the band's weight at `time`, > 0
 */

/** An event's phase in its clip: time / duration in double, at most 1 (0 for a clip of duration 0). */
export function eventPhase(time, duration) {
  return duration > 0 ? Math.min(time / duration, 1) : 0;
}

/** The clock time a track reaches cycle position c >= 0: its start for 0, else the smallest float32 clock. */
export function crossingTime(track, c) {
  if (c <= 0) return track.startTime;
  return smallestTime(track.startTime, (time) => cyclesAt(track, time) >= c);
}

// The crossing positions of one band in (lo, hi], in increasing order (events.cpp's Walk): cycle k
// runs forward (event j at k + phi) or back (a ping-pong's odd traversal, or any cycle of a band
// with a negative rate, the two cancelling: event E - 1 - j at k + 1 - phi); an odd ping-pong
// traversal skips the turning points, which the even ones fire.
class Walk {
  constructor(track, band, t0, t1) {
    this.track = track;
    this.band = band;
    this.mirrored = track.cycleRate < 0;
    this.live = false;
    const count = band ? band.events.length : 0;
    if (count === 0 || track.cycleRate === 0 || !(t0 < t1) || t1 < track.startTime) return;
    this.lo = t0 < track.startTime ? -1 : cyclesAt(track, t0);
    this.hi = cyclesAt(track, t1);
    if (track.repetitions !== -1) this.hi = Math.min(this.hi, track.repetitions);
    if (!(this.lo < this.hi) && this.lo >= 0) return;
    this.k = this.lo < 0 ? 0 : Math.floor(this.lo);
    this.j = this.firstAfter(this.lo);
    this.live = true;
    this.settle();
  }

  backward() {
    return this.track.loopMode === LoopMode.PingPong && this.k % 2 === 1;
  }
  runsBack() {
    return this.backward() !== this.mirrored;
  }
  index(j) {
    return this.runsBack() ? this.band.events.length - 1 - j : j;
  }
  phase(j) {
    return eventPhase(f32(this.band.events[this.index(j)].time), f32(this.band.duration));
  }
  at(j) {
    return this.runsBack() ? this.k + 1 - this.phase(j) : this.k + this.phase(j);
  }
  skipped(j) {
    if (!this.backward()) return false;
    const p = this.phase(j);
    return p === 0 || p === 1;
  }
  firstAfter(lo) {
    let a = 0;
    let b = this.band.events.length;
    while (a < b) {
      const m = a + Math.floor((b - a) / 2);
      if (this.at(m) > lo) b = m;
      else a = m + 1;
    }
    return a;
  }
  // Cycle n of a band of n repetitions never plays: only a ping-pong's turning point at c = n fires there.
  pastLastCycle() {
    const n = this.track.repetitions;
    if (n === -1 || this.k < n) return false;
    return !(this.track.loopMode === LoopMode.PingPong && this.c === this.k);
  }
  settle() {
    while (this.live) {
      if (this.j >= this.band.events.length) {
        this.k += 1;
        this.j = 0;
        if (this.k > this.hi) this.live = false;
        continue;
      }
      if (this.skipped(this.j)) {
        ++this.j;
        continue;
      }
      this.c = this.at(this.j);
      if (this.c > this.hi || this.pastLastCycle()) this.live = false;
      return;
    }
  }
  event() {
    return this.index(this.j);
  }
  cycle() {
    const n = this.track.repetitions;
    return n !== -1 && this.k >= n ? this.k - 1 : this.k;
  }
  advance() {
    ++this.j;
    this.settle();
  }
}

/**
 * The crossings of both bands of `playback` with t0 < time <= t1 (time <= the hold while paused),
 * by time, the primary's first at equal times; each band fires only where its weight (the
 * primary's 1 - w, the second's w) is > 0, so a fade's outgoing clip fires until its fade ends.
 * @param {object} playback a Playback (compile, InstanceTable.playback)
 * @param {BandEvents|null} primary the primary band's events (null: none)
 * @param {BandEvents|null} second the second band's events (ignored for a single playback)
 * @param {number} t0 finite seconds, rounded to float32
 * @param {number} t1 finite seconds, rounded to float32
 * @returns {Crossing[]}
 */
export function eventsCrossed(playback, primary, second, t0, t1) {
  t0 = f32(t0);
  t1 = instanceClock(playback, t1);
  const walks = [
    new Walk(playback.primary, primary, t0, t1),
    new Walk(playback.second, playback.kind === MixKind.Single ? null : second, t0, t1),
  ];
  const tracks = [playback.primary, playback.second];
  const bands = [primary, second];
  const next = walks.map((w, b) => (w.live ? crossingTime(tracks[b], w.c) : 0));
  const out = [];
  while (walks[0].live || walks[1].live) {
    const b = !walks[1].live || (walks[0].live && next[0] <= next[1]) ? 0 : 1;
    const w = secondWeight(playback, next[b]);
    const weight = b === 0 ? f32(1 - w) : w;
    if (weight > 0) {
      out.push({ time: next[b], clip: bands[b].clip, event: walks[b].event(), cycle: walks[b].cycle(), band: b, weight });
    }
    walks[b].advance();
    if (walks[b].live) next[b] = crossingTime(tracks[b], walks[b].c);
  }
  return out;
}

/**
 * eventsCrossed with each band's events taken from the file's clip whose band it plays (same
 * firstRow and rows), each crossing with its event's `name`: what a game calls once per frame.
 * @param {object[]} clips the file's clips (loadVat's `clips`, or `extension.clips`)
 * @param {object} playback a Playback (InstanceTable.playback(index))
 * @param {number} t0 the previous frame's clock
 * @param {number} t1 this frame's clock
 * @returns {(Crossing & {name: string})[]}
 *
 * @example
 * for (const e of clipEventsCrossed(asset.clips, crowd.table.playback(i), previous, now))
 *   playSound(e.name, e.time, e.weight);
 */
export function clipEventsCrossed(clips, playback, t0, t1) {
  const bandOf = (track) => {
    const i = clips.findIndex((c) => c.firstRow === track.firstRow && c.rows === track.rows);
    return i < 0 ? null : { events: clips[i].events ?? [], duration: clips[i].duration, clip: i };
  };
  const bands = [bandOf(playback.primary), playback.kind === MixKind.Single ? null : bandOf(playback.second)];
  return eventsCrossed(playback, bands[0], bands[1], t0, t1).map((e) => ({
    ...e,
    name: bands[e.band].events[e.event].name,
  }));
}
