// Babylon.js's own baker on a glTF file, under Node: the reference tests/web/babylon_export.test.mjs
// compares `vatkit export --to babylon` against, and bench/web/babylon_bake_time.mjs times; and
// the shared assets both run over (skinnedAssets).
//
// The glTF loader animates TransformNodes (one AnimationGroup per glTF animation) and links each
// bone to its node, while VertexAnimationBaker animates the skeleton's bones
// (scene.beginAnimation(skeleton, frame, frame)). The bridge, per clip: unlink the bones from
// their nodes and give each bone the clip's Animation objects that target its node (the same
// objects, whose properties position / rotationQuaternion / scaling Bone has too). Bones the clip
// does not animate keep their rest pose, as glTF's unanimated nodes do.
//
// Two Babylon behaviours the calls below steer around (docs/babylon.md):
//  - bakeVertexData reads getTransformMatrices() in the animation-end callback, before the render
//    prepares the skeleton; when a mesh that uses the skeleton is drawn, the skeleton was already
//    prepared under that render id and the previous frame's matrices come back (row k holds frame
//    k - 1). The meshes are disabled while baking, so each callback computes its own frame.
//  - A frame past an animation's last key makes the runtime animation restart from its first
//    frame and play in real time until it reaches the end. Past the last key the pose holds, so
//    such a frame is asked for as the group's last frame (group.to), the same pose.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const modules = new URL("../../web/node_modules/@babylonjs/", import.meta.url);
let babylon = null;

// Imports @babylonjs/core and the glTF loader once (web/package.json pins them; scripts/setup.sh
// installs them).
export async function loadBabylon() {
  if (!babylon) {
    babylon = await import(new URL("core/index.js", modules).href);
    await import(new URL("loaders/glTF/index.js", modules).href);
    babylon.Logger.LogLevels = babylon.Logger.ErrorLogLevel;
  }
  return babylon;
}

// A NullEngine scene holding `file` as Babylon's glTF loader builds it, at `fps` frames per second
// of glTF time (the loader's targetFps), no animation started.
export async function loadScene(file, fps) {
  const B = await loadBabylon();
  const engine = new B.NullEngine();
  const scene = new B.Scene(engine);
  new B.FreeCamera("camera", new B.Vector3(0, 0, -1), scene);  // scene.render() needs one
  const source = file.endsWith(".gltf") ? "data:" + readFileSync(file, "utf8") : new Uint8Array(readFileSync(file));
  await B.ImportMeshAsync(source, scene, {
    pluginExtension: file.endsWith(".gltf") ? ".gltf" : ".glb",
    pluginOptions: { gltf: { animationStartMode: 0 /* NONE */, targetFps: fps } },
  });
  for (const mesh of scene.meshes) mesh.setEnabled(false);
  return { B, engine, scene };
}

// Normalizes the rotation keys of every animation group whose keys are off unit length by more
// than `tolerance` (glTF's rotations are unit quaternions; Babylon composes them as stored).
// Returns the largest deviation found.
export function normalizeRotationKeys(scene, tolerance) {
  let worst = 0;
  for (const group of scene.animationGroups) {
    for (const { animation } of group.targetedAnimations) {
      if (animation.targetProperty !== "rotationQuaternion") continue;
      for (const key of animation.getKeys()) {
        const q = key.value;
        const deviation = Math.abs(q.length() - 1);
        worst = Math.max(worst, deviation);
        if (deviation > tolerance) q.normalize();
      }
    }
  }
  return worst;
}

// Bakes, with Babylon's VertexAnimationBaker.bakeVertexData, the frames `frames` (integer frames of
// the clip's own timeline) of the animation group named `groupName` on the skeleton with id
// `skeletonId`. Returns { data: Float32Array (frames x (bones + 1) x 16), bones, ms } where ms
// times bakeVertexData alone.
export async function bakeClip(loaded, skeletonId, groupName, frames) {
  const { B, scene } = loaded;
  const skeleton = scene.skeletons.find((s) => s.id === skeletonId);
  if (!skeleton) throw new Error(`no skeleton with id ${skeletonId}`);
  const group = scene.animationGroups.find((g) => g.name === groupName);
  if (!group) throw new Error(`no animation group named ${JSON.stringify(groupName)}`);
  if (!skeleton._vatkitNodes) {
    skeleton._vatkitNodes = skeleton.bones.map((bone) => bone.getTransformNode());
    for (const bone of skeleton.bones) bone.linkTransformNode(null);
  }
  const byNode = new Map();
  for (const { target, animation } of group.targetedAnimations) {
    if (!byNode.has(target)) byNode.set(target, []);
    byNode.get(target).push(animation);
  }
  skeleton.bones.forEach((bone, i) => {
    bone.animations = byNode.get(skeleton._vatkitNodes[i]) ?? [];
  });
  const ranges = [];
  for (const f of frames) {
    const frame = Math.min(f, group.to);
    const last = ranges[ranges.length - 1];
    if (last && frame === last.to + 1) last.to = frame;
    else ranges.push({ from: frame, to: frame });
  }
  const baker = new B.VertexAnimationBaker(scene, skeleton);
  const start = performance.now();
  let done = false;
  const baked = baker.bakeVertexData(ranges).finally(() => {
    done = true;
  });
  // The render loop the baker waits on, as fast as the scene renders.
  while (!done) {
    scene.render();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const data = await baked;
  return { data, bones: skeleton.bones.length, ms: performance.now() - start };
}

// The glTF JSON of a .gltf or .glb file.
export function gltfJson(file) {
  const bytes = readFileSync(file);
  if (bytes.readUInt32LE(0) === 0x46546c67) return JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString());
  return JSON.parse(bytes.toString());
}

// The .glb/.gltf files under `dir` with a skinned mesh node and an animation, found by reading
// their JSON (not by vatkit), sorted.
export function skinnedAssets(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(glb|gltf)$/.test(entry.name)) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    const json = gltfJson(file);
    const skinned = (json.nodes ?? []).some((n) => n.skin !== undefined && n.mesh !== undefined);
    if (skinned && (json.animations ?? []).length > 0) found.push(file);
  }
  return found.sort();
}
