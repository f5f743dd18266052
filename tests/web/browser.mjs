// The browser tests' library: a static file server on 127.0.0.1, a headless Chromium that loads
// one page and returns the DOM it left, and the helpers around them (the page's result, artifacts,
// running the vatkit CLI). Node built-ins only. docs/web-testing.md describes how the tests use it.
//
// Contract with a test page: the page writes one JSON object into <pre id="result"> when it is
// done (its field "done" true) or has failed ("error": a one-line message); readResult() returns
// that object. The page computes its own image comparisons (2D canvas) and returns its renders as
// PNG data URLs, which saveDataUrl() writes out as artifacts.

import { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// The repository root (tests/web/ is two levels down), the web folder the pages' modules come
// from, and the test pages.
export const repoRoot = path.resolve(here, '..', '..');
export const webDir = path.join(repoRoot, 'web');
export const pagesDir = path.join(here, 'pages');

// Exit status of a skipped test; tests/CMakeLists.txt gives ctest the same SKIP_RETURN_CODE.
export const SKIP_CODE = 77;

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.glb': 'model/gltf-binary',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

// The MIME type of a served file by its extension; unknown extensions are served as bytes.
export function mimeType(file) {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

// Maps a request path to a file inside one of the mounts, or null: the longest matching prefix
// wins; the decoded path may not leave its root (no "..", no symbolic link pointing outside).
// mounts: [{prefix, root}] with prefix starting and ending with "/" and root a real path.
function resolveRequest(mounts, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  for (const { prefix, root } of mounts) {
    if (!decoded.startsWith(prefix)) continue;
    const rest = decoded.slice(prefix.length);
    if (rest.split('/').some((part) => part === '..')) return null;
    const file = path.resolve(root, rest);
    if (!isInside(root, file)) return null;
    let real;
    try {
      real = fs.realpathSync(file);
    } catch {
      return null;
    }
    if (!isInside(root, real)) return null;
    return real;
  }
  return null;
}

function isInside(root, file) {
  const rel = path.relative(root, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

// When Chromium dumps the DOM (--dump-dom): at the page's load event. A page's work outlives its
// scripts' first run (fetches, GPU readbacks, image decodes), so pages/page.js holds the load
// event with a hidden <img> whose request to HOLD_PATH the server leaves unanswered until the page
// posts its result's run id to RELEASE_PATH, or until the page's budget has passed (then the
// dumped result still says "pending"). runPage puts the run id and the budget in the page's query
// (RUN_PARAM, BUDGET_PARAM), so pages of several runs can share one server.
export const HOLD_PATH = '/__vatkit__/hold';
export const RELEASE_PATH = '/__vatkit__/release';
export const RUN_PARAM = 'vatkitRun';
export const BUDGET_PARAM = 'vatkitBudgetMs';
const MAX_BUDGET_MS = 600000;

// Starts a static server on 127.0.0.1 at an ephemeral port. mounts: {"/": dir, "/fixtures/": dir,
// ...}, URL prefix -> folder. Serves plain files only (GET and HEAD; a folder is 404, no listing),
// plus HOLD_PATH?run=ID&ms=N and RELEASE_PATH?run=ID (above).
// A mount whose value is an origin ("http://127.0.0.1:PORT") forwards the requests under its
// prefix there, path and query unchanged, and passes the answer back as it came (status, headers,
// body): a page of this server can then hold another server's pages in a same-origin iframe.
// Resolves to {origin, port, close()}; origin is "http://127.0.0.1:PORT".
export async function startServer(mounts) {
  const table = Object.entries(mounts)
    .map(([prefix, root]) => {
      if (!prefix.startsWith('/') || !prefix.endsWith('/')) {
        throw new Error(`startServer: mount prefix "${prefix}" must start and end with "/"`);
      }
      if (/^http:\/\//.test(root)) return { prefix, upstream: new URL(root) };
      return { prefix, root: fs.realpathSync(root) };
    })
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const held = new Map();  // run id -> [{res, timer}] of unanswered HOLD_PATH requests
  const answer = (res, text) => {
    if (res.writableEnded) return;
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${text}\n`);
  };
  const release = (run) => {
    for (const { res, timer } of held.get(run) ?? []) {
      clearTimeout(timer);
      answer(res, 'released');
    }
    held.delete(run);
  };
  const server = createServer((req, res) => {
    const send = (status, text) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : `${text}\n`);
    };
    const url = new URL(req.url, 'http://127.0.0.1');
    const run = url.searchParams.get('run') ?? '';
    if (url.pathname === HOLD_PATH && req.method === 'GET') {
      // Nothing is written before the release: the request stays pending, and the load event with it.
      const ms = Math.min(Number(url.searchParams.get('ms')) || 0, MAX_BUDGET_MS);
      const timer = setTimeout(() => answer(res, 'budget over'), ms);
      if (!held.has(run)) held.set(run, []);
      held.get(run).push({ res, timer });
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname === RELEASE_PATH && req.method === 'POST') {
      req.resume();
      release(run);
      return send(200, 'released');
    }
    const forward = table.find((m) => url.pathname.startsWith(m.prefix));
    if (forward?.upstream) return proxy(forward.upstream, req, res, send);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed');
    const file = resolveRequest(table.filter((m) => m.root), url.pathname);
    let stat = null;
    if (file) {
      try {
        stat = fs.statSync(file);
      } catch {
        stat = null;
      }
    }
    if (!stat || !stat.isFile()) return send(404, 'not found');
    res.writeHead(200, {
      'Content-Type': mimeType(file),
      'Content-Length': stat.size,
      'Cache-Control': 'no-store',
    });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () => {
      for (const run of [...held.keys()]) release(run);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

// Forwards req to the upstream origin and pipes its answer back; a 502 when it cannot be reached.
function proxy(upstream, req, res, send) {
  const headers = { ...req.headers, host: upstream.host };
  const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (e) => {
    if (!res.headersSent) send(502, `upstream ${upstream.origin}: ${e.message}`);
    else res.destroy();
  });
  req.pipe(out);
}

// The Chromium binary: $VATKIT_CHROMIUM, else `chromium` on PATH; null when there is none.
export function findChromium() {
  const explicit = process.env.VATKIT_CHROMIUM;
  if (explicit) return fs.existsSync(explicit) ? explicit : null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'chromium');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return null;
}

// Returns the Chromium to use, or ends the process: with the skip status when
// VATKIT_WEB_TESTS_OPTIONAL=1, as a failure otherwise (CI installs Chromium: scripts/setup.sh).
export function requireChromium(testName) {
  const chromium = findChromium();
  if (chromium) return chromium;
  const why = process.env.VATKIT_CHROMIUM
    ? `VATKIT_CHROMIUM=${process.env.VATKIT_CHROMIUM} does not exist`
    : 'no `chromium` on PATH (scripts/setup.sh installs it)';
  if (process.env.VATKIT_WEB_TESTS_OPTIONAL === '1') {
    console.log(`SKIP ${testName}: ${why}; skipped because VATKIT_WEB_TESTS_OPTIONAL=1`);
    process.exit(SKIP_CODE);
  }
  console.error(`FAIL ${testName}: ${why} (set VATKIT_WEB_TESTS_OPTIONAL=1 to skip instead)`);
  process.exit(1);
}

// The flags of every run. SwiftShader through ANGLE gives WebGL2 without a GPU; a fresh profile
// folder per run keeps parallel runs apart; device scale 1 makes canvas pixels CSS pixels; files
// instead of /dev/shm for shared memory, which containers often make tiny (Debian's launcher means
// to add that flag itself when /dev/shm is small, but its test fails where findmnt prints two lines).
// No --virtual-time-budget: its virtual time can run out while a page waits on a GPU readback or
// an image decode, and the DOM was then dumped before the page finished (docs/web-testing.md).
function chromiumFlags({ width, height, profileDir }) {
  return [
    '--headless=new',
    '--no-sandbox',
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    '--force-device-scale-factor=1',
    '--disable-dev-shm-usage',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-extensions',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--mute-audio',
    `--user-data-dir=${profileDir}`,
    `--window-size=${width},${height}`,
    '--dump-dom',
  ];
}

// Loads url in headless Chromium and resolves to {dom, stderr, ms}: the DOM serialized at the
// page's load event, which pages/page.js holds until the page reported or budgetMs passed.
// Rejects when Chromium exits with a failure or runs longer than timeoutMs of real time (then its
// whole process group is killed).
export function runPage(url, { width = 800, height = 600, budgetMs = 60000, timeoutMs = 120000, chromium } = {}) {
  const binary = chromium ?? findChromium();
  if (!binary) return Promise.reject(new Error('runPage: no chromium binary'));
  const pageUrl = new URL(url);
  pageUrl.searchParams.set(RUN_PARAM, randomUUID());
  pageUrl.searchParams.set(BUDGET_PARAM, String(budgetMs));
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatkit-chromium-'));
  const args = [...chromiumFlags({ width, height, profileDir }), pageUrl.href];
  const start = Date.now();
  return new Promise((resolve, reject) => {
    // detached: Chromium in its own process group, so a timeout kills its helpers too.
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    const finish = (error, value) => {
      clearTimeout(timer);
      fs.rmSync(profileDir, { recursive: true, force: true });
      if (error) reject(error);
      else resolve(value);
    };
    child.on('error', (e) => finish(new Error(`runPage: cannot start ${binary}: ${e.message}`)));
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const ms = Date.now() - start;
      if (timedOut) {
        return finish(new Error(`runPage: ${url}: chromium killed after ${timeoutMs} ms\n${tail(stderr)}`));
      }
      if (code !== 0) {
        return finish(new Error(`runPage: ${url}: chromium exited with ${code ?? signal}\n${tail(stderr)}`));
      }
      finish(null, { dom: Buffer.concat(out).toString('utf8'), stderr, ms });
    });
  });
}

// The last lines of Chromium's stderr, without the D-Bus complaints of a machine without a
// session bus (every run prints them) and the Debian launcher's /dev/shm test noise.
function tail(text, lines = 20) {
  const useful = text.split('\n').filter((line) => line && !/dbus|\/usr\/bin\/chromium: \d+: \[/.test(line));
  return useful.slice(-lines).join('\n');
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function unescapeHtml(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return String.fromCodePoint(code);
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

// The JSON object a page wrote into <pre id="result">. Throws with the page's own error when it
// reported one, and when it never finished (no result, or no "done": true).
export function readResult(dom, pageName = 'page') {
  const match = /<pre id="result"[^>]*>([\s\S]*?)<\/pre>/.exec(dom);
  if (!match) throw new Error(`${pageName}: no <pre id="result"> in the dumped DOM`);
  const text = unescapeHtml(match[1]).trim();
  let result;
  try {
    result = JSON.parse(text);
  } catch {
    throw new Error(`${pageName}: the result is not JSON (page did not finish?): ${text.slice(0, 200)}`);
  }
  if (result.error) throw new Error(`${pageName}: ${result.error}`);
  if (result.done !== true) throw new Error(`${pageName}: did not finish within its budget: ${text.slice(0, 200)}`);
  return result;
}

// Loads a page and returns its result object (readResult); stderr lines Chromium printed are
// attached to the error when the page failed.
export async function runPageResult(url, options = {}) {
  const { dom, stderr, ms } = await runPage(url, options);
  try {
    return { result: readResult(dom, url), ms };
  } catch (e) {
    e.message += `\n-- chromium stderr (tail) --\n${tail(stderr)}`;
    throw e;
  }
}

// The folder for a test's artifacts: $VATKIT_ARTIFACTS/<name>, else build/test-artifacts/web/<name>
// in the repository; created.
export function artifactDir(name) {
  const base = process.env.VATKIT_ARTIFACTS || path.join(repoRoot, 'build', 'test-artifacts', 'web');
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// Writes a "data:image/png;base64,..." URL to file.
export function saveDataUrl(dataUrl, file) {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl ?? '');
  if (!match) throw new Error(`saveDataUrl: ${file}: not a base64 data URL`);
  fs.writeFileSync(file, Buffer.from(match[2], 'base64'));
}

// The vatkit CLI: the first argument of the test, else $VATKIT_BIN, else build/bin/vatkit of the
// repository. Ends the process with a failure when it is not there.
export function vatkitBinary(argv = process.argv.slice(2)) {
  const candidate = argv[0] || process.env.VATKIT_BIN || path.join(repoRoot, 'build', 'bin', 'vatkit');
  const resolved = path.resolve(candidate);
  if (!fs.existsSync(resolved)) {
    console.error(`FAIL: vatkit binary ${resolved} not found (pass it as the first argument or in VATKIT_BIN)`);
    process.exit(1);
  }
  return resolved;
}

// Runs the vatkit CLI synchronously; throws with its stderr when it fails.
export function runVatkit(binary, args, { cwd } = {}) {
  const run = spawnSync(binary, args, { cwd, encoding: 'utf8', timeout: 300000 });
  if (run.error) throw new Error(`vatkit ${args.join(' ')}: ${run.error.message}`);
  if (run.status !== 0) {
    throw new Error(`vatkit ${args.join(' ')}: exit ${run.status ?? run.signal}\n${run.stderr.trim()}`);
  }
  return run.stdout;
}

// A file of the shared real assets: under $VATKIT_SHARED_ASSETS, else ../shared/assets beside the
// repository. The path only; requireFile checks it is there.
export function sharedAsset(...parts) {
  const base = process.env.VATKIT_SHARED_ASSETS || path.join(repoRoot, '..', 'shared', 'assets');
  return path.join(base, ...parts);
}

// Fails the running test when file, an input it needs, is not there; returns file.
export function requireFile(file) {
  if (!fs.existsSync(file)) assert.fail(`${file}: missing (set VATKIT_SHARED_ASSETS)`);
  return file;
}

// Writes a test's artifacts to artifactDir(name): each image (a PNG data URL) as KEY.png and
// numbers as numbers.json, and prints the numbers (less the keys of unlogged) as one "# " line,
// after label when there is one. Returns the folder.
export function saveArtifacts(name, { images = {}, numbers, label = '', unlogged = [] }) {
  const out = artifactDir(name);
  for (const [key, url] of Object.entries(images)) saveDataUrl(url, path.join(out, `${key}.png`));
  fs.writeFileSync(path.join(out, 'numbers.json'), `${JSON.stringify(numbers, null, 2)}\n`);
  const logged = Object.fromEntries(Object.entries(numbers).filter(([key]) => !unlogged.includes(key)));
  console.log(`# ${label ? `${label}: ` : ''}${JSON.stringify(logged)}`);
  return out;
}

// What a browser test that drives the vatkit CLI starts with, at the top of its file: Chromium
// (requireChromium: the process ends here when there is none), the CLI (vatkitBinary) and a
// scratch folder `work`, removed after the tests with every server serve() started.
export function browserTest(name) {
  const chromium = requireChromium(name);
  const vatkit = vatkitBinary();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `vatkit-${name}-`));
  const servers = [];
  after(async () => {
    for (const server of servers) await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  });
  return {
    chromium,
    vatkit,
    work,
    // A server of root (a folder, or an origin to forward to) at "/", the test pages at /pages/
    // and the scratch folder at /fixtures/.
    async serve(root = webDir) {
      const server = await startServer({ '/': root, '/pages/': pagesDir, '/fixtures/': work });
      servers.push(server);
      return server;
    },
    // Runs pages/PAGE of server with the query (an object of strings) in a window of width x
    // height; resolves to runPageResult's {result, ms}.
    run(server, page, query, { width, height, budgetMs }) {
      const url = `${server.origin}/pages/${page}?${new URLSearchParams(query)}`;
      return runPageResult(url, { width, height, budgetMs, chromium });
    },
  };
}
