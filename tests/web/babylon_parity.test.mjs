// Babylon.js's own baked vertex animation against the C++ renderer: `vatkit render --shading
// normals --scene-out` draws a crowd at a time T and writes what it drew (instances, world
// matrices, camera, clock); pages/babylon_parity.html loads the source glTF with Babylon's glTF
// loader and plays the same crowd with Babylon's BakedVertexAnimationManager from what
// `vatkit export --to babylon` wrote. Per asset, at two times T and T2: the mean absolute
// difference of the two images (all pixels and channels, 0..1) at most MAX_MAD, and Babylon's
// renders at T and T2 apart by more than MIN_MAD_BETWEEN_TIMES, so that a crowd frozen at one
// pose could not pass. Screenshots (Babylon's, vatkit's and their difference, per time) go to the
// artifact folder.
// Usage: node tests/web/babylon_parity.test.mjs [VATKIT_BINARY]   (docs/web-testing.md)
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

const chromium = requireChromium('babylon_parity');
const vatkit = vatkitBinary();
const assets = process.env.VATKIT_SHARED_ASSETS || path.join(repoRoot, '..', 'shared', 'assets');

// Thresholds; the values measured and the margins are in docs/babylon.md ("In a browser"). The
// renders at T and T2 must differ by at least twice what a match may differ by, so that Babylon
// drawing the pose of T at T2 fails the match at T2.
const MAX_MAD = 0.002;
const MIN_MAD_BETWEEN_TIMES = 2 * MAX_MAD;
// Both renderers must show the crowd: the share of pixels off the background at least this.
const MIN_COVERAGE = 0.02;
// Rows a second of both the vatkit bake and the Babylon export: the same rows at the same glTF
// times (both sample round(duration x FPS) + 1 rows), and Babylon, which shows whole rows, at
// most half a row (1 / (2 x FPS) s) from the pose vatkit interpolates.
const FPS = 120;

// Clock errors whose effect on the match is reported (seconds): one row, one frame at 30 fps, 0.1 s.
const LATE_BY = [1 / FPS, 1 / 30, 0.1];

const WIDTH = 480;
const HEIGHT = 270;
const INSTANCES = 16;

// Sources: the built-in sample (written by `vatkit sample`; four primitives, so four Babylon
// meshes), Fox and CesiumMan (the shared assets; CesiumMan's skeleton hangs below a rotated node,
// so its Babylon mesh has a world matrix of its own).
const CASES = [
  { name: 'sample', input: null, times: [1.0, 1.5] },
  { name: 'fox', input: path.join(assets, 'khronos', 'Fox.glb'), times: [1.0, 1.5] },
  { name: 'cesium_man', input: path.join(assets, 'khronos', 'CesiumMan.glb'), times: [1.0, 1.5] },
];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vatkit-babylon-parity-'));
const server = await startServer({
  '/': path.join(repoRoot, 'web'),
  '/pages/': path.join(repoRoot, 'tests', 'web', 'pages'),
  '/fixtures/': work,
});
after(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

for (const c of CASES) {
  test(`${c.name}: Babylon.js's baked vertex animation draws what vatkit render draws`, async () => {
    const started = Date.now();
    const dir = path.join(work, c.name);
    fs.mkdirSync(dir);
    const source = path.join(dir, `${c.name}.glb`);
    if (c.input) {
      if (!fs.existsSync(c.input)) assert.fail(`${c.input}: missing (set VATKIT_SHARED_ASSETS)`);
      fs.copyFileSync(c.input, source);
    } else {
      runVatkit(vatkit, ['sample', '-o', source]);
    }
    const exported = path.join(dir, `${c.name}.babylon.json`);
    runVatkit(vatkit, ['export', source, '--to', 'babylon', '--fps', String(FPS), '-o', exported]);
    const manifest = path.join(dir, `${c.name}.babylon.manifest.json`);
    assert.ok(fs.existsSync(manifest), `${manifest}: not written`);
    // A rig bake without levels of detail (vatkit render picks a level per instance by its size on
    // screen; Babylon draws the source mesh), in f32, at the export's rows.
    const vat = path.join(dir, `${c.name}.vat.glb`);
    runVatkit(vatkit, ['bake', source, '-o', vat, '--encoding', 'rig', '--precision', 'f32', '--fps', String(FPS),
      '--lods', '0', '--no-measure']);
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
      gltf: fixture(path.basename(source)),
      manifest: fixture(path.basename(manifest)),
      vertexData: fixture(path.basename(exported)),
      scene1: fixture('scene1.json'),
      ref1: fixture('ref1.png'),
      scene2: fixture('scene2.json'),
      ref2: fixture('ref2.png'),
      lateBy: LATE_BY.join(','),
    });
    const { result, ms } = await runPageResult(`${server.origin}/pages/babylon_parity.html?${query}`, {
      width: WIDTH,
      height: HEIGHT,
      budgetMs: 60000,
      chromium,
    });

    const out = artifactDir(path.join('babylon_parity', c.name));
    for (const [k, t] of result.times.entries()) {
      for (const which of ['babylon', 'vatkit', 'diff']) saveDataUrl(t[which], path.join(out, `${which}_t${k + 1}.png`));
    }
    const numbers = {
      times: result.times.map(({ time, mad, coverageBabylon, coverageVatkit, rowError, drawMs }) =>
        ({ time, mad, coverageBabylon, coverageVatkit, rowError, drawMs })),
      madBetweenTimes: result.madBetweenTimes,
      madLate: result.madLate,
      clockShift: result.clockShift,
      meshes: result.meshes,
      meshWorld: result.meshWorld,
      settings: result.settings,
      vatkitMs,
      modulesMs: result.modulesMs,
      moduleFiles: result.moduleFiles,
      loadMs: result.loadMs,
      pageMs: ms,
    };
    fs.writeFileSync(path.join(out, 'numbers.json'), `${JSON.stringify(numbers, null, 2)}\n`);
    const { settings, meshWorld, ...brief } = numbers;
    console.log(`# ${c.name}: ${JSON.stringify(brief)}`);

    for (const t of result.times) {
      assert.ok(t.coverageVatkit >= MIN_COVERAGE, `t=${t.time}: vatkit covers ${t.coverageVatkit} of the image`);
      assert.ok(t.coverageBabylon >= MIN_COVERAGE, `t=${t.time}: Babylon covers ${t.coverageBabylon} of the image`);
      assert.ok(t.rowError <= 0.5 + 1e-6, `t=${t.time}: Babylon's row is ${t.rowError} rows from vatkit's position`);
      assert.ok(t.mad <= MAX_MAD, `t=${t.time}: MAD ${t.mad} against vatkit > ${MAX_MAD} (images in ${out})`);
    }
    assert.ok(
      result.madBetweenTimes > MIN_MAD_BETWEEN_TIMES,
      `Babylon's renders at t=${c.times[0]} and t=${c.times[1]} differ by only ${result.madBetweenTimes}`,
    );
  });
}
