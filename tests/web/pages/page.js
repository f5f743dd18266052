// What every test page shares: reporting the result into <pre id="result"> (the contract of
// tests/web/browser.mjs's readResult), fetching, reading pixels back, comparing images, measuring
// their coverage and encoding them; and what the parity pages share (reading vatkit's scene files,
// comparing their renders with vatkit's).

// The load event, at which Chromium dumps the DOM, is held by a hidden image whose request the
// test server answers once this page has reported (tests/web/browser.mjs, HOLD_PATH). The run id
// and the budget come from the query runPage adds.
const query = new URLSearchParams(location.search);
const run = encodeURIComponent(query.get('vatkitRun') ?? '');
const budget = Number(query.get('vatkitBudgetMs') ?? 60000);
const holdImage = document.createElement('img');
holdImage.hidden = true;
holdImage.alt = '';
holdImage.src = `/__vatkit__/hold?run=${run}&ms=${budget}`;
document.body.append(holdImage);

let reported = false;

function report(object) {
  if (reported) return;  // the first outcome stands
  reported = true;
  document.getElementById('result').textContent = JSON.stringify(object);
  fetch(`/__vatkit__/release?run=${run}`, { method: 'POST' }).catch(() => {});
}

function describe(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error?.reason ?? error?.message ?? error);
}

// Runs the page's body and reports {done: true, ...what it returned}, or {error} on the first
// exception, including uncaught ones and rejected promises outside the body.
export async function runTest(body) {
  addEventListener('error', (event) => report({ error: `uncaught: ${describe(event.error ?? event.message)}` }));
  addEventListener('unhandledrejection', (event) => report({ error: `unhandled rejection: ${describe(event.reason)}` }));
  try {
    const fields = await body(query);
    report({ ...fields, done: true });
  } catch (error) {
    report({ error: describe(error) });
  }
}

// The response of a GET that succeeded (an HTTP error is thrown, naming the URL), and its JSON.
export async function fetchResponse(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

export async function fetchJson(url) {
  return (await fetchResponse(url)).json();
}

// An RGBA8 ImageData of a canvas (WebGL or 2D) or an ImageBitmap, drawn through a 2D canvas. A
// WebGL canvas must still hold its frame: created with preserveDrawingBuffer, or read in the same
// task as the draw.
export function canvasPixels(canvas) {
  const copy = new OffscreenCanvas(canvas.width, canvas.height);
  const context = copy.getContext('2d', { willReadFrequently: true });
  context.drawImage(canvas, 0, 0);
  return context.getImageData(0, 0, canvas.width, canvas.height);
}

// The RGBA8 pixels of an image at url (a PNG without colour-space chunks is drawn unconverted).
export async function imagePixels(url) {
  const response = await fetchResponse(url);
  const bitmap = await createImageBitmap(await response.blob(), {
    colorSpaceConversion: 'none',
    premultiplyAlpha: 'none',
  });
  return canvasPixels(bitmap);
}

function sameSize(a, b, what) {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`${what}: images of different sizes, ${a.width}x${a.height} and ${b.width}x${b.height}`);
  }
}

// Mean absolute difference over every pixel and channel (alpha included), on a 0..1 scale.
export function meanAbsDiff(a, b) {
  sameSize(a, b, 'meanAbsDiff');
  let sum = 0;
  for (let i = 0; i < a.data.length; ++i) sum += Math.abs(a.data[i] - b.data[i]);
  return sum / (a.data.length * 255);
}

// The per-pixel largest channel difference, times gain, as an opaque grey image.
export function diffImage(a, b, gain = 4) {
  sameSize(a, b, 'diffImage');
  const out = new ImageData(a.width, a.height);
  for (let i = 0; i < a.data.length; i += 4) {
    let d = 0;
    for (let c = 0; c < 4; ++c) d = Math.max(d, Math.abs(a.data[i + c] - b.data[i + c]));
    const v = Math.min(255, d * gain);
    out.data[i] = out.data[i + 1] = out.data[i + 2] = v;
    out.data[i + 3] = 255;
  }
  return out;
}

// A PNG data URL of an ImageData.
export async function pngDataUrl(image) {
  const canvas = new OffscreenCanvas(image.width, image.height);
  canvas.getContext('2d').putImageData(image, 0, 0);
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/png;base64,${btoa(binary)}`;
}

// The share of pixels that are not the background (0, 0, 0).
export function coverage(image) {
  let covered = 0;
  for (let i = 0; i < image.data.length; i += 4) {
    if (image.data[i] || image.data[i + 1] || image.data[i + 2]) ++covered;
  }
  return covered / (image.width * image.height);
}

// A column-major 4x4 matrix of a scene file, checked: its 16 finite numbers.
export function matrixValues(values, what) {
  if (!Array.isArray(values) || values.length !== 16 || !values.every(Number.isFinite)) {
    throw new Error(`${what}: expected 16 finite numbers`);
  }
  return values;
}

// The parity pages (tests/web/parity.mjs): vatkit's scene files (query sceneK, K = 1, 2: what
// `vatkit render --shading normals --scene-out` drew at two times), checked to be drawn with
// --shading normals.
export async function parityScenes(params) {
  const scenes = [];
  for (const k of [1, 2]) {
    const scene = await fetchJson(params.get(`scene${k}`));
    if (scene.shading !== 'normals') throw new Error(`scene${k}: shading "${scene.shading}", expected "normals"`);
    scenes.push(scene);
  }
  return scenes;
}

// Draws each scene with draw (scene => ImageData, or a promise of it) and compares it with vatkit's
// image of that scene (query refK). Returns per time the mean absolute difference, the share of
// pixels each image covers (coverageDrawn, coverageVatkit), the draw's milliseconds and the
// images as PNG data URLs ({NAME: the drawn, vatkit, diff}); the two renders' difference from each
// other (madBetweenTimes); and, for each of query lateBy (seconds, comma-separated), the first
// scene drawn that late against vatkit's first image (madLate).
export async function compareWithVatkit(params, scenes, draw, name) {
  const times = [];
  const renders = [];
  for (const [k, scene] of scenes.entries()) {
    const reference = await imagePixels(params.get(`ref${k + 1}`));
    const started = performance.now();
    const drawn = await draw(scene);
    const drawMs = performance.now() - started;
    renders.push(drawn);
    times.push({
      time: scene.time,
      instances: scene.instances.length,
      mad: meanAbsDiff(drawn, reference),
      coverageDrawn: coverage(drawn),
      coverageVatkit: coverage(reference),
      drawMs,
      images: {
        [name]: await pngDataUrl(drawn),
        vatkit: await pngDataUrl(reference),
        diff: await pngDataUrl(diffImage(drawn, reference)),
      },
    });
  }
  const reference1 = await imagePixels(params.get('ref1'));
  const madLate = [];
  for (const late of (params.get('lateBy') ?? '').split(',').filter(Boolean).map(Number)) {
    madLate.push({ late, mad: meanAbsDiff(await draw({ ...scenes[0], time: scenes[0].time + late }), reference1) });
  }
  return { times, madBetweenTimes: meanAbsDiff(renders[0], renders[1]), madLate };
}
