// The JavaScript playback (web/vatkit-three/src/playback.js) against the C++ library's answers:
// every query of tests/conformance/playback_v2.jsonl, answered as `vatkit frame` answers it
// (tools/vatkit/support/playback_json.cpp, run_frame_query), must equal its "expect" bit for bit
// (each number compared as float32, -0 distinct from 0, as check_frame_json does). Also: pack and
// unpack are exact inverses, compile and setInstance refuse what the C++ refuses with the C++'s
// one-line messages (taken from `vatkit frame`), and the table's dirty ranges, events, clock
// rebase and clipBand behave as instance_table.h and playback.h state.
// Run: node --test tests/web/playback_conformance.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  InstanceTable,
  VatError,
  clipBand,
  compile,
  endsAt,
  kNever,
  makeInstanceTable,
  pack,
  resolve,
  resolvePolicy,
  sampleFields,
  unpack,
} from '../../web/vatkit-three/src/playback.js';
import { eventsCrossed } from '../../web/vatkit-three/src/events.js';

function readVectors(name) {
  return readFileSync(fileURLToPath(new URL(`../conformance/${name}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => ({ line: i + 1, ...JSON.parse(line) }));
}
const queries = readVectors('playback_v2.jsonl');
// Version 3: the controls (negative speed, pause, resume, turnBack), answered by an independent
// Python model (tests/conformance/make_playback_v3.py).
const controls = readVectors('playback_v3.jsonl');
// Clip events: queries with "since", answered by an independent Python model of events.h's
// definition (tests/conformance/make_events_v1.py).
const eventVectors = readVectors('events_v1.jsonl');

// run_frame_query: the instance compiled and resolved, or written to a one-row table and then
// replayed through setInstance.
function answer(query) {
  const first = compile(query.instance);
  if (!query.set) return { playback: first, sample: resolve(first, query.time), endsAt: endsAt(first) };
  const table = new InstanceTable(1);
  table.writePlayback(0, first);
  for (const write of query.set) {
    if (write.control) table[write.control](0, write.now);
    else table.setInstance(0, write.instance, write.now);
  }
  return { playback: table.playback(0), sample: table.resolve(0, query.time), endsAt: table.endsAt(0), table };
}

// check_frame_json: the same keys, numbers equal as float32 bits, everything else equal.
function differences(expect, got) {
  const out = [];
  for (const key of new Set([...Object.keys(expect), ...Object.keys(got)])) {
    const want = expect[key];
    const have = got[key];
    const same =
      typeof want === 'number' && typeof have === 'number' ? Object.is(Math.fround(want), have) : want === have;
    if (!same) out.push(`${key}: expected ${JSON.stringify(want)}, got ${Object.is(have, -0) ? '-0' : JSON.stringify(have)}`);
  }
  return out;
}

test('every conformance vector matches bit for bit', (t) => {
  const mismatches = [];
  const seen = { withWrites: 0, fades: 0, blends: 0, finished: 0, wraps: 0 };
  for (const query of queries) {
    assert.ok(query.expect, `line ${query.line} has no expect`);
    const a = answer(query);
    const diff = differences(query.expect, sampleFields(a.sample, a.endsAt));
    if (diff.length) mismatches.push(`line ${query.line}: ${diff.join('; ')}`);
    seen.withWrites += query.set ? 1 : 0;
    seen.fades += a.sample.kind === 'fade' ? 1 : 0;
    seen.blends += a.sample.kind === 'blend' ? 1 : 0;
    seen.finished += a.sample.a.finished ? 1 : 0;
    seen.wraps += a.sample.a.wraps ? 1 : 0;
  }
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${queries.length} vectors differ`);
  // The file covers what it claims to (as PlaybackConformance.LibraryMatchesTheVectorFile checks).
  assert.ok(queries.length >= 300, `${queries.length} vectors`);
  assert.ok(seen.withWrites >= 30 && seen.fades >= 30 && seen.blends >= 20, JSON.stringify(seen));
  assert.ok(seen.finished >= 30 && seen.wraps >= 30, JSON.stringify(seen));
  t.diagnostic(`${queries.length} of ${queries.length} conformance vectors match`);
});

test('every controls vector (version 3) matches bit for bit', (t) => {
  const mismatches = [];
  const seen = { pauses: 0, turns: 0, backwards: 0 };
  for (const query of controls) {
    const a = answer(query);
    const diff = differences(query.expect, sampleFields(a.sample, a.endsAt));
    if (diff.length) mismatches.push(`line ${query.line}: ${diff.join('; ')}`);
    for (const w of query.set ?? []) {
      seen.pauses += w.control === 'pause' ? 1 : 0;
      seen.turns += w.control === 'turnBack' ? 1 : 0;
    }
    seen.backwards += (query.instance.speed ?? 1) < 0 ? 1 : 0;
  }
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${controls.length} vectors differ`);
  assert.ok(controls.length >= 700 && seen.pauses >= 100 && seen.turns >= 200 && seen.backwards >= 300, JSON.stringify(seen));
  t.diagnostic(`${controls.length} of ${controls.length} controls vectors match`);
});

// The bands' events of a query (its clips' "events", found by band as `vatkit frame` finds them),
// and the instance without them (compile reads playback fields only).
function queryBands(instance) {
  const bands = new Map();
  const strip = (clip) => {
    if (!clip?.events) return clip;
    const { events, ...rest } = clip;
    const duration = clip.frames > 1 ? Math.fround((clip.frames - 1) / Math.fround(clip.fps)) : 0;
    bands.set(`${clip.startFrame}/${clip.frames}`, { events, duration, clip: 0 });
    return rest;
  };
  const bare = { ...instance, clip: strip(instance.clip) };
  if (instance.blend) bare.blend = { ...instance.blend, clip: strip(instance.blend.clip) };
  if (instance.from) bare.from = { ...instance.from, clip: strip(instance.from.clip) };
  return { bare, bands };
}

// run_frame_query with "since": each write splits the span, the playback before it reporting
// (.., now], the one after it (now, ..].
function answerEvents(query) {
  const { bare, bands } = queryBands(query.instance);
  const table = new InstanceTable(1);
  table.writePlayback(0, compile(bare));
  const time = Math.fround(query.time);
  let from = Math.fround(query.since);
  const out = [];
  const cross = (t0, t1) => {
    const pb = table.playback(0);
    const band = (t) => bands.get(`${t.firstRow}/${t.rows}`) ?? null;
    for (const e of eventsCrossed(pb, band(pb.primary), band(pb.second), t0, t1)) {
      const b = e.band === 0 ? band(pb.primary) : band(pb.second);
      out.push({ name: b.events[e.event].name, time: e.time, band: 'ab'[e.band], weight: e.weight });
    }
  };
  for (const write of query.set ?? []) {
    const cut = Math.min(Math.fround(write.now), time);
    if (cut > from) {
      cross(from, cut);
      from = cut;
    }
    table[write.control](0, write.now);
  }
  cross(from, time);
  return out;
}

test('every event vector matches: times and weights bit for bit, names, bands, order', (t) => {
  const mismatches = [];
  let events = 0;
  let second = 0;
  for (const query of eventVectors) {
    const got = answerEvents(query);
    const want = query.expect.events;
    events += want.length;
    second += want.filter((e) => e.band === 'b').length;
    const diff = want.length === got.length ? [] : [`${want.length} events expected, got ${got.length}`];
    want.forEach((w, i) => {
      if (got[i]) diff.push(...differences(w, got[i]).map((d) => `[${i}] ${d}`));
    });
    if (diff.length) mismatches.push(`line ${query.line}: ${diff.slice(0, 3).join('; ')}`);
  }
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${eventVectors.length} vectors differ`);
  assert.ok(eventVectors.length >= 1000 && events >= 2500 && second >= 50, `${eventVectors.length} ${events} ${second}`);
  t.diagnostic(`${eventVectors.length} event vectors (${events} events) match`);
});

test('pack and unpack are exact inverses, and the packed row resolves the same', () => {
  for (const query of [...queries, ...controls]) {
    const a = answer(query);
    const row = pack(a.playback);
    assert.equal(row.length, 24);
    assert.deepEqual(unpack(row), a.playback, `line ${query.line}`);
    assert.deepEqual(resolve(unpack(row), query.time), a.sample, `line ${query.line}`);
    if (a.table) assert.deepEqual(a.table.floats, row, `line ${query.line}: the table's row is the packed row`);
  }
  // The layout of instance_table.h, texel by texel, for a fade of two known tracks.
  const fade = compile({
    clip: { startFrame: 10, frames: 5, fps: 4 },
    startTime: 2,
    loopMode: 'once',
    fadeDuration: 0.5,
    fadeCurve: 'smooth',
    from: { clip: { startFrame: 0, frames: 31, fps: 30 }, startTime: 1, loopMode: 'pingpong', repetitions: 2 },
  });
  assert.deepEqual(
    Array.from(pack(fade)),
    [10, 5, 1, 1, 2, 1, 3, 1, 0, 31, 2, 0, 1, 1, 3, 2, 1, 0, 2, 2, 1, 1, 0, 0],
  );
});

// Times where smoothstep computed in double and rounded once differs from float32 step by step;
// the weights are what `vatkit frame` prints for them (the vectors hold no such time).
test('the smooth fade weight is float32 at every step', () => {
  const fade = compile({
    clip: { startFrame: 100, frames: 21, fps: 24 },
    startTime: 10,
    fadeDuration: 2,
    fadeCurve: 'smooth',
    from: { clip: { startFrame: 0, frames: 31, fps: 30 }, startTime: 7, speed: 0.5 },
  });
  const cases = [
    [10.269007682800293, 0.9505928],
    [10.28801441192627, 0.94375867],
    [10.309212684631348, 0.9356818],
    [10.317984580993652, 0.9322026],
  ];
  for (const [time, weight] of cases) assert.equal(resolve(fade, time).weight, Math.fround(weight), `at ${time}`);
});

// The messages are `vatkit frame`'s for the same instances (after its "instance: " prefix).
test('compile refuses what the C++ refuses, in one line', () => {
  const clip = { startFrame: 0, frames: 5, fps: 4 };
  const cases = [
    [{ clip, startTime: 0, repetitions: 0 }, 'instance.repetitions 0 must be -1 (endless) or 1..2^24'],
    [{ clip: { ...clip, frames: 0 }, startTime: 0 }, 'clip: a band needs at least one row'],
    [{ clip: { ...clip, fps: 0 }, startTime: 0 }, 'clip: fps 0 must be finite and > 0 for a band of 5 rows'],
    [{ clip: { ...clip, startFrame: 16777215 }, startTime: 0 }, 'clip: rows [16777215, 16777220) runs past row 2^24 (float32 rows)'],
    [{ clip, startTime: 2e18 }, 'start_time 1.99999997e+18 must be finite and within +-1e18 s'],
    [{ clip, startTime: 0, fadeDuration: -0.5 }, 'fade_duration -0.5 must be finite and >= 0'],
    [{ clip, startTime: 0, blend: { clip, weight: 1.5 } }, 'blend.weight 1.5 is outside [0, 1]'],
    [
      { clip, startTime: 0, fadeDuration: 1, blend: { clip, weight: 0.5 }, from: { clip, startTime: 0 } },
      'a fade `from` another band into a blend needs three bands; a PlaybackSample holds two',
    ],
    [
      { clip, startTime: 0, speed: 1e-40 },
      'clip: speed 9.9999461e-41 x fps 4 is too slow for float32 (use speed 0 to hold the first row)',
    ],
    [
      { clip: { ...clip, fps: 3e38 }, startTime: 0, speed: 3e38 },
      'clip: speed 3.00000001e+38 x fps 3.00000001e+38 is too fast for float32',
    ],
    [{ clip, startTime: 0, fadeDuration: 1e-45, fadeStart: 0 }, 'fade_duration 1.40129846e-45 is too short for float32'],
    [
      { clip, startTime: 0, fadeDuration: 1, fadeWeight: 0, from: { clip, startTime: 0 } },
      'fade_weight 0 is outside (0, 1]',
    ],
    [{ clip: { ...clip, fps: '30' }, startTime: 0 }, 'instance.clip.fps: expected a number, got "30"'],
    [{ clip, startTime: 0, loopMode: 'pingPong' }, 'instance.loopMode: expected "repeat", "once" or "pingpong", got "pingPong"'],
    [{ clip, startTime: 0, bogus: 1 }, 'instance: unknown field "bogus"'],
    [{ clip, startTime: 0, repetitions: 2.5 }, 'instance.repetitions: expected an integer, got 2.5'],
    [{ clip, startTime: 0, from: { clip: { ...clip, frames: 5 }, startTime: 0, phase: 0.5 } }, 'instance.from: unknown field "phase"'],
  ];
  for (const [instance, message] of cases) {
    assert.throws(() => compile(instance), (e) => {
      assert.ok(e instanceof VatError);
      assert.equal(e.code, 'Argument');
      assert.equal(e.message, message);
      assert.ok(!e.message.includes('\n'));
      return true;
    });
  }
});

test('setInstance refuses what set_instance refuses, leaving the row unchanged', () => {
  const a = { clip: { startFrame: 0, frames: 5, fps: 4 }, startTime: 0 };
  const table = new InstanceTable(2, 30);
  table.setInstance(0, a, 0);
  const before = Array.from(table.floats);
  const cases = [
    [
      {
        clip: { startFrame: 10, frames: 5, fps: 4 },
        startTime: 0,
        fadeDuration: 1,
        blend: { clip: { startFrame: 20, frames: 5, fps: 4 }, weight: 0.5 },
      },
      1,
      "instance 0: a fade into a blend needs the blend's band A or B on screen (a PlaybackSample holds two bands): " +
        'fade to A first, then write the blend with weight_from 0 on FadeEnd',
    ],
    [
      { ...a, from: a },
      1,
      'instance 0: `from` is filled by set_instance from what is on screen; leave it empty (write_playback takes a hand-made fade)',
    ],
    [a, 1e39, 'instance 0: `now` must be finite and within +-1e18 s'],
    [{ ...a, clip: { startFrame: 28, frames: 5, fps: 4 } }, 1, "instance 0: clip rows [28, 33) run past the VAT's 30 frame rows"],
  ];
  for (const [instance, now, message] of cases) {
    assert.throws(() => table.setInstance(0, instance, now), { name: 'VatError', code: 'Argument', message });
  }
  assert.deepEqual(Array.from(table.floats), before);
  assert.throws(() => table.setInstance(2, a, 0), RangeError);
  assert.throws(() => makeInstanceTable([a, { ...a, repetitions: 0 }]), { message: /^instance 1: instance\.repetitions 0/ });
});

test('the tiers: the instance, then the clip, then the library; a count belongs to its mode', () => {
  assert.deepEqual(resolvePolicy({}, {}), { loopMode: 'repeat', repetitions: -1, endMode: 'clamp', speed: 1 });
  assert.deepEqual(resolvePolicy({ loopMode: 'pingpong' }, {}).repetitions, 1);
  const clip = { loopMode: 'repeat', repetitions: 3, endMode: 'rewind', speed: 0.5 };
  assert.deepEqual(resolvePolicy({}, clip), { loopMode: 'repeat', repetitions: 3, endMode: 'rewind', speed: 0.5 });
  assert.equal(resolvePolicy({ loopMode: 'repeat' }, clip).repetitions, 3);
  assert.equal(resolvePolicy({ loopMode: 'once' }, clip).repetitions, 1);
  assert.equal(resolvePolicy({ loopMode: 'pingpong', speed: 2 }, clip).speed, 2);
});

test('dirty ranges merge and reset; events pop in order and die with their row', () => {
  const once = (start) => ({ clip: { startFrame: 0, frames: 5, fps: 4 }, startTime: start, loopMode: 'once' });
  const table = new InstanceTable(10);
  for (const i of [7, 2, 3, 9]) table.setInstance(i, once(i), 0);
  assert.equal(table.dirtyCount(), 4);
  assert.deepEqual(table.takeDirty(), [{ first: 2, count: 2 }, { first: 7, count: 1 }, { first: 9, count: 1 }]);
  assert.deepEqual(table.takeDirty(), []);
  table.setInstance(7, once(7), 0);
  table.setInstance(9, once(9), 0);
  assert.deepEqual(table.takeDirty(1), [{ first: 7, count: 3 }]);
  // Each one-shot of a 1 s band ends 1 s after its start; row 3 is rewritten to loop (no end).
  table.setInstance(3, { ...once(3), loopMode: 'repeat' }, 0);
  assert.deepEqual(table.nextEvent(), { time: 3, index: 2, kind: 'end' });
  assert.deepEqual(table.popEvents(9), [
    { time: 3, index: 2, kind: 'end' },
    { time: 8, index: 7, kind: 'end' },
  ]);
  assert.deepEqual(table.popEvents(kNever), [{ time: 10, index: 9, kind: 'end' }]);
  assert.equal(table.nextEvent(), null);
  // A fade queues its FadeEnd; resize drops the rows past the new size and their events.
  table.setInstance(1, once(1), 0);
  table.setInstance(1, { clip: { startFrame: 5, frames: 5, fps: 4 }, startTime: 1, fadeDuration: 0.5 }, 1);
  assert.deepEqual(table.popEvents(2), [{ time: 1.5, index: 1, kind: 'fadeEnd' }]);
  table.setInstance(8, once(8), 0);
  table.resize(5);
  assert.equal(table.size, 5);
  assert.equal(table.floats.length, 5 * 24);
  assert.equal(table.nextEvent(), null);
  assert.ok(table.takeDirty().every((r) => r.first + r.count <= 5));
});

test('rebaseClock: recent tracks show the same thing on the shifted clock, bit for bit', () => {
  const instances = queries.filter((q) => !q.set && !q.instance.from).map((q) => q.instance);
  const table = makeInstanceTable(instances);
  const now = 1000.375;
  // Clock times the old clock expresses, each minus the shift exact in float32.
  const later = [now, now + 0.1, now + 1.7, now + 40].map(Math.fround);
  const shiftedInstances = instances.map((inst) => ({ ...inst, startTime: inst.startTime + 1000 }));
  const shifted = makeInstanceTable(shiftedInstances);
  const want = shiftedInstances.map((_, i) => later.map((t) => shifted.resolve(i, t)));
  const report = shifted.rebaseClock(now);
  assert.equal(report.shift, 1000);
  assert.equal(report.folded + report.rounded, 0, JSON.stringify(report));
  shiftedInstances.forEach((_, i) => {
    later.forEach((t, k) => assert.deepEqual(shifted.resolve(i, t - 1000), want[i][k], `instance ${i} at ${t}`));
  });
  assert.equal(shifted.dirtyCount(), shiftedInstances.length);
  assert.equal(table.rebaseClock(0.5).shift, 0);
});

test('rebaseClock folds a loop playing for long by whole cycles, keeping one wrap', () => {
  const table = new InstanceTable(1);
  table.setInstance(0, { clip: { startFrame: 10, frames: 5, fps: 4 }, startTime: 0 }, 0); // 1 cycle/s
  const times = [5000.25, 5000.5, 5003.75];
  const want = times.map((t) => table.resolve(0, t));
  assert.deepEqual(table.rebaseClock(5000.25), { shift: 5000, exact: 0, folded: 1, rounded: 0 });
  assert.equal(table.playback(0).primary.startTime, -1); // 4999 cycles folded: one wrap left
  times.forEach((t, k) => assert.deepEqual(table.resolve(0, t - 5000), want[k], `at ${t}`));
  assert.equal(table.resolve(0, 0.25).a.wraps, true);
});

test('clipBand picks a clip of the extension by name or #N and lists the clips otherwise', () => {
  const extension = {
    clips: [
      { name: 'Idle', firstRow: 0, rows: 31, fps: 30, loopMode: 'repeat', repetitions: -1, endMode: 'clamp', speed: 1 },
      { name: 'Walk', firstRow: 31, rows: 21, fps: 30, loopMode: 'pingPong', repetitions: 2, endMode: 'rewind', speed: 1.5 },
      { name: '', firstRow: 52, rows: 1, fps: 0 },
    ],
  };
  const walk = clipBand(extension, 'Walk');
  assert.deepEqual(walk, { startFrame: 31, frames: 21, fps: 30, loopMode: 'pingpong', repetitions: 2, endMode: 'rewind', speed: 1.5 });
  assert.deepEqual(clipBand(extension, '#2'), { startFrame: 52, frames: 1, fps: 0 });
  const sample = resolve(compile({ clip: walk, startTime: 0 }), 2);
  assert.deepEqual([sample.a.row, sample.a.finished], [31, true]); // two traversals at 1.5x, rewound
  assert.throws(() => clipBand(extension, 'Run', 'hero.vat.glb'), {
    name: 'VatError',
    message: 'hero.vat.glb: no clip named "Run" (clips: Idle, Walk, #2)',
  });
  assert.throws(() => clipBand(extension, '#3'), { message: 'no clip #3: the file has 3 clips (Idle, Walk, #2)' });
  assert.throws(() => clipBand(extension, '#x'), { message: 'bad clip index "#x" (expected #N with N from 0 to 2)' });
});

// instance_table.h's controls on the table: a paused row has no pending events, is rebased at
// its held pose, and resumes from it (the numbers of PlaybackPause.* and PlaybackControls.*).
test('pause, resume and turnBack on the table: held pose, events, the clock rebase', () => {
  const clip = { startFrame: 10, frames: 5, fps: 4 };
  const table = new InstanceTable(1);
  table.setInstance(0, { clip, startTime: 0, loopMode: 'once' }, 0);
  table.setInstance(0, { clip: { startFrame: 100, frames: 21, fps: 24 }, startTime: 0.25, fadeDuration: 1 }, 0.25);
  table.pause(0, 0.5);
  assert.equal(table.nextEvent(), null);
  const held = table.resolve(0, 0.5);
  assert.equal(held.weight, 0.75);
  assert.deepEqual(table.resolve(0, 3), held);
  table.resume(0, 2.5);
  assert.deepEqual(table.resolve(0, 2.5), held);
  assert.equal(table.resolve(0, 2.75).weight, 0.5);
  assert.deepEqual(table.popEvents(10), [{ time: 3.25, index: 0, kind: 'fadeEnd' }]);
  table.setInstance(0, { clip, startTime: 0 }, 0);
  table.pause(0, 9.75);
  const frozen = table.resolve(0, 12);
  assert.equal(table.rebaseClock(12.5).shift, 12);
  assert.equal(table.playback(0).hold, -2.25);
  assert.deepEqual(table.resolve(0, 0.5), frozen);
  table.resume(0, 1);
  table.turnBack(0, 1.25);
  assert.equal(table.playback(0).primary.cycleRate, -1);
  assert.throws(() => table.pause(0, NaN), { message: 'instance 0: `now` must be finite and within +-1e18 s' });
  assert.throws(() => new InstanceTable(1).turnBack(0, 1), { message: 'instance 0: not written yet (set_instance first)' });
});
