// vatkit-three playback: what every instance of a crowd shows at a given time, in JavaScript.
//
// A transcription of vatkit's C++ playback, function for function and float32 operation for
// float32 operation: runtime/include/vatkit/playback.h and runtime/src/playback/playback.cpp
// (tiers, compile, make_track, resolve, ends_at), runtime/src/playback/playback_internal.h (the
// exact end time by binary search over the floats), runtime/include/vatkit/instance_table.h and
// runtime/src/playback/instance_table.cpp (pack/unpack, InstanceTable, set_instance, dirty
// ranges, events, rebase_clock), and the instance JSON of tools/vatkit/support/playback_json.cpp
// (the shape `vatkit frame` reads, camelCase, three-vat's names). docs/playback.md states the
// semantics with numbers. tests/web/playback_conformance.test.mjs proves the port against the
// repository's conformance vectors (tests/conformance/playback_v2.jsonl), bit for bit.
//
// Exactness: the C++ computes in float32. Every float32 operation here is a double operation
// rounded by Math.fround, which gives the float32 result exactly (a double holds a product of
// two floats exactly, and rounding a correctly rounded double sum or quotient to float32 equals
// rounding the exact value: double has more than 2 x 24 + 2 bits). Operations the C++ does in
// double are plain JavaScript arithmetic. Integers (rows, repetitions) stay exact below 2^24.
//
// Vocabulary: an instance is the JSON object `vatkit frame` reads (docs/playback.md, "The
// instance"); a Playback is the resolved form the GPU reads (two Tracks and a weight ramp, enums
// as numbers: LoopMode, MixKind, FadeCurve); a sample is {a, b, weight, kind} with kind
// "single" | "fade" | "blend". Times are seconds on the caller's clock, rounded to float32 where
// they enter (what a GPU uniform holds). No function here keeps state outside an InstanceTable.

const f32 = Math.fround;

/** "Never" in a time field: FLT_MAX, greater than every finite clock (an endless loop's end). */
export const kNever = 3.4028234663852886e38;
/** Bands must end at or before this row (float32 rows stay exact). */
export const kMaxPlaybackRows = 16777216;
/** Largest finite repetition count (2^24). */
export const kMaxRepetitions = 16777216;
/** Elapsed cycles are clamped here (2^24). */
export const kMaxCycles = 16777216;
/** Floats per packed instance row (six RGBA32F texels). */
export const kInstanceFloats = 24;
/** Seconds a track must have played before rebaseClock folds it rather than shifting it. */
export const kRebaseFoldAfterSeconds = 256;

const kMaxTimeMagnitude = f32(1e18);
const kFloatMin = 1.1754943508222875e-38; // FLT_MIN, the smallest normal float32
const kDenormMin = 1.401298464324817e-45; // the smallest positive float32

/** Track.loopMode values (as packed). */
export const LoopMode = Object.freeze({ Repeat: 0, Once: 1, PingPong: 2 });
/** Playback.kind values (as packed). */
export const MixKind = Object.freeze({ Single: 0, Fade: 1, Blend: 2 });
/** Playback.curve values (as packed); Smooth is smoothstep p^2 (3 - 2p). */
export const FadeCurve = Object.freeze({ Linear: 0, Smooth: 1 });

const LOOP_CODES = { repeat: LoopMode.Repeat, once: LoopMode.Once, pingpong: LoopMode.PingPong };
const KIND_NAMES = ['single', 'fade', 'blend'];
const EVENT_NAMES = ['end', 'fadeEnd'];
const EVENT_END = 0;
const EVENT_FADE_END = 1;

/**
 * The error every refusal throws: `code` is the C++ ErrorCode's name ("Argument" for every
 * refusal here), `message` one line naming the field and the reason, as the C++ words it.
 */
export class VatError extends Error {
  /**
   * @param {string} code the C++ ErrorCode name, e.g. "Argument"
   * @param {string} message one line
   */
  constructor(code, message) {
    super(message);
    this.name = 'VatError';
    this.code = code;
  }
}

function refuse(message) {
  return new VatError('Argument', message);
}

// Rethrows a VatError from `body` with `prefix` before its message (the C++ wraps errors so).
function prefixed(prefix, body) {
  try {
    return body();
  } catch (e) {
    if (e instanceof VatError) throw new VatError(e.code, prefix + e.message);
    throw e;
  }
}

// ---- text for messages --------------------------------------------------------------------------

// printf's "%.9g" (detail::number_text): how the C++ messages print numbers.
function num(v) {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v < 0 ? '-inf' : 'inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const strip = (s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  const [mantissa, exponentText] = v.toExponential(8).split('e');
  const x = Number(exponentText);
  if (x >= -4 && x < 9) return strip(v.toFixed(8 - x));
  return `${strip(mantissa)}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
}

const UNPRINTABLE = new RegExp(
  [
    '[\\\\\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]', // controls, bidi
    '[\\ud800-\\udbff](?![\\udc00-\\udfff])', // a lone high surrogate
    '(?<![\\ud800-\\udbff])[\\udc00-\\udfff]', // a lone low surrogate
  ].join('|'),
  'g',
);

// Text from a file made safe for a one-line message (printable.h): controls, C1 controls,
// bidirectional controls, separators and lone surrogates escaped, "\" doubled.
function printable(text) {
  return String(text).replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\\') return '\\\\';
    if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
    return `\\u{${code.toString(16).toUpperCase().padStart(2, '0')}}`;
  });
}

// A JSON value for a message: short and ASCII (nlohmann's dump with ensure_ascii).
function shown(value) {
  let s = JSON.stringify(value) ?? String(value);
  s = s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function shownKey(key) {
  return `"${printable(key.length > 40 ? `${key.slice(0, 37)}...` : key)}"`;
}

// ---- the instance JSON (playback_json.cpp) ------------------------------------------------------

function fail(path, what) {
  throw refuse(`${path}: ${what}`);
}

function has(j, key) {
  return Object.hasOwn(j, key) && j[key] !== undefined;
}

function onlyFields(j, path, allowed) {
  if (j === null || typeof j !== 'object' || Array.isArray(j)) fail(path, `expected an object, got ${shown(j)}`);
  for (const key of Object.keys(j)) {
    if (!allowed.includes(key)) fail(path, `unknown field ${shownKey(key)}`);
  }
}

function required(j, key, path) {
  if (!has(j, key)) fail(path, `missing "${key}"`);
  return j[key];
}

// A JSON number rounded once to float32.
function number(j, path) {
  if (typeof j !== 'number') fail(path, `expected a number, got ${shown(j)}`);
  const v = f32(j);
  if (!Number.isFinite(j) || !Number.isFinite(v)) fail(path, `out of float32 range: ${shown(j)}`);
  return v;
}

function integer(j, path) {
  if (typeof j !== 'number' || !Number.isInteger(j)) fail(path, `expected an integer, got ${shown(j)}`);
  return j;
}

function rowCount(j, path) {
  const v = integer(j, path);
  if (v < 0 || v > 0xffffffff) fail(path, `out of range: ${shown(j)}`);
  return v;
}

function choice(j, path, names) {
  if (!names.includes(j)) {
    const quoted = names.map((n) => `"${n}"`);
    const listed = quoted.length > 2 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted.join(' or ');
    fail(path, `expected ${listed}, got ${shown(j)}`);
  }
  return j;
}

// speed, loopMode, repetitions, endMode of an object (each optional).
function policyFields(j, path) {
  const p = {};
  if (has(j, 'speed')) p.speed = number(j.speed, `${path}.speed`);
  if (has(j, 'loopMode')) p.loopMode = choice(j.loopMode, `${path}.loopMode`, ['repeat', 'once', 'pingpong']);
  if (has(j, 'repetitions')) {
    const n = integer(j.repetitions, `${path}.repetitions`);
    if (n < -2147483648 || n > 2147483647) fail(`${path}.repetitions`, `out of range: ${shown(j.repetitions)}`);
    p.repetitions = n;
  }
  if (has(j, 'endMode')) p.endMode = choice(j.endMode, `${path}.endMode`, ['clamp', 'rewind']);
  return p;
}

const POLICY_KEYS = ['speed', 'loopMode', 'repetitions', 'endMode'];

function readClip(j, path) {
  onlyFields(j, path, ['startFrame', 'frames', 'fps', ...POLICY_KEYS]);
  return {
    firstRow: rowCount(required(j, 'startFrame', path), `${path}.startFrame`),
    rows: rowCount(required(j, 'frames', path), `${path}.frames`),
    fps: number(required(j, 'fps', path), `${path}.fps`),
    defaults: policyFields(j, path),
  };
}

function readBlend(b, path) {
  onlyFields(b, path, ['clip', 'weight', 'sync', 'weightFrom']);
  return {
    clip: readClip(required(b, 'clip', path), `${path}.clip`),
    weight: number(required(b, 'weight', path), `${path}.weight`),
    sync: has(b, 'sync') ? choice(b.sync, `${path}.sync`, ['phase', 'time']) : 'phase',
    weightFrom: has(b, 'weightFrom') ? number(b.weightFrom, `${path}.weightFrom`) : undefined,
  };
}

function readOutgoing(o, path) {
  onlyFields(o, path, ['clip', 'startTime', ...POLICY_KEYS]);
  return {
    clip: readClip(required(o, 'clip', path), `${path}.clip`),
    startTime: number(required(o, 'startTime', path), `${path}.startTime`),
    policy: policyFields(o, path),
  };
}

// The instance JSON, checked for shape and types, numbers rounded to float32.
function readInstance(j, path) {
  onlyFields(j, path, ['clip', 'startTime', ...POLICY_KEYS, 'blend', 'fadeDuration', 'fadeCurve', 'fadeStart',
    'fadeWeight', 'from']);
  return {
    clip: readClip(required(j, 'clip', path), `${path}.clip`),
    startTime: number(required(j, 'startTime', path), `${path}.startTime`),
    policy: policyFields(j, path),
    blend: has(j, 'blend') ? readBlend(j.blend, `${path}.blend`) : null,
    fadeDuration: has(j, 'fadeDuration') ? number(j.fadeDuration, `${path}.fadeDuration`) : 0,
    fadeCurve: has(j, 'fadeCurve') ? choice(j.fadeCurve, `${path}.fadeCurve`, ['linear', 'smooth']) : 'linear',
    fadeStart: has(j, 'fadeStart') ? number(j.fadeStart, `${path}.fadeStart`) : undefined,
    fadeWeight: has(j, 'fadeWeight') ? number(j.fadeWeight, `${path}.fadeWeight`) : 1,
    from: has(j, 'from') ? readOutgoing(j.from, `${path}.from`) : null,
  };
}

// ---- float32 order (playback_internal.h) --------------------------------------------------------

const bitsF = new Float32Array(1);
const bitsU = new Uint32Array(bitsF.buffer);

// Floats mapped onto unsigned integers in the same order (-0 and +0 adjacent).
function orderKey(x) {
  bitsF[0] = x;
  const b = bitsU[0];
  return (b & 0x80000000 ? ~b : b | 0x80000000) >>> 0;
}

function fromOrderKey(key) {
  bitsU[0] = key & 0x80000000 ? key & 0x7fffffff : ~key >>> 0;
  return bitsF[0];
}

// std::nextafter(x, +FLT_MAX) for a float32 x >= 0.
function nextUp(x) {
  return x >= kNever ? kNever : fromOrderKey(orderKey(x === 0 ? 0 : x) + 1);
}

// std::nextafter(x, -FLT_MAX) for a finite float32 x.
function nextDown(x) {
  return x === 0 ? -kDenormMin : fromOrderKey(orderKey(x) - 1);
}

// The smallest float t > lo with pred(t), for a predicate monotone in t and false at lo; kNever
// when it is false even at FLT_MAX. Binary search over the floats' order (32 steps). Exported for
// events.js (event fire times), not part of the package's index.
export function smallestTime(lo, pred) {
  if (!pred(kNever)) return kNever;
  let loKey = orderKey(lo);
  let hiKey = orderKey(kNever);
  while (hiKey - loKey > 1) {
    const mid = loKey + Math.floor((hiKey - loKey) / 2);
    if (pred(fromOrderKey(mid))) hiKey = mid;
    else loKey = mid;
  }
  return fromOrderKey(hiKey);
}

// ---- tracks -------------------------------------------------------------------------------------

// The GPU's elapsed cycles: min(max(time - start, 0) * rate, 2^24), std::max/min's order kept.
// Exported for events.js.
export function cyclesAt(t, time) {
  let e = f32(time - t.startTime);
  e = e < 0 ? 0 : e;
  const u = f32(e * Math.abs(t.cycleRate));
  return kMaxCycles < u ? kMaxCycles : u;
}

// Track.endTime for a track whose other fields are set; `moving` is speed != 0.
function endTimeOf(t, moving) {
  if (t.repetitions === -1 || !moving) return kNever;
  if (t.cycleRate === 0) return t.rows <= 1 ? t.startTime : kNever;
  const n = t.repetitions;
  return smallestTime(t.startTime, (time) => cyclesAt(t, time) >= n);
}

function bandText(b) {
  return `rows [${b.firstRow}, ${b.firstRow + b.rows})`;
}

function checkBand(b, what) {
  if (b.rows === 0) throw refuse(`${what}: a band needs at least one row`);
  if (b.firstRow + b.rows > kMaxPlaybackRows) {
    throw refuse(`${what}: ${bandText(b)} runs past row 2^24 (float32 rows)`);
  }
  if (b.rows > 1 && !(Number.isFinite(b.fps) && b.fps > 0)) {
    throw refuse(`${what}: fps ${num(b.fps)} must be finite and > 0 for a band of ${b.rows} rows`);
  }
}

function checkPolicy(p, what) {
  if (p.speed !== undefined && !Number.isFinite(p.speed)) throw refuse(`${what}.speed is not finite`);
  if (p.repetitions !== undefined) {
    const n = p.repetitions;
    if (n !== -1 && (n < 1 || n > kMaxRepetitions)) {
      throw refuse(`${what}.repetitions ${n} must be -1 (endless) or 1..2^24`);
    }
  }
}

function checkTime(t, what) {
  if (!Number.isFinite(t) || Math.abs(t) > kMaxTimeMagnitude) {
    throw refuse(`${what} ${num(t)} must be finite and within +-1e18 s`);
  }
}

function checkWeight(w, what) {
  if (!(w >= 0 && w <= 1)) throw refuse(`${what} ${num(w)} is outside [0, 1]`);
}

// Cycles per second, rounded once from the exact (double) product; 0 when the band holds.
function rateOf(rows, fps, speed, what) {
  if (rows <= 1 || speed === 0) return 0;
  const rate = f32((speed * fps) / (rows - 1));
  if (!Number.isFinite(rate)) throw refuse(`${what}: speed ${num(speed)} x fps ${num(fps)} is too fast for float32`);
  // A subnormal rate would resolve differently on GPUs that flush subnormals to zero.
  if (Math.abs(rate) < kFloatMin) {
    throw refuse(
      `${what}: speed ${num(speed)} x fps ${num(fps)} is too slow for float32 (use speed 0 to hold the first row)`,
    );
  }
  return rate;
}

function trackWith(firstRow, rows, startTime, rate, policy) {
  const loopMode = LOOP_CODES[policy.loopMode];
  const n = loopMode === LoopMode.Once ? 1 : policy.repetitions;
  const rewinds = policy.endMode === 'rewind' || (loopMode === LoopMode.PingPong && n !== -1 && n % 2 === 0);
  const t = {
    firstRow,
    rows,
    loopMode,
    endPhase: policy.speed < 0 ? (rewinds ? 1 : 0) : rewinds ? 0 : 1, // backwards: the mirror
    startTime,
    cycleRate: rate,
    endTime: kNever,
    repetitions: n,
  };
  t.endTime = endTimeOf(t, policy.speed !== 0);
  return t;
}

function copyTrack(t) {
  return { ...t };
}

function sameTrack(a, b) {
  return TRACK_FIELDS.every((key) => a[key] === b[key]);
}

/**
 * The library's default repetition count for a loop mode: -1 (endless) for "repeat", 1 for
 * "once" and "pingpong" (one traversal; name repetitions -1 for an endless ping-pong).
 * @param {'repeat'|'once'|'pingpong'} loopMode
 * @returns {number}
 */
export function defaultRepetitions(loopMode) {
  return loopMode === 'repeat' ? -1 : 1;
}

/**
 * The policy after the three tiers: a field the instance names wins, then the clip's, then the
 * library's (repeat, clamp, speed 1, defaultRepetitions). A clip's count belongs to the clip's
 * loop mode: an instance naming another mode and no count gets that mode's default count. Does
 * not validate.
 * @param {{loopMode?: string, repetitions?: number, endMode?: string, speed?: number}} instance
 * @param {{loopMode?: string, repetitions?: number, endMode?: string, speed?: number}} clip
 * @returns {{loopMode: string, repetitions: number, endMode: string, speed: number}} speed as float32
 */
export function resolvePolicy(instance, clip) {
  const clipMode = clip.loopMode ?? 'repeat';
  const loopMode = instance.loopMode ?? clipMode;
  let repetitions;
  if (instance.repetitions != null) repetitions = instance.repetitions;
  else if (clip.repetitions != null && loopMode === clipMode) repetitions = clip.repetitions;
  else repetitions = defaultRepetitions(loopMode);
  return {
    loopMode,
    repetitions,
    endMode: instance.endMode ?? clip.endMode ?? 'clamp',
    speed: f32(instance.speed ?? clip.speed ?? 1),
  };
}

/**
 * A Track for a band playing from `startTime` (seconds) under a resolved policy (resolvePolicy's
 * form), with its exact float32 endTime: the smallest float32 time at which the float32 elapsed
 * cycles reach the repetitions (kNever when endless or held).
 * @param {number} firstRow absolute frame row of the band's first row
 * @param {number} rows rows in the band, >= 1
 * @param {number} fps rows per second (rounded to float32)
 * @param {number} startTime seconds (rounded to float32)
 * @param {{loopMode: string, repetitions: number, endMode: string, speed: number}} policy
 * @returns {Track}
 * @throws {VatError} Argument: a speed x fps that float32 cannot hold as a normal cycle rate
 */
export function makeTrack(firstRow, rows, fps, startTime, policy) {
  const rate = rateOf(rows, f32(fps), f32(policy.speed), 'track');
  return trackWith(firstRow, rows, f32(startTime), rate, { ...policy, speed: f32(policy.speed) });
}

/**
 * @typedef {object} Track one band playing, fully resolved (two packed texels)
 * @property {number} firstRow
 * @property {number} rows
 * @property {number} loopMode LoopMode
 * @property {number} endPhase phase held once finished: 0 or 1
 * @property {number} startTime seconds
 * @property {number} cycleRate cycles per second; 0 holds
 * @property {number} endTime seconds at which `finished` flips; kNever for never
 * @property {number} repetitions cycles before finishing; -1 endless
 */

/**
 * @typedef {object} Playback what the GPU reads for one instance (instance_table.h's row)
 * @property {Track} primary the instance's own band
 * @property {Track} second the outgoing band of a fade, band B of a blend, or a copy of primary
 * @property {number} weightFrom
 * @property {number} weightTo
 * @property {number} rampStart seconds
 * @property {number} rampRate 1 / ramp duration; 0 = the weight stays weightFrom
 * @property {number} kind MixKind
 * @property {number} curve FadeCurve
 */

function compileRead(inst) {
  checkBand(inst.clip, 'clip');
  checkPolicy(inst.clip.defaults, 'clip');
  checkPolicy(inst.policy, 'instance');
  checkTime(inst.startTime, 'start_time');
  if (!Number.isFinite(inst.fadeDuration) || inst.fadeDuration < 0) {
    throw refuse(`fade_duration ${num(inst.fadeDuration)} must be finite and >= 0`);
  }
  if (inst.fadeStart !== undefined) checkTime(inst.fadeStart, 'fade_start');

  const policy = resolvePolicy(inst.policy, inst.clip.defaults);
  const rate = rateOf(inst.clip.rows, inst.clip.fps, policy.speed, 'clip');
  const primary = trackWith(inst.clip.firstRow, inst.clip.rows, inst.startTime, rate, policy);
  const pb = {
    primary,
    second: copyTrack(primary),
    weightFrom: 0,
    weightTo: 0,
    rampStart: 0,
    rampRate: 0,
    kind: MixKind.Single,
    curve: inst.fadeCurve === 'smooth' ? FadeCurve.Smooth : FadeCurve.Linear,
    hold: null,
  };
  const fading = inst.fadeDuration > 0;
  const rampStart = inst.fadeStart ?? inst.startTime;
  const rampRate = fading ? f32(1 / inst.fadeDuration) : 0;
  if (fading && !Number.isFinite(rampRate)) {
    throw refuse(`fade_duration ${num(inst.fadeDuration)} is too short for float32`);
  }

  if (inst.blend) {
    const bl = inst.blend;
    if (inst.from && fading) {
      throw refuse('a fade `from` another band into a blend needs three bands; a PlaybackSample holds two');
    }
    checkBand(bl.clip, 'blend.clip');
    checkWeight(bl.weight, 'blend.weight');
    if (bl.sync === 'phase') {
      pb.second = { ...primary, firstRow: bl.clip.firstRow, rows: bl.clip.rows };
    } else {
      const rateB = rateOf(bl.clip.rows, bl.clip.fps, policy.speed, 'blend.clip');
      pb.second = trackWith(bl.clip.firstRow, bl.clip.rows, inst.startTime, rateB, policy);
    }
    pb.kind = MixKind.Blend;
    pb.weightTo = bl.weight;
    pb.weightFrom = bl.weight;
    if (fading && bl.weightFrom !== undefined) {
      checkWeight(bl.weightFrom, 'blend.weight_from');
      pb.weightFrom = bl.weightFrom;
      pb.rampStart = rampStart;
      pb.rampRate = rampRate;
    }
    return pb;
  }

  if (inst.from && fading) {
    const o = inst.from;
    checkBand(o.clip, 'from.clip');
    checkPolicy(o.clip.defaults, 'from.clip');
    checkPolicy(o.policy, 'from');
    checkTime(o.startTime, 'from.start_time');
    if (!(inst.fadeWeight > 0 && inst.fadeWeight <= 1)) {
      throw refuse(`fade_weight ${num(inst.fadeWeight)} is outside (0, 1]`);
    }
    const outPolicy = resolvePolicy(o.policy, o.clip.defaults);
    const rateOut = rateOf(o.clip.rows, o.clip.fps, outPolicy.speed, 'from.clip');
    pb.second = trackWith(o.clip.firstRow, o.clip.rows, o.startTime, rateOut, outPolicy);
    pb.kind = MixKind.Fade;
    pb.weightFrom = inst.fadeWeight;
    pb.weightTo = 0;
    pb.rampStart = rampStart;
    pb.rampRate = rampRate;
  }
  return pb;
}

/**
 * Checks an instance (the JSON object `vatkit frame` reads: {clip: {startFrame, frames, fps,
 * loopMode?, repetitions?, endMode?, speed?}, startTime, speed?, loopMode?, repetitions?,
 * endMode?, blend?, fadeDuration?, fadeCurve?, fadeStart?, fadeWeight?, from?}; numbers are
 * rounded once to float32) and resolves its tiers into a Playback.
 * @param {object} instance
 * @returns {Playback}
 * @throws {VatError} Argument, one line: a field of the wrong type or unknown
 *   ("instance.clip.fps: expected a number, got \"30\""), or what the C++ compile refuses: a band
 *   with no rows, past row 2^24, or with fps <= 0 over more than one row; a negative speed; a
 *   cycle rate float32 cannot hold; repetitions 0, < -1 or > 2^24; a time not finite or beyond
 *   1e18 s; a weight outside [0, 1]; a negative fade; `from` together with a fading blend.
 */
export function compile(instance) {
  return compileRead(readInstance(instance, 'instance'));
}

// ---- resolve ------------------------------------------------------------------------------------

/**
 * @typedef {object} BandSample one band at one time (three-vat's VATFrame)
 * @property {number} row absolute frame row to sample
 * @property {number} rowNext the row it blends toward, in the same band
 * @property {number} mix [0, 1): weight of rowNext
 * @property {number} phase [0, 1]: how far through the band
 * @property {boolean} wraps a Repeat band past its first cycle, not finished
 * @property {boolean} finished the repetitions ran out; the band holds its end pose
 */

/**
 * One band at clock time `time` (seconds, rounded to float32): the C++ resolve_track, operation
 * for operation (what the GLSL decode computes).
 * @param {Track} track
 * @param {number} time finite
 * @returns {BandSample}
 */
export function resolveTrack(track, time) {
  time = f32(time);
  const u = cyclesAt(track, time);
  const finished = time >= track.endTime;
  const k = Math.floor(u);
  const p = f32(u - k);
  const odd = f32(k - f32(2 * Math.floor(f32(k * 0.5))));
  // A PingPong's odd traversal runs backwards; a negative rate mirrors every phase.
  const backwards = (track.loopMode === LoopMode.PingPong && odd === 1) !== track.cycleRate < 0;
  let phase = backwards ? f32(1 - p) : p;
  if (finished) phase = track.endPhase;
  const last = track.rows - 1;
  const x = f32(phase * last);
  const xf = Math.floor(x);
  const next = last < xf + 1 ? last : xf + 1;
  return {
    row: track.firstRow + xf,
    rowNext: track.firstRow + next,
    mix: f32(x - xf),
    phase,
    wraps: track.loopMode === LoopMode.Repeat && !finished && k >= 1,
    finished,
  };
}

/**
 * The second band's weight at `time` (seconds): w = weightFrom (1 - c) + weightTo c,
 * c = curve(clamp((time - rampStart) rampRate, 0, 1)), in float32, endpoint-exact.
 * @param {Playback} playback
 * @param {number} time
 * @returns {number} [0, 1]
 */
export function secondWeight(playback, time) {
  let progress = f32(f32(f32(time) - playback.rampStart) * playback.rampRate);
  progress = progress < 0 ? 0 : progress;
  progress = 1 < progress ? 1 : progress;
  const c =
    playback.curve === FadeCurve.Smooth ? f32(f32(progress * progress) * f32(3 - f32(2 * progress))) : progress;
  return f32(f32(playback.weightFrom * f32(1 - c)) + f32(playback.weightTo * c));
}

/**
 * @typedef {object} PlaybackSample what an instance shows
 * @property {BandSample} a the primary band
 * @property {BandSample} b the second band (a copy of a when kind is "single")
 * @property {number} weight of b, [0, 1]
 * @property {'single'|'fade'|'blend'} kind a fade whose outgoing weight reached 0 reads "single"
 */

/**
 * The instance's clock at `time` (seconds, rounded to float32): min(time, hold) while paused.
 * @param {Playback} playback
 * @param {number} time
 * @returns {number}
 */
export function instanceClock(playback, time) {
  time = f32(time);
  const hold = playback.hold ?? null;
  return hold !== null && hold < time ? hold : time;
}

/**
 * What an instance shows at clock time `time` (seconds, rounded to float32): the one
 * definition of playback (docs/playback.md), the C++ resolve transcribed.
 * @param {Playback} playback
 * @param {number} time finite
 * @returns {PlaybackSample}
 */
export function resolve(playback, time) {
  const clock = instanceClock(playback, time);
  const a = resolveTrack(playback.primary, clock);
  let weight = secondWeight(playback, clock);
  let kind = playback.kind;
  if (kind === MixKind.Fade && weight === 0) kind = MixKind.Single;
  const b = kind === MixKind.Single ? { ...a } : resolveTrack(playback.second, clock);
  if (kind === MixKind.Single) weight = 0;
  return { a, b, weight, kind: KIND_NAMES[kind] };
}

/**
 * The exact clock time (seconds, float32) at which the primary band finishes, when resolve
 * first reports a.finished; null for an endless loop or a speed of 0.
 * @param {Playback} playback
 * @returns {number|null}
 */
export function endsAt(playback) {
  const end = playback.primary.endTime;
  const hold = playback.hold ?? null;
  return end === kNever || (hold !== null && end > hold) ? null : end;
}

/**
 * The smallest clock time (seconds, float32) at which the second band's weight is weightTo for
 * good (the end of a fade or a weight ramp); null when the weight does not ramp; kNever when the
 * ramp never completes in float32.
 * @param {Playback} playback
 * @returns {number|null}
 */
export function rampEndsAt(playback) {
  if (playback.rampRate === 0 || playback.kind === MixKind.Single) return null;
  const { rampStart, rampRate } = playback;
  const end = smallestTime(rampStart, (time) => f32(f32(time - rampStart) * rampRate) >= 1);
  const hold = playback.hold ?? null;
  return hold !== null && end > hold ? null : end; // paused before its end
}

/**
 * A sample as the flat object `vatkit frame` prints (docs/playback.md, "The PlaybackSample"):
 * row, rowNext, mix, wraps, finished, phase, the same with a B suffix, weight, kind, endsAt.
 * @param {PlaybackSample} sample
 * @param {number|null} endsAtTime endsAt(playback)
 * @returns {object}
 */
export function sampleFields(sample, endsAtTime) {
  const out = {};
  for (const [band, suffix] of [[sample.a, ''], [sample.b, 'B']]) {
    for (const key of ['row', 'rowNext', 'mix', 'wraps', 'finished', 'phase']) out[key + suffix] = band[key];
  }
  out.weight = sample.weight;
  out.kind = sample.kind;
  out.endsAt = endsAtTime;
  return out;
}

// ---- packing (instance_table.h) -----------------------------------------------------------------

// The packed order of a Track's fields (texels 0-1, or 2-3) and of the ramp's (texels 4-5).
const TRACK_FIELDS = ['firstRow', 'rows', 'loopMode', 'endPhase', 'startTime', 'cycleRate', 'endTime', 'repetitions'];
const RAMP_FIELDS = ['weightFrom', 'weightTo', 'rampStart', 'rampRate', 'kind', 'curve'];

function packFields(out, o, object, fields) {
  fields.forEach((key, j) => {
    out[o + j] = object[key];
  });
}

function unpackFields(row, o, fields) {
  return Object.fromEntries(fields.map((key, j) => [key, row[o + j]]));
}

function packInto(out, o, p) {
  packFields(out, o, p.primary, TRACK_FIELDS);
  packFields(out, o + 8, p.second, TRACK_FIELDS);
  packFields(out, o + 16, p, RAMP_FIELDS);
  const hold = p.hold ?? null;
  out[o + 22] = hold ?? 0;
  out[o + 23] = hold === null ? 0 : 1;
}

/**
 * A Playback as the 24 floats (six RGBA32F texels) the GPU reads, instance_table.h's layout:
 * texels 0-1 the primary band and timing, 2-3 the second's, 4 the weight ramp (weightFrom,
 * weightTo, rampStart, rampRate), 5 (kind, curve, hold, paused: 1 while paused, else 0 with hold 0).
 * @param {Playback} playback
 * @returns {Float32Array} 24 floats
 */
export function pack(playback) {
  const out = new Float32Array(kInstanceFloats);
  packInto(out, 0, playback);
  return out;
}

/**
 * The exact inverse of pack for every Playback compile or an InstanceTable produces.
 * @param {ArrayLike<number>} row 24 floats from `offset`
 * @param {number} [offset=0]
 * @returns {Playback}
 */
export function unpack(row, offset = 0) {
  return {
    primary: unpackFields(row, offset, TRACK_FIELDS),
    second: unpackFields(row, offset + 8, TRACK_FIELDS),
    ...unpackFields(row, offset + 16, RAMP_FIELDS),
    hold: row[offset + 23] === 1 ? row[offset + 22] : null,
  };
}

function defaultPlayback() {
  const t = Object.fromEntries(TRACK_FIELDS.map((key) => [key, 0]));
  Object.assign(t, { rows: 1, endPhase: 1, endTime: kNever, repetitions: -1 });
  return {
    primary: t,
    second: { ...t },
    ...{ weightFrom: 0, weightTo: 0, rampStart: 0, rampRate: 0, kind: 0, curve: 0, hold: null },
  };
}
const DEFAULT_ROW = pack(defaultPlayback());

// ---- set_instance's helpers ---------------------------------------------------------------------

function checkRows(t, frameRows, which) {
  if (frameRows === 0 || t.firstRow + t.rows <= frameRows) return;
  throw refuse(`${which} rows [${t.firstRow}, ${t.firstRow + t.rows}) run past the VAT's ${frameRows} frame rows`);
}

function fadeOver(incoming, outgoing, fromWeight, now, inst) {
  return {
    primary: copyTrack(incoming),
    second: copyTrack(outgoing),
    weightFrom: fromWeight,
    weightTo: 0,
    rampStart: now,
    rampRate: f32(1 / inst.fadeDuration),
    kind: MixKind.Fade,
    curve: inst.fadeCurve === 'smooth' ? FadeCurve.Smooth : FadeCurve.Linear,
    hold: null,
  };
}

// std::round: halves away from zero.
function roundAway(x) {
  return Math.sign(x) * Math.round(Math.abs(x));
}

// Whether `written` (a track as its caller writes it) plays the motion of `held` (a track in the
// table): equal, or `held` is `written` folded by rebaseClock (its start advanced by m >= 1 whole
// cycles, even for PingPong, its repetitions shrunk by m), the starts agreeing to rounding.
function sameMotion(written, held) {
  if (sameTrack(written, held)) return true;
  if (
    written.firstRow !== held.firstRow ||
    written.rows !== held.rows ||
    written.loopMode !== held.loopMode ||
    written.endPhase !== held.endPhase ||
    written.cycleRate !== held.cycleRate ||
    held.cycleRate === 0
  ) {
    return false;
  }
  const rate = Math.abs(held.cycleRate);
  const cycles = (held.startTime - written.startTime) * rate;
  const m = roundAway(cycles);
  const start = Math.abs(written.startTime);
  const step = nextUp(start) - start;
  if (!(m >= 1) || Math.abs(cycles - m) > Math.min(1e-3 + 2 * step * rate, 0.25)) return false;
  if (written.loopMode === LoopMode.PingPong && m % 2 !== 0) return false;
  if (written.repetitions === -1 || held.repetitions === -1) return written.repetitions === held.repetitions;
  return written.repetitions - m === held.repetitions;
}

// The Playback set_instance stores: `next` (compiled) over `old` (what the row held), `now` the
// write's clock time. Throws for a fade into a blend whose bands are not on screen.
function transition(old, next, inst, now) {
  // A band the table holds is re-issued as the table holds it (a rebase may have folded it).
  for (const key of ['primary', 'second']) {
    if (sameMotion(next[key], old.primary)) next[key] = copyTrack(old.primary);
    else if (old.kind !== MixKind.Single && sameMotion(next[key], old.second)) next[key] = copyTrack(old.second);
  }
  if (next.kind === MixKind.Single) next.second = copyTrack(next.primary);
  if (inst.fadeDuration === 0) return next;

  const onScreen = resolve(old, now);
  const two = onScreen.kind !== 'single' && onScreen.weight > 0;
  const w = two ? onScreen.weight : 0;
  const x = old.primary;
  const y = old.second;
  // The band that dominates the screen; a tie goes to the primary (the incoming one of a fade).
  const dominant = two && w > 0.5 ? y : x;

  if (next.kind !== MixKind.Blend) {
    const n = next.primary;
    if (two && sameTrack(n, x)) return fadeOver(n, y, w, now, inst); // retarget: Y keeps fading
    if (two && sameTrack(n, y)) return fadeOver(n, x, f32(1 - w), now, inst); // turn back
    if (sameTrack(n, dominant)) return next; // nothing to fade from
    return fadeOver(n, dominant, 1, now, inst); // fade in over the dominant band
  }
  const a = next.primary;
  const b = next.second;
  let from;
  if (two && sameTrack(x, a) && sameTrack(y, b)) from = w;
  else if (two && sameTrack(x, b) && sameTrack(y, a)) from = f32(1 - w);
  else if (sameTrack(dominant, a)) from = 0;
  else if (sameTrack(dominant, b)) from = 1;
  else {
    throw refuse(
      "a fade into a blend needs the blend's band A or B on screen (a PlaybackSample holds two bands): " +
        'fade to A first, then write the blend with weight_from 0 on FadeEnd',
    );
  }
  return {
    ...next,
    weightFrom: from,
    rampStart: now,
    rampRate: f32(1 / inst.fadeDuration),
    curve: inst.fadeCurve === 'smooth' ? FadeCurve.Smooth : FadeCurve.Linear,
  };
}

// ---- the playback controls (controls.cpp) --------------------------------------------------------

// The float32 within 4 steps of `ideal` that minimises miss(candidate) (0: reproduces the wanted
// value bit for bit); ties go to the candidate nearest `ideal`.
function bestFloat(ideal, miss) {
  const center = f32(Math.min(Math.max(ideal, -kNever), kNever));
  let best = center;
  let bestMiss = miss(center);
  let bestDistance = Math.abs(center - ideal);
  let lo = center;
  let hi = center;
  for (let i = 0; i < 4 && bestMiss > 0; ++i) {
    lo = nextDown(lo);
    hi = nextUp(hi);
    for (const c of [lo, hi]) {
      const m = miss(c);
      const d = Math.abs(c - ideal);
      if (m < bestMiss || (m === bestMiss && d < bestDistance)) {
        best = c;
        bestMiss = m;
        bestDistance = d;
      }
    }
  }
  return best;
}

// 0 for the wanted sample, else the phase difference, + 2 for `finished` and + 1 for `wraps`
// differing (`wraps` ignored for a turned band, a new play).
function sampleMiss(got, want, countWraps = true) {
  const wraps = countWraps && got.wraps !== want.wraps;
  const same = got.row === want.row && got.rowNext === want.rowNext && got.mix === want.mix;
  if (same && got.phase === want.phase && got.finished === want.finished && !wraps) return 0;
  return Math.abs(got.phase - want.phase) + (got.finished !== want.finished ? 2 : 0) + (wraps ? 1 : 0);
}

function startedAt(t, start) {
  const r = { ...t, startTime: start };
  r.endTime = t.endTime === kNever ? kNever : endTimeOf(r, true);
  return r;
}

function moved(t, from, at, idealStart) {
  const want = resolveTrack(t, from);
  return startedAt(t, bestFloat(idealStart, (s) => sampleMiss(resolveTrack(startedAt(t, s), at), want)));
}

function turned(t, clock) {
  if (t.cycleRate === 0 || !(clock > t.startTime) || !(clock < t.endTime)) return t;
  const u = cyclesAt(t, clock);
  let n = Math.floor(u) + 1;
  if (t.loopMode === LoopMode.PingPong && n % 2 === 0) n += 1;
  const endless = t.repetitions === -1 || n > kMaxRepetitions;
  const r = {
    ...t,
    cycleRate: -t.cycleRate,
    repetitions: endless ? -1 : n,
    endPhase: t.cycleRate > 0 ? 0 : 1, // where the retrace ends: the play's first pose
    endTime: endless ? kNever : 0,
  };
  const ideal = clock - (n - u) / Math.abs(t.cycleRate);
  const want = resolveTrack(t, clock);
  return startedAt(r, bestFloat(ideal, (s) => sampleMiss(resolveTrack(startedAt(r, s), clock), want, false)));
}

// The float32 hold near `ideal` at which paused `p` shows `want` (rebaseClock on a paused row).
function holdShowing(p, want, ideal) {
  return bestFloat(ideal, (h) => {
    const got = resolve({ ...p, hold: h }, h);
    const miss = sampleMiss(got.a, want.a) + sampleMiss(got.b, want.b) + Math.abs(got.weight - want.weight);
    return miss === 0 && got.kind === want.kind ? 0 : miss;
  });
}

/**
 * `playback` with its clock stopped at `now` (seconds): from then on it shows what it showed at
 * `now`, bit for bit. Already paused: unchanged. The C++ paused().
 * @param {Playback} playback
 * @param {number} now
 * @returns {Playback}
 */
export function paused(playback, now) {
  now = f32(now);
  const hold = playback.hold ?? null;
  if (hold !== null && hold <= now) return playback;
  return { ...playback, hold: now };
}

/**
 * A paused `playback` playing again at `now` from the pose it holds: every start moved later
 * by now - hold (the float32 that reproduces the held sample at `now`). The C++ resumed().
 * @param {Playback} playback
 * @param {number} now
 * @returns {Playback}
 */
export function resumed(playback, now) {
  now = f32(now);
  const hold = playback.hold ?? null;
  const r = { ...playback, hold: null };
  if (hold === null || !(now > hold)) return r;
  const shift = now - hold;
  for (const key of ['primary', 'second']) {
    const t = playback[key];
    if (!(hold >= t.endTime)) r[key] = moved(t, hold, now, t.startTime + shift);
  }
  if (r.rampRate !== 0) {
    const progress = (at, start) => {
      const p = f32(f32(at - start) * r.rampRate);
      return p < 0 ? 0 : 1 < p ? 1 : p;
    };
    const want = progress(hold, playback.rampStart);
    r.rampStart = bestFloat(playback.rampStart + shift, (s) => Math.abs(progress(now, s) - want));
  }
  return r;
}

/**
 * `playback` with every moving band turned to the opposite speed at `now`, showing the same pose
 * and retracing its play (docs/playback.md, "Turning back"). The C++ turned_back().
 * @param {Playback} playback
 * @param {number} now
 * @returns {Playback}
 */
export function turnedBack(playback, now) {
  const clock = instanceClock(playback, now);
  const primary = turned(playback.primary, clock);
  const second = playback.kind === MixKind.Single ? { ...primary } : turned(playback.second, clock);
  return { ...playback, primary, second };
}

// ---- the clock rebase's helpers -----------------------------------------------------------------

// t - shift when float32 computes it exactly, else null.
function shiftExact(t, shift) {
  if (t === kNever) return kNever;
  const out = f32(t - shift);
  return out === t - shift ? out : null;
}

// t - shift rounded toward minus infinity (an end that has passed stays passed).
function shiftDown(t, shift) {
  if (t === kNever) return kNever;
  const exact = t - shift;
  const out = f32(exact);
  return out > exact ? nextDown(out) : out;
}

const MOVED_EXACT = 0;
const MOVED_FOLDED = 1;
const MOVED_ROUNDED = 2;

// Rewrites track `t` for a clock moved back by `shift` at `now` (rebase_track); returns how.
function rebaseTrack(t, now, shift) {
  if (t.endTime <= now) {
    t.startTime = shiftDown(t.startTime, shift);
    t.endTime = shiftDown(t.endTime, shift);
    return MOVED_EXACT;
  }
  const moving = t.cycleRate !== 0;
  const rate = Math.abs(t.cycleRate); // a backwards band folds the same cycles
  const endless = t.endTime === kNever;
  const old = moving && now - t.startTime >= kRebaseFoldAfterSeconds;
  let start = old ? null : shiftExact(t.startTime, shift);
  const exact = start !== null;
  let m = 0; // whole cycles to advance the start by
  if (!exact) {
    if (moving && now > t.startTime) {
      const k = Math.floor((now - t.startTime) * rate);
      if (t.loopMode === LoopMode.Repeat) m = Math.max(k - 1, 0); // keep one wrap: `wraps`
      if (t.loopMode === LoopMode.PingPong) m = k - (k % 2); // keep the direction
      if (t.repetitions !== -1) m = Math.min(m, t.repetitions - 1);
    }
    const advance = moving ? m / rate : 0;
    start = f32(t.startTime + advance - shift);
    if (t.repetitions !== -1) t.repetitions -= m;
  }
  t.startTime = start;
  t.endTime = endless ? kNever : endTimeOf(t, true);
  if (exact) return MOVED_EXACT;
  return m > 0 ? MOVED_FOLDED : MOVED_ROUNDED;
}

// Playback `p` rewritten for the rebased clock; `count(moved)` tallies each track.
function rebasePlayback(p, now, shift, count) {
  const before = { ...p, primary: copyTrack(p.primary), second: copyTrack(p.second) };
  const single = p.kind === MixKind.Single;
  const clock = instanceClock(p, now); // a paused row is rebased at its held clock
  count(rebaseTrack(p.primary, clock, shift));
  if (single) p.second = copyTrack(p.primary);
  else count(rebaseTrack(p.second, clock, shift));
  const constant = p.rampRate === 0 || f32(f32(clock - p.rampStart) * p.rampRate) >= 1;
  if (constant) {
    const w = secondWeight(p, clock);
    p.weightFrom = w;
    p.weightTo = w;
    p.rampStart = 0;
    p.rampRate = 0;
    if (p.kind === MixKind.Fade && w === 0) {
      p.kind = MixKind.Single;
      p.second = copyTrack(p.primary);
      p.curve = FadeCurve.Linear;
    }
  } else {
    p.rampStart = shiftExact(p.rampStart, shift) ?? f32(p.rampStart - shift);
  }
  // A paused row: the hold on the new clock that shows the held sample (hold - shift when exact).
  if (p.hold !== null) p.hold = holdShowing(p, resolve(before, before.hold), before.hold - shift);
  return p;
}

// ---- the event heap ----------------------------------------------------------------------------

// Earliest first; ties by index, then End before FadeEnd.
function earlier(a, b) {
  if (a.time !== b.time) return a.time < b.time;
  if (a.index !== b.index) return a.index < b.index;
  return a.kind < b.kind;
}

function heapPush(heap, entry) {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!earlier(heap[i], heap[parent])) break;
    [heap[i], heap[parent]] = [heap[parent], heap[i]];
    i = parent;
  }
}

function siftDown(heap, i) {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let top = i;
    if (l < heap.length && earlier(heap[l], heap[top])) top = l;
    if (r < heap.length && earlier(heap[r], heap[top])) top = r;
    if (top === i) return;
    [heap[i], heap[top]] = [heap[top], heap[i]];
    i = top;
  }
}

function heapPop(heap) {
  const last = heap.pop();
  if (heap.length > 0) {
    heap[0] = last;
    siftDown(heap, 0);
  }
}

function heapify(heap) {
  for (let i = (heap.length >> 1) - 1; i >= 0; --i) siftDown(heap, i);
}

// ---- the table ----------------------------------------------------------------------------------

/**
 * The per-instance playback table of a crowd (instance_table.h): one packed row of 24 floats
 * per instance, keyed by the instance's logical index; writes mark rows dirty for upload, and
 * the table keeps the crowd's next events (a one-shot ending, a fade ending) in a min-heap.
 * Not synchronized (JavaScript is single-threaded; do not share across workers).
 */
export class InstanceTable {
  #floats;
  #written;
  #generation;
  #dirtyFlag;
  #dirty = [];
  #heap = [];
  #frameRows;

  /**
   * @param {number} [count=0] unwritten rows (each holds row 0)
   * @param {number} [frameRows=0] when > 0, setInstance refuses bands past this row (the VAT's
   *   frameRows)
   */
  constructor(count = 0, frameRows = 0) {
    this.#frameRows = frameRows;
    this.#floats = new Float32Array(0);
    this.#written = new Uint8Array(0);
    this.#generation = new Uint32Array(0);
    this.#dirtyFlag = new Uint8Array(0);
    this.resize(count);
  }

  /** @returns {number} rows in the table */
  get size() {
    return this.#written.length;
  }

  /** @returns {number} the frameRows limit given to the constructor (0: none) */
  get frameRows() {
    return this.#frameRows;
  }

  /**
   * The upload source: 24 floats per instance, row i at float 24 i. A new array after resize;
   * read it, never write it (write through setInstance or writePlayback).
   * @returns {Float32Array}
   */
  get floats() {
    return this.#floats;
  }

  /**
   * Row `index`'s 24 floats (a view into floats).
   * @param {number} index
   * @returns {Float32Array}
   */
  row(index) {
    this.#check(index);
    return this.#floats.subarray(index * kInstanceFloats, (index + 1) * kInstanceFloats);
  }

  /**
   * Whether row `index` was ever written.
   * @param {number} index
   * @returns {boolean}
   */
  written(index) {
    this.#check(index);
    return this.#written[index] !== 0;
  }

  /**
   * Adds unwritten rows or drops the last ones (their events go; dropped rows are not dirty).
   * @param {number} count
   */
  resize(count) {
    if (!Number.isInteger(count) || count < 0 || count > 0xffffffff) throw new RangeError(`bad table size ${count}`);
    const old = this.size;
    const grow = (Type, from, per) => {
      const to = new Type(count * per);
      to.set(from.subarray(0, Math.min(old, count) * per));
      return to;
    };
    this.#floats = grow(Float32Array, this.#floats, kInstanceFloats);
    for (let i = old; i < count; ++i) this.#floats.set(DEFAULT_ROW, i * kInstanceFloats);
    this.#written = grow(Uint8Array, this.#written, 1);
    this.#generation = grow(Uint32Array, this.#generation, 1);
    this.#dirtyFlag = grow(Uint8Array, this.#dirtyFlag, 1);
    if (count < old) {
      this.#dirty = this.#dirty.filter((i) => i < count);
      this.#heap = this.#heap.filter((e) => e.index < count);
      heapify(this.#heap);
    }
  }

  /**
   * Row `index` as a Playback.
   * @param {number} index
   * @returns {Playback}
   */
  playback(index) {
    this.#check(index);
    return unpack(this.#floats, index * kInstanceFloats);
  }

  /**
   * What instance `index` shows at clock time `time` (seconds), from its packed row (what the GPU
   * computes from it).
   * @param {number} index
   * @param {number} time finite
   * @returns {PlaybackSample}
   */
  resolve(index, time) {
    return resolve(this.playback(index), time);
  }

  /**
   * When instance `index`'s primary band finishes (seconds), or null.
   * @param {number} index
   * @returns {number|null}
   */
  endsAt(index) {
    return endsAt(this.playback(index));
  }

  /**
   * Changes instance `index`'s animation at clock time `now` (seconds), the C++ set_instance.
   * With instance.fadeDuration > 0 the change cross-fades from what the row shows at `now`:
   * a re-issue or retarget keeps the outgoing band fading, turning back fades the other band
   * out, a blend whose bands are on screen ramps its weight from what is shown, and anything else
   * collapses to the dominant band and fades in over it (docs/playback.md's table). A first
   * write, or fadeDuration 0, cuts. Marks the row dirty and queues its events. On error the
   * table is unchanged.
   * @param {number} index < size
   * @param {object} instance the instance JSON (compile's), without `from`
   * @param {number} now seconds
   * @throws {VatError} Argument, "instance N: ...": what compile refuses, a band past frameRows,
   *   `from` set, a `now` not finite or beyond 1e18 s, a fade into a blend from a band that is
   *   neither A nor B
   * @throws {RangeError} index out of range
   */
  setInstance(index, instance, now) {
    this.#check(index);
    now = f32(now);
    const next = prefixed(`instance ${index}: `, () => {
      if (!Number.isFinite(now) || Math.abs(now) > kMaxTimeMagnitude) {
        throw refuse('`now` must be finite and within +-1e18 s');
      }
      const inst = readInstance(instance, 'instance');
      if (inst.from) {
        throw refuse(
          '`from` is filled by set_instance from what is on screen; leave it empty ' +
            '(write_playback takes a hand-made fade)',
        );
      }
      const compiled = compileRead(inst);
      checkRows(compiled.primary, this.#frameRows, 'clip');
      checkRows(compiled.second, this.#frameRows, 'blend.clip');
      // A paused row resumes first (its outgoing band plays on from the held pose).
      return this.#written[index] ? transition(resumed(this.playback(index), now), compiled, inst, now) : compiled;
    });
    this.#store(index, next);
  }

  /**
   * The playback controls (the C++ pause, resume, turn_back; docs/playback.md): row `index`
   * rewritten at clock time `now` (seconds) by paused, resumed or turnedBack.
   * @param {number} index < size
   * @param {number} now seconds
   * @throws {VatError} Argument, "instance N: ...": a `now` not finite or beyond 1e18 s, a row never written
   * @throws {RangeError} index out of range
   */
  pause(index, now) {
    this.#control(index, now, paused);
  }

  /** @see pause */
  resume(index, now) {
    this.#control(index, now, resumed);
  }

  /** @see pause */
  turnBack(index, now) {
    this.#control(index, now, turnedBack);
  }

  #control(index, now, write) {
    this.#check(index);
    now = f32(now);
    const next = prefixed(`instance ${index}: `, () => {
      if (!Number.isFinite(now) || Math.abs(now) > kMaxTimeMagnitude) {
        throw refuse('`now` must be finite and within +-1e18 s');
      }
      if (!this.#written[index]) throw refuse('not written yet (set_instance first)');
      return write(this.playback(index), now);
    });
    this.#store(index, next);
  }

  /**
   * Writes a Playback as is (a restore, or a hand-made fade from compile). No validation.
   * @param {number} index < size
   * @param {Playback} playback
   */
  writePlayback(index, playback) {
    this.#check(index);
    this.#store(index, playback);
  }

  /**
   * The rows written since the last call as sorted, disjoint ranges, merging ranges separated by
   * at most `mergeGap` clean rows, and forgets them. O(d log d) for d dirty rows.
   * @param {number} [mergeGap=0]
   * @returns {{first: number, count: number}[]}
   */
  takeDirty(mergeGap = 0) {
    const out = [];
    this.#dirty.sort((a, b) => a - b);
    for (const i of this.#dirty) {
      this.#dirtyFlag[i] = 0;
      const last = out.at(-1);
      if (last && i >= last.first && i <= last.first + last.count + mergeGap) {
        last.count = i + 1 - last.first;
        continue;
      }
      out.push({ first: i, count: 1 });
    }
    this.#dirty = [];
    return out;
  }

  /** @returns {number} rows waiting for takeDirty, each counted once */
  dirtyCount() {
    return this.#dirty.length;
  }

  /**
   * The earliest pending event, or null. kind "end": the primary band finishes (chain the next
   * clip); "fadeEnd": the second band's weight reached its final value.
   * @returns {{time: number, index: number, kind: 'end'|'fadeEnd'}|null}
   */
  nextEvent() {
    const heap = this.#heap;
    while (heap.length > 0) {
      const top = heap[0];
      if (top.generation === this.#generation[top.index]) {
        return { time: top.time, index: top.index, kind: EVENT_NAMES[top.kind] };
      }
      heapPop(heap);
    }
    return null;
  }

  /**
   * Removes and returns every pending event with time <= until (seconds), earliest first (ties:
   * by index, "end" before "fadeEnd"). A write that supersedes a row drops its pending events.
   * @param {number} until
   * @returns {{time: number, index: number, kind: 'end'|'fadeEnd'}[]}
   */
  popEvents(until) {
    until = f32(until);
    const out = [];
    for (let e = this.nextEvent(); e && e.time <= until; e = this.nextEvent()) {
      out.push(e);
      heapPop(this.#heap);
    }
    return out;
  }

  /**
   * Moves the clock's origin by shift = floor(now) (0 when now < 1), the C++ rebase_clock: the
   * caller's clock becomes now - shift, and every row is rewritten so that at every t >= now the
   * row shows at t - shift what it showed at t: exactly for tracks started less than 256 s before
   * `now` (or not yet) and finished ones; older tracks are advanced by whole cycles (restoring
   * phase resolution). Over ramps become constants, over fades Single; events move with their
   * rows; every row is marked dirty. The GPU must switch clocks on the same frame.
   * @param {number} now seconds, finite
   * @returns {{shift: number, exact: number, folded: number, rounded: number}} tracks by how they moved
   * @throws {RangeError} a `now` that is not finite
   */
  rebaseClock(now) {
    now = f32(now);
    if (!Number.isFinite(now)) throw new RangeError(`rebaseClock: now ${now} is not finite`);
    const shift = now >= 1 ? Math.floor(now) : 0;
    const report = { shift, exact: 0, folded: 0, rounded: 0 };
    if (shift === 0) return report;
    const keys = ['exact', 'folded', 'rounded'];
    const count = (moved) => ++report[keys[moved]];
    for (let i = 0; i < this.size; ++i) {
      packInto(this.#floats, i * kInstanceFloats, rebasePlayback(this.playback(i), now, shift, count));
      this.#markDirty(i);
    }
    this.#dropStaleEvents();
    for (const e of this.#heap) {
      const p = this.playback(e.index);
      const t = e.kind === EVENT_END ? endsAt(p) : rampEndsAt(p);
      e.time = t !== null && t !== kNever ? t : shiftDown(e.time, shift);
    }
    heapify(this.#heap);
    return report;
  }

  #check(index) {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) {
      throw new RangeError(`instance ${index} is outside the table of ${this.size}`);
    }
  }

  #markDirty(index) {
    if (!this.#dirtyFlag[index]) {
      this.#dirtyFlag[index] = 1;
      this.#dirty.push(index);
    }
  }

  #store(index, playback) {
    packInto(this.#floats, index * kInstanceFloats, playback);
    this.#written[index] = 1;
    this.#markDirty(index);
    ++this.#generation[index];
    const generation = this.#generation[index];
    const end = endsAt(playback);
    if (end !== null) heapPush(this.#heap, { time: end, index, generation, kind: EVENT_END });
    const ramp = rampEndsAt(playback);
    if (ramp !== null && ramp !== kNever) heapPush(this.#heap, { time: ramp, index, generation, kind: EVENT_FADE_END });
    if (this.#heap.length > 64 && this.#heap.length > 4 * this.size) this.#dropStaleEvents();
  }

  #dropStaleEvents() {
    this.#heap = this.#heap.filter((e) => e.generation === this.#generation[e.index]);
    heapify(this.#heap);
  }
}

/**
 * A table holding `instances`, written without fades (three-vat's createVATPlaybackTexture): an
 * instance with `from` is compiled and written as is, every other through setInstance at 0.
 * @param {object[]} instances instance JSON objects
 * @param {number} [frameRows=0]
 * @returns {InstanceTable}
 * @throws {VatError} what compile or setInstance refuses, for the first instance refused
 */
export function makeInstanceTable(instances, frameRows = 0) {
  const table = new InstanceTable(instances.length, frameRows);
  instances.forEach((inst, i) => {
    if (inst !== null && typeof inst === 'object' && has(inst, 'from')) {
      table.writePlayback(i, prefixed(`instance ${i}: `, () => compile(inst)));
    } else {
      table.setInstance(i, inst, 0);
    }
  });
  return table;
}

/**
 * The float32 clock's resolution at `clock` seconds: the gap to the next float32.
 * @param {number} clock
 * @returns {number} seconds
 */
export function clockResolution(clock) {
  const a = Math.abs(f32(clock));
  return nextUp(a) - a;
}

// ---- clips of a .vat.glb ------------------------------------------------------------------------

const FORMAT_LOOP_MODES = { repeat: 'repeat', once: 'once', pingPong: 'pingpong' };

function clipLabel(clip, index) {
  return typeof clip?.name === 'string' && clip.name !== '' ? clip.name : `#${index}`;
}

// The index of the clip `selector` names ("#N" or a name), as the C++ find_clip.
function findClip(clips, selector, source) {
  const err = (what) => refuse(source ? `${source}: ${what}` : what);
  const list = () => {
    const shownCount = Math.min(clips.length, 32);
    const labels = clips.slice(0, shownCount).map((c, i) => printable(clipLabel(c, i)));
    return labels.join(', ') + (shownCount < clips.length ? ', ...' : '');
  };
  if (clips.length === 0) throw err(`has no animations, so there is no clip "${printable(selector)}"`);
  if (selector.startsWith('#')) {
    const digits = selector.slice(1);
    if (!/^[0-9]+$/.test(digits) || BigInt(digits) > 0xffffffffffffffffn) {
      throw err(`bad clip index "${printable(selector)}" (expected #N with N from 0 to ${clips.length - 1})`);
    }
    const index = BigInt(digits);
    if (index >= BigInt(clips.length)) {
      const count = `${clips.length} ${clips.length === 1 ? 'clip' : 'clips'}`;
      throw err(`no clip ${selector}: the file has ${count} (${list()})`);
    }
    return Number(index);
  }
  const index = clips.findIndex((c) => c?.name === selector);
  if (index < 0) throw err(`no clip named "${printable(selector)}" (clips: ${list()})`);
  return index;
}

/**
 * The band of the clip `selector` names, "#N" or a clip name, from a parsed
 * `VATKIT_vertex_animation` extension object (docs/format.md, section 3), as the instance JSON's
 * clip: {startFrame, frames, fps} plus the clip's defaults (loopMode, repetitions, endMode,
 * speed) where the table has them; the format's "pingPong" becomes "pingpong".
 * @param {{clips: object[]}} extension the extension's JSON object
 * @param {string} selector "#N" or a name
 * @param {string} [source=''] the file's name, to start error messages with
 * @returns {{startFrame: number, frames: number, fps: number, loopMode?: string,
 *   repetitions?: number, endMode?: string, speed?: number}}
 * @throws {VatError} Argument: no clips array, a bad "#N", or no such clip; the message lists the
 *   clips, e.g. 'hero.vat.glb: no clip named "walk" (clips: Walking, Idle)'
 */
export function clipBand(extension, selector, source = '') {
  const clips = extension?.clips;
  if (!Array.isArray(clips)) {
    throw refuse(`${source ? `${source}: ` : ''}the VATKIT_vertex_animation extension has no clips array`);
  }
  const c = clips[findClip(clips, String(selector), source)];
  const band = { startFrame: c.firstRow, frames: c.rows, fps: c.fps };
  if (c.loopMode !== undefined) band.loopMode = FORMAT_LOOP_MODES[c.loopMode] ?? c.loopMode;
  for (const key of ['repetitions', 'endMode', 'speed']) if (c[key] !== undefined) band[key] = c[key];
  return band;
}
