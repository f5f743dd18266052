// WebGL2 in headless Chromium under the flags every browser test uses (browser.mjs), and the page
// tools of pages/page.js: three.js draws a MeshNormalMaterial quad over the left half of a black
// frame; the normal faces the camera, so those pixels are (0, 0, 1) * 0.5 + 0.5 -> (128, 128, 255).
// Usage: node tests/web/webgl2_smoke.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { repoRoot, requireChromium, startServer, runPage, runPageResult, readResult, artifactDir, saveDataUrl } from './browser.mjs';

const chromium = requireChromium('webgl2_smoke');

const mounts = {
  '/': path.join(repoRoot, 'web'),
  '/pages/': path.join(repoRoot, 'tests', 'web', 'pages'),
};

test('WebGL2 renders three.js and reads back exactly', async () => {
  const server = await startServer(mounts);
  try {
    const width = 64;
    const height = 32;
    const url = `${server.origin}/pages/webgl2_smoke.html?width=${width}&height=${height}`;
    const { result, ms } = await runPageResult(url, { width: 320, height: 240, budgetMs: 10000, chromium });
    console.log(`# ${result.gl.version} | ${result.gl.renderer} | max samples ${result.gl.maxSamples} | ${ms} ms`);
    saveDataUrl(result.png, path.join(artifactDir('webgl2_smoke'), 'quad.png'));
    assert.match(result.gl.version, /^WebGL 2\.0/);
    assert.equal(result.gl.colorBufferFloat, true, 'EXT_color_buffer_float (float VAT textures)');
    assert.ok(result.gl.maxTextureSize >= 4096, `MAX_TEXTURE_SIZE ${result.gl.maxTextureSize}`);
    // 0.5 * 255 = 127.5: either neighbour is a correct rounding.
    const [r, g, b, a] = result.leftSample;
    assert.ok(r >= 127 && r <= 128 && g >= 127 && g <= 128 && b === 255 && a === 255, `left ${result.leftSample}`);
    assert.deepEqual(result.rightSample, [0, 0, 0, 255]);
    assert.equal(result.leftCovered, (width / 2) * height, 'every pixel of the left half covered');
    assert.equal(result.rightClear, (width / 2) * height, 'every pixel of the right half cleared');
    assert.equal(result.pngRoundTripMad, 0, 'PNG encode + decode is lossless');
  } finally {
    await server.close();
  }
});

test('a page that never reports is dumped after its budget, as unfinished', async () => {
  const server = await startServer(mounts);
  try {
    const { dom, ms } = await runPage(`${server.origin}/pages/never_finishes.html`, { budgetMs: 1500, chromium });
    assert.throws(() => readResult(dom, 'never_finishes'), /did not finish within its budget/);
    assert.ok(ms >= 1500, `dumped after ${ms} ms, before the budget`);
  } finally {
    await server.close();
  }
});

test('a Chromium past its timeout is killed, and the run fails saying so', async () => {
  const server = await startServer(mounts);
  try {
    const started = Date.now();
    await assert.rejects(
      runPage(`${server.origin}/pages/never_finishes.html`, { budgetMs: 60000, timeoutMs: 1500, chromium }),
      /chromium killed after 1500 ms/,
    );
    assert.ok(Date.now() - started < 10000, 'killed promptly');
  } finally {
    await server.close();
  }
});
