// The browser tests' static server (browser.mjs startServer): files by URL prefix with their MIME
// types, nothing outside its roots, no listings, the hold/release requests pages/page.js uses, and
// mounts forwarded to another server.
// Usage: node tests/web/static_server.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer, HOLD_PATH, RELEASE_PATH } from './browser.mjs';

// A raw request, so that paths reach the server exactly as written (fetch would normalize them).
function rawGet(port, target, method = 'GET') {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    const chunks = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const status = Number(head.split(' ')[1]);
      const type = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1] ?? null;
      resolve({ status, type, body: rest.join('\r\n\r\n') });
    });
  });
}

function makeTree() {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'vatkit-server-test-'));
  const site = path.join(top, 'site');
  const fixtures = path.join(top, 'fixtures');
  const outside = path.join(top, 'outside');
  for (const dir of [site, path.join(site, 'sub'), fixtures, outside]) fs.mkdirSync(dir, { recursive: true });
  const files = {
    'site/index.html': '<p>site</p>',
    'site/a.js': 'export {};',
    'site/b.mjs': 'export {};',
    'site/c.json': '{}',
    'site/d.glb': 'glTF',
    'site/e.png': 'PNG',
    'site/f.wasm': 'wasm',
    'site/g.unknown': 'bytes',
    'site/sub/deep.txt': 'deep',
    'site/..dots.txt': 'dots',
    'fixtures/ref.png': 'fixture png',
    'outside/secret.txt': 'secret',
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(top, name), text);
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(site, 'link.txt'));
  fs.symlinkSync(path.join(site, 'a.js'), path.join(fixtures, 'inside-link.js'));
  return { top, site, fixtures };
}

test('files by prefix, with their MIME types', async () => {
  const tree = makeTree();
  const server = await startServer({ '/': tree.site, '/fixtures/': tree.fixtures });
  try {
    const expect = {
      '/index.html': 'text/html; charset=utf-8',
      '/a.js': 'text/javascript; charset=utf-8',
      '/b.mjs': 'text/javascript; charset=utf-8',
      '/c.json': 'application/json; charset=utf-8',
      '/d.glb': 'model/gltf-binary',
      '/e.png': 'image/png',
      '/f.wasm': 'application/wasm',
      '/g.unknown': 'application/octet-stream',
    };
    for (const [target, type] of Object.entries(expect)) {
      const reply = await rawGet(server.port, target);
      assert.equal(reply.status, 200, target);
      assert.equal(reply.type, type, target);
    }
    assert.equal((await rawGet(server.port, '/sub/deep.txt')).body, 'deep');
    assert.equal((await rawGet(server.port, '/..dots.txt')).body, 'dots', 'a name that starts with two dots');
    assert.equal((await rawGet(server.port, '/fixtures/ref.png')).body, 'fixture png', 'the longer prefix wins');
    assert.equal((await rawGet(server.port, '/fixtures/inside-link.js')).status, 404, 'a link out of its own root');
    const head = await rawGet(server.port, '/index.html', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal((await rawGet(server.port, '/index.html', 'POST')).status, 405);
  } finally {
    await server.close();
    fs.rmSync(tree.top, { recursive: true, force: true });
  }
});

test('nothing outside the roots, no listings', async () => {
  const tree = makeTree();
  const server = await startServer({ '/': tree.site, '/fixtures/': tree.fixtures });
  try {
    const refused = [
      '/',
      '/sub',
      '/sub/',
      '/fixtures/',
      '/missing.js',
      '/link.txt',
      '/..%2Foutside%2Fsecret.txt',
      '/%2e%2e/outside/secret.txt',
      '/fixtures/..%2F..%2Foutside/secret.txt',
      '/sub/..%5C..%5Coutside%5Csecret.txt',
      '/a.js%00.png',
      '/%E0%A4%A',
    ];
    for (const target of refused) {
      const reply = await rawGet(server.port, target);
      assert.equal(reply.status, 404, target);
      assert.ok(!reply.body.includes('secret') && !reply.body.includes('deep'), target);
    }
    // A literal ".." is resolved by URL rules at the root, never above it.
    const dotted = await rawGet(server.port, '/../../outside/secret.txt');
    assert.equal(dotted.status, 404);
  } finally {
    await server.close();
    fs.rmSync(tree.top, { recursive: true, force: true });
  }
});

test('a held request waits for its own run\'s release, or for its budget', async () => {
  const tree = makeTree();
  const server = await startServer({ '/': tree.site });
  try {
    const order = [];
    const a = fetch(`${server.origin}${HOLD_PATH}?run=a&ms=60000`).then(async (r) => order.push(`a:${(await r.text()).trim()}`));
    const b = fetch(`${server.origin}${HOLD_PATH}?run=b&ms=60000`).then(async (r) => order.push(`b:${(await r.text()).trim()}`));
    const c = fetch(`${server.origin}${HOLD_PATH}?run=c&ms=200`).then(async (r) => order.push(`c:${(await r.text()).trim()}`));
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(order, ['c:budget over']);
    await fetch(`${server.origin}${RELEASE_PATH}?run=b`, { method: 'POST' });
    await b;
    assert.deepEqual(order, ['c:budget over', 'b:released']);
    await fetch(`${server.origin}${RELEASE_PATH}?run=a`, { method: 'POST' });
    await Promise.all([a, c]);
    assert.deepEqual(order, ['c:budget over', 'b:released', 'a:released']);
  } finally {
    await server.close();
    fs.rmSync(tree.top, { recursive: true, force: true });
  }
});

test('a mount naming an origin forwards there, the answer passed back as it came', async () => {
  const tree = makeTree();
  const upstream = await startServer({ '/': tree.site });
  const server = await startServer({ '/': upstream.origin, '/fixtures/': tree.fixtures });
  try {
    const js = await rawGet(server.port, '/a.js?x=1');
    assert.equal(js.status, 200);
    assert.equal(js.type, 'text/javascript; charset=utf-8');
    assert.equal(js.body, 'export {};');
    assert.equal((await rawGet(server.port, '/missing.js')).status, 404, "the upstream's own status");
    assert.equal((await rawGet(server.port, '/index.html', 'POST')).status, 405, "the upstream's own refusal");
    assert.equal((await rawGet(server.port, '/fixtures/ref.png')).body, 'fixture png', 'the longer prefix still wins');
    const held = fetch(`${server.origin}${HOLD_PATH}?run=p&ms=60000`).then((r) => r.text());
    await fetch(`${server.origin}${RELEASE_PATH}?run=p`, { method: 'POST' });
    assert.equal((await held).trim(), 'released', 'hold and release stay with this server');
    await upstream.close();
    assert.equal((await rawGet(server.port, '/a.js')).status, 502, 'an upstream that is gone');
  } finally {
    await server.close();
    fs.rmSync(tree.top, { recursive: true, force: true });
  }
});
