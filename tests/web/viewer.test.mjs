// The viewer end to end: the real `vatkit view FILE --port 0` on a bake of the built-in sample
// (three clips), its printed address followed, and the page (web/viewer) driven in headless
// Chromium through its own controls by pages/viewer_driver.html, which holds it in a same-origin
// iframe (the test server forwards everything but /pages/ and /fixtures/ to vatkit view). Checked:
// the clip list against `vatkit info --json`, the live figures, a clip switched through the
// <select> changing the picture (clock frozen, no fade) into what the viewer opened on that clip
// shows, the instance count keeping the clip, a dropped file replacing the shown one, and a
// dropped file that is no .vat.glb leaving it with a one-line error. docs/web-testing.md has the
// measurements behind the thresholds. Screenshots go to the artifact folder.
// Usage: node tests/web/viewer.test.mjs [VATKIT_BINARY]
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { webDir, browserTest, requireFile, runVatkit, saveArtifacts, sharedAsset } from './browser.mjs';

const session = browserTest('viewer');
const { vatkit, work } = session;

const WIDTH = 480;
const HEIGHT = 300;
const INSTANCES = 4;
const FROZEN_T = 1.3;
// The instance-count slider's position 48 is 10^(48 / 100) = 3.02 -> 3 instances (web/viewer/viewer.js).
const COUNT_POSITION = 48;
const COUNT_AT_POSITION = 3;
// Thresholds on the mean absolute difference of two renders (every pixel and channel, 0..1); the
// measurements are in docs/web-testing.md. Renders of one state are identical (measured 0): the
// clock is frozen and SwiftShader is deterministic. The clip switch changes the picture by 0.0043
// (four instances from idle to walk at 480x300), so MIN_CHANGE_MAD is a quarter of that: about
// what one instance of the four changing pose gives, far above the 0 of no change.
const MAX_SAME_MAD = 0.0001;
const MIN_CHANGE_MAD = 0.001;

const children = [];
after(() => {
  for (const child of children) child.kill('SIGTERM');
});

// Starts `vatkit view ARGS` and resolves to the first line it prints.
function startView(args) {
  const child = spawn(vatkit, ['view', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vatkit view printed no address in 30 s: ${err}`)), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.split('\n')[0]);
      }
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vatkit view exited with ${code}: ${err.trim()}`));
    });
  });
}

const clipNames = (info) => info.clips.map((c) => c.name);
// The viewer's option text of a clip: its name and duration (web/viewer/viewer.js).
const optionText = (c) => `${c.name} (${c.duration_s.toFixed(2)} s)`;

test('vatkit view: the page loads the file, switches clips, takes dropped files', async () => {
  const started = Date.now();
  const sample = path.join(work, 'sample.vat.glb');
  const fox = path.join(work, 'fox.vat.glb');
  const foxSource = requireFile(sharedAsset('khronos', 'Fox.glb'));
  runVatkit(vatkit, ['bake', '-o', sample, '--lods', '0', '--no-measure']);
  runVatkit(vatkit, ['bake', foxSource, '-o', fox, '--lods', '0', '--no-measure']);
  const info = JSON.parse(runVatkit(vatkit, ['info', '--json', sample]));
  const foxInfo = JSON.parse(runVatkit(vatkit, ['info', '--json', fox]));
  assert.ok(info.clips.length >= 2, 'the sample has at least two clips');

  const line = await startView([sample, '--port', '0']);
  const match = /^vatkit view: (\S+) \((\w+) (\w+), (\d+) clips?\) at (http:\/\/127\.0\.0\.1:(\d+)\/) \(Ctrl\+C stops\)$/.exec(line);
  assert.ok(match, `the printed line: ${line}`);
  const [, name, encoding, precision, clipCount, address] = match;
  assert.equal(name, 'sample.vat.glb');
  assert.deepEqual([encoding, precision, Number(clipCount)], [info.encoding, info.precision, info.clips.length]);

  // The address sends the browser to the viewer with the file; the decode chunk it serves is the
  // one the runtime's build step generates from the same source.
  const home = await fetch(address, { redirect: 'manual' });
  assert.equal(home.status, 302);
  const location = home.headers.get('location');
  assert.equal(location, '/viewer/index.html?file=/files/sample.vat.glb');
  const served = await fetch(new URL('/vatkit-three/src/generated/vat_decode.glsl.js', address));
  assert.match(served.headers.get('content-type'), /^text\/javascript/);
  const servedChunk = (await import(`data:text/javascript,${encodeURIComponent(await served.text())}`)).vatDecodeGlsl;
  const builtChunk = (await import(path.join(webDir, 'vatkit-three', 'src', 'generated', 'vat_decode.glsl.js'))).vatDecodeGlsl;
  assert.equal(servedChunk, builtChunk);
  const file = await fetch(new URL('/files/sample.vat.glb', address));
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), fs.readFileSync(sample), 'the served file is the file');

  const server = await session.serve(address.replace(/\/$/, ''));
  const frozen = `&n=${INSTANCES}&t=${FROZEN_T}&fade=0`;
  const query = {
    viewer: `${location}${frozen}`,
    reference: `${location}${frozen}&clip=${encodeURIComponent(info.clips[1].name)}`,
    clip: '1',
    countPosition: String(COUNT_POSITION),
    drop: '/fixtures/fox.vat.glb',
  };
  const { result, ms } = await session.run(server, 'viewer_driver.html', query, { width: WIDTH, height: HEIGHT, budgetMs: 90000 });

  const numbers = { mad: result.mad, steps: result.steps, pageMs: ms, testMs: Date.now() - started, figures: result.opened.figures };
  const out = saveArtifacts('viewer', { images: result.images, numbers });

  // The file as vatkit info reads it: its clips in the list, the first one playing.
  const { opened, switched, recounted, dropped, bad, referencePanel } = result;
  assert.equal(opened.name, 'sample.vat.glb');
  assert.equal(opened.status, '');
  assert.deepEqual(opened.clips.map((c) => c.text), info.clips.map(optionText));
  assert.equal(opened.clip, '0');
  assert.equal(opened.count, String(INSTANCES));
  expectRows(result.rowsBefore, info.clips[0], INSTANCES, 'before the switch');

  // The live figures: a frame time, and at least the crowd's triangles in its draw groups.
  const figures = /^frame +(\d+\.\d+) ms\ndraws +(\d+)\ntris +([\d,]+)$/.exec(opened.figures);
  assert.ok(figures, `the figures: ${opened.figures}`);
  assert.ok(Number(figures[1]) > 0, 'a frame time');
  assert.ok(Number(figures[2]) >= info.draw_groups, `${figures[2]} draw calls for ${info.draw_groups} draw groups`);
  assert.ok(Number(figures[3].replaceAll(',', '')) >= INSTANCES * info.triangles,
    `${figures[3]} triangles for ${INSTANCES} x ${info.triangles}`);

  // The switch through the <select>: every instance in the new clip's rows, the picture changed,
  // and changed into what the viewer opened on that clip by its address shows.
  assert.equal(switched.clip, '1');
  expectRows(result.rowsAfter, info.clips[1], INSTANCES, 'after the switch');
  assert.ok(result.mad.unchanged <= MAX_SAME_MAD, `two renders without a change differ by ${result.mad.unchanged}`);
  assert.ok(result.mad.switched > MIN_CHANGE_MAD, `the clip switch changed the picture by only ${result.mad.switched} (images in ${out})`);
  assert.equal(referencePanel.clip, '1', 'the address names the second clip');
  assert.ok(result.mad.switchedVsReference <= MAX_SAME_MAD,
    `the switched picture differs from the viewer opened on that clip by ${result.mad.switchedVsReference}`);

  // A new instance count through its slider keeps the clip.
  assert.equal(recounted.count, String(COUNT_AT_POSITION));
  assert.equal(recounted.instances, COUNT_AT_POSITION);
  assert.equal(recounted.clip, '1');
  expectRows(recounted.rows, info.clips[1], COUNT_AT_POSITION, 'after the new count');

  // The dropped file replaces the shown one (its clips listed, the first playing: it has no clip
  // named as the shown one), the picture changes; a file that is no .vat.glb leaves it as it was
  // and says why in one line naming the file.
  assert.equal(dropped.status, '');
  assert.equal(dropped.name, 'fox.vat.glb');
  assert.deepEqual(dropped.clips.map((c) => c.text), foxInfo.clips.map(optionText));
  assert.ok(!clipNames(foxInfo).includes(info.clips[1].name));
  assert.equal(dropped.clip, '0');
  expectRows(dropped.rows, foxInfo.clips[0], COUNT_AT_POSITION, 'after the drop');
  assert.ok(result.mad.dropped > MIN_CHANGE_MAD, `the dropped file changed the picture by only ${result.mad.dropped}`);
  assert.match(bad.status, /^bad\.vat\.glb: [^\n]+$/);
  assert.equal(bad.name, 'fox.vat.glb');
  assert.deepEqual(bad.clips, dropped.clips);
  assert.ok(result.mad.bad <= MAX_SAME_MAD, `the refused file changed the picture by ${result.mad.bad}`);
});

// Every instance shows a frame row of `clip` (vatkit info's first_row and rows).
function expectRows(rows, clip, count, when) {
  assert.equal(rows.length, count, when);
  for (const [i, row] of rows.entries()) {
    assert.ok(row >= clip.first_row && row < clip.first_row + clip.rows,
      `${when}: instance ${i} shows row ${row}, outside clip "${clip.name}" (rows ${clip.first_row} + ${clip.rows})`);
  }
}
