// vatkit-three (web/vatkit-three) against the C++ renderer: `vatkit render --shading normals
// --scene-out` draws a crowd at a time T and writes what it drew (instances, world matrices,
// camera, clock); pages/three_parity.html draws the same scene with VatCrowd and three's
// MeshNormalMaterial. Per bake, at two times T and T2: the mean absolute difference of the two
// images (all pixels and channels, 0..1) at most MAX_MAD, and three's renders at T and T2 apart
// by more than MIN_MAD_BETWEEN_TIMES, so that a crowd frozen at one pose could not pass.
// Screenshots (three's, vatkit's and their difference, per time) go to the artifact folder.
// Usage: node tests/web/three_parity.test.mjs [VATKIT_BINARY]   (docs/web-testing.md)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  repoRoot,
  requireChromium,
  startServer,
  runPageResult,
  artifactDir,
  saveDataUrl,
  vatkitBinary,
  runVatkit,
} from './browser.mjs';

const chromium = requireChromium('three_parity');
const vatkit = vatkitBinary();
const assets = process.env.VATKIT_SHARED_ASSETS || path.join(repoRoot, '..', 'shared', 'assets');

// Thresholds; the values measured and the margins are in docs/web-testing.md. The renders at T
// and T2 must differ by at least twice what a match may differ by, so that three drawing the
// pose of T at T2 (a clock not reaching the shader) fails the match at T2.
const MAX_MAD = 0.002;
const MIN_MAD_BETWEEN_TIMES = 2 * MAX_MAD;
// Both renderers must show the crowd: the share of pixels off the background at least this.
const MIN_COVERAGE = 0.02;
// vatkit bake's default row rate: one frame late is 1 / BAKE_FPS seconds (reported, not asserted).
const BAKE_FPS = 30;

const WIDTH = 480;
const HEIGHT = 270;
const INSTANCES = 16;

// Bakes without levels of detail: vatkit render picks a level per instance by its size on
// screen, VatCrowd draws the one it is given; with none stored both draw the full mesh.
const CASES = [
  { name: 'sample_delta_f32', input: null, bake: ['--encoding', 'delta', '--precision', 'f32'], times: [1.0, 1.5] },
  { name: 'sample_rig_q16', input: null, bake: ['--encoding', 'rig', '--precision', 'q16'], times: [1.0, 1.5] },
  {
    name: 'fox_rig_f16',
    input: path.join(assets, 'khronos', 'Fox.glb'),
    bake: ['--encoding', 'rig', '--precision', 'f16'],
    times: [1.0, 1.5],
  },
];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vatkit-three-parity-'));
const server = await startServer({
  '/': path.join(repoRoot, 'web'),
  '/pages/': path.join(repoRoot, 'tests', 'web', 'pages'),
  '/fixtures/': work,
});
after(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const summary = {};

for (const c of CASES) {
  test(`${c.name}: three.js draws what vatkit render draws`, async () => {
    const started = Date.now();
    const dir = path.join(work, c.name);
    fs.mkdirSync(dir);
    if (c.input && !fs.existsSync(c.input)) assert.fail(`${c.input}: missing (set VATKIT_SHARED_ASSETS)`);
    const vat = path.join(dir, `${c.name}.vat.glb`);
    runVatkit(vatkit, ['bake', ...(c.input ? [c.input] : []), '-o', vat, ...c.bake, '--lods', '0', '--no-measure']);
    const scenes = c.times.map((t, k) => {
      const scene = path.join(dir, `scene${k + 1}.json`);
      const png = path.join(dir, `ref${k + 1}.png`);
      runVatkit(vatkit, ['render', vat, '--shading', 'normals', '--scene-out', scene, '--size', `${WIDTH}x${HEIGHT}`,
        '-n', String(INSTANCES), '-t', String(t), '-o', png]);
      return JSON.parse(fs.readFileSync(scene, 'utf8'));
    });
    const vatkitMs = Date.now() - started;
    for (const [k, scene] of scenes.entries()) {
      assert.equal(scene.shading, 'normals');
      assert.equal(scene.width, WIDTH);
      assert.equal(scene.height, HEIGHT);
      assert.equal(Math.fround(scene.time), Math.fround(c.times[k]));
      assert.equal(scene.instances.length, INSTANCES);
    }
    // One crowd seen at two times: the same instances and camera in both files.
    assert.deepEqual(scenes[1].instances, scenes[0].instances);
    assert.deepEqual(scenes[1].camera, scenes[0].camera);

    const fixture = (name) => `/fixtures/${c.name}/${name}`;
    const query = new URLSearchParams({
      vat: fixture(path.basename(vat)),
      scene1: fixture('scene1.json'),
      ref1: fixture('ref1.png'),
      scene2: fixture('scene2.json'),
      ref2: fixture('ref2.png'),
      oneFrame: String(1 / BAKE_FPS),
    });
    const { result, ms } = await runPageResult(`${server.origin}/pages/three_parity.html?${query}`, {
      width: WIDTH,
      height: HEIGHT,
      budgetMs: 60000,
      chromium,
    });

    const out = artifactDir(path.join('three_parity', c.name));
    for (const [k, t] of result.times.entries()) {
      for (const which of ['three', 'vatkit', 'diff']) saveDataUrl(t[which], path.join(out, `${which}_t${k + 1}.png`));
    }
    const numbers = {
      times: result.times.map(({ time, mad, coverageThree, coverageVatkit }) => ({ time, mad, coverageThree, coverageVatkit })),
      madBetweenTimes: result.madBetweenTimes,
      vatkitMs,
      pageMs: ms,
      madOneFrameLate: result.madOneFrameLate,
    };
    summary[c.name] = numbers;
    fs.writeFileSync(path.join(out, 'numbers.json'), `${JSON.stringify(numbers, null, 2)}\n`);
    console.log(`# ${c.name}: ${JSON.stringify(numbers)}`);

    for (const t of result.times) {
      assert.ok(t.coverageVatkit >= MIN_COVERAGE, `t=${t.time}: vatkit covers ${t.coverageVatkit} of the image`);
      assert.ok(t.coverageThree >= MIN_COVERAGE, `t=${t.time}: three covers ${t.coverageThree} of the image`);
      assert.ok(t.mad <= MAX_MAD, `t=${t.time}: MAD ${t.mad} against vatkit > ${MAX_MAD} (images in ${out})`);
    }
    assert.ok(
      result.madBetweenTimes > MIN_MAD_BETWEEN_TIMES,
      `three's renders at t=${c.times[0]} and t=${c.times[1]} differ by only ${result.madBetweenTimes}`,
    );
  });
}
