// `vatkit export --to babylon` against Babylon.js's own VertexAnimationBaker, under Node
// (@babylonjs/core and @babylonjs/loaders from web/node_modules, a NullEngine scene).
//
// For every skinned, animated glTF file of the shared assets: export it, load the same file with
// Babylon's glTF loader, bake the same frames of every clip with bakeVertexData
// (tests/web/babylon_baker.mjs says how), and compare every float of every bone slot of those
// rows, plus the texture's size, the bone count and the clip table of the manifest.
//
// Tolerance: |vatkit - babylon| <= 1e-5 * max(|vatkit|, |babylon|, floor). Both sides compute in
// float32 (Babylon keeps its matrices in Float32Arrays), so an entry that is a sum of larger terms
// carries their rounding, whatever its own size: the floor is the size of those terms. For the
// 3x3 entries it is the joint's scale s (the largest |3x3 entry| of the matrix: 1 for a rigid
// rig, 100 where an armature scales by 100); for the translation entries s times the skeleton's
// bind-pose extent (the largest |translation| of its inverse bind matrices: the translation is a
// rotated bind offset plus a world translation, both of that size); for the last row, 1. So an
// error passes when it is under 1e-5 of the size of the skeleton, or of the entry itself.
//
// Frames: every clip is exported at 60 fps (Babylon's frame unit) and Babylon bakes every row
// (about 20 s in all); VATKIT_BABYLON_FRAMES=N bakes N rows of each clip instead (the first, the
// last and evenly between), every bone still compared. One file is exported at 24 fps as well,
// with the loader's targetFps set to match.
//
// Environment: VATKIT_CLI (the vatkit binary) and VATKIT_SHARED_ASSETS (the shared assets folder);
// ctest sets both (tests/CMakeLists.txt).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

import { bakeClip, loadBabylon, loadScene, normalizeRotationKeys, skinnedAssets } from "./babylon_baker.mjs";

const cli = process.env.VATKIT_CLI;
const assets = process.env.VATKIT_SHARED_ASSETS;
const framesSetting = process.env.VATKIT_BABYLON_FRAMES ?? "all";

function exportBabylon(file, dir, fps) {
  const out = join(dir, "out.babylon.json");
  const args = ["export", file, "--to", "babylon", "-o", out];
  if (fps !== undefined) args.push("--fps", String(fps));
  execFileSync(cli, args, { stdio: ["ignore", "pipe", "pipe"] });
  const vertexData = JSON.parse(readFileSync(out, "utf8"));
  const manifest = JSON.parse(readFileSync(join(dir, "out.babylon.manifest.json"), "utf8"));
  const bytes = Buffer.from(vertexData.vertexData, "base64");
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return { vertexData, manifest, floats };
}

// Rows 0..n of a clip to bake: all, or `count` spread evenly with the first and the last.
function pickFrames(n, setting) {
  if (setting === "all") return Array.from({ length: n + 1 }, (_, i) => i);
  const count = Math.max(2, Number(setting));
  const set = new Set();
  for (let i = 0; i < count; i++) set.add(Math.round((n * i) / (count - 1)));
  return [...set].sort((a, b) => a - b);
}

// Compares Babylon's rows with vatkit's; returns the mismatches (at most 5) and the worst ratio
// of error to tolerance. `extent`: the skeleton's bind-pose extent (see the tolerance above).
function compareRows(ours, clip, frames, babylonData, rowFloats, extent) {
  const mismatches = [];
  let worst = 0;
  frames.forEach((frame, k) => {
    const a0 = (clip.from + frame) * rowFloats;
    const b0 = k * rowFloats;
    for (let slot = 0; slot < rowFloats / 16; slot++) {
      let scale = 0;  // the joint's scale: the largest |entry| of the 3x3 part
      for (const e of [0, 1, 2, 4, 5, 6, 8, 9, 10]) {
        scale = Math.max(scale, Math.abs(ours[a0 + slot * 16 + e]), Math.abs(babylonData[b0 + slot * 16 + e]));
      }
      for (let e = 0; e < 16; e++) {
        const a = ours[a0 + slot * 16 + e];
        const b = babylonData[b0 + slot * 16 + e];
        const floor = e === 12 || e === 13 || e === 14 ? scale * extent : e % 4 === 3 ? 1 : scale;
        const tolerance = 1e-5 * Math.max(Math.abs(a), Math.abs(b), floor);
        const ratio = a === b ? 0 : Math.abs(a - b) / tolerance;
        if (!(ratio <= 1) && mismatches.length < 5) {
          mismatches.push(`${clip.name} frame ${frame} slot ${slot} [${e}]: vatkit ${a}, babylon ${b}`);
        }
        worst = Math.max(worst, Number.isNaN(ratio) ? Infinity : ratio);
      }
    }
  });
  return { mismatches, worst };
}

// The skeleton's bind-pose extent: the largest |translation| of its inverse bind matrices
// (Babylon's own), at least 1e-3 of the file's unit.
function bindExtent(skeleton) {
  let extent = 1e-3;
  for (const bone of skeleton.bones) {
    if (bone._index < 0) continue;
    const m = bone.getAbsoluteInverseBindMatrix().m;
    extent = Math.max(extent, Math.abs(m[12]), Math.abs(m[13]), Math.abs(m[14]));
  }
  return extent;
}

async function checkAsset(t, file, fps) {
  const dir = mkdtempSync(join(tmpdir(), "vatkit-babylon-"));
  try {
    const { vertexData, manifest, floats } = exportBabylon(file, dir, fps);
    const rowFps = fps ?? 60;
    assert.equal(manifest.fps, rowFps);
    const loaded = await loadScene(file, rowFps);
    const skeleton = loaded.scene.skeletons.find((s) => s.id === manifest.babylonSkeletonId);
    assert.ok(skeleton, `Babylon built no skeleton ${manifest.babylonSkeletonId}`);
    assert.equal(manifest.bones, skeleton.bones.length, "bone count");
    assert.equal(vertexData.width, (skeleton.bones.length + 1) * 4, "width");
    assert.equal(floats.length, vertexData.width * 4 * vertexData.height, "vertexData length");
    const groups = loaded.scene.animationGroups.map((g) => g.name);
    assert.deepEqual(manifest.clips.map((c) => c.name), groups, "clips in the groups' order and names");
    let row = 0;
    for (const clip of manifest.clips) {
      assert.equal(clip.from, row, `${clip.name}: rows follow one another`);
      const group = loaded.scene.animationGroups.find((g) => g.name === clip.name);
      assert.equal(clip.to - clip.from, Math.round(group.to), `${clip.name}: last row at the group's last frame`);
      // The manager's later passes show rows from + 1 .. to in (to - from + 1) / speed seconds:
      // that is the clip's duration to within half a row.
      const { speedFramesPerSecond: speed, ...rest } = clip.setAnimationParameters;
      assert.deepEqual(rest, { startFrame: clip.from, endFrame: clip.to, offset: 0 });
      const pass = (clip.to - clip.from + 1) / speed;
      if (clip.to > clip.from) assert.ok(Math.abs(pass - group.to / rowFps) <= 0.5 / rowFps, `${clip.name}: pass ${pass} s`);
      row = clip.to + 1;
    }
    assert.equal(row, vertexData.height, "every row belongs to a clip");

    const deviation = normalizeRotationKeys(loaded.scene, 1e-6);
    if (deviation > 1e-6) t.diagnostic(`rotation keys normalized (off unit length by up to ${deviation.toExponential(2)})`);
    const extent = bindExtent(skeleton);
    const rowFloats = (skeleton.bones.length + 1) * 16;
    let worst = 0;
    let compared = 0;
    let babylonMs = 0;
    for (const clip of manifest.clips) {
      const frames = pickFrames(clip.to - clip.from, framesSetting);
      const baked = await bakeClip(loaded, manifest.babylonSkeletonId, clip.name, frames);
      babylonMs += baked.ms;
      assert.equal(baked.data.length, frames.length * rowFloats, `${clip.name}: Babylon's row count`);
      const result = compareRows(floats, clip, frames, baked.data, rowFloats, extent);
      assert.deepEqual(result.mismatches, [], `${relative(assets, file)}: floats differ`);
      worst = Math.max(worst, result.worst);
      compared += frames.length;
    }
    loaded.engine.dispose();
    t.diagnostic(
      `${skeleton.bones.length} bones, ${manifest.clips.length} clips, ${compared} of ${vertexData.height} rows compared ` +
        `(Babylon ${babylonMs.toFixed(0)} ms); worst error ${(worst * 100).toFixed(1)}% of the tolerance`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

assert.ok(cli, "VATKIT_CLI names the vatkit binary");
assert.ok(assets, "VATKIT_SHARED_ASSETS names the shared assets folder");
const files = skinnedAssets(assets);

test("the shared assets hold the skinned, animated files the README lists", () => {
  // 13 files with a skinned mesh and animations (khronos 7, threejs 1, quaternius 5).
  assert.ok(files.length >= 13, `found ${files.length}: ${files.map((f) => relative(assets, f)).join(", ")}`);
});

test("Babylon.js loads", async () => {
  await loadBabylon();
});

for (const file of files) {
  test(`${relative(assets, file)}: vatkit's rows equal Babylon's bakeVertexData`, (t) => checkAsset(t, file));
}

test("a row rate other than 60 (--fps 24, the loader's targetFps 24)", (t) =>
  checkAsset(t, join(assets, "khronos", "Fox.glb"), 24));
