// Babylon.js's own baked vertex animation against `vatkit render --shading normals`: the source
// glTF loaded with Babylon's glTF loader, played by Babylon's BakedVertexAnimationManager from the
// JSON `vatkit export --to babylon` wrote, as thin instances with the instances, world matrices,
// camera and clock of vatkit's scene file, drawn with a StandardMaterial whose output colour is
// the view-space normal * 0.5 + 0.5 (tests/web/parity.mjs). Query: gltf (the source), manifest
// and vertexData (the export's two files), and what page.js's parityScenes and compareWithVatkit
// read (sceneK, refK, lateBy). Reports what compareWithVatkit returns, with per time the distance
// of the rows Babylon's formula picks from vatkit's positions; and the playback mapping (the
// settings of every instance, the clock shift, the skinned mesh's world matrix).
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { Camera } from '@babylonjs/core/Cameras/camera.js';
import { Matrix, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Color4 } from '@babylonjs/core/Maths/math.color.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { MaterialPluginBase } from '@babylonjs/core/Materials/materialPluginBase.js';
import { BakedVertexAnimationManager } from '@babylonjs/core/BakedVertexAnimation/bakedVertexAnimationManager.js';
import { VertexAnimationBaker } from '@babylonjs/core/BakedVertexAnimation/vertexAnimationBaker.js';
import { ImportMeshAsync } from '@babylonjs/core/Loading/sceneLoader.js';
import '@babylonjs/core/Meshes/thinInstanceMesh.js';
import '@babylonjs/loaders/glTF/glTFFileLoader.js';
import '@babylonjs/loaders/glTF/2.0/index.js';
import { runTest, fetchResponse, fetchJson, canvasPixels, matrixValues, parityScenes, compareWithVatkit } from './page.js';

// v mod m in [0, m), as GLSL's mod.
function mod(v, m) {
  return v - Math.floor(v / m) * m;
}

// a * b of two column-major 4x4 matrices (column-vector convention, as the scene file's).
function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; ++c) {
    for (let r = 0; r < 4; ++r) {
      let sum = 0;
      for (let k = 0; k < 4; ++k) sum += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = sum;
    }
  }
  return out;
}

// A camera that uses the scene's matrices as they are. Babylon's Matrix holds 16 floats that
// WebGL reads column-major, so the scene file's column-major arrays load unchanged: the shader's
// viewProjection is then P * V of the file. _getViewMatrix is the hook every Babylon camera class
// implements (getViewMatrix caches it and derives the camera's world matrix and position);
// freezeProjectionMatrix keeps the given projection instead of one built from fov and planes.
class SceneCamera extends Camera {
  constructor(name, description, scene) {
    super(name, Vector3.Zero(), scene);
    this._sceneView = Matrix.FromArray(matrixValues(description.view, 'camera.view'));
    this.freezeProjectionMatrix(Matrix.FromArray(matrixValues(description.projection, 'camera.projection')));
  }
  _getViewMatrix() {
    return this._sceneView;
  }
}

// The colour vatkit's --shading normals writes (three's MeshNormalMaterial): the view-space unit
// normal * 0.5 + 0.5, opaque. Injected into StandardMaterial at its last hook, after lighting and
// image processing, so nothing else of the material reaches the pixel; normalW is the fragment's
// normalized world normal, which StandardMaterial's vertex shader derives from the baked vertex
// animation's matrices like its position.
class ViewNormalColour extends MaterialPluginBase {
  constructor(material) {
    super(material, 'VatkitViewNormalColour', 1000, {}, true, true);
  }
  getClassName() {
    return 'ViewNormalColour';
  }
  // StandardMaterial asks for the vertex normal only when a light needs it (without it, normalW is
  // the facet normal from screen-space derivatives); this scene has no light.
  prepareDefinesBeforeAttributes(defines) {
    defines._needNormals = true;
  }
  getCustomCode(shaderType) {
    if (shaderType !== 'fragment') return null;
    return {
      CUSTOM_FRAGMENT_BEFORE_FRAGCOLOR: 'color = vec4(normalize((view * vec4(normalW, 0.0)).xyz) * 0.5 + 0.5, 1.0);',
    };
  }
}

// The playback of one scene instance, refused where Babylon's baked vertex animation cannot play
// it: one clip (no blend, no fade), looping endlessly at a positive speed.
function playbackOf(entry, i) {
  const instance = entry.instance;
  const clip = instance.clip;
  const what = `instances[${i}]`;
  for (const field of ['blend', 'from', 'fadeDuration']) {
    if (instance[field] !== undefined) throw new Error(`${what}: has "${field}"; Babylon's instances play one clip`);
  }
  const loopMode = instance.loopMode ?? clip.loopMode ?? 'repeat';
  const repetitions = instance.repetitions ?? clip.repetitions ?? -1;
  if (loopMode !== 'repeat' || repetitions !== -1) {
    throw new Error(`${what}: plays ${loopMode} x ${repetitions}; Babylon's baked vertex animation loops endlessly`);
  }
  const speed = instance.speed ?? clip.speed ?? 1;
  if (!(speed > 0)) throw new Error(`${what}: speed ${speed}; only a positive speed maps onto Babylon's`);
  if (!(clip.frames > 1 && clip.fps > 0)) throw new Error(`${what}: a clip of ${clip.frames} rows at ${clip.fps} fps`);
  return { startFrame: clip.startFrame, rows: clip.frames, fps: clip.fps, startTime: instance.startTime, speed };
}

// vatkit's playback of one instance mapped onto Babylon's per-instance settings
// (startFrame, endFrame, offset, speed), with Babylon's clock at vatkit's clock + shift.
//
// Babylon's shader (bakedVertexAnimation), for rows from..to (R of them), clock t and settings
// speed s, offset o: cycles c = t s / R; while c < 1 (its first pass) it shows row
// from + floor(mod(fract(c) R + o, R)), afterwards row
// from + 1 + floor(mod(fract(c) (R - 1) + o, R - 1)).
// vatkit (docs/playback.md, Repeat): the band's position x = mod((T - startTime) speed fps, R - 1)
// rows, fps the band's (R - 1) / duration, interpolated between rows floor(x) and floor(x) + 1.
// With s = speed fps R / (R - 1), the later passes advance speed fps rows a second, vatkit's rate,
// over the R - 1 rows from + 1..to (the last row of a looping clip is its first pose). The first
// pass runs R rows at that rate instead, so Babylon's clock is shifted by the longest first pass
// of the crowd: every instance is then past it at every T >= 0. The offset puts the position at
// x - 1/2, so that the row shown is the nearest to x: from + round(x), and the last row, the
// first pose again, for x < 1/2.
function settingsOf(playback, manifestClip, clockShift) {
  const rows = playback.rows;
  const rate = playback.speed * playback.fps;  // rows a second
  return [
    manifestClip.from,
    manifestClip.to,
    mod(-(clockShift + playback.startTime) * rate - 0.5, rows - 1),
    (rate * rows) / (rows - 1),
  ];
}

// vatkit's position x of a playback at time T, in rows of its clip (docs/playback.md, Repeat).
function vatkitPosition(p, time) {
  return mod((time - p.startTime) * p.speed * p.fps, p.rows - 1);
}

// Babylon's shader formula above, in JavaScript (float64): the row it shows.
function babylonRow([startFrame, endFrame, offset, speed], time) {
  const total = endFrame - startFrame + 1;
  const cycles = (time * speed) / total;
  const correction = cycles < 1 ? 0 : 1;
  const n = total - correction;
  return Math.floor(mod((cycles - Math.floor(cycles)) * n + offset, n)) + startFrame + correction;
}

runTest(async (params) => {
  // The module graph has loaded when this runs: its time since navigation and its files.
  const modulesMs = performance.now();
  const moduleFiles = performance.getEntriesByType('resource').filter((e) => e.name.includes('/node_modules/')).length;
  const manifest = await fetchJson(params.get('manifest'));
  const vertexJson = await (await fetchResponse(params.get('vertexData'))).text();
  const descriptions = await parityScenes(params);
  const [first] = descriptions;
  const { width, height } = first;

  const canvas = document.createElement('canvas');
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  document.body.append(canvas);
  const engine = new Engine(canvas, true, { preserveDrawingBuffer: true, adaptToDeviceRatio: false });
  engine.setHardwareScalingLevel(1);
  engine.setSize(width, height);
  if (engine.webGLVersion !== 2) throw new Error(`Babylon runs WebGL ${engine.webGLVersion}, expected 2`);
  const scene = new Scene(engine);
  // glTF is right-handed: in a right-handed scene the loader adds no flip at its root, and the
  // scene file's matrices (OpenGL conventions) apply unchanged.
  scene.useRightHandedSystem = true;
  scene.clearColor = new Color4(0, 0, 0, 1);
  scene.activeCamera = new SceneCamera('vatkit', first.camera, scene);

  const loadStart = performance.now();
  await ImportMeshAsync(params.get('gltf'), scene, {
    pluginOptions: { gltf: { animationStartMode: 0 /* NONE */, targetFps: manifest.fps } },
  });
  const loadMs = performance.now() - loadStart;
  const skinned = scene.meshes.filter((m) => m.skeleton?.id === manifest.babylonSkeletonId && m.getTotalVertices() > 0);
  if (!skinned.length) throw new Error(`${params.get('gltf')}: no mesh with skeleton ${manifest.babylonSkeletonId}`);
  for (const m of scene.meshes) if (!skinned.includes(m)) m.isVisible = false;
  if (skinned[0].skeleton.bones.length !== manifest.bones) {
    throw new Error(`skeleton has ${skinned[0].skeleton.bones.length} bones, the manifest ${manifest.bones}`);
  }

  const baker = new VertexAnimationBaker(scene, skinned[0]);
  const texture = baker.textureFromBakedVertexData(baker.loadBakedVertexDataFromJSON(vertexJson));
  const manager = new BakedVertexAnimationManager(scene);
  manager.texture = texture;
  const material = new StandardMaterial('view normals', scene);
  new ViewNormalColour(material);
  // A shader that fails to compile never gets ready: fail with its log instead of waiting.
  const compileFailed = new Promise((resolve, reject) => {
    material.onError = (effect, errors) => {
      reject(new Error(`the view normals material: ${String(errors).split(/\n\s+at /)[0].replace(/\s+/g, ' ')}`));
    };
  });

  // Playback: the clip by its rows (vatkit's band and the export's clip have the same rows when
  // both sample at the same fps), the settings per instance, one clock shift for the crowd.
  const playbacks = first.instances.map(playbackOf);
  const clipOf = playbacks.map((p, i) => {
    const clip = manifest.clips.find((c) => c.from === p.startFrame && c.frames === p.rows);
    if (!clip) throw new Error(`instances[${i}]: no clip of the export has rows ${p.startFrame}..${p.startFrame + p.rows - 1}`);
    return clip;
  });
  for (const d of descriptions) {
    playbacks.forEach((p, i) => {
      // vatkit holds the first row before an instance starts; Babylon's clock has no such hold.
      if (d.time < p.startTime) throw new Error(`instances[${i}]: starts at ${p.startTime}, after the time ${d.time}`);
    });
  }
  const clockShift = Math.ceil(Math.max(...playbacks.map((p) => (p.rows - 1) / (p.speed * p.fps))));
  const settings = playbacks.map((p, i) => settingsOf(p, clipOf[i], clockShift));

  const count = first.instances.length;
  const settingsBuffer = new Float32Array(count * 4);
  settings.forEach((s, i) => settingsBuffer.set(s, i * 4));
  for (const mesh of skinned) {
    // The shader's world is mesh world (Mw, above the skeleton root) * thin instance matrix; the
    // scene's instance matrices apply after Mw: thin = Mw^-1 * world * Mw.
    const meshWorld = [...mesh.computeWorldMatrix(true).asArray()];
    const meshWorldInverse = [...Matrix.FromArray(meshWorld).invert().asArray()];
    const matrices = new Float32Array(count * 16);
    first.instances.forEach((entry, i) => {
      const world = matrixValues(entry.world, `instances[${i}].world`);
      matrices.set(multiply(meshWorldInverse, multiply(world, meshWorld)), i * 16);
    });
    mesh.material = material;
    mesh.bakedVertexAnimationManager = manager;
    mesh.thinInstanceSetBuffer('matrix', matrices, 16, true);
    mesh.thinInstanceSetBuffer('bakedVertexAnimationSettingsInstanced', settingsBuffer, 4, true);
    mesh.alwaysSelectAsActiveMesh = true;  // bounds of the rest pose are not the animated crowd's
  }

  const draw = async (description) => {
    manager.time = description.time + clockShift;
    await Promise.race([scene.whenReadyAsync(), compileFailed]);
    scene.render();
    return canvasPixels(canvas);
  };

  const compared = await compareWithVatkit(params, descriptions, draw, 'babylon');
  // The row Babylon's formula picks against vatkit's position, per instance: at most half a row
  // apart (the last row stands for the first pose at x < 1/2).
  compared.times.forEach((t) => {
    t.rowError = 0;
    playbacks.forEach((p, i) => {
      const x = vatkitPosition(p, t.time);
      const row = babylonRow(settings[i], t.time + clockShift) - clipOf[i].from;
      const d = Math.abs(row - x);
      t.rowError = Math.max(t.rowError, Math.min(d, Math.abs(d - (p.rows - 1))));
    });
  });
  const result = {
    ...compared,
    modulesMs,
    moduleFiles,
    loadMs,
    clockShift,
    meshes: skinned.length,
    meshWorld: [...skinned[0].computeWorldMatrix(true).asArray()],
    settings,
    renderer: engine.getGlInfo().renderer,
  };
  engine.dispose();
  return result;
});
