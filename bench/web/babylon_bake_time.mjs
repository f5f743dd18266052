// Bake times side by side, per skinned shared asset: `vatkit export --to babylon` (the whole
// process, and the time it reports itself: import, bake, base64 and both files written, without
// the process's start) and Babylon.js's own
// VertexAnimationBaker.bakeVertexData over the same rows (the bake alone, in a scene already
// loaded, under Node's NullEngine with the render loop pumped as fast as it renders;
// tests/web/babylon_baker.mjs says how), and apart, Babylon's glTF load of the file (ImportMeshAsync
// into a fresh NullEngine scene). Prints a Markdown table of medians.
//
//   node bench/web/babylon_bake_time.mjs [--runs N] [--vatkit PATH] [--assets DIR]
//
// Defaults: 5 runs, build/bin/vatkit, ../shared/assets beside the repository.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { bakeClip, loadBabylon, loadScene, skinnedAssets } from "../../tests/web/babylon_baker.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const option = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const runs = Number(option("--runs", "5"));
const vatkit = option("--vatkit", join(root, "build/bin/vatkit"));
const assets = option("--assets", join(root, "../shared/assets"));

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

await loadBabylon();
const dir = mkdtempSync(join(tmpdir(), "vatkit-babylon-bench-"));
const out = join(dir, "out.babylon.json");
console.log(`${runs} runs, medians; ${cpus()[0].model}, ${cpus().length} cores; node ${process.version}\n`);
console.log(
  "| asset | bones | clips | rows (60 fps) | vatkit export, process ms | vatkit export, reported ms | " +
    "Babylon bakeVertexData ms | Babylon / vatkit reported | Babylon glTF load ms |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const file of skinnedAssets(assets)) {
  const vatkitMs = [];
  const reportedMs = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const report = execFileSync(vatkit, ["export", file, "--to", "babylon", "-o", out], { encoding: "utf8" });
    vatkitMs.push(performance.now() - start);
    reportedMs.push(Number(/ in ([0-9.]+) ms/.exec(report)[1]));
  }
  const manifest = JSON.parse(readFileSync(join(dir, "out.babylon.manifest.json"), "utf8"));
  const loadMs = [];
  let loaded = null;
  for (let r = 0; r < runs; r++) {
    loaded?.engine.dispose();
    const start = performance.now();
    loaded = await loadScene(file, manifest.fps);
    loadMs.push(performance.now() - start);
  }
  const babylonMs = [];
  for (let r = 0; r < runs; r++) {
    let ms = 0;
    for (const clip of manifest.clips) {
      const frames = Array.from({ length: clip.to - clip.from + 1 }, (_, i) => i);
      ms += (await bakeClip(loaded, manifest.babylonSkeletonId, clip.name, frames)).ms;
    }
    babylonMs.push(ms);
  }
  loaded.engine.dispose();
  const v = median(reportedMs);
  const b = median(babylonMs);
  console.log(
    `| ${relative(assets, file)} | ${manifest.bones} | ${manifest.clips.length} | ${manifest.height} | ` +
      `${median(vatkitMs).toFixed(1)} | ${v.toFixed(1)} | ${b.toFixed(1)} | ${(b / v).toFixed(1)}x | ${median(loadMs).toFixed(1)} |`,
  );
}
rmSync(dir, { recursive: true, force: true });
