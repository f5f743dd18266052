// Reading a .vat.glb into plain arrays (docs/format.md): what a loader MUST check that is cheap,
// in the specification's order, without three.js. The planes and vertex attributes stay typed
// arrays over the file's bytes (no copy); the loader (loader.js) wraps them in three.js objects.
//
// Not checked (docs/web-three.md lists them): the XXH3-64 checksum (section 5), "integers are not
// 1.0" (JSON.parse cannot tell), the levels of detail's error and screen-size order, the
// sources' ranges beyond their types, and texture sizes against a GPU's limit (only a renderer
// knows it).
import { fail } from './errors.js';
import { EXT_PATH, EXTENSION, GlbDocument, at, read } from './glb.js';

const VERSIONS = [1, 2, 3, 4, 5];  // 5 added each clip's rootMotion, which this loader does not read
// Version 3: a delta vertex's texel column (docs/format.md, "Texel addresses").
export const VERTEX_ADDRESS = '_VAT_VERTEX';
const PRECISION_FORMAT = { f32: 'rgba32f', f16: 'rgba16f', q16: 'rgba16unorm' };
const TEXEL_BYTES = { rgba32f: 16, rgba16f: 8, rgba16unorm: 8 };
const SEMANTICS = ['position', 'normal', 'tangent', 'slots'];

/** The vertex attributes of a .vat.glb (docs/format.md section 2): [glTF name, component type, type]. */
export const ATTRIBUTES = [
  ['POSITION', 5126, 'VEC3'],
  ['NORMAL', 5126, 'VEC3'],
  ['TANGENT', 5126, 'VEC4'],
  ['TEXCOORD_0', 5126, 'VEC2'],
  ['COLOR_0', 5126, 'VEC4'],
  ['_VAT_BIND_POSITION', 5126, 'VEC3'],
  ['_VAT_BIND_NORMAL', 5126, 'VEC3'],
  ['_VAT_BIND_TANGENT', 5126, 'VEC4'],
  ['_VAT_SLOTS_0', 5123, 'VEC4'],
  ['_VAT_SLOT_WEIGHTS_0', 5126, 'VEC4'],
  ['_VAT_SLOTS_1', 5123, 'VEC4'],
  ['_VAT_SLOT_WEIGHTS_1', 5126, 'VEC4'],
];

/**
 * Parses and checks a .vat.glb held in memory.
 * @param {Uint8Array} bytes the whole file; its byteOffset must be a multiple of 16
 * @param {string} file the name used in error messages
 * @returns {object} the VAT as plain data (see loader.js's VatAsset for the fields it keeps)
 * @throws {VatError} at the first rule the file breaks
 */
export function parseVat(bytes, file) {
  const doc = new GlbDocument(bytes, file);
  const ext = extension(doc);
  const vat = header(doc, ext);
  vat.images = images(doc);
  vat.materials = materials(doc, vat.images.length);
  Object.assign(vat, geometry(doc, ext, vat));
  vat.lods = lods(doc, ext, vat);
  vat.planes = planes(doc, ext, vat);
  return vat;
}

// Rule 3: the extension is listed and is an object of a known version.
function extension(doc) {
  const used = doc.top('extensionsUsed');
  if (!used.includes(EXTENSION)) doc.fail('extensionsUsed', `does not list ${EXTENSION} (not a .vat.glb)`);
  const extensions = read.object(read.member(doc.json, 'extensions', doc.file, 'document'), doc.file, 'extensions');
  const ext = read.object(read.member(extensions, EXTENSION, doc.file, 'extensions'), doc.file, EXT_PATH);
  const version = read.u32(read.member(ext, 'version', doc.file, EXT_PATH), doc.file, `${EXT_PATH}.version`);
  if (!VERSIONS.includes(version)) {
    doc.fail(`${EXT_PATH}.version`, `${version} is not supported (vatkit-three reads versions ${VERSIONS.join(', ')})`, 'Unsupported');
  }
  const checksum = read.string(read.member(ext, 'checksum', doc.file, EXT_PATH), doc.file, `${EXT_PATH}.checksum`);
  if (!/^[0-9a-f]{16}$/.test(checksum)) doc.fail(`${EXT_PATH}.checksum`, `"${checksum}" is not 16 lowercase hex digits`);
  return ext;
}

// Rule 5: the top-level properties, the clips and the slots.
function header(doc, ext) {
  const f = doc.file;
  const get = (key) => read.member(ext, key, f, EXT_PATH);
  const vat = {
    file: f,
    json: doc.json,
    extension: ext,
    version: ext.version,
    encoding: read.oneOf(get('encoding'), ['delta', 'rig'], f, `${EXT_PATH}.encoding`),
    precision: read.oneOf(get('precision'), Object.keys(PRECISION_FORMAT), f, `${EXT_PATH}.precision`),
    frameRows: read.u32(get('frameRows'), f, `${EXT_PATH}.frameRows`),
    bounds: bounds(get('bounds'), f, `${EXT_PATH}.bounds`),
  };
  if (vat.frameRows === 0) doc.fail(`${EXT_PATH}.frameRows`, '0');
  vat.clips = read.array(get('clips'), f, `${EXT_PATH}.clips`).map((c, i) => clip(c, vat, f, at(`${EXT_PATH}.clips`, i)));
  if (vat.clips.length === 0) doc.fail(`${EXT_PATH}.clips`, 'empty, a VAT has at least one clip');
  checkBands(vat.clips, f);
  vat.slots = read.array(get('slots'), f, `${EXT_PATH}.slots`);
  if (vat.slots.length > 65536) doc.fail(`${EXT_PATH}.slots`, `${vat.slots.length} slots, at most 65536`);
  if (vat.encoding === 'rig' && vat.slots.length === 0) doc.fail(`${EXT_PATH}.slots`, 'empty, the rig encoding needs slots');
  vat.slots.forEach((s, i) => read.object(s, f, at(`${EXT_PATH}.slots`, i)));
  return vat;
}

function bounds(v, f, where) {
  read.object(v, f, where);
  const vec = (key) => {
    const a = read.array(read.member(v, key, f, where), f, `${where}.${key}`);
    if (a.length !== 3) fail(f, `${where}.${key}`, `${a.length} numbers, expected 3`);
    return a.map((x, i) => read.number(x, f, `${where}.${key}[${i}]`));
  };
  return { min: vec('min'), max: vec('max') };
}

function clip(c, vat, f, where) {
  read.object(c, f, where);
  const get = (key) => read.member(c, key, f, where);
  const firstRow = read.u32(get('firstRow'), f, `${where}.firstRow`);
  const rows = read.u32(get('rows'), f, `${where}.rows`);
  if (rows < 1) fail(f, `${where}.rows`, '0, expected at least 1');
  if (firstRow + rows > vat.frameRows) fail(f, where, `rows ${firstRow} + ${rows} run past frameRows ${vat.frameRows}`);
  for (const key of ['fps', 'duration', 'speed']) {
    if (read.number(get(key), f, `${where}.${key}`) < 0) fail(f, `${where}.${key}`, `${c[key]} is negative`);
  }
  read.string(get('name'), f, `${where}.name`);
  read.oneOf(get('loopMode'), ['repeat', 'once', 'pingPong'], f, `${where}.loopMode`);
  read.oneOf(get('endMode'), ['clamp', 'rewind'], f, `${where}.endMode`);
  if (read.int(get('repetitions'), f, `${where}.repetitions`) < -1) fail(f, `${where}.repetitions`, `${c.repetitions}, expected -1 or more`);
  bounds(get('deltaRange'), f, `${where}.deltaRange`);
  bounds(get('translationRange'), f, `${where}.translationRange`);
  const scale = read.array(get('scaleRange'), f, `${where}.scaleRange`);
  if (scale.length !== 2) fail(f, `${where}.scaleRange`, `${scale.length} numbers, expected 2`);
  scale.forEach((x, i) => read.number(x, f, `${where}.scaleRange[${i}]`));
  if (vat.version >= 4 && 'events' in c) events(c, f, `${where}.events`);
  return c;
}

// Version 4: a clip's named events, {name, time} in time order within its duration (the events
// themselves are the application's: vatkit's events.h finds the ones an instance crosses).
function events(c, f, where) {
  let before = 0;
  read.array(c.events, f, where).forEach((e, i) => {
    const w = at(where, i);
    read.object(e, f, w);
    if (read.string(read.member(e, 'name', f, w), f, `${w}.name`).length === 0) fail(f, `${w}.name`, 'empty, an event has a name');
    const time = read.number(read.member(e, 'time', f, w), f, `${w}.time`);
    if (time < 0 || time > c.duration) fail(f, `${w}.time`, `${time} is outside the clip's duration [0, ${c.duration}]`);
    if (time < before) fail(f, `${w}.time`, `${time} is before the previous event's ${before}: events are stored in time order`);
    before = time;
  });
}

// No two clips' bands share a frame row.
function checkBands(clips, f) {
  const order = clips.map((c, i) => i).sort((a, b) => clips[a].firstRow - clips[b].firstRow);
  for (let k = 1; k < order.length; ++k) {
    const prev = clips[order[k - 1]];
    if (clips[order[k]].firstRow < prev.firstRow + prev.rows) {
      fail(f, at(`${EXT_PATH}.clips`, order[k]), `its band shares frame rows with clips[${order[k - 1]}]'s`);
    }
  }
}

// Rule 6: embedded PNG or JPEG images.
function images(doc) {
  return doc.top('images').map((object, i) => {
    const where = at('images', i);
    read.object(object, doc.file, where);
    if ('uri' in object) doc.fail(`${where}.uri`, 'a .vat.glb embeds its images');
    const mimeType = read.oneOf(read.member(object, 'mimeType', doc.file, where), ['image/png', 'image/jpeg'], doc.file, `${where}.mimeType`);
    const viewIndex = read.u32(read.member(object, 'bufferView', doc.file, where), doc.file, `${where}.bufferView`);
    const range = doc.view(viewIndex, where);
    doc.claim(range, viewIndex, where);
    return { name: object.name ?? '', mimeType, bytes: doc.bytes(range) };
  });
}

// Rule 6: materials, their base colour factors and textures.
function materials(doc, imageCount) {
  const textures = doc.top('textures');
  return doc.top('materials').map((object, i) => {
    const where = at('materials', i);
    read.object(object, doc.file, where);
    const pbr = 'pbrMetallicRoughness' in object ? read.object(object.pbrMetallicRoughness, doc.file, `${where}.pbrMetallicRoughness`) : {};
    const pw = `${where}.pbrMetallicRoughness`;
    const factor = 'baseColorFactor' in pbr ? read.array(pbr.baseColorFactor, doc.file, `${pw}.baseColorFactor`) : [1, 1, 1, 1];
    if (factor.length !== 4) doc.fail(`${pw}.baseColorFactor`, `${factor.length} numbers, expected 4`);
    factor.forEach((x, k) => {
      if (read.number(x, doc.file, `${pw}.baseColorFactor[${k}]`) < 0 || x > 1) doc.fail(`${pw}.baseColorFactor[${k}]`, `${x} is outside [0, 1]`);
    });
    return {
      name: object.name ?? '',
      baseColorFactor: factor,
      baseColorImage: 'baseColorTexture' in pbr ? textureImage(doc, pbr.baseColorTexture, textures, imageCount, `${pw}.baseColorTexture`) : -1,
      alphaMode: 'alphaMode' in object ? read.oneOf(object.alphaMode, ['OPAQUE', 'MASK', 'BLEND'], doc.file, `${where}.alphaMode`) : 'OPAQUE',
      alphaCutoff: 'alphaCutoff' in object ? read.number(object.alphaCutoff, doc.file, `${where}.alphaCutoff`) : 0.5,
      doubleSided: object.doubleSided === true,
    };
  });
}

function textureImage(doc, info, textures, imageCount, where) {
  read.object(info, doc.file, where);
  const index = read.u32(read.member(info, 'index', doc.file, where), doc.file, `${where}.index`);
  if (index >= textures.length) doc.fail(`${where}.index`, `${at('textures', index)} does not exist`);
  const tw = at('textures', index);
  const source = read.u32(read.member(read.object(textures[index], doc.file, tw), 'source', doc.file, tw), doc.file, `${tw}.source`);
  if (source >= imageCount) doc.fail(`${tw}.source`, `${at('images', source)} does not exist`);
  if ((info.texCoord ?? 0) !== 0) doc.fail(`${where}.texCoord`, `${info.texCoord}, a .vat.glb has only set 0`);
  return source;
}

// Rule 7: the mesh's one vertex stream, its one index buffer and its draw groups.
function geometry(doc, ext, vat) {
  const meshIndex = read.u32(read.member(ext, 'mesh', doc.file, EXT_PATH), doc.file, `${EXT_PATH}.mesh`);
  const meshes = doc.top('meshes');
  if (meshIndex >= meshes.length) doc.fail(`${EXT_PATH}.mesh`, `${at('meshes', meshIndex)} does not exist`);
  const mw = at('meshes', meshIndex);
  const primitives = read.array(read.member(read.object(meshes[meshIndex], doc.file, mw), 'primitives', doc.file, mw), doc.file, `${mw}.primitives`);
  if (primitives.length === 0) doc.fail(`${mw}.primitives`, 'empty');
  const first = read.object(primitives[0], doc.file, `${mw}.primitives[0]`);
  const attributes = vertexStream(doc, read.object(read.member(first, 'attributes', doc.file, `${mw}.primitives[0]`), doc.file, `${mw}.primitives[0].attributes`), `${mw}.primitives[0]`, vat);
  const vertexCount = attributes.POSITION.length / 3;
  const index = { viewIndex: -1, indices: null };
  const groups = primitives.map((p, i) => primitive(doc, p, first.attributes, at(`${mw}.primitives`, i), index, vertexCount));
  checkIndices(doc, index.indices, vertexCount, `${at('bufferViews', index.viewIndex)} (indices)`);
  return { vertexCount, attributes, indices: index.indices, groups };
}

function vertexStream(doc, attributes, where, vat) {
  const addressed = vat.version >= 3 && vat.encoding === 'delta';
  for (const name of Object.keys(attributes)) {
    if (addressed && name === VERTEX_ADDRESS) continue;
    if (name === VERTEX_ADDRESS) doc.fail(`${where}.attributes.${name}`, 'only a delta file of version 3 or later addresses texels by it');
    if (!ATTRIBUTES.some(([n]) => n === name)) doc.fail(`${where}.attributes.${name}`, 'not an attribute of a .vat.glb');
  }
  if (!('POSITION' in attributes)) doc.fail(`${where}.attributes.POSITION`, 'missing');
  const out = {};
  let count = 0;
  for (const [name, componentType, type] of ATTRIBUTES) {
    if (!(name in attributes)) continue;
    const aw = `${where}.attributes.${name}`;
    const a = doc.accessor(read.u32(attributes[name], doc.file, aw), componentType, type, aw);
    if (name === 'POSITION') count = a.count;
    else if (a.count !== count) doc.fail(aw, `count ${a.count}, expected the vertex count ${count}`);
    doc.claim(a.range, a.viewIndex, aw);
    if (componentType === 5126) checkFinite(doc, a.array, aw);
    else checkSlots(doc, a.array, vat.slots.length, aw);
    out[name] = a.array;
  }
  checkInfluences(doc, out, vat.encoding, where);
  if (vat.encoding === 'delta') out[VERTEX_ADDRESS] = vertexAddresses(doc, attributes, where, vat, count, addressed);
  return out;
}

// A delta vertex's texel column, what the shader passes to vat_decode (never gl_VertexID): version
// 3's _VAT_VERTEX, checked to be a permutation of 0..count-1 (vertices in any order then decode
// right, with no reordering here); versions 1 and 2 address by the vertex index, 0..count-1.
function vertexAddresses(doc, attributes, where, vat, count, addressed) {
  if (!addressed) return Float32Array.from({ length: count }, (_, i) => i);
  const key = read.member(vat.extension, 'vertexAddress', doc.file, EXT_PATH);
  if (key !== VERTEX_ADDRESS) doc.fail(`${EXT_PATH}.vertexAddress`, `${JSON.stringify(key)}, expected "${VERTEX_ADDRESS}"`);
  const aw = `${where}.attributes.${VERTEX_ADDRESS}`;
  if (!(VERTEX_ADDRESS in attributes)) doc.fail(aw, 'missing (a delta file of version 3 or later addresses each vertex\'s texels by it)');
  const a = doc.accessor(read.u32(attributes[VERTEX_ADDRESS], doc.file, aw), 5126, 'SCALAR', aw);
  if (a.count !== count) doc.fail(aw, `count ${a.count}, expected the vertex count ${count}`);
  doc.claim(a.range, a.viewIndex, aw);
  const first = new Int32Array(count).fill(-1);
  for (let v = 0; v < count; ++v) {
    const x = a.array[v];
    if (!(x >= 0 && x < count)) doc.fail(aw, `value ${x} of vertex ${v} is outside [0, ${count})`);
    if (!Number.isInteger(x)) doc.fail(aw, `value ${x} of vertex ${v} is not an integer`);
    if (first[x] >= 0) doc.fail(aw, `value ${x} of vertex ${v} repeats vertex ${first[x]}'s`);
    first[x] = v;
  }
  return a.array;
}

function checkFinite(doc, array, where) {
  for (let i = 0; i < array.length; ++i) {
    if (!Number.isFinite(array[i])) doc.fail(where, `value ${i} is ${array[i]}, not finite`);
  }
}

function checkSlots(doc, array, slotCount, where) {
  for (let i = 0; i < array.length; ++i) {
    if (array[i] >= slotCount) doc.fail(where, `slot index ${array[i]} (value ${i}) is not below the ${slotCount} slots`);
  }
}

// Slots/weights pairs complete, the second set only with the first; a rig has bind positions and
// the first set.
function checkInfluences(doc, a, encoding, where) {
  for (const k of ['0', '1']) {
    if (('_VAT_SLOTS_' + k in a) !== ('_VAT_SLOT_WEIGHTS_' + k in a)) {
      doc.fail(`${where}.attributes._VAT_SLOTS_${k}`, `_VAT_SLOTS_${k} and _VAT_SLOT_WEIGHTS_${k} come together`);
    }
  }
  if ('_VAT_SLOTS_1' in a && !('_VAT_SLOTS_0' in a)) doc.fail(`${where}.attributes._VAT_SLOTS_1`, 'present without _VAT_SLOTS_0');
  if (encoding !== 'rig') return;
  for (const name of ['_VAT_BIND_POSITION', '_VAT_SLOTS_0']) {
    if (!(name in a)) doc.fail(`${where}.attributes.${name}`, 'missing, the rig encoding needs it');
  }
}

// A primitive: the first one's attributes, triangles, indices in the one index view, its group.
function primitive(doc, object, attributes, where, index, vertexCount) {
  read.object(object, doc.file, where);
  if (JSON.stringify(object.attributes) !== JSON.stringify(attributes)) {
    doc.fail(`${where}.attributes`, "differs from primitives[0]'s (a .vat.glb has one vertex stream)");
  }
  if ('mode' in object && object.mode !== 4) doc.fail(`${where}.mode`, 'not 4 (triangles)');
  if ('targets' in object) doc.fail(`${where}.targets`, 'morph targets are not part of a .vat.glb');
  const iw = `${where}.indices`;
  const a = doc.accessor(read.u32(read.member(object, 'indices', doc.file, where), doc.file, iw), 5125, 'SCALAR', iw);
  if (index.indices === null) {
    index.viewIndex = a.viewIndex;
    if (a.range.length % 4 !== 0) doc.fail(at('bufferViews', a.viewIndex), 'byteLength is not a multiple of 4');
    doc.claim(a.range, a.viewIndex, iw);
    index.indices = new Uint32Array(doc.bin.buffer, doc.bin.byteOffset + a.range.offset, a.range.length / 4);
  } else if (a.viewIndex !== index.viewIndex) {
    doc.fail(iw, `in ${at('bufferViews', a.viewIndex)}, primitives[0]'s are in ${at('bufferViews', index.viewIndex)} (a .vat.glb has one index buffer)`);
  }
  const group = { firstIndex: a.byteOffset / 4, indexCount: a.count, material: -1 };
  if ('material' in object) group.material = read.u32(object.material, doc.file, `${where}.material`);
  if (group.firstIndex % 3 !== 0 || group.indexCount % 3 !== 0) doc.fail(iw, 'first index and count must be multiples of 3');
  if (group.material >= doc.top('materials').length) doc.fail(`${where}.material`, `${at('materials', group.material)} does not exist`);
  return group;
}

function checkIndices(doc, indices, vertexCount, where) {
  if (indices.length % 3 !== 0) doc.fail(where, `${indices.length} indices, not a multiple of 3`);
  for (let i = 0; i < indices.length; ++i) {
    if (indices[i] >= vertexCount) doc.fail(where, `index ${i} is ${indices[i]}, not below the vertex count ${vertexCount}`);
  }
}

// Rule 8: the levels of detail (when present).
function lods(doc, ext, vat) {
  if (!('lods' in ext)) return [];
  const e = `${EXT_PATH}.lods`;
  const levels = read.array(ext.lods, doc.file, e);
  if (levels.length === 0) doc.fail(e, 'empty (a file without levels of detail leaves the property out)');
  let previous = vat.indices.length;
  return levels.map((object, l) => {
    const w = at(e, l);
    read.object(object, doc.file, w);
    const viewIndex = read.u32(read.member(object, 'indices', doc.file, w), doc.file, `${w}.indices`);
    const range = doc.view(viewIndex, `${w}.indices`);
    if (range.length % 4 !== 0 || (doc.bin.byteOffset + range.offset) % 4 !== 0) {
      doc.fail(`${w}.indices`, `${at('bufferViews', viewIndex)} is not 4-byte aligned whole indices`);
    }
    doc.claim(range, viewIndex, w);
    const indices = new Uint32Array(doc.bin.buffer, doc.bin.byteOffset + range.offset, range.length / 4);
    checkIndices(doc, indices, vat.vertexCount, `${w}.indices`);
    if (indices.length === 0 || indices.length >= previous) {
      doc.fail(`${w}.indices`, `${indices.length / 3} triangles, expected at least 1 and fewer than the level before (${previous / 3})`);
    }
    previous = indices.length;
    return { indices, groups: lodGroups(doc, object, vat, indices.length, w), ...lodNumbers(doc, object, w) };
  });
}

function lodGroups(doc, object, vat, indexCount, w) {
  const groups = read.array(read.member(object, 'groups', doc.file, w), doc.file, `${w}.groups`);
  if (groups.length !== vat.groups.length) {
    doc.fail(`${w}.groups`, `${groups.length} groups, expected one per mesh primitive (${vat.groups.length})`);
  }
  return groups.map((g, i) => {
    const gw = at(`${w}.groups`, i);
    read.object(g, doc.file, gw);
    const firstIndex = read.u32(read.member(g, 'firstIndex', doc.file, gw), doc.file, `${gw}.firstIndex`);
    const count = read.u32(read.member(g, 'indexCount', doc.file, gw), doc.file, `${gw}.indexCount`);
    if (firstIndex % 3 !== 0 || count % 3 !== 0 || firstIndex + count > indexCount) {
      doc.fail(gw, `indices ${firstIndex} + ${count}: not multiples of 3 inside the level's ${indexCount}`);
    }
    return { firstIndex, indexCount: count, material: vat.groups[i].material };
  });
}

function lodNumbers(doc, object, w) {
  const out = {};
  for (const key of ['error', 'errorInMotion', 'screenSize']) {
    out[key] = read.number(read.member(object, key, doc.file, w), doc.file, `${w}.${key}`);
    if (out[key] < 0) doc.fail(`${w}.${key}`, `${out[key]} is negative`);
  }
  return out;
}

// Rule 9: the planes, their shapes and views, and the set the encoding and precision require.
function planes(doc, ext, vat) {
  const e = `${EXT_PATH}.planes`;
  const list = read.array(read.member(ext, 'planes', doc.file, EXT_PATH), doc.file, e);
  if (list.length === 0) doc.fail(e, 'empty');
  const out = {};
  list.forEach((object, i) => {
    const p = plane(doc, object, vat, at(e, i));
    if (p.semantic in out) doc.fail(`${at(e, i)}.semantic`, `a second ${p.semantic} plane`);
    out[p.semantic] = p;
  });
  const need = vat.encoding === 'rig' ? 'slots' : 'position';
  if (!(need in out)) doc.fail(e, `no ${need} plane: the ${vat.encoding} encoding needs one`);
  if (vat.encoding === 'delta' && vat.precision === 'q16' && 'normal' in out) {
    doc.fail(e, 'a q16 delta keeps its normals in the position plane, not in a normal plane');
  }
  return out;
}

function plane(doc, object, vat, w) {
  read.object(object, doc.file, w);
  const get = (key) => read.member(object, key, doc.file, w);
  const semantic = read.oneOf(get('semantic'), SEMANTICS, doc.file, `${w}.semantic`);
  const format = read.string(get('format'), doc.file, `${w}.format`);
  const expected = PRECISION_FORMAT[vat.precision];
  if (format !== expected) doc.fail(`${w}.format`, `"${format}", expected "${expected}" for precision ${vat.precision}`);
  const texelsPerFrame = read.u32(get('texelsPerFrame'), doc.file, `${w}.texelsPerFrame`);
  const wantTexels = semantic === 'slots' ? 2 * vat.slots.length : vat.vertexCount;
  if (texelsPerFrame !== wantTexels) doc.fail(`${w}.texelsPerFrame`, `${texelsPerFrame}, expected ${wantTexels}`);
  const width = read.u32(get('width'), doc.file, `${w}.width`);
  if (width < 1) doc.fail(`${w}.width`, '0');
  const rowsPerFrame = read.u32(get('rowsPerFrame'), doc.file, `${w}.rowsPerFrame`);
  if (rowsPerFrame !== Math.ceil(texelsPerFrame / width)) {
    doc.fail(`${w}.rowsPerFrame`, `${rowsPerFrame}, expected ceil(texelsPerFrame / width) = ${Math.ceil(texelsPerFrame / width)}`);
  }
  const height = read.u32(get('height'), doc.file, `${w}.height`);
  if (height !== rowsPerFrame * vat.frameRows) {
    doc.fail(`${w}.height`, `${height}, expected rowsPerFrame * frameRows = ${rowsPerFrame * vat.frameRows}`);
  }
  const viewIndex = read.u32(get('bufferView'), doc.file, `${w}.bufferView`);
  const range = doc.view(viewIndex, `${w}.bufferView`);
  const vw = at('bufferViews', viewIndex);
  const bytes = width * height * TEXEL_BYTES[format];
  if (range.length !== bytes) doc.fail(w, `${vw} has ${range.length} bytes, width * height * ${TEXEL_BYTES[format]} = ${bytes}`);
  if (range.offset % 16 !== 0) doc.fail(w, `${vw}.byteOffset ${range.offset} is not a multiple of 16`);
  if ('byteStride' in range.object) doc.fail(`${vw}.byteStride`, "a plane's view has none");
  doc.claim(range, viewIndex, w);
  const start = doc.bin.byteOffset + range.offset;
  const data = format === 'rgba32f' ? new Float32Array(doc.bin.buffer, start, bytes / 4) : new Uint16Array(doc.bin.buffer, start, bytes / 2);
  return { semantic, format, texelsPerFrame, width, rowsPerFrame, height, data };
}
