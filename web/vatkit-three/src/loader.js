// loadVat: a .vat.glb as three.js objects. The planes, the q16 row ranges and the vertex
// attributes are uploaded as vatkit's own renderer uploads them (gl/src/vat/vat_gpu.cpp): planes
// as the file's texels in their format, read with texelFetch (no filtering, no mipmaps); a rig's
// bind-space geometry and its slot indices as unsigned integer attributes.
import * as THREE from 'three';
import { fail } from './errors.js';
import { parseVat } from './parse.js';

/**
 * One plane as a texture: the file's texels as they are, `width x height`.
 * @typedef {object} VatPlane
 * @property {THREE.DataTexture} texture f32: RGBA32F; f16: RGBA16F (Uint16Array of halves);
 *   q16: RGBA16UI integer texture (the decode chunk reads it with a usampler2D)
 * @property {number} width texels per texture row
 * @property {number} rowsPerFrame texture rows per frame row
 * @property {number} height texture rows (rowsPerFrame * frameRows)
 * @property {number} texelsPerFrame vertices (delta) or 2 x slots (rig)
 * @property {string} format "rgba32f", "rgba16f" or "rgba16unorm"
 */

/**
 * One level of detail: draw groups over the asset's geometry index buffer.
 * @typedef {object} VatLevel
 * @property {{start: number, count: number, materialIndex: number}[]} groups index ranges
 *   (three.js geometry groups) of the level, one per non-empty draw group
 * @property {number} triangles
 * @property {number} error bound on the distance to the full mesh at rest (object units; 0 for level 0)
 * @property {number} errorInMotion the same over every clip's measured poses
 * @property {number} screenSize projected diameter (pixels) up to which the level errs by at most one pixel
 *   (Infinity for level 0)
 */

/**
 * A loaded .vat.glb. Share it between crowds; `dispose()` frees its GPU objects.
 * @typedef {object} VatAsset
 * @property {string} file the name errors use (the URL, or options.name)
 * @property {object} extension the file's VATKIT_vertex_animation JSON (clips, slots, bounds...;
 *   playback.js's clipBand reads it)
 * @property {"delta"|"rig"} encoding
 * @property {"f32"|"f16"|"q16"} precision
 * @property {number} frameRows frame rows over all clips
 * @property {object[]} clips the extension's clip objects (name, firstRow, rows, fps, duration, ...)
 * @property {{min: number[], max: number[]}} bounds object-space bounds of every clip's poses
 * @property {number} vertexCount
 * @property {string[]} defines the decode chunk's defines this VAT needs (as vatkit::gl::decode_defines)
 * @property {Object<string, VatPlane>} planes by semantic: position, normal, tangent (delta), slots (rig)
 * @property {THREE.DataTexture|null} rowRanges q16: RGBA32F, 2 x frameRows; texel (0, r) = (min.xyz,
 *   scaleMin), (1, r) = (max.xyz, scaleMax) of the clip holding row r; null otherwise
 * @property {THREE.BufferGeometry} geometry position/normal/tangent (rest pose for a delta, bind space
 *   for a rig), uv, color, vatVertex (delta: each vertex's texel column, the file's _VAT_VERTEX or
 *   0..n-1 before format version 3; the shader decodes at it, never at gl_VertexID),
 *   vat_slots0/vat_weights0 (vat_slots1/vat_weights1), the index buffer of
 *   every level one after the other, groups = level 0's; bounding box and sphere = `bounds`
 * @property {VatLevel[]} levels level 0 is the full mesh, then the file's levels of detail, finest first
 * @property {THREE.MeshStandardMaterial[]} materials one per glTF material, then glTF's default
 *   material (white, opaque) when a primitive names none
 * @property {{name: string, mimeType: string, bytes: Uint8Array, texture: THREE.Texture|null}[]} images
 *   texture is null where images were not decoded (no createImageBitmap, e.g. under Node)
 * @property {{position: Float32Array, normal: Float32Array|null}|null} rest a rig's rest pose (its
 *   glTF POSITION / NORMAL, which a viewer shows); null for a delta (the geometry holds it)
 * @property {() => void} dispose frees the textures, geometry and materials
 */

/**
 * Loads and checks a .vat.glb (docs/format.md section 6, the cheap rules; the XXH3-64 checksum
 * is not verified: docs/web-three.md).
 * @param {string|URL|ArrayBuffer|Uint8Array} source a URL to fetch, or the file's bytes (kept,
 *   not copied, unless a Uint8Array starts at a byteOffset that is not a multiple of 16)
 * @param {object} [options]
 * @param {AbortSignal} [options.signal] aborts the fetch and the image decoding
 * @param {string} [options.name] the file name in error messages (default: the URL, or "vat.glb")
 * @param {((bytes: Uint8Array, mimeType: string) => Promise<ImageBitmap|object>)|null} [options.decodeImage]
 *   decodes an embedded PNG/JPEG into something THREE.Texture takes; default: createImageBitmap
 *   where it exists, else (Node) images are left undecoded and materials have no map
 * @returns {Promise<VatAsset>}
 * @throws {VatError} one line, `FILE: OBJECT: REASON`, for a file vatkit-three refuses or a failed fetch
 * Cost: the fetch, one pass over the indices and attributes (checks), one copy of the index
 * buffers (levels joined), image decoding; planes are not copied (uploaded at first render).
 */
export async function loadVat(source, options = {}) {
  const { bytes, name } = await readSource(source, options);
  const vat = parseVat(bytes, name);
  const images = await decodeImages(vat, options);
  return makeAsset(vat, images);
}

async function readSource(source, { signal, name }) {
  if (typeof source === 'string' || source instanceof URL) {
    const url = String(source);
    let response;
    try {
      response = await fetch(url, { signal });
    } catch (e) {
      if (signal?.aborted) throw e;
      fail(name ?? url, 'fetch', e.message, 'Io');
    }
    if (!response.ok) fail(name ?? url, 'fetch', `HTTP ${response.status} ${response.statusText}`, 'Io');
    return { bytes: new Uint8Array(await response.arrayBuffer()), name: name ?? url };
  }
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), name: name ?? 'vat.glb' };
  if (source instanceof Uint8Array) {
    // Planes are Float32Array/Uint16Array views: the file must start 16-byte aligned.
    return { bytes: source.byteOffset % 16 === 0 ? source : source.slice(), name: name ?? 'vat.glb' };
  }
  fail(name ?? 'loadVat', 'source', 'expected a URL, an ArrayBuffer or a Uint8Array', 'Argument');
}

function defaultDecoder() {
  if (typeof createImageBitmap !== 'function') return null;
  return (bytes, mimeType) =>
    createImageBitmap(new Blob([bytes], { type: mimeType }), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
}

// The images materials use, decoded once each (null: not decoded).
async function decodeImages(vat, { signal, decodeImage }) {
  const decode = decodeImage === undefined ? defaultDecoder() : decodeImage;
  const used = new Set(vat.materials.map((m) => m.baseColorImage));
  return Promise.all(vat.images.map(async (image, i) => {
    if (!decode || !used.has(i)) return null;
    let decoded;
    try {
      decoded = await decode(image.bytes, image.mimeType);
    } catch (e) {
      fail(vat.file, `images[${i}]`, `cannot decode ${image.mimeType}: ${e.message}`, 'Parse');
    }
    signal?.throwIfAborted();
    return decoded;
  }));
}

function makeAsset(vat, decodedImages) {
  const images = vat.images.map((image, i) => ({ ...image, texture: decodedImages[i] ? imageTexture(decodedImages[i], image.name) : null }));
  const { materials, defaultMaterial } = makeMaterials(vat, images);
  const planes = {};
  for (const [semantic, p] of Object.entries(vat.planes)) {
    // A delta's slots plane only serves CPU sockets: the vertex shader never reads it.
    if (vat.encoding === 'delta' && semantic === 'slots') continue;
    planes[semantic] = { ...p, texture: planeTexture(p, semantic), data: undefined };
  }
  const asset = {
    file: vat.file,
    extension: vat.extension,
    encoding: vat.encoding,
    precision: vat.precision,
    frameRows: vat.frameRows,
    clips: vat.clips,
    bounds: vat.bounds,
    vertexCount: vat.vertexCount,
    defines: decodeDefines(vat),
    planes,
    rowRanges: vat.precision === 'q16' ? rowRangesTexture(vat) : null,
    geometry: makeGeometry(vat),
    levels: makeLevels(vat, defaultMaterial),
    materials,
    images,
    rest: vat.encoding === 'rig' ? { position: vat.attributes.POSITION, normal: vat.attributes.NORMAL ?? null } : null,
  };
  asset.geometry.groups = asset.levels[0].groups.map((g) => ({ ...g }));
  asset.dispose = () => disposeAsset(asset);
  return asset;
}

/**
 * The defines of the decode chunk a VAT needs, as vatkit::gl::decode_defines.
 * @param {{encoding: string, precision: string, planes: object, attributes: object}} vat parsed VAT
 * @returns {string[]}
 */
function decodeDefines(vat) {
  const d = [vat.encoding === 'rig' ? 'VAT_RIG' : 'VAT_DELTA', `VAT_${vat.precision.toUpperCase()}`];
  if (vat.encoding === 'delta') {
    if ('normal' in vat.planes) d.push('VAT_NORMAL_PLANE');
    if ('tangent' in vat.planes) d.push('VAT_TANGENT_PLANE');
  } else if ('_VAT_SLOTS_1' in vat.attributes) {
    d.push('VAT_EIGHT_INFLUENCES');
  }
  return d;
}

/** Texel formats by plane format, as vat_gpu.cpp's upload_format: q16 is integers (GL_RGBA16UI), not 16-bit unorm. */
export const PLANE_FORMATS = {
  rgba32f: { format: THREE.RGBAFormat, type: THREE.FloatType, internal: 'RGBA32F' },
  rgba16f: { format: THREE.RGBAFormat, type: THREE.HalfFloatType, internal: 'RGBA16F' },
  rgba16unorm: { format: THREE.RGBAIntegerFormat, type: THREE.UnsignedShortType, internal: 'RGBA16UI' },
};

/**
 * A texture read with texelFetch: the data as it is, nearest filtering, no mipmaps.
 * @param {ArrayBufferView} data @param {number} width @param {number} height
 * @param {{format: number, type: number, internal: string}} texelFormat one of PLANE_FORMATS
 * @param {string} name
 * @returns {THREE.DataTexture}
 */
export function dataTexture(data, width, height, { format, type, internal }, name) {
  const t = new THREE.DataTexture(data, width, height, format, type);
  t.internalFormat = internal;
  t.minFilter = THREE.NearestFilter;
  t.magFilter = THREE.NearestFilter;
  t.generateMipmaps = false;
  t.name = name;
  t.needsUpdate = true;
  return t;
}

function planeTexture(p, semantic) {
  return dataTexture(p.data, p.width, p.height, PLANE_FORMATS[p.format], `vat ${semantic} plane`);
}

// q16: each frame row's clip ranges (vat_gpu.cpp's row_ranges): the delta range of a delta, the
// translation range of a rig, with the scale range in w. Rows no clip holds are zeros.
function rowRangesTexture(vat) {
  const data = new Float32Array(vat.frameRows * 8);
  for (const c of vat.clips) {
    const r = vat.encoding === 'rig' ? c.translationRange : c.deltaRange;
    const lo = [...r.min, c.scaleRange[0]];
    const hi = [...r.max, c.scaleRange[1]];
    for (let k = 0; k < c.rows && c.firstRow + k < vat.frameRows; ++k) {
      data.set(lo, (c.firstRow + k) * 8);
      data.set(hi, (c.firstRow + k) * 8 + 4);
    }
  }
  return dataTexture(data, 2, vat.frameRows, PLANE_FORMATS.rgba32f, 'vat q16 row ranges');
}

// glTF attribute -> three.js attribute name, by encoding (a rig draws its bind-space data).
const ATTRIBUTE_NAMES = {
  // _VAT_VERTEX: the texel column vat_decode reads (parse.js synthesises it for versions 1 and 2).
  delta: { POSITION: 'position', NORMAL: 'normal', TANGENT: 'tangent', _VAT_VERTEX: 'vatVertex' },
  rig: { _VAT_BIND_POSITION: 'position', _VAT_BIND_NORMAL: 'normal', _VAT_BIND_TANGENT: 'tangent' },
  both: {
    TEXCOORD_0: 'uv', COLOR_0: 'color',
    _VAT_SLOTS_0: 'vat_slots0', _VAT_SLOT_WEIGHTS_0: 'vat_weights0',
    _VAT_SLOTS_1: 'vat_slots1', _VAT_SLOT_WEIGHTS_1: 'vat_weights1',
  },
};
const ITEM_SIZES = { position: 3, normal: 3, tangent: 4, uv: 2, color: 4, vatVertex: 1 };

function makeGeometry(vat) {
  const g = new THREE.BufferGeometry();
  g.name = vat.file;
  const names = { ...ATTRIBUTE_NAMES[vat.encoding], ...ATTRIBUTE_NAMES.both };
  for (const [gltf, name] of Object.entries(names)) {
    const array = vat.attributes[gltf];
    if (!array) continue;
    const attribute = new THREE.BufferAttribute(array, ITEM_SIZES[name] ?? 4);
    // Slot indices arrive as uvec4 (vertexAttribIPointer), as vat_gpu.cpp's glVertexArrayAttribIFormat.
    if (array instanceof Uint16Array) attribute.gpuType = THREE.IntType;
    g.setAttribute(name, attribute);
  }
  g.setIndex(new THREE.BufferAttribute(joinedIndices(vat), 1));
  const { min, max } = vat.bounds;
  g.boundingBox = new THREE.Box3(new THREE.Vector3(...min), new THREE.Vector3(...max));
  g.boundingSphere = g.boundingBox.getBoundingSphere(new THREE.Sphere());
  return g;
}

// One index buffer: the full mesh, then each level of detail (as vat_gpu.cpp).
function joinedIndices(vat) {
  const total = vat.lods.reduce((n, l) => n + l.indices.length, vat.indices.length);
  const out = new Uint32Array(total);
  out.set(vat.indices);
  let at = vat.indices.length;
  for (const level of vat.lods) {
    out.set(level.indices, at);
    at += level.indices.length;
  }
  return out;
}

// Level 0 = the mesh's draw groups; level l = the file's lods[l - 1], placed after the levels before.
function makeLevels(vat, defaultMaterial) {
  const material = (m) => (m >= 0 ? m : defaultMaterial);
  const groups = (list, base) => list.filter((g) => g.indexCount > 0)
    .map((g) => ({ start: base + g.firstIndex, count: g.indexCount, materialIndex: material(g.material) }));
  const levels = [{
    groups: groups(vat.groups, 0), triangles: vat.indices.length / 3, error: 0, errorInMotion: 0, screenSize: Infinity,
  }];
  let base = vat.indices.length;
  for (const l of vat.lods) {
    levels.push({
      groups: groups(l.groups, base), triangles: l.indices.length / 3,
      error: l.error, errorInMotion: l.errorInMotion, screenSize: l.screenSize,
    });
    base += l.indices.length;
  }
  return levels;
}

function imageTexture(image, name) {
  const t = new THREE.Texture(image);
  t.name = name;
  t.colorSpace = THREE.SRGBColorSpace;
  t.flipY = false; // glTF's texture coordinates: origin at the image's top left
  t.wrapS = THREE.RepeatWrapping;
  t.wrapT = THREE.RepeatWrapping;
  t.needsUpdate = true;
  return t;
}

// One MeshStandardMaterial per glTF material, then glTF's default one where a primitive names none.
function makeMaterials(vat, images) {
  const vertexColors = 'COLOR_0' in vat.attributes;
  const materials = vat.materials.map((m) => standardMaterial(m, images[m.baseColorImage]?.texture ?? null, vertexColors));
  let defaultMaterial = -1;
  if (vat.groups.some((g) => g.material < 0)) {
    defaultMaterial = materials.length;
    materials.push(standardMaterial({ name: 'default', baseColorFactor: [1, 1, 1, 1], alphaMode: 'OPAQUE', doubleSided: false }, null, vertexColors));
  }
  return { materials, defaultMaterial };
}

function standardMaterial(m, map, vertexColors) {
  const [r, g, b, a] = m.baseColorFactor;
  const material = new THREE.MeshStandardMaterial({
    name: m.name,
    color: new THREE.Color().setRGB(r, g, b, THREE.LinearSRGBColorSpace),
    opacity: a,
    map,
    metalness: 0, // a .vat.glb keeps no metalness (docs/format.md: written as 0)
    roughness: 1,
    vertexColors,
    side: m.doubleSided ? THREE.DoubleSide : THREE.FrontSide,
  });
  if (m.alphaMode === 'BLEND') {
    material.transparent = true;
    material.depthWrite = false;
  } else if (m.alphaMode === 'MASK') {
    material.alphaTest = m.alphaCutoff;
  }
  return material;
}

function disposeAsset(asset) {
  for (const p of Object.values(asset.planes)) p.texture.dispose();
  asset.rowRanges?.dispose();
  for (const image of asset.images) image.texture?.dispose();
  for (const m of asset.materials) m.dispose();
  asset.geometry.dispose();
}
