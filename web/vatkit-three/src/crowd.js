// VatCrowd: one THREE.InstancedMesh drawing a VAT for `count` instances, each playing what its
// row of the playback table (playback.js's InstanceTable) says at the shared clock.
import * as THREE from 'three';
import { fail } from './errors.js';
import { PLANE_FORMATS, dataTexture } from './loader.js';
import { applyVat, vatShadowMaterials, vatUniforms } from './material.js';
import { InstanceTable } from './playback.js';

// Instances per texture row of the playback table: 341 x 6 = 2046 texels, within WebGL2's
// guaranteed 2048.
const INSTANCES_PER_ROW = 341;
const TEXELS_PER_INSTANCE = 6;
const FLOATS_PER_INSTANCE = 24;

/**
 * The playback table's texture: RGBA32F, width a multiple of 6 texels, rows of instances.
 * @param {number} count instances
 * @returns {THREE.DataTexture}
 */
function instanceTexture(count) {
  const perRow = Math.max(1, Math.min(count, INSTANCES_PER_ROW));
  const width = perRow * TEXELS_PER_INSTANCE;
  const height = Math.max(1, Math.ceil(count / perRow));
  return dataTexture(new Float32Array(width * height * 4), width, height, PLANE_FORMATS.rgba32f, 'vat playback table');
}

// A geometry of its own (its groups are the crowd's level of detail) over the asset's attributes
// and index buffer, which are shared, not copied.
function sharedGeometry(source) {
  const g = new THREE.BufferGeometry();
  for (const [name, attribute] of Object.entries(source.attributes)) g.setAttribute(name, attribute);
  g.setIndex(source.index);
  g.boundingBox = source.boundingBox.clone();
  g.boundingSphere = source.boundingSphere.clone();
  g.name = source.name;
  return g;
}

/**
 * A crowd of one VAT: a THREE.InstancedMesh (one draw call per material group) whose materials
 * decode the VAT in their vertex shaders. Instance i plays row i of its playback table
 * (`table`, playback.js) at the clock `time`, placed by its instance matrix (setMatrixAt).
 *
 * Per frame: set `time`, call `update()` (uploads the rows written since the last call and the
 * matrices), render. Costs: setInstance writes one 96-byte row; update() copies and uploads
 * only the written rows (three.js's DataTexture update ranges, one texSubImage2D per run of
 * rows within a texture row), and after any setMatrixAt the whole instance matrix buffer (three
 * uploads it whole) and the bounding sphere, recomputed over every instance at the next render.
 *
 * Shadows: `castShadow = true` casts shadows that follow the animation (customDepthMaterial and
 * customDistanceMaterial are set); `receiveShadow` as for any mesh.
 */
export class VatCrowd extends THREE.InstancedMesh {
  /**
   * @param {import('./loader.js').VatAsset} asset a loaded VAT; the crowd shares its textures,
   *   attributes and index buffer (dispose the asset after its crowds)
   * @param {number} count instances, at least 1; every instance starts as row 0 (playback.js's
   *   unwritten row) at the identity matrix
   * @param {object} [options]
   * @param {THREE.Material[]} [options.materials] materials to use instead of the asset's, one per
   *   asset material index (cloned, then made to decode)
   * @throws {VatError} for a count that is not a positive integer
   */
  constructor(asset, count, options = {}) {
    if (!Number.isInteger(count) || count < 1) fail(asset.file, 'VatCrowd', `count ${count}, expected a positive integer`, 'Argument');
    const texture = instanceTexture(count);
    const uniforms = vatUniforms(asset, texture);
    const materials = (options.materials ?? asset.materials).map((m) => applyVat(m.clone(), uniforms, asset.defines));
    super(sharedGeometry(asset.geometry), materials, count);
    this.asset = asset;
    /** The playback table (playback.js's InstanceTable): instance i's row. */
    this.table = new InstanceTable(count, asset.frameRows);
    this.instanceTexture = texture;
    /** The uniforms every material of the crowd shares (material.js's vatUniforms). */
    this.vatUniforms = uniforms;
    const shadow = vatShadowMaterials(uniforms, asset.defines);
    this.customDepthMaterial = shadow.depth;
    this.customDistanceMaterial = shadow.distance;
    this.uploaded = false;
    texture.onUpdate = () => { this.uploaded = true; };
    texture.image.data.set(this.table.floats);
    this.lod = 0;
  }

  /** The shared clock, seconds (a float32 on the GPU: see playback.js on rebasing long sessions). */
  get time() {
    return this.vatUniforms.u_vat_time.value;
  }

  set time(seconds) {
    this.vatUniforms.u_vat_time.value = seconds;
  }

  /**
   * Changes what instance `index` plays from clock time `now` (playback.js's setInstance: with
   * instance.fadeDuration > 0 it cross-fades from what the instance showed at `now`). Uploaded
   * by the next update().
   * @param {number} index 0 <= index < count
   * @param {object} instance playback.js's instance ({clip: clipBand(...), startTime, speed,
   *   loopMode, repetitions, endMode, fadeDuration, blend, ...})
   * @param {number} now clock seconds
   * @throws {VatError} what playback.js refuses (a band past the VAT's frame rows, ...)
   */
  setInstance(index, instance, now) {
    this.table.setInstance(index, instance, now);
  }

  /**
   * Places instance `index` (THREE.InstancedMesh's, noted for update()).
   * @param {number} index @param {THREE.Matrix4} matrix object space of the VAT to world
   */
  setMatrixAt(index, matrix) {
    super.setMatrixAt(index, matrix);
    this.matricesChanged = true;
  }

  /**
   * Uploads what changed since the last call: the written playback rows and, after setMatrixAt,
   * the instance matrices (and forgets the bounding sphere, which three recomputes). Call once
   * per frame before rendering. O(rows written + ranges), plus O(count) after setMatrixAt.
   * @param {number} [mergeGap] playback rows between two written ones uploaded anyway to make
   *   one range of them (fewer, larger uploads)
   */
  update(mergeGap = 0) {
    const ranges = this.table.takeDirty(mergeGap);
    if (ranges.length > 0) this.uploadRows(ranges);
    if (this.matricesChanged) {
      this.instanceMatrix.needsUpdate = true;
      this.boundingSphere = null;
      this.matricesChanged = false;
    }
  }

  uploadRows(ranges) {
    const texture = this.instanceTexture;
    const data = texture.image.data;
    const floats = this.table.floats;
    const rowFloats = texture.image.width * 4;
    for (const { first, count } of ranges) {
      const start = first * FLOATS_PER_INSTANCE;
      const end = start + count * FLOATS_PER_INSTANCE;
      data.set(floats.subarray(start, end), start);
      if (!this.uploaded) continue; // the first upload sends the whole texture
      // three uploads each range as part of one texture row: split at row ends.
      for (let a = start; a < end; a = Math.min(end, (Math.floor(a / rowFloats) + 1) * rowFloats)) {
        texture.addUpdateRange(a, Math.min(end, (Math.floor(a / rowFloats) + 1) * rowFloats) - a);
      }
    }
    texture.needsUpdate = true;
  }

  /** The level of detail the whole crowd draws: 0 (full mesh) to asset.levels.length - 1. */
  get lod() {
    return this.lodLevel;
  }

  set lod(level) {
    const levels = this.asset.levels;
    if (!Number.isInteger(level) || level < 0 || level >= levels.length) {
      fail(this.asset.file, 'VatCrowd.lod', `${level}, expected 0 to ${levels.length - 1}`, 'Argument');
    }
    this.lodLevel = level;
    this.geometry.groups = levels[level].groups.map((g) => ({ ...g }));
  }

  /**
   * Frees what the crowd made: its geometry object, material clones, depth materials and
   * playback texture (not the asset's planes, attributes or images: asset.dispose()).
   */
  dispose() {
    this.geometry.dispose();
    for (const m of this.material) m.dispose();
    this.customDepthMaterial.dispose();
    this.customDistanceMaterial.dispose();
    this.instanceTexture.dispose();
    super.dispose();
    return this;
  }
}

/**
 * The level of detail to draw for an instance whose bounding sphere (around asset.bounds)
 * projects to `diameterPx` pixels: the coarsest level whose screenSize, times maxErrorPx, is at
 * least that (vatkit's select_lod), or 0 (the full mesh). With a perspective camera of vertical
 * field of view fovy over H pixels, at distance d from a sphere of radius R:
 * diameterPx = 2 R H / (2 d tan(fovy / 2)).
 * @param {import('./loader.js').VatAsset} asset
 * @param {number} diameterPx
 * @param {number} [maxErrorPx] the error allowed on screen, pixels (default 1)
 * @returns {number} a level index into asset.levels
 */
export function selectLod(asset, diameterPx, maxErrorPx = 1) {
  let level = 0;
  for (let l = 1; l < asset.levels.length; ++l) {
    if (diameterPx <= maxErrorPx * asset.levels[l].screenSize) level = l;
  }
  return level;
}
