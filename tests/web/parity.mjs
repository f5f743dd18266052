// What the parity tests share (three_parity, babylon_parity; docs/web-testing.md "The parity
// test", docs/babylon.md "In a browser"). Per case, `vatkit render --shading normals --scene-out`
// draws a crowd of INSTANCES at WIDTH x HEIGHT at two times T and T2 and writes what it drew
// (instances, world matrices, camera, clock); the test's page draws the same scenes with another
// renderer and compares its images with vatkit's (pages/page.js, compareWithVatkit). Asserted per
// time: both images show the crowd and differ by a mean absolute difference (all pixels and
// channels, 0..1) of at most MAX_MAD; and the page's renders at T and T2 differ by more than
// MIN_MAD_BETWEEN_TIMES, so that a crowd frozen at one pose could not pass. The images (the
// page's, vatkit's and their difference, per time) and the numbers go to the artifact folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { browserTest, runVatkit, saveArtifacts } from './browser.mjs';

export const WIDTH = 480;
export const HEIGHT = 270;
export const INSTANCES = 16;

// Thresholds, the same for every renderer; the values measured and the margins are in the docs
// above. The renders at T and T2 must differ by at least twice what a match may differ by, so
// that a page drawing the pose of T at T2 (a clock not reaching the shader) fails the match at T2.
export const MAX_MAD = 0.002;
export const MIN_MAD_BETWEEN_TIMES = 2 * MAX_MAD;
// Both renderers must show the crowd: the share of pixels off the background at least this.
export const MIN_COVERAGE = 0.02;

/**
 * Declares one test per case, once the page server has started.
 * @param {object} spec
 * @param {string} spec.name the test: its page is pages/NAME.html, its artifacts NAME/<case>/
 * @param {string} spec.renderer the page's renderer as messages name it
 * @param {string} spec.title what each test's name says after its case's name
 * @param {{name: string, times: number[]}[]} spec.cases the cases, each at two times
 * @param {Function} spec.prepare (c, dir, vatkit) => {vat, fixtures, query}: writes the case's
 *   files into dir and returns the bake vatkit renders, the files the page loads ({query key:
 *   file in dir}) and the page's other query fields
 * @param {Function} [spec.checkTime] (t) => void: the renderer's own assertions on one time's result
 * @param {string[]} [spec.unlogged] keys of the numbers left out of the printed line
 */
export async function parityTests({ name, renderer, title, cases, prepare, checkTime = () => {}, unlogged = [] }) {
  const session = browserTest(name);
  const { vatkit, work } = session;
  const server = await session.serve();

  for (const c of cases) {
    test(`${c.name}: ${title}`, async () => {
      const started = Date.now();
      const dir = path.join(work, c.name);
      fs.mkdirSync(dir);
      const { vat, fixtures, query = {} } = await prepare(c, dir, vatkit);
      const references = renderReferences(vatkit, vat, dir, c.times);
      const vatkitMs = Date.now() - started;

      const files = { ...fixtures, ...references };
      const urls = Object.fromEntries(Object.entries(files).map(([key, file]) => [key, `/fixtures/${c.name}/${path.basename(file)}`]));
      const { result, ms } = await session.run(server, `${name}.html`, { ...urls, ...query }, {
        width: WIDTH,
        height: HEIGHT,
        budgetMs: 60000,
      });

      assert.equal(result.times.length, c.times.length, 'a result per time');
      const images = {};
      result.times.forEach((t, k) => {
        for (const [which, url] of Object.entries(t.images)) images[`${which}_t${k + 1}`] = url;
      });
      const numbers = { ...result, times: result.times.map(({ images: _, ...t }) => t), vatkitMs, pageMs: ms };
      delete numbers.done;
      const out = saveArtifacts(path.join(name, c.name), { images, numbers, label: c.name, unlogged });

      for (const t of result.times) {
        assert.ok(t.coverageVatkit >= MIN_COVERAGE, `t=${t.time}: vatkit covers ${t.coverageVatkit} of the image`);
        assert.ok(t.coverageDrawn >= MIN_COVERAGE, `t=${t.time}: ${renderer} covers ${t.coverageDrawn} of the image`);
        checkTime(t);
        assert.ok(t.mad <= MAX_MAD, `t=${t.time}: MAD ${t.mad} against vatkit > ${MAX_MAD} (images in ${out})`);
      }
      assert.ok(
        result.madBetweenTimes > MIN_MAD_BETWEEN_TIMES,
        `${renderer}'s renders at t=${c.times[0]} and t=${c.times[1]} differ by only ${result.madBetweenTimes}`,
      );
    });
  }
}

// vatkit's images of the bake vat at each time, with the scene files it drew them from (sceneK.json
// and refK.png in dir, K from 1), checked to be one crowd seen at those times. Returns the files
// as the page's query keys: {scene1, ref1, scene2, ref2, ...}.
function renderReferences(vatkit, vat, dir, times) {
  const files = {};
  const scenes = times.map((t, k) => {
    const scene = path.join(dir, `scene${k + 1}.json`);
    const png = path.join(dir, `ref${k + 1}.png`);
    runVatkit(vatkit, ['render', vat, '--shading', 'normals', '--scene-out', scene, '--size', `${WIDTH}x${HEIGHT}`,
      '-n', String(INSTANCES), '-t', String(t), '-o', png]);
    files[`scene${k + 1}`] = scene;
    files[`ref${k + 1}`] = png;
    return JSON.parse(fs.readFileSync(scene, 'utf8'));
  });
  for (const [k, scene] of scenes.entries()) {
    assert.equal(scene.shading, 'normals');
    assert.equal(scene.width, WIDTH);
    assert.equal(scene.height, HEIGHT);
    assert.equal(Math.fround(scene.time), Math.fround(times[k]));
    assert.equal(scene.instances.length, INSTANCES);
  }
  // One crowd seen at several times: the same instances and camera in every file.
  for (const scene of scenes.slice(1)) {
    assert.deepEqual(scene.instances, scenes[0].instances);
    assert.deepEqual(scene.camera, scenes[0].camera);
  }
  return files;
}
