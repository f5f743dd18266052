// The crowd example: ?file=URL of a .vat.glb (required), &n=instances (default 100),
// &t=seconds to freeze the clock at (default: real time), &lod=level (default 0),
// &fade=seconds between clip changes (default 3; 0: none).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { VatCrowd, clipBand, loadVat } from 'vatkit-three';

const params = new URLSearchParams(location.search);
const status = document.getElementById('status');
const count = Number(params.get('n') ?? 100);
const frozen = params.has('t') ? Number(params.get('t')) : null;
const fadeEvery = Number(params.get('fade') ?? 3);

function report(text) {
  status.textContent = text;
  document.title = text.split('\n')[0];
}

// A grid of `count` places, one VAT's width apart, centred on the origin.
function placeCrowd(crowd, asset) {
  const { min, max } = asset.bounds;
  const spacing = Math.max(max[0] - min[0], max[2] - min[2]) * 1.3;
  const side = Math.ceil(Math.sqrt(crowd.count));
  const m = new THREE.Matrix4();
  for (let i = 0; i < crowd.count; ++i) {
    const x = (i % side - (side - 1) / 2) * spacing;
    const z = (Math.floor(i / side) - (side - 1) / 2) * spacing;
    m.makeRotationY((i * 2.399) % (2 * Math.PI)).setPosition(x, 0, z);
    crowd.setMatrixAt(i, m);
  }
  return side * spacing;
}

// Instance i plays clip i % clips, started i * 0.37 s ago (desynchronised), at speed 0.8 to 1.2.
function playAll(crowd, asset, now) {
  const clips = asset.clips.length;
  for (let i = 0; i < crowd.count; ++i) {
    crowd.setInstance(i, {
      clip: clipBand(asset.extension, `#${i % clips}`, asset.file),
      startTime: now - i * 0.37,
      speed: 0.8 + 0.4 * ((i * 7) % 10) / 10,
    }, now);
  }
}

// Every few seconds a tenth of the crowd cross-fades into another clip over 0.4 s.
function changeSome(crowd, asset, now, round) {
  for (let i = round % 10; i < crowd.count; i += 10) {
    const clip = clipBand(asset.extension, `#${(i + round) % asset.clips.length}`, asset.file);
    crowd.setInstance(i, { clip, startTime: now, fadeDuration: 0.4 }, now);
  }
}

function makeScene(extent, asset) {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x9db4c8);
  scene.add(new THREE.HemisphereLight(0xdfeaff, 0x4a4036, 1.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.2);
  const height = asset.bounds.max[1] - asset.bounds.min[1];
  sun.position.set(extent * 0.4, Math.max(extent, height) * 1.2, extent * 0.3);
  sun.castShadow = true;
  sun.shadow.mapSize.set(2048, 2048);
  const box = extent * 0.75;
  Object.assign(sun.shadow.camera, { left: -box, right: box, top: box, bottom: -box, near: 0.01, far: extent * 4 });
  scene.add(sun);
  const ground = new THREE.Mesh(new THREE.PlaneGeometry(extent * 2, extent * 2),
    new THREE.MeshStandardMaterial({ color: 0x7c8a70, roughness: 1 }));
  ground.rotation.x = -Math.PI / 2;
  ground.position.y = asset.bounds.min[1] > 0 ? 0 : asset.bounds.min[1] * 0.02;
  ground.receiveShadow = true;
  scene.add(ground);
  return scene;
}

async function main() {
  const file = params.get('file');
  if (!file) throw new Error('add ?file=URL of a .vat.glb to the address');
  const asset = await loadVat(file);
  const crowd = new VatCrowd(asset, count);
  crowd.castShadow = true;
  crowd.receiveShadow = true;
  crowd.lod = Number(params.get('lod') ?? 0);
  const extent = placeCrowd(crowd, asset);
  const scene = makeScene(extent, asset);
  scene.add(crowd);

  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setSize(innerWidth, innerHeight);
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.PCFShadowMap;
  document.body.appendChild(renderer.domElement);
  const camera = new THREE.PerspectiveCamera(45, innerWidth / innerHeight, extent * 0.01, extent * 10);
  camera.position.set(extent * 0.6, extent * 0.45, extent * 0.9);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(0, (asset.bounds.max[1] + asset.bounds.min[1]) / 2, 0);
  controls.update();
  addEventListener('resize', () => {
    camera.aspect = innerWidth / innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(innerWidth, innerHeight);
  });

  const clock = new THREE.Timer();
  playAll(crowd, asset, 0);
  let round = 0;
  let frames = 0;
  renderer.setAnimationLoop((timestamp) => {
    clock.update(timestamp);
    const now = frozen ?? clock.getElapsed();
    if (frozen === null && fadeEvery > 0 && now > (round + 1) * fadeEvery) changeSome(crowd, asset, now, ++round);
    crowd.time = now;
    crowd.update();
    renderer.render(scene, camera);
    report(`${asset.file}: ${asset.encoding} ${asset.precision}, ${count} instances, level ${crowd.lod} ` +
      `(${asset.levels[crowd.lod].triangles} triangles), t = ${now.toFixed(2)} s\n` +
      `draw calls ${renderer.info.render.calls}, frame ${++frames}`);
  });
}

main().catch((e) => {
  report(`error: ${e.message}`);
  document.body.dataset.error = e.message;
  console.error(e);
});
