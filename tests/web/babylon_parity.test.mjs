// Babylon.js's own baked vertex animation against the C++ renderer (parity.mjs):
// pages/babylon_parity.html loads the source glTF with Babylon's glTF loader and plays vatkit
// render's crowd with Babylon's BakedVertexAnimationManager from what `vatkit export --to babylon`
// wrote. Besides the images, every instance's row must lie within half a row of vatkit's position.
// Usage: node tests/web/babylon_parity.test.mjs [VATKIT_BINARY]   (docs/web-testing.md)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, runVatkit, sharedAsset } from './browser.mjs';
import { parityTests } from './parity.mjs';

// Rows a second of both the vatkit bake and the Babylon export: the same rows at the same glTF
// times (both sample round(duration x FPS) + 1 rows), and Babylon, which shows whole rows, at
// most half a row (1 / (2 x FPS) s) from the pose vatkit interpolates. The thresholds' values
// measured and margins are in docs/babylon.md ("In a browser").
const FPS = 120;

// Clock errors whose effect on the match is reported (seconds): one row, one frame at 30 fps, 0.1 s.
const LATE_BY = [1 / FPS, 1 / 30, 0.1];

// Sources: the built-in sample (written by `vatkit sample`; four primitives, so four Babylon
// meshes), Fox and CesiumMan (the shared assets; CesiumMan's skeleton hangs below a rotated node,
// so its Babylon mesh has a world matrix of its own).
const CASES = [
  { name: 'sample', input: null, times: [1.0, 1.5] },
  { name: 'fox', input: sharedAsset('khronos', 'Fox.glb'), times: [1.0, 1.5] },
  { name: 'cesium_man', input: sharedAsset('khronos', 'CesiumMan.glb'), times: [1.0, 1.5] },
];

await parityTests({
  name: 'babylon_parity',
  renderer: 'Babylon',
  title: "Babylon.js's baked vertex animation draws what vatkit render draws",
  cases: CASES,
  prepare(c, dir, vatkit) {
    const source = path.join(dir, `${c.name}.glb`);
    if (c.input) fs.copyFileSync(requireFile(c.input), source);
    else runVatkit(vatkit, ['sample', '-o', source]);
    const vertexData = path.join(dir, `${c.name}.babylon.json`);
    runVatkit(vatkit, ['export', source, '--to', 'babylon', '--fps', String(FPS), '-o', vertexData]);
    const manifest = path.join(dir, `${c.name}.babylon.manifest.json`);
    assert.ok(fs.existsSync(manifest), `${manifest}: not written`);
    // A rig bake without levels of detail (vatkit render picks a level per instance by its size on
    // screen; Babylon draws the source mesh), in f32, at the export's rows.
    const vat = path.join(dir, `${c.name}.vat.glb`);
    runVatkit(vatkit, ['bake', source, '-o', vat, '--encoding', 'rig', '--precision', 'f32', '--fps', String(FPS),
      '--lods', '0', '--no-measure']);
    return { vat, fixtures: { gltf: source, manifest, vertexData }, query: { lateBy: LATE_BY.join(',') } };
  },
  checkTime(t) {
    assert.ok(t.rowError <= 0.5 + 1e-6, `t=${t.time}: Babylon's row is ${t.rowError} rows from vatkit's position`);
  },
  // Long and per instance: in numbers.json only.
  unlogged: ['settings', 'meshWorld', 'renderer'],
});
