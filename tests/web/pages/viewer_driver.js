// Drives the vatkit viewer (web/viewer, served by `vatkit view` and forwarded by the test server
// so that it is same-origin) through its own DOM controls, in an iframe. Query: viewer=the
// viewer's address (clock frozen, no fade); reference=the same with the second clip named in the
// address; drop=a second .vat.glb to drop on the page; clip=the option value to switch to;
// countPosition=a position of the instance-count slider to move it to. Reports what the page
// showed at each step, the images' mean absolute differences, and the renders as PNG data URLs
// (viewer.test.mjs asserts).
import { runTest, canvasPixels, meanAbsDiff, diffImage, pngDataUrl } from './page.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, test, ms = 40000) {
  const end = performance.now() + ms;
  for (;;) {
    const value = test();
    if (value) return value;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// Loads url in the iframe and waits until the viewer shows its file (or says why not).
async function load(frame, url) {
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.src = url;
  await loaded;
  const win = frame.contentWindow;
  const status = () => win.document.getElementById('status').textContent;
  await until(`the viewer to show ${url}`, () => win.vatkitViewer?.ready || status());
  if (!win.vatkitViewer?.ready) throw new Error(`the viewer says: ${status()}`);
  return win;
}

// What the panel shows.
function panel(win) {
  const ui = win.vatkitViewer.ui;
  return {
    name: ui.name.textContent,
    clips: [...ui.clip.options].map((o) => ({ value: o.value, text: o.textContent })),
    clip: ui.clip.value,
    figures: ui.figures.textContent,
    status: ui.status.textContent,
    count: win.document.getElementById('count-value').textContent,
  };
}

// The frame row each instance shows at the frozen clock (the playback table's own resolve).
function rows(win) {
  const { state } = win.vatkitViewer;
  const t = state.crowd.time;
  return Array.from({ length: state.crowd.count }, (_, i) => state.crowd.table.resolve(i, t).a.row);
}

// One frame of the viewer's own render function, read back at once.
function capture(win) {
  win.vatkitViewer.render();
  return canvasPixels(win.vatkitViewer.renderer.domElement);
}

async function animationFrames(win, n) {
  for (let i = 0; i < n; ++i) await new Promise((resolve) => win.requestAnimationFrame(resolve));
}

function drop(win, bytes, name) {
  const transfer = new win.DataTransfer();
  transfer.items.add(new win.File([bytes], name));
  const target = win.document.getElementById('view');
  for (const type of ['dragenter', 'dragover', 'drop']) {
    target.dispatchEvent(new win.DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }
}

runTest(async (query) => {
  const frame = document.getElementById('viewer');
  const started = performance.now();
  const steps = {};
  const step = (name) => { steps[name] = Math.round(performance.now() - started); };

  // The viewer opens its file; its animation loop fills in the live figures.
  const win = await load(frame, query.get('viewer'));
  await animationFrames(win, 2);
  step('loaded');
  const opened = panel(win);
  step('framed');
  const rowsBefore = rows(win);

  // Two renders with nothing changed, then the clip switched through the <select>, as a person would.
  const before = capture(win);
  const again = capture(win);
  const select = win.vatkitViewer.ui.clip;
  select.value = query.get('clip');
  select.dispatchEvent(new win.Event('change', { bubbles: true }));
  const after = capture(win);
  const switched = panel(win);
  const rowsAfter = rows(win);
  step('switched');

  // The instance count changed through its slider keeps the clip.
  const count = win.vatkitViewer.ui.count;
  count.value = query.get('countPosition');
  count.dispatchEvent(new win.Event('input', { bubbles: true }));
  count.dispatchEvent(new win.Event('change', { bubbles: true }));
  const recountImage = capture(win);
  const recounted = { ...panel(win), instances: win.vatkitViewer.state.crowd.count, rows: rows(win) };
  step('recounted');

  // A dropped file replaces the one shown; a file that is no .vat.glb leaves it and says why.
  const bytes = await (await fetch(query.get('drop'))).arrayBuffer();
  const dropName = query.get('drop').split('/').pop();
  drop(win, bytes, dropName);
  await until('the dropped file to show', () => win.vatkitViewer.ui.name.textContent === dropName || win.vatkitViewer.ui.status.textContent);
  const droppedImage = capture(win);
  const dropped = { ...panel(win), rows: rows(win) };
  step('dropped');
  drop(win, new TextEncoder().encode('this is no glb file'), 'bad.vat.glb');
  await until('the bad file\'s error', () => win.vatkitViewer.ui.status.textContent);
  const bad = panel(win);
  const badImage = capture(win);
  step('bad');

  // The same viewer opened on the second clip by its address: what the switch should have shown.
  const reference = await load(frame, query.get('reference'));
  await animationFrames(reference, 2);
  const referenceImage = capture(reference);
  const referencePanel = panel(reference);
  step('reference');

  // The viewer's animation loop shares this page's thread: removing it makes the encoding quick.
  frame.remove();
  const images = {
    before: await pngDataUrl(before),
    after: await pngDataUrl(after),
    diff: await pngDataUrl(diffImage(before, after)),
    reference: await pngDataUrl(referenceImage),
    dropped: await pngDataUrl(droppedImage),
  };
  step('encoded');
  return {
    steps,
    opened,
    rowsBefore,
    switched,
    rowsAfter,
    recounted,
    dropped,
    bad,
    referencePanel,
    mad: {
      unchanged: meanAbsDiff(before, again),
      switched: meanAbsDiff(before, after),
      switchedVsReference: meanAbsDiff(after, referenceImage),
      recounted: meanAbsDiff(after, recountImage),
      dropped: meanAbsDiff(recountImage, droppedImage),
      bad: meanAbsDiff(droppedImage, badImage),
    },
    images,
  };
});
