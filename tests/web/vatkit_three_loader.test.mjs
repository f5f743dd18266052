// vatkit-three's loader under Node (node:test): files baked by the vatkit CLI in every encoding
// and precision, with and without levels of detail, loaded with loadVat and checked against the
// file's own JSON and bytes (read here independently), against vertices decoded by hand from the
// specification (docs/format.md section 4) and against `vatkit pose`'s positions; corrupted files
// must throw a one-line VatError. Images are not decoded under Node (no createImageBitmap); one
// test injects a decoder.
//
// Usage: VATKIT_BIN=build/bin/vatkit node --test tests/web/vatkit_three_loader.test.mjs
//        (or the CLI's path as the first argument; VATKIT_ASSETS: the shared assets folder,
//        default ../shared/assets beside the repository). Needs `npm ci` in web/ (three.js and
//        the generated decode chunk).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const web = join(repo, 'web');
const THREE = await import(join(web, 'node_modules', 'three', 'build', 'three.module.js'));
const { loadVat } = await import(join(web, 'vatkit-three', 'src', 'loader.js'));
const { VatError } = await import(join(web, 'vatkit-three', 'src', 'errors.js'));
const { injectDecode } = await import(join(web, 'vatkit-three', 'src', 'material.js'));
const { VatCrowd, selectLod } = await import(join(web, 'vatkit-three', 'src', 'crowd.js'));
const { InstanceTable, clipBand } = await import(join(web, 'vatkit-three', 'src', 'playback.js'));
const { clipEventsCrossed } = await import(join(web, 'vatkit-three', 'src', 'events.js'));
const { permutation, withVerticesMoved } = await import('./vertex_order.mjs');

const vatkit = process.env.VATKIT_BIN ?? process.argv.find((a) => a.endsWith('vatkit'));
const assets = process.env.VATKIT_ASSETS ?? join(repo, '..', 'shared', 'assets');
const fox = join(assets, 'khronos', 'Fox.glb');
const EXT = 'VATKIT_vertex_animation';

// ---- the file read independently of the loader ----------------------------------------------

function readGlb(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  const binStart = 20 + jsonLength + 8;
  return { json, ext: json.extensions[EXT], binStart, bytes };
}

// A view's bytes, or an accessor's as a typed array (copies: independent of the loader's views).
function viewBytes(file, index) {
  const v = file.json.bufferViews[index];
  const start = file.binStart + (v.byteOffset ?? 0);
  return file.bytes.slice(start, start + v.byteLength);
}

function accessorArray(file, index) {
  const a = file.json.accessors[index];
  const components = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[a.type];
  const Array = { 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array }[a.componentType];
  const bytes = viewBytes(file, a.bufferView).slice(a.byteOffset ?? 0);
  return new Array(bytes.buffer, 0, a.count * components);
}

// IEEE 754 binary16 to number.
function half(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// Texel i of frame row r of a plane (section 4), as four numbers: q16 as u = q / 65535.
function texel(file, plane, row, i) {
  const x = i % plane.width;
  const y = row * plane.rowsPerFrame + Math.floor(i / plane.width);
  const bytes = viewBytes(file, plane.bufferView);
  const dv = new DataView(bytes.buffer);
  const at = (y * plane.width + x) * (plane.format === 'rgba32f' ? 16 : 8);
  return [0, 1, 2, 3].map((c) => {
    if (plane.format === 'rgba32f') return dv.getFloat32(at + 4 * c, true);
    const v = dv.getUint16(at + 2 * c, true);
    return plane.format === 'rgba16f' ? half(v) : v / 65535;
  });
}

const lerp = (lo, hi, u) => lo + (hi - lo) * u;

// Delta: rest + the row's delta (q16: against the clip's deltaRange).
function deltaVertex(file, clip, row, v) {
  const plane = file.ext.planes.find((p) => p.semantic === 'position');
  const rest = accessorArray(file, file.json.meshes[0].primitives[0].attributes.POSITION);
  const t = texel(file, plane, row, v);
  const d = plane.format === 'rgba16unorm' ? [0, 1, 2].map((k) => lerp(clip.deltaRange.min[k], clip.deltaRange.max[k], t[k])) : t;
  return [0, 1, 2].map((k) => rest[3 * v + k] + d[k]);
}

// Rig: sum over influences of w (R(q) (s p) + t), q normalized, on the bind-space position.
function rigVertex(file, clip, row, v) {
  const plane = file.ext.planes.find((p) => p.semantic === 'slots');
  const attributes = file.json.meshes[0].primitives[0].attributes;
  const bind = accessorArray(file, attributes._VAT_BIND_POSITION);
  const slots = accessorArray(file, attributes._VAT_SLOTS_0);
  const weights = accessorArray(file, attributes._VAT_SLOT_WEIGHTS_0);
  const p = [bind[3 * v], bind[3 * v + 1], bind[3 * v + 2]];
  const out = [0, 0, 0];
  for (let k = 0; k < 4; ++k) {
    const w = weights[4 * v + k];
    if (w === 0) continue;
    let q = texel(file, plane, row, 2 * slots[4 * v + k]);
    let ts = texel(file, plane, row, 2 * slots[4 * v + k] + 1);
    if (plane.format === 'rgba16unorm') {
      q = q.map((u) => 2 * u - 1);
      const r = clip.translationRange;
      ts = [lerp(r.min[0], r.max[0], ts[0]), lerp(r.min[1], r.max[1], ts[1]), lerp(r.min[2], r.max[2], ts[2]),
        lerp(clip.scaleRange[0], clip.scaleRange[1], ts[3])];
    }
    const moved = rotate(q, p.map((c) => c * ts[3]));
    for (let c = 0; c < 3; ++c) out[c] += w * (moved[c] + ts[c]);
  }
  return out;
}

function rotate(q, p) {
  const n = Math.hypot(...q);
  const [x, y, z, w] = q.map((c) => c / n);
  const u = [y * p[2] - z * p[1], z * p[0] - x * p[2], x * p[1] - y * p[0]]; // cross(q.xyz, p)
  const uu = [y * u[2] - z * u[1], z * u[0] - x * u[2], x * u[1] - y * u[0]];
  return [0, 1, 2].map((c) => p[c] + 2 * (w * u[c] + uu[c]));
}

// ---- the bakes ----------------------------------------------------------------------------

let work;
const baked = {};
const BAKES = [];
for (const encoding of ['delta', 'rig']) {
  for (const precision of ['f32', 'f16', 'q16']) {
    // Without levels of detail at a texture width that wraps a frame onto two rows (delta).
    BAKES.push({ name: `${encoding}_${precision}`, args: ['--lods', '0', '--max-texture-size', '1024'], encoding, precision });
    BAKES.push({ name: `${encoding}_${precision}_lods`, args: ['--lods', '2'], encoding, precision });
  }
}

before(() => {
  assert.ok(vatkit, 'set VATKIT_BIN to the vatkit CLI (or pass its path)');
  work = mkdtempSync(join(tmpdir(), 'vatkit-three-'));
  for (const b of BAKES) {
    const out = join(work, `${b.name}.vat.glb`);
    execFileSync(vatkit, ['bake', fox, '-o', out, '--encoding', b.encoding, '--precision', b.precision,
      '--no-measure', '--threads', '2', ...b.args], { stdio: 'pipe' });
    baked[b.name] = out;
  }
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

async function load(name, options) {
  const bytes = new Uint8Array(readFileSync(baked[name]));
  return { file: readGlb(bytes), asset: await loadVat(bytes, { name: `${name}.vat.glb`, ...options }) };
}

// ---- tests ----------------------------------------------------------------------------------

describe('loadVat', () => {
  for (const b of BAKES) {
    test(`${b.name}: header, planes and geometry are the file's`, async () => {
      const { file, asset } = await load(b.name);
      const { ext, json } = file;
      const attributes = json.meshes[0].primitives[0].attributes;
      assert.equal(asset.encoding, b.encoding);
      assert.equal(asset.precision, b.precision);
      assert.equal(asset.frameRows, ext.frameRows);
      assert.equal(asset.vertexCount, json.accessors[attributes.POSITION].count);
      checkPlanes(file, asset, b);
      checkGeometry(file, asset, b);
      checkLevels(file, asset, b);
      if (b.precision === 'q16') checkRowRanges(file, asset, b);
    });
  }

  for (const name of ['delta_f32', 'delta_f16_lods', 'delta_q16', 'rig_f32_lods', 'rig_f16', 'rig_q16']) {
    test(`${name}: decoded vertices match vatkit pose at a frame row`, async (t) => {
      const { file } = await load(name);
      const clipIndex = 1; // Walk
      const clip = file.ext.clips[clipIndex];
      const k = 5;
      const time = (k * clip.duration) / (clip.rows - 1);
      const pose = JSON.parse(execFileSync(vatkit, ['pose', baked[name], '--clip', `#${clipIndex}`, '--time', String(time)]));
      const positions = pose.primitives[0].positions;
      const decode = file.ext.encoding === 'rig' ? rigVertex : deltaVertex;
      const b = file.ext.bounds;
      const size = Math.hypot(...[0, 1, 2].map((c) => b.max[c] - b.min[c]));
      let worst = 0;
      let moved = 0;
      const rest = accessorArray(file, file.json.meshes[0].primitives[0].attributes.POSITION);
      for (let v = 0; v < positions.length / 3; v += 97) {
        const p = decode(file, clip, clip.firstRow + k, v);
        for (let c = 0; c < 3; ++c) {
          worst = Math.max(worst, Math.abs(p[c] - positions[3 * v + c]));
          moved = Math.max(moved, Math.abs(p[c] - rest[3 * v + c]));
        }
      }
      t.diagnostic(`${name}: worst ${worst.toExponential(2)}, moved ${moved.toFixed(2)}, size ${size.toFixed(1)}`);
      assert.ok(worst <= 1e-4 * size, `${name}: worst difference ${worst} over ${size * 1e-4}`);
      assert.ok(moved > 1e-2 * size, `${name}: the pose should differ from the rest pose (moved ${moved})`);
    });
  }

  test('images: skipped under Node, decoded by an injected decoder as sRGB, flipY false', async () => {
    const { asset } = await load('rig_f16');
    assert.equal(asset.images.length, 1);
    assert.equal(asset.materials[0].map, null);
    const seen = [];
    const decodeImage = async (bytes, mimeType) => {
      seen.push([mimeType, [...bytes.subarray(0, 4)]]);
      return { width: 1, height: 1, data: new Uint8Array(4) };
    };
    const decoded = (await load('rig_f16', { decodeImage })).asset;
    assert.deepEqual(seen, [['image/png', [0x89, 0x50, 0x4e, 0x47]]]);
    const map = decoded.materials[0].map;
    assert.ok(map instanceof THREE.Texture);
    assert.equal(map.colorSpace, THREE.SRGBColorSpace);
    assert.equal(map.flipY, false);
  });

  test('corrupted files throw a one-line VatError naming the file and the object', async () => {
    const bytes = new Uint8Array(readFileSync(baked.delta_f32));
    const cases = [
      ['bad magic', (b) => { b[0] = 0x78; }, 'GLB', 'Parse'],
      ['truncated', (b) => b.slice(0, b.length - 16), 'GLB', 'Parse'],
      ['plane format', (b) => replaceText(b, '"format":"rgba32f"', '"format":"rgba16f"'), 'planes[0].format', 'Corrupt'],
      ['version 6', (b) => replaceText(b, '"version":5', '"version":6'), `extensions.${EXT}.version`, 'Unsupported'],
      ['height', (b) => replaceText(b, '"height":324', '"height":325'), 'planes[0].height', 'Corrupt'],
    ];
    for (const [what, corrupt, object, code] of cases) {
      const copy = bytes.slice();
      const bad = corrupt(copy) ?? copy;
      await assert.rejects(loadVat(bad, { name: 'bad.vat.glb' }), (e) => {
        assert.ok(e instanceof VatError, `${what}: ${e}`);
        assert.ok(!e.message.includes('\n'), `${what}: one line: ${e.message}`);
        assert.ok(e.message.startsWith('bad.vat.glb: '), `${what}: names the file: ${e.message}`);
        assert.ok(e.message.includes(object), `${what}: names ${object}: ${e.message}`);
        assert.equal(e.code, code, what);
        return true;
      });
    }
  });
});

// ---- texel addresses (format version 3) ------------------------------------------------------

describe('clip events', () => {
  test("a baked event fires at its time in every cycle, named, through clipEventsCrossed", async () => {
    const out = join(work, 'fox_events.vat.glb');
    execFileSync(vatkit, ['bake', fox, '-o', out, '--lods', '0', '--no-measure', '--event', 'Walk=mark@0.3'], { stdio: 'pipe' });
    const asset = await loadVat(new Uint8Array(readFileSync(out)), { name: 'fox_events.vat.glb' });
    const walk = asset.clips.findIndex((c) => c.name === 'Walk');
    assert.deepEqual(asset.clips[walk].events, [{ name: 'mark', time: 0.3 }]);
    const table = new InstanceTable(1);
    table.setInstance(0, { clip: clipBand(asset.extension, 'Walk'), startTime: 0, loopMode: 'repeat', speed: 1 }, 0);
    const d = asset.clips[walk].duration;
    // Repeat at speed 1 from 0: the event at phase 0.3 / d fires at 0.3 + k d (docs/events.md).
    const fired = clipEventsCrossed(asset.clips, table.playback(0), 0, 2.5 * d);
    assert.deepEqual(fired.map((e) => [e.name, e.clip, e.cycle, e.band, e.weight]), [0, 1, 2].map((k) => ['mark', walk, k, 0, 1]));
    fired.forEach((e, k) => assert.ok(Math.abs(e.time - (0.3 + k * d)) < 1e-5, `${e.time} vs ${0.3 + k * d}`));
    // Consecutive frames report each crossing once.
    let count = 0;
    for (let f = 0; f < 150; ++f) count += clipEventsCrossed(asset.clips, table.playback(0), f / 60, (f + 1) / 60).length;
    assert.equal(count, clipEventsCrossed(asset.clips, table.playback(0), 0, 150 / 60).length);
  });
});

describe('texel addresses', () => {
  test('a shuffled version-3 delta file decodes the same pose through vatVertex', async () => {
    const name = 'delta_f16_lods';
    const { file } = await load(name);
    assert.equal(file.ext.version, 5);
    assert.equal(file.ext.vertexAddress, '_VAT_VERTEX');
    const n = file.json.accessors[file.json.meshes[0].primitives[0].attributes.POSITION].count;
    const src = permutation(n, 20261203);
    const bytes = withVerticesMoved(file.bytes, src);
    const asset = await loadVat(bytes, { name: 'shuffled.vat.glb' });
    const g = asset.geometry;
    // The attribute travels with the vertex: file vertex j reads texel column src[j].
    assert.deepEqual(Array.from(g.attributes.vatVertex.array), src.map((s) => s));
    // Decoded through the attribute, as material.js's shader does (rest from the vertex's own
    // position, delta from texel vatVertex), every 37th file vertex lands where vatkit pose puts
    // the vertex it came from.
    const clipIndex = 1;
    const clip = file.ext.clips[clipIndex];
    const k = 5;
    const pose = JSON.parse(execFileSync(vatkit, ['pose', baked[name], '--clip', `#${clipIndex}`, '--time', String((k * clip.duration) / (clip.rows - 1))]));
    const positions = pose.primitives[0].positions;
    const plane = file.ext.planes.find((p) => p.semantic === 'position');
    const size = Math.hypot(...[0, 1, 2].map((c) => file.ext.bounds.max[c] - file.ext.bounds.min[c]));
    let worst = 0;
    let wrongByIndex = 0;
    let checked = 0;
    for (let j = 0; j < n; j += 37) {
      const column = g.attributes.vatVertex.array[j];
      const d = texel(file, plane, clip.firstRow + k, column);
      const byIndex = texel(file, plane, clip.firstRow + k, j);
      let errorByIndex = 0;
      for (let c = 0; c < 3; ++c) {
        const rest = g.attributes.position.array[3 * j + c];
        worst = Math.max(worst, Math.abs(rest + d[c] - positions[3 * src[j] + c]));
        errorByIndex = Math.max(errorByIndex, Math.abs(rest + byIndex[c] - positions[3 * src[j] + c]));
      }
      wrongByIndex += errorByIndex > 1e-4 * size;
      ++checked;
    }
    assert.ok(worst <= 1e-4 * size, `worst difference ${worst} over ${size * 1e-4}`);
    assert.ok(wrongByIndex > checked / 2, `the vertex index would decode ${wrongByIndex} of ${checked} wrong`);
    // The shader passes the attribute, never gl_VertexID.
    const source = injectDecode(THREE.ShaderLib.standard.vertexShader, asset.defines);
    assert.ok(source.includes('in float vatVertex;'));
    assert.ok(source.includes('vat_decode(vat_pose, vat_vertex_address(), vat_rest'));
    assert.ok(!/vat_decode(_tangent)?\(vat_pose, gl_VertexID/.test(source));
  });

  test('a version-2 delta file addresses by the vertex index; bad addresses are refused', async () => {
    const { file } = await load('delta_f32');
    const n = file.json.accessors[file.json.meshes[0].primitives[0].attributes.POSITION].count;
    // Version 2: the attribute and its name removed (the JSON keeps its length: spaces).
    const json = JSON.parse(JSON.stringify(file.json));
    json.extensions[EXT].version = 2;
    delete json.extensions[EXT].vertexAddress;
    for (const p of json.meshes[0].primitives) delete p.attributes._VAT_VERTEX;
    const v2 = withJson(file, json);
    const asset = await loadVat(v2, { name: 'v2.vat.glb' });
    assert.deepEqual(Array.from(asset.geometry.attributes.vatVertex.array), Array.from({ length: n }, (_, i) => i));
    // A repeated column, one outside [0, n), a fraction.
    const address = file.json.accessors[file.json.meshes[0].primitives[0].attributes._VAT_VERTEX];
    const at = file.binStart + (file.json.bufferViews[address.bufferView].byteOffset ?? 0);
    for (const [value, why] of [[0, 'value 0 of vertex 3 repeats vertex 0\'s'], [n, `value ${n} of vertex 3 is outside [0, ${n})`], [2.5, 'value 2.5 of vertex 3 is not an integer']]) {
      const bytes = file.bytes.slice();
      new DataView(bytes.buffer).setFloat32(at + 12, value, true);
      await assert.rejects(loadVat(bytes, { name: 'bad.vat.glb' }), (e) => {
        assert.ok(e instanceof VatError, String(e));
        assert.equal(e.message, `bad.vat.glb: meshes[0].primitives[0].attributes._VAT_VERTEX: ${why}`);
        return true;
      });
    }
  });
});

// `file` with its JSON replaced by `json` (padded with spaces to the same chunk length).
function withJson(file, json) {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const length = file.binStart - 28;
  assert.ok(text.length <= length, 'the edited JSON must not grow');
  const bytes = file.bytes.slice();
  bytes.fill(0x20, 20, 20 + length);
  bytes.set(text, 20);
  return bytes;
}

describe('VatCrowd', () => {
  test('playback rows reach the texture, split at texture rows once uploaded', async () => {
    const { asset } = await load('rig_f16_lods');
    const crowd = new VatCrowd(asset, 700);
    const texture = crowd.instanceTexture;
    assert.deepEqual([texture.image.width, texture.image.height, texture.type], [2046, 3, THREE.FloatType]);
    const data = texture.image.data;
    assert.deepEqual(data.subarray(0, 700 * 24), crowd.table.floats);
    const walk = { clip: clipBand(asset.extension, '#1'), startTime: 0 };
    crowd.setInstance(5, walk, 0);
    crowd.update();
    assert.deepEqual(data.subarray(5 * 24, 6 * 24), crowd.table.row(5));
    assert.equal(crowd.table.row(5)[0], asset.clips[1].firstRow);
    assert.deepEqual(texture.updateRanges, []); // before the first upload: the whole texture goes
    texture.onUpdate(texture); // what three calls after uploading it
    for (const i of [339, 340, 341, 342]) crowd.setInstance(i, walk, 0);
    crowd.update();
    // 341 instances per texture row: rows 339-340 end texture row 0, 341-342 start row 1.
    assert.deepEqual(texture.updateRanges, [{ start: 339 * 24, count: 48 }, { start: 341 * 24, count: 48 }]);
    assert.deepEqual(data.subarray(339 * 24, 343 * 24), crowd.table.floats.subarray(339 * 24, 343 * 24));
    crowd.dispose();
  });

  test('materials share the crowd uniforms; lod switches the groups', async () => {
    const { asset } = await load('rig_f16_lods');
    const crowd = new VatCrowd(asset, 3);
    const shader = { uniforms: {}, vertexShader: THREE.ShaderLib.standard.vertexShader };
    crowd.material[0].onBeforeCompile(shader);
    assert.equal(crowd.material[0].customProgramCacheKey(), 'vatkit:VAT_RIG,VAT_F16');
    assert.equal(crowd.customDepthMaterial.customProgramCacheKey(), 'vatkit:VAT_RIG,VAT_F16');
    assert.ok(crowd.customDepthMaterial.isMeshDepthMaterial && crowd.customDistanceMaterial.isMeshDistanceMaterial);
    assert.equal(shader.uniforms.u_vat_slots.value, asset.planes.slots.texture);
    assert.deepEqual(Array.from(shader.uniforms.u_vat_slots_layout.value), [asset.planes.slots.width, 1]);
    assert.equal(shader.uniforms.u_vat_instances.value, crowd.instanceTexture);
    crowd.time = 2.5;
    assert.equal(shader.uniforms.u_vat_time.value, 2.5);
    assert.match(shader.vertexShader, /vat_decode\(vat_pose/);
    assert.notEqual(crowd.material[0], asset.materials[0]);
    assert.deepEqual(crowd.geometry.groups, asset.levels[0].groups);
    crowd.lod = 2;
    assert.deepEqual(crowd.geometry.groups, asset.levels[2].groups);
    assert.deepEqual(asset.geometry.groups, asset.levels[0].groups);
    assert.throws(() => { crowd.lod = 3; }, (e) => e.code === 'Argument' && e.message.includes('VatCrowd.lod'));
    const [s1, s2] = [asset.levels[1].screenSize, asset.levels[2].screenSize];
    assert.ok(s1 > s2);
    assert.deepEqual([selectLod(asset, s2 / 2), selectLod(asset, (s1 + s2) / 2), selectLod(asset, s1 * 2)], [2, 1, 0]);
  });
});

describe('decode chunk', () => {
  test('the generated module holds gl/shaders/vat_decode.glsl as it is', async () => {
    const { vatDecodeGlsl } = await import(join(web, 'vatkit-three', 'src', 'generated', 'vat_decode.glsl.js'));
    assert.equal(vatDecodeGlsl, readFileSync(join(repo, 'gl', 'shaders', 'vat_decode.glsl'), 'utf8'));
  });

  test("three's mesh, depth and distance shaders get the defines, the chunk and one decode", () => {
    const libs = ['standard', 'physical', 'lambert', 'phong', 'basic', 'normal', 'depth', 'distance'];
    for (const lib of libs) {
      const source = injectDecode(THREE.ShaderLib[lib].vertexShader, ['VAT_RIG', 'VAT_Q16']);
      assert.match(source, /#define VAT_RIG\n#define VAT_Q16\n#define VAT_NO_INSTANCE_TABLE\n\/\/ vat_decode\.glsl/, lib);
      assert.ok(!source.includes('#include <begin_vertex>'), lib);
      assert.ok(!source.includes('#include <beginnormal_vertex>'), lib);
      // Decoded in begin_vertex only where beginnormal_vertex did not run first.
      assert.equal(source.split('vat_decode(vat_pose').length - 1, THREE.ShaderLib[lib].vertexShader.includes('<beginnormal_vertex>') ? 2 : 1, lib);
    }
    assert.throws(() => injectDecode('void main() {}', ['VAT_RIG', 'VAT_F32']), VatError);
  });
});

function checkPlanes(file, asset, b) {
  const want = { f32: [THREE.FloatType, THREE.RGBAFormat, 'RGBA32F'], f16: [THREE.HalfFloatType, THREE.RGBAFormat, 'RGBA16F'],
    q16: [THREE.UnsignedShortType, THREE.RGBAIntegerFormat, 'RGBA16UI'] }[b.precision];
  const drawn = file.ext.planes.filter((p) => b.encoding === 'rig' || p.semantic !== 'slots');
  assert.deepEqual(Object.keys(asset.planes).sort(), drawn.map((p) => p.semantic).sort());
  for (const p of drawn) {
    const plane = asset.planes[p.semantic];
    const t = plane.texture;
    assert.deepEqual([t.image.width, t.image.height, plane.rowsPerFrame], [p.width, p.height, p.rowsPerFrame], p.semantic);
    assert.deepEqual([t.type, t.format, t.internalFormat], want, p.semantic);
    assert.deepEqual([t.minFilter, t.magFilter, t.generateMipmaps], [THREE.NearestFilter, THREE.NearestFilter, false]);
    const data = t.image.data;
    assert.equal(data.length, p.width * p.height * 4);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    assert.ok(Buffer.from(bytes).equals(Buffer.from(viewBytes(file, p.bufferView))), `${p.semantic}: texels are the file's`);
  }
  if (b.encoding === 'delta' && b.args.includes('1024')) assert.equal(asset.planes.position.rowsPerFrame, 2);
}

function checkGeometry(file, asset, b) {
  const attributes = file.json.meshes[0].primitives[0].attributes;
  const g = asset.geometry;
  const names = b.encoding === 'rig'
    ? { position: '_VAT_BIND_POSITION', normal: '_VAT_BIND_NORMAL', vat_slots0: '_VAT_SLOTS_0', vat_weights0: '_VAT_SLOT_WEIGHTS_0' }
    : { position: 'POSITION', normal: 'NORMAL', vatVertex: '_VAT_VERTEX' };
  Object.assign(names, { uv: 'TEXCOORD_0' });
  assert.deepEqual(Object.keys(g.attributes).sort(), Object.keys(names).sort());
  for (const [name, gltf] of Object.entries(names)) {
    assert.deepEqual(Array.from(g.attributes[name].array), Array.from(accessorArray(file, attributes[gltf])), name);
  }
  if (b.encoding === 'rig') {
    assert.equal(g.attributes.vat_slots0.gpuType, THREE.IntType);
    assert.ok(g.attributes.vat_slots0.array instanceof Uint16Array);
    assert.deepEqual(asset.defines, ['VAT_RIG', `VAT_${b.precision.toUpperCase()}`]);
  } else {
    assert.deepEqual(asset.defines, ['VAT_DELTA', `VAT_${b.precision.toUpperCase()}`, ...(b.precision === 'q16' ? [] : ['VAT_NORMAL_PLANE'])]);
  }
  const index = accessorArray(file, file.json.meshes[0].primitives[0].indices);
  assert.deepEqual(Array.from(g.index.array.subarray(0, index.length)), Array.from(index));
  assert.deepEqual(g.groups, [{ start: 0, count: index.length, materialIndex: 0 }]);
  assert.deepEqual(g.boundingBox.min.toArray(), file.ext.bounds.min);
}

function checkLevels(file, asset, b) {
  const lods = file.ext.lods ?? [];
  assert.equal(lods.length, b.args.includes('--lods') && b.args[b.args.indexOf('--lods') + 1] === '2' ? 2 : 0);
  assert.equal(asset.levels.length, 1 + lods.length);
  let start = file.json.accessors[file.json.meshes[0].primitives[0].indices].count;
  for (const [l, lod] of lods.entries()) {
    const indices = new Uint32Array(viewBytes(file, lod.indices).buffer);
    const level = asset.levels[l + 1];
    assert.equal(level.triangles, indices.length / 3);
    assert.deepEqual(level.groups, [{ start: start + lod.groups[0].firstIndex, count: lod.groups[0].indexCount, materialIndex: 0 }]);
    assert.deepEqual(Array.from(asset.geometry.index.array.subarray(start, start + indices.length)), Array.from(indices));
    assert.equal(level.screenSize, lod.screenSize);
    start += indices.length;
  }
  assert.equal(asset.geometry.index.count, start);
}

function checkRowRanges(file, asset, b) {
  const t = asset.rowRanges;
  assert.deepEqual([t.image.width, t.image.height, t.type, t.internalFormat], [2, file.ext.frameRows, THREE.FloatType, 'RGBA32F']);
  for (const clip of file.ext.clips) {
    const r = b.encoding === 'rig' ? clip.translationRange : clip.deltaRange;
    const row = clip.firstRow + clip.rows - 1;
    const at = (x) => Array.from(t.image.data.subarray((row * 2 + x) * 4, (row * 2 + x) * 4 + 4));
    assert.deepEqual(at(0), [...r.min, clip.scaleRange[0]].map(Math.fround));
    assert.deepEqual(at(1), [...r.max, clip.scaleRange[1]].map(Math.fround));
  }
}

// The bytes with one JSON text replaced by another of the same length.
function replaceText(bytes, from, to) {
  assert.equal(from.length, to.length);
  const text = new TextDecoder('latin1').decode(bytes);
  const at = text.indexOf(from);
  assert.ok(at > 0, `"${from}" is in the file`);
  bytes.set(new TextEncoder().encode(to), at);
  return bytes;
}
