// A .vat.glb with its vertices in another order, as a glTF tool that reorders them leaves it (the
// vatkit-three tests of texel addresses, docs/format.md "Texel addresses"): vertex j of the result
// holds what vertex src[j] held in every attribute (_VAT_VERTEX included), and every index buffer
// (the primitives', each level of detail's) is remapped. The checksum is not sealed again:
// vatkit-three does not verify it (the C++ loader would refuse the file).

const EXT = 'VATKIT_vertex_animation';
const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };

/**
 * @param {Uint8Array} file a .vat.glb as vatkit writes it
 * @param {number[]} src a permutation of the vertices: the result's vertex j is file vertex src[j]
 * @returns {Uint8Array} a new file, the same length
 */
export function withVerticesMoved(file, src) {
  const bytes = file.slice();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { json, bin } = readJson(bytes);
  const to = new Uint32Array(src.length);
  src.forEach((s, j) => { to[s] = j; });
  for (const index of Object.values(json.meshes[0].primitives[0].attributes)) {
    const a = json.accessors[index];
    const element = COMPONENTS[a.type] * (a.componentType === 5123 ? 2 : 4);
    const start = bin + (json.bufferViews[a.bufferView].byteOffset ?? 0) + (a.byteOffset ?? 0);
    const before = file.slice(start, start + a.count * element);
    src.forEach((s, j) => bytes.set(before.subarray(s * element, (s + 1) * element), start + j * element));
  }
  const remap = (view) => {
    const v = json.bufferViews[view];
    for (let at = bin + (v.byteOffset ?? 0), end = at + v.byteLength; at < end; at += 4) {
      dv.setUint32(at, to[dv.getUint32(at, true)], true);
    }
  };
  remap(json.accessors[json.meshes[0].primitives[0].indices].bufferView);
  for (const level of json.extensions[EXT].lods ?? []) remap(level.indices);
  return bytes;
}

/** The vertex count of a .vat.glb (its POSITION accessor's count). */
export function vertexCount(file) {
  const { json } = readJson(file);
  return json.accessors[json.meshes[0].primitives[0].attributes.POSITION].count;
}

function readJson(bytes) {
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
  return { json: JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength))), bin: 20 + jsonLength + 8 };
}

/** A seeded permutation of 0..n-1 (a linear congruential generator: no randomness in tests). */
export function permutation(n, seed) {
  const out = Array.from({ length: n }, (_, i) => i);
  let x = seed >>> 0;
  for (let i = n - 1; i > 0; --i) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const k = x % (i + 1);
    [out[i], out[k]] = [out[k], out[i]];
  }
  return out;
}
