// The vatkit viewer (index.html). Address parameters: file=URL of a .vat.glb; clip=name or #N;
// n=instances; speed; loop=repeat|once|pingpong; fade=seconds; t=seconds (freezes the clock, for
// screenshots and tests). window.vatkitViewer exposes the state for scripts and tests.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { VatCrowd, clipBand, loadVat } from 'vatkit-three';

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const ui = {
  clip: $('clip'), count: $('count'), speed: $('speed'), loop: $('loop'), fade: $('fade'),
  figures: $('figures'), status: $('status'), name: $('name'), about: $('about'),
};
const frozen = params.has('t') ? Number(params.get('t')) : null;

const canvas = $('view');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
renderer.shadowMap.enabled = true;
renderer.info.autoReset = false;
const camera = new THREE.PerspectiveCamera(35, 1, 0.01, 1000);
const controls = new OrbitControls(camera, canvas);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x9db4c8);
scene.add(new THREE.HemisphereLight(0xdfeaff, 0x4a4036, 1.2));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.castShadow = true;
sun.shadow.mapSize.set(2048, 2048);
scene.add(sun, sun.target);
const ground = new THREE.Mesh(new THREE.PlaneGeometry(1, 1), new THREE.MeshStandardMaterial({ color: 0x7c8a70, roughness: 1 }));
ground.rotation.x = -Math.PI / 2;
ground.receiveShadow = true;
scene.add(ground);

const state = { asset: null, crowd: null, clip: 0, start: performance.now() / 1000 };
const clock = () => (frozen ?? performance.now() / 1000 - state.start);

function report(error) {
  ui.status.textContent = error ? String(error.message ?? error) : '';
  if (error) console.error(error);
}

// What instance i plays after a change at clock `now`: the chosen clip, desynchronised by a phase
// from the instance's index, under the panel's speed and loop mode, faded over the panel's time.
function instanceFor(i, now, fade) {
  const clip = clipBand(state.asset.extension, `#${state.clip}`);
  const duration = clip.frames > 1 && clip.fps > 0 ? (clip.frames - 1) / clip.fps : 1;
  const instance = { clip, startTime: now - ((i * 0.618034) % 1) * duration, speed: Number(ui.speed.value) };
  if (ui.loop.value) instance.loopMode = ui.loop.value;
  if (fade > 0) instance.fadeDuration = fade;
  return instance;
}

function playAll(fade) {
  const now = clock();
  for (let i = 0; i < state.crowd.count; ++i) state.crowd.setInstance(i, instanceFor(i, now, fade), now);
}

// A grid one character's footprint apart, each turned a little, centred on the origin; the camera,
// light and ground framed around it.
function placeCrowd() {
  const { crowd, asset } = state;
  const { min, max } = asset.bounds;
  const spacing = Math.max(max[0] - min[0], max[2] - min[2], 1e-3) * 1.3;
  const side = Math.ceil(Math.sqrt(crowd.count));
  const m = new THREE.Matrix4();
  for (let i = 0; i < crowd.count; ++i) {
    const x = ((i % side) - (side - 1) / 2) * spacing;
    const z = (Math.floor(i / side) - (side - 1) / 2) * spacing;
    m.makeRotationY(((i * 0.7548) % 0.8) - 0.4).setPosition(x, 0, z);
    crowd.setMatrixAt(i, m);
  }
  const extent = side * spacing;
  const height = max[1] - min[1];
  ground.scale.set(extent * 2, extent * 2, 1);
  ground.position.y = min[1];
  sun.position.set(extent * 0.4, Math.max(extent, height) * 1.5, extent * 0.3);
  const box = extent * 0.75 + height;
  Object.assign(sun.shadow.camera, { left: -box, right: box, top: box, bottom: -box, near: 0.01, far: Math.max(extent, height) * 5 });
  sun.shadow.camera.updateProjectionMatrix();
  const radius = Math.hypot(extent, height) * 0.6;
  controls.target.set(0, (min[1] + max[1]) / 2, 0);
  camera.position.set(radius * 1.2, radius * 0.9 + height, radius * 1.6);
  camera.near = radius / 100;
  camera.far = radius * 20;
  camera.updateProjectionMatrix();
  controls.update();
}

function buildCrowd(count) {
  if (state.crowd) {
    scene.remove(state.crowd);
    state.crowd.dispose();
  }
  state.crowd = new VatCrowd(state.asset, count);
  state.crowd.castShadow = true;
  state.crowd.receiveShadow = true;
  scene.add(state.crowd);
  placeCrowd();
  playAll(0);
}

async function open(source, name) {
  report(null);
  const asset = await loadVat(source);
  if (state.crowd) scene.remove(state.crowd);
  state.crowd?.dispose();
  state.crowd = null;
  state.asset?.dispose?.();
  state.asset = asset;
  ui.name.textContent = name;
  const ext = asset.extension;
  ui.about.textContent = `${ext.encoding} ${ext.precision}, ${asset.clips.length} clip${asset.clips.length === 1 ? '' : 's'}, ${asset.levels.length - 1} levels of detail`;
  ui.clip.replaceChildren(...asset.clips.map((c, i) => new Option(`${c.name || `#${i}`} (${c.duration.toFixed(2)} s)`, String(i))));
  const wanted = params.get('clip');
  state.clip = 0;
  if (wanted) state.clip = asset.clips.findIndex((c, i) => c.name === wanted || `#${i}` === wanted);
  if (state.clip < 0) throw new Error(`${name}: no clip named "${wanted}" (clips: ${asset.clips.map((c) => c.name).join(', ')})`);
  ui.clip.value = String(state.clip);
  buildCrowd(Number(ui.count.value));
}

function showValues() {
  $('count-value').textContent = ui.count.value;
  $('speed-value').textContent = `${Number(ui.speed.value).toFixed(2)}x`;
  $('fade-value').textContent = `${Number(ui.fade.value).toFixed(2)} s`;
}

ui.clip.addEventListener('change', () => { state.clip = Number(ui.clip.value); playAll(Number(ui.fade.value)); });
ui.speed.addEventListener('input', () => { showValues(); if (state.crowd) playAll(Number(ui.fade.value)); });
ui.loop.addEventListener('change', () => state.crowd && playAll(Number(ui.fade.value)));
ui.fade.addEventListener('input', showValues);
ui.count.addEventListener('input', showValues);
ui.count.addEventListener('change', () => state.asset && buildCrowd(Number(ui.count.value)));

// Dropping a file on the page views it.
addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
addEventListener('dragleave', () => document.body.classList.remove('dragging'));
addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  const file = e.dataTransfer.files[0];
  if (file) file.arrayBuffer().then((bytes) => open(bytes, file.name)).catch(report);
});

// Live figures: frame time (a running mean of the time between frames), draw calls and triangles.
let last = performance.now();
let frameMs = 0;
function render() {
  const now = performance.now();
  frameMs = frameMs ? frameMs * 0.9 + (now - last) * 0.1 : now - last;
  last = now;
  const { clientWidth: w, clientHeight: h } = canvas;
  if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) || canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
  }
  renderer.info.reset();
  if (state.crowd) {
    state.crowd.time = clock();
    state.crowd.update();
  }
  renderer.render(scene, camera);
  const { calls, triangles } = renderer.info.render;
  ui.figures.textContent = `frame   ${frameMs.toFixed(2)} ms\ndraws   ${calls}\ntris    ${triangles.toLocaleString('en')}`;
}
renderer.setAnimationLoop(render);
showValues();

window.vatkitViewer = { state, renderer, scene, camera, ui, render, open };
const file = params.get('file');
for (const [key, el] of [['n', ui.count], ['speed', ui.speed], ['loop', ui.loop], ['fade', ui.fade]]) {
  if (params.has(key)) el.value = params.get(key);
}
showValues();
if (file) {
  open(file, decodeURIComponent(file.split('/').pop())).then(() => { window.vatkitViewer.ready = true; }, report);
} else {
  report('No file: run `vatkit view FILE`, add ?file=URL to the address, or drop a .vat.glb here.');
}
