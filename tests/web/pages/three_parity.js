// vatkit-three against `vatkit render --shading normals`: the crowd a scene file describes (its
// instances, their world matrices, the camera's view and projection, the clock) drawn with
// VatCrowd and three's MeshNormalMaterial, then compared with vatkit's PNG of the same scene.
// Query: vat (the .vat.glb), and per time k = 1, 2: sceneK (vatkit's --scene-out JSON) and refK
// (its PNG); oneFrame (seconds). Reports per time the mean absolute difference against the
// reference, the share of pixels either image covers, every image as a PNG data URL; the two
// renders' difference from each other; and three's render oneFrame late against the first
// reference.
import * as THREE from 'three';
import { loadVat, VatCrowd } from '/vatkit-three/src/index.js';
import {
  runTest,
  fetchJson,
  canvasPixels,
  imagePixels,
  meanAbsDiff,
  diffImage,
  pngDataUrl,
  coverage,
} from './page.js';

function matrix(values, what) {
  if (!Array.isArray(values) || values.length !== 16 || !values.every(Number.isFinite)) {
    throw new Error(`${what}: expected 16 finite numbers`);
  }
  return new THREE.Matrix4().fromArray(values);  // column-major, as the scene file
}

// A camera that uses the scene's matrices as they are: three neither recomputes them from a
// position and a field of view nor inverts them differently (matrixWorld only feeds lighting).
function sceneCamera(camera) {
  const view = matrix(camera.view, 'camera.view');
  const projection = matrix(camera.projection, 'camera.projection');
  const c = new THREE.Camera();
  c.matrixAutoUpdate = false;
  c.matrixWorldAutoUpdate = false;
  c.matrixWorldInverse.copy(view);
  c.matrixWorld.copy(view).invert();
  c.matrix.copy(c.matrixWorld);
  c.projectionMatrix.copy(projection);
  c.projectionMatrixInverse.copy(projection).invert();
  return c;
}

function renderScene(renderer, asset, description) {
  const { width, height } = description;
  renderer.setSize(width, height, false);
  const instances = description.instances;
  const materials = asset.materials.map(() => new THREE.MeshNormalMaterial());
  const crowd = new VatCrowd(asset, instances.length, { materials });
  instances.forEach((entry, i) => {
    crowd.setInstance(i, entry.instance, description.time);
    crowd.setMatrixAt(i, matrix(entry.world, `instances[${i}].world`));
  });
  crowd.time = description.time;
  crowd.update();
  const scene = new THREE.Scene();
  scene.add(crowd);
  renderer.render(scene, sceneCamera(description.camera));
  const pixels = canvasPixels(renderer.domElement);
  crowd.dispose();
  for (const m of materials) m.dispose();
  return pixels;
}

runTest(async (params) => {
  const asset = await loadVat(params.get('vat'));
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setClearColor(0x000000, 1);
  const times = [];
  const renders = [];
  for (const k of [1, 2]) {
    const description = await fetchJson(params.get(`scene${k}`));
    if (description.shading !== 'normals') throw new Error(`scene${k}: shading "${description.shading}", expected "normals"`);
    const reference = await imagePixels(params.get(`ref${k}`));
    const three = renderScene(renderer, asset, description);
    renders.push(three);
    times.push({
      time: description.time,
      instances: description.instances.length,
      mad: meanAbsDiff(three, reference),
      coverageThree: coverage(three),
      coverageVatkit: coverage(reference),
      three: await pngDataUrl(three),
      vatkit: await pngDataUrl(reference),
      diff: await pngDataUrl(diffImage(three, reference)),
    });
  }
  // Sensitivity, reported: three one frame late (params oneFrame, the bake's row interval) against
  // vatkit's first image.
  const late = await fetchJson(params.get('scene1'));
  late.time += Number(params.get('oneFrame'));
  const madOneFrameLate = meanAbsDiff(renderScene(renderer, asset, late), await imagePixels(params.get('ref1')));
  renderer.dispose();
  return { times, madBetweenTimes: meanAbsDiff(renders[0], renders[1]), madOneFrameLate };
});
