// The decode chunk (gl/shaders/vat_decode.glsl, embedded by scripts/embed-glsl.mjs) injected into
// three.js's own materials: their vertex shader decodes the VAT where it would read the position
// and normal attributes, and everything after (instancing, lighting, shadows, fog) is three's.
import * as THREE from 'three';
import { fail } from './errors.js';
import { vatDecodeGlsl } from './generated/vat_decode.glsl.js';

// What three's shaders get beside the chunk: the playback table read from a 2D texture (WebGL2
// has no buffer textures, hence VAT_NO_INSTANCE_TABLE), the clock, a rig's influences as
// attributes, and the rest data from three's own attributes.
const VAT_THREE_GLSL = /* glsl */ `
// The playback table: RGBA32F, 6 texels per logical instance, rows of a multiple of 6 texels:
// texel 6 i + j of instance i at (x, y) = ((6 i + j) % width, (6 i + j) / width).
uniform highp sampler2D u_vat_instances;
uniform float u_vat_time;  // the shared clock, seconds
#ifdef VAT_DELTA
in float vatVertex;  // the vertex's texel column: the file's _VAT_VERTEX (0..n-1 before version 3)
#endif
#ifdef VAT_RIG
in uvec4 vat_slots0;
in vec4 vat_weights0;
#ifdef VAT_EIGHT_INFLUENCES
in uvec4 vat_slots1;
in vec4 vat_weights1;
#endif
#endif

VatPose vat_resolve_instance(int logical, float time) {
  int width = textureSize(u_vat_instances, 0).x;
  vec4 row[6];
  for (int j = 0; j < 6; ++j) {
    int t = logical * 6 + j;
    row[j] = texelFetch(u_vat_instances, ivec2(t % width, t / width), 0);
  }
  return vat_resolve(row, time);
}

// The logical instance: an InstancedMesh's instance index, else 0.
int vat_logical_instance() {
#ifdef USE_INSTANCING
  return gl_InstanceID;
#else
  return 0;
#endif
}

// vat_decode's vertex: the texel address attribute, never gl_VertexID (three, or whatever built the
// geometry, may have reordered the vertices). The rig reads no address.
int vat_vertex_address() {
#ifdef VAT_DELTA
  return int(vatVertex);
#else
  return 0;
#endif
}

VatRest vat_rest_attributes() {
  VatRest rest;
  rest.position = position;
  rest.normal = normal;
#ifdef USE_TANGENT
  rest.tangent = tangent;
#else
  rest.tangent = vec4(0.0);
#endif
  rest.slots0 = uvec4(0u);
  rest.weights0 = vec4(0.0);
  rest.slots1 = uvec4(0u);
  rest.weights1 = vec4(0.0);
#ifdef VAT_RIG
  rest.slots0 = vat_slots0;
  rest.weights0 = vat_weights0;
#ifdef VAT_EIGHT_INFLUENCES
  rest.slots1 = vat_slots1;
  rest.weights1 = vat_weights1;
#endif
#endif
  return rest;
}
`;

// Decodes this vertex once, in whichever of three's chunks comes first (the depth materials and
// MeshBasicMaterial have no beginnormal_vertex unless they need normals).
const DECODE = /* glsl */ `
VatRest vat_rest = vat_rest_attributes();
VatPose vat_pose = vat_resolve_instance(vat_logical_instance(), u_vat_time);
vec3 vat_position, vat_normal;
vat_decode(vat_pose, vat_vertex_address(), vat_rest, vat_position, vat_normal);
#define VAT_DECODED
`;

const BEGIN_NORMAL = /* glsl */ `
${DECODE}
vec3 objectNormal = vat_normal;
#ifdef USE_TANGENT
#if defined(VAT_RIG) || defined(VAT_TANGENT_PLANE)
vec3 objectTangent = vat_decode_tangent(vat_pose, vat_vertex_address(), vat_rest).xyz;
#else
vec3 objectTangent = vec3(tangent.xyz);
#endif
#endif
`;

const BEGIN_VERTEX = /* glsl */ `
#ifndef VAT_DECODED
${DECODE}
#endif
vec3 transformed = vat_position;
#ifdef USE_ALPHAHASH
vPosition = vat_position;
#endif
`;

/**
 * The vertex shader of a three.js material with the decode injected.
 * @param {string} vertexShader three's source as onBeforeCompile sees it (with #include lines)
 * @param {string[]} defines the VAT's decode defines (VatAsset.defines)
 * @returns {string}
 * @throws {VatError} when the shader lacks `#include <common>` or `#include <begin_vertex>`
 *   (not one of three's mesh materials)
 */
export function injectDecode(vertexShader, defines) {
  for (const chunk of ['#include <common>', '#include <begin_vertex>']) {
    if (!vertexShader.includes(chunk)) fail('vatkit-three', 'material', `its vertex shader has no ${chunk}`, 'Argument');
  }
  const header = [...defines, 'VAT_NO_INSTANCE_TABLE'].map((d) => `#define ${d}\n`).join('');
  return vertexShader
    .replace('#include <common>', `#include <common>\n${header}${vatDecodeGlsl}\n${VAT_THREE_GLSL}`)
    .replace('#include <beginnormal_vertex>', BEGIN_NORMAL)
    .replace('#include <begin_vertex>', BEGIN_VERTEX);
}

/**
 * The uniforms the decode reads. One object per crowd, shared by all its materials (its depth
 * materials included): setting `.u_vat_time.value` moves every one.
 * @param {import('./loader.js').VatAsset} asset
 * @param {THREE.DataTexture} instances the playback table texture (RGBA32F, width a multiple of 6)
 * @returns {Object<string, {value: *}>} u_vat_<plane>, u_vat_<plane>_layout (width, rowsPerFrame),
 *   u_vat_row_ranges (q16), u_vat_instances, u_vat_time (seconds, starts at 0)
 */
export function vatUniforms(asset, instances) {
  const uniforms = { u_vat_instances: { value: instances }, u_vat_time: { value: 0 } };
  for (const [semantic, p] of Object.entries(asset.planes)) {
    uniforms[`u_vat_${semantic}`] = { value: p.texture };
    uniforms[`u_vat_${semantic}_layout`] = { value: new Int32Array([p.width, p.rowsPerFrame]) };
  }
  if (asset.rowRanges) uniforms.u_vat_row_ranges = { value: asset.rowRanges };
  return uniforms;
}

/**
 * Makes a three.js material decode the VAT in its vertex shader: MeshStandardMaterial,
 * MeshPhysicalMaterial, MeshLambertMaterial, MeshPhongMaterial, MeshToonMaterial,
 * MeshBasicMaterial, MeshNormalMaterial, MeshDepthMaterial and MeshDistanceMaterial (shadows).
 * Sets the material's onBeforeCompile and customProgramCacheKey (replacing any of your own) and
 * its clone() (a clone decodes too, with the same uniforms). Materials of the same VAT layout
 * share compiled programs; the uniforms stay per material.
 * @param {THREE.Material} material changed in place and returned
 * @param {Object<string, {value: *}>} uniforms from vatUniforms
 * @param {string[]} defines VatAsset.defines
 * @returns {THREE.Material}
 */
export function applyVat(material, uniforms, defines) {
  const key = `vatkit:${defines.join(',')}`;
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = injectDecode(shader.vertexShader, defines);
  };
  material.customProgramCacheKey = () => key;
  const prototypeClone = Object.getPrototypeOf(material).clone;
  material.clone = function clone() {
    return applyVat(prototypeClone.call(this), uniforms, defines);
  };
  material.needsUpdate = true;
  return material;
}

/**
 * A depth material for `mesh.customDepthMaterial` (directional and spot light shadows) and a
 * distance material for `mesh.customDistanceMaterial` (point light shadows), both decoding the
 * VAT, so that shadows follow the animation.
 * @param {Object<string, {value: *}>} uniforms from vatUniforms
 * @param {string[]} defines VatAsset.defines
 * @returns {{depth: THREE.MeshDepthMaterial, distance: THREE.MeshDistanceMaterial}}
 */
export function vatShadowMaterials(uniforms, defines) {
  return {
    depth: applyVat(new THREE.MeshDepthMaterial(), uniforms, defines),
    distance: applyVat(new THREE.MeshDistanceMaterial(), uniforms, defines),
  };
}
