// vatkit-three against `vatkit render --shading normals` (tests/web/parity.mjs): the crowd a scene
// file describes (its instances, their world matrices, the camera's view and projection, the
// clock) drawn with VatCrowd and three's MeshNormalMaterial. Query: vat (the .vat.glb), and what
// page.js's parityScenes and compareWithVatkit read (sceneK, refK, lateBy); reports what
// compareWithVatkit returns.
import * as THREE from 'three';
import { loadVat, VatCrowd } from '/vatkit-three/src/index.js';
import { runTest, canvasPixels, matrixValues, parityScenes, compareWithVatkit } from './page.js';

function matrix(values, what) {
  return new THREE.Matrix4().fromArray(matrixValues(values, what));  // column-major, as the scene file
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
  const scenes = await parityScenes(params);
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setClearColor(0x000000, 1);
  const result = await compareWithVatkit(params, scenes, (scene) => renderScene(renderer, asset, scene), 'three');
  renderer.dispose();
  return result;
});
