// The vatkit viewer (index.html). Address parameters: file=URL of a .vat.glb; clip=name or #N;
// n=instances (1 to MAX_COUNT); speed (a factor on each clip's own); spread=0..1 (each instance's
// speed off the panel's by up to this fraction); loop=repeat|once|pingpong; fade=seconds; t=seconds
// (freezes the clock, for screenshots and tests). window.vatkitViewer exposes the state for
// scripts and tests; `ready` turns true once the address's file is shown.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { VatCrowd, clipBand, loadVat } from 'vatkit-three';

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const ui = {
  clip: $('clip'), count: $('count'), speed: $('speed'), spread: $('spread'), loop: $('loop'), fade: $('fade'),
  figures: $('figures'), status: $('status'), name: $('name'), about: $('about'),
};
// The instance-count slider is logarithmic: position p (0 to COUNT_STEPS) is 10^(p / STEPS_PER_DECADE)
// instances, so that 1 to 20 are as easy to pick as 1000 to 10000.
const MAX_COUNT = 10000;
const STEPS_PER_DECADE = 100;
const countAt = (position) => Math.round(10 ** (Number(position) / STEPS_PER_DECADE));
const positionOf = (count) => Math.round(Math.log10(count) * STEPS_PER_DECADE);
ui.count.max = String(positionOf(MAX_COUNT));
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

const state = { asset: null, crowd: null, clip: 0, count: 100, framed: false, start: performance.now() / 1000 };
const clock = () => (frozen ?? performance.now() / 1000 - state.start);

function report(error) {
  ui.status.textContent = error ? String(error.message ?? error) : '';
  if (error) console.error(error);
}

// What instance i plays after a change at clock `now`: the chosen clip, desynchronised by a phase
// from the instance's index, at the clip's own speed times the panel's (each instance off it by up
// to the spread, from a second sequence of the index), in the panel's loop mode, faded over the
// panel's time.
function instanceFor(i, now, fade) {
  const clip = clipBand(state.asset.extension, `#${state.clip}`, state.asset.file);
  const duration = clip.frames > 1 && clip.fps > 0 ? (clip.frames - 1) / clip.fps : 1;
  const offset = ((i * 0.7548777) % 1) * 2 - 1;
  const speed = (clip.speed ?? 1) * Number(ui.speed.value) * (1 + Number(ui.spread.value) * offset);
  const instance = { clip, startTime: now - ((i * 0.618034) % 1) * duration, speed };
  if (ui.loop.value) instance.loopMode = ui.loop.value;
  if (fade > 0) instance.fadeDuration = fade;
  return instance;
}

function playAll(fade) {
  const now = clock();
  for (let i = 0; i < state.crowd.count; ++i) state.crowd.setInstance(i, instanceFor(i, now, fade), now);
}

// The distance from `center` along `direction` at which the camera sees every corner of `box`:
// a corner at (x, y) across the view and z towards the camera needs d >= z + |x| / tan(half
// horizontal angle) and d >= z + |y| / tan(half vertical angle).
function fitDistance(box, center, direction, aspect) {
  const tanV = Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2);
  const tanH = tanV * aspect;
  const right = new THREE.Vector3().crossVectors(new THREE.Vector3(0, 1, 0), direction);
  if (right.lengthSq() < 1e-12) right.set(1, 0, 0);  // looking straight down or up
  right.normalize();
  const up = new THREE.Vector3().crossVectors(direction, right);
  let distance = 0;
  const corner = new THREE.Vector3();
  for (let k = 0; k < 8; ++k) {
    corner.set(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z).sub(center);
    const z = corner.dot(direction);
    distance = Math.max(distance, z + Math.abs(corner.dot(right)) / tanH, z + Math.abs(corner.dot(up)) / tanV);
  }
  return distance;
}

// A grid one character's footprint apart, each turned a little, centred on the origin; the light,
// its shadow box and the ground sized to the crowd's bounding sphere, and the camera backed off
// until the crowd's box fits the view (keeping the direction the person orbited to, once framed).
function placeCrowd() {
  const { crowd, asset } = state;
  const { min, max } = asset.bounds;
  const spacing = Math.max(max[0] - min[0], max[2] - min[2], 1e-3) * 1.3;
  const columns = Math.ceil(Math.sqrt(crowd.count));
  const rows = Math.ceil(crowd.count / columns);
  const m = new THREE.Matrix4();
  for (let i = 0; i < crowd.count; ++i) {
    const x = ((i % columns) - (columns - 1) / 2) * spacing;
    const z = (Math.floor(i / columns) - (rows - 1) / 2) * spacing;
    m.makeRotationY(((i * 0.7548) % 0.8) - 0.4).setPosition(x, 0, z);
    crowd.setMatrixAt(i, m);
  }
  // One character's reach about its own origin in the ground plane, whichever way it is turned.
  const reach = Math.max(...[min[0], max[0]].flatMap((x) => [min[2], max[2]].map((z) => Math.hypot(x, z))));
  const height = max[1] - min[1];
  const halfX = ((columns - 1) / 2) * spacing + reach;
  const halfZ = ((rows - 1) / 2) * spacing + reach;
  const crowdBox = new THREE.Box3(new THREE.Vector3(-halfX, min[1], -halfZ), new THREE.Vector3(halfX, max[1], halfZ));
  const center = crowdBox.getCenter(new THREE.Vector3());
  const radius = Math.hypot(halfX, halfZ, height / 2);

  ground.scale.set(radius * 6, radius * 6, 1);
  ground.position.y = min[1];
  sun.target.position.copy(center);
  sun.position.copy(center).addScaledVector(new THREE.Vector3(0.4, 1.5, 0.3).normalize(), radius * 2);
  Object.assign(sun.shadow.camera, { left: -radius, right: radius, top: radius, bottom: -radius, near: radius * 0.5, far: radius * 3.5 });
  sun.shadow.camera.updateProjectionMatrix();

  const direction = state.framed
    ? camera.position.clone().sub(controls.target).normalize()
    : new THREE.Vector3(0.55, 0.42, 0.72).normalize();
  const aspect = canvas.clientWidth / Math.max(canvas.clientHeight, 1) || camera.aspect;
  const distance = fitDistance(crowdBox, center, direction, aspect) * 1.05;
  controls.target.copy(center);
  camera.position.copy(center).addScaledVector(direction, distance);
  camera.near = radius / 100;
  camera.far = distance + radius * 10;
  camera.updateProjectionMatrix();
  controls.update();
  state.framed = true;
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

// Shows a file: a URL or its bytes. The clip shown: `clipWanted` (a name or #N) when given, else
// the clip of the current file's name if the new file has one, else the first. Nothing changes
// when the file cannot be read (the VatError, one line naming the file, goes to the status line).
async function open(source, name, clipWanted = null) {
  report(null);
  const asset = await loadVat(source, { name });
  const clips = asset.clips;
  const current = state.asset?.clips[state.clip]?.name;
  let clip = 0;
  if (clipWanted) {
    clip = clips.findIndex((c, i) => c.name === clipWanted || `#${i}` === clipWanted);
    if (clip < 0) {
      asset.dispose();
      throw new Error(`${name}: no clip named "${clipWanted}" (clips: ${clips.map((c, i) => c.name || `#${i}`).join(', ')})`);
    }
  } else if (current) {
    clip = Math.max(0, clips.findIndex((c) => c.name === current));
  }
  if (state.crowd) scene.remove(state.crowd);
  state.crowd?.dispose();
  state.crowd = null;
  state.asset?.dispose();
  state.asset = asset;
  state.clip = clip;
  ui.name.textContent = name;
  const ext = asset.extension;
  ui.about.textContent = `${ext.encoding} ${ext.precision}, ${clips.length} clip${clips.length === 1 ? '' : 's'}, ${asset.levels.length - 1} levels of detail`;
  ui.clip.replaceChildren(...clips.map((c, i) => new Option(`${c.name || `#${i}`} (${c.duration.toFixed(2)} s)`, String(i))));
  ui.clip.value = String(clip);
  buildCrowd(state.count);
}

function showValues() {
  $('count-value').textContent = String(state.count);
  $('speed-value').textContent = `${Number(ui.speed.value).toFixed(2)}x`;
  $('spread-value').textContent = `\u00b1${Math.round(Number(ui.spread.value) * 100)} %`;
  $('fade-value').textContent = `${Number(ui.fade.value).toFixed(2)} s`;
}

ui.clip.addEventListener('change', () => { state.clip = Number(ui.clip.value); playAll(Number(ui.fade.value)); });
for (const el of [ui.speed, ui.spread]) {
  el.addEventListener('input', () => { showValues(); if (state.crowd) playAll(Number(ui.fade.value)); });
}
ui.loop.addEventListener('change', () => state.crowd && playAll(Number(ui.fade.value)));
ui.fade.addEventListener('input', showValues);
ui.count.addEventListener('input', () => { state.count = countAt(ui.count.value); showValues(); });
ui.count.addEventListener('change', () => { state.count = countAt(ui.count.value); if (state.asset) buildCrowd(state.count); });

// Dropping a file on the page views it.
addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('dragging'); });
addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  const file = e.dataTransfer.files[0];
  if (file) file.arrayBuffer().then((bytes) => open(bytes, file.name)).catch(report);
});

// Live figures: frame time (the mean time between the last FRAME_WINDOW frames), draw calls and
// triangles (every pass, the shadow map's included).
const FRAME_WINDOW = 30;
const frameTimes = [];
let last = null;
function render() {
  const now = performance.now();
  if (last !== null) frameTimes.push(now - last);
  if (frameTimes.length > FRAME_WINDOW) frameTimes.shift();
  last = now;
  const frameMs = frameTimes.length ? (frameTimes.reduce((sum, ms) => sum + ms, 0) / frameTimes.length).toFixed(2) : '-';
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
  ui.figures.textContent = `frame   ${frameMs} ms\ndraws   ${calls}\ntris    ${triangles.toLocaleString('en')}`;
}
renderer.setAnimationLoop(render);
showValues();

window.vatkitViewer = { state, renderer, scene, camera, ui, render, open };
const file = params.get('file');
for (const [key, el] of [['speed', ui.speed], ['spread', ui.spread], ['loop', ui.loop], ['fade', ui.fade]]) {
  if (params.has(key)) el.value = params.get(key);
}
if (params.has('n')) state.count = Math.min(MAX_COUNT, Math.max(1, Math.round(Number(params.get('n'))) || 1));
ui.count.value = String(positionOf(state.count));
showValues();
if (file) {
  open(file, decodeURIComponent(file.split('/').pop()), params.get('clip')).then(() => { window.vatkitViewer.ready = true; }, report);
} else {
  report('No file: run `vatkit view FILE`, add ?file=URL to the address, or drop a .vat.glb here.');
}
