// vatkit-three (web/vatkit-three) against the C++ renderer (parity.mjs): pages/three_parity.html
// draws vatkit render's scenes with VatCrowd and three's MeshNormalMaterial.
// Usage: node tests/web/three_parity.test.mjs [VATKIT_BINARY]   (docs/web-testing.md)
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, runVatkit, sharedAsset } from './browser.mjs';
import { parityTests } from './parity.mjs';
import { permutation, vertexCount, withVerticesMoved } from './vertex_order.mjs';

// vatkit bake's default row rate: one frame late is 1 / BAKE_FPS seconds (reported, not asserted).
const BAKE_FPS = 30;

// Bakes without levels of detail: vatkit render picks a level per instance by its size on
// screen, VatCrowd draws the one it is given; with none stored both draw the full mesh.
const CASES = [
  { name: 'sample_delta_f32', input: null, bake: ['--encoding', 'delta', '--precision', 'f32'], times: [1.0, 1.5] },
  { name: 'sample_rig_q16', input: null, bake: ['--encoding', 'rig', '--precision', 'q16'], times: [1.0, 1.5] },
  {
    name: 'fox_rig_f16',
    input: sharedAsset('khronos', 'Fox.glb'),
    bake: ['--encoding', 'rig', '--precision', 'f16'],
    times: [1.0, 1.5],
  },
  // The page loads the bake with its vertices shuffled (every attribute, _VAT_VERTEX included, the
  // indices remapped), vatkit renders it unshuffled: the same picture only if the shader decodes
  // each vertex at its _VAT_VERTEX column rather than at gl_VertexID.
  {
    name: 'fox_delta_f16_shuffled',
    input: sharedAsset('khronos', 'Fox.glb'),
    bake: ['--encoding', 'delta', '--precision', 'f16'],
    times: [1.0, 1.5],
    shuffle: 20261203,
  },
];

await parityTests({
  name: 'three_parity',
  renderer: 'three',
  title: 'three.js draws what vatkit render draws',
  cases: CASES,
  prepare(c, dir, vatkit) {
    const vat = path.join(dir, `${c.name}.vat.glb`);
    runVatkit(vatkit, ['bake', ...(c.input ? [requireFile(c.input)] : []), '-o', vat, ...c.bake, '--lods', '0', '--no-measure']);
    let page = vat;
    if (c.shuffle) {
      const bytes = new Uint8Array(fs.readFileSync(vat));
      page = path.join(dir, `${c.name}.page.vat.glb`);
      fs.writeFileSync(page, withVerticesMoved(bytes, permutation(vertexCount(bytes), c.shuffle)));
    }
    return { vat, fixtures: { vat: page }, query: { lateBy: String(1 / BAKE_FPS) } };
  },
});
