// The GLB container of a .vat.glb and strict reads of its JSON (docs/format.md, sections 1, 2 and
// 6): the chunks, the one buffer, buffer views and accessors, each checked before its bytes are
// used. Every failure throws a one-line VatError naming the file and the object.
import { fail } from './errors.js';

/** The vendor extension's name. */
export const EXTENSION = 'VATKIT_vertex_animation';
/** Its path in the JSON, as error messages name it. */
export const EXT_PATH = `extensions.${EXTENSION}`;
const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const CHUNK_BIN = 0x004e4942; // "BIN\0"

/** Byte size of a glTF component type. */
const COMPONENT_BYTES = { 5121: 1, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };
/** Typed array constructors by component type. */
const ARRAYS = { 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array };

/** `where[index]`, an array element's name in messages. @param {string} where @param {number} index */
export const at = (where, index) => `${where}[${index}]`;

/**
 * The container (rule 1): header, JSON chunk, BIN chunk. `bytes` starts 16-byte aligned.
 * @returns {{jsonBytes: Uint8Array, bin: Uint8Array, binOffset: number}}
 */
export function splitGlb(bytes, file) {
  if (bytes.byteLength < 20) fail(file, 'GLB', `${bytes.byteLength} bytes, too short for a GLB`, 'Parse');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== GLB_MAGIC) fail(file, 'GLB', 'no "glTF" magic: not a GLB file', 'Parse');
  const version = dv.getUint32(4, true);
  if (version !== 2) fail(file, 'GLB', `container version ${version}, expected 2`, 'Parse');
  const length = dv.getUint32(8, true);
  if (length !== bytes.byteLength) fail(file, 'GLB', `header says ${length} bytes, the file has ${bytes.byteLength}`, 'Parse');
  const json = chunk(dv, 12, CHUNK_JSON, 'JSON', file);
  const binHeader = 20 + json.length;
  if (binHeader + 8 > length) fail(file, 'GLB', 'no BIN chunk: a .vat.glb stores its planes there');
  const bin = chunk(dv, binHeader, CHUNK_BIN, 'BIN', file);
  return {
    jsonBytes: bytes.subarray(json.start, json.start + json.length),
    bin: bytes.subarray(bin.start, bin.start + bin.length),
    binOffset: bin.start,
  };
}

function chunk(dv, offset, type, name, file) {
  const length = dv.getUint32(offset, true);
  const what = `${name} chunk`;
  if (dv.getUint32(offset + 4, true) !== type) fail(file, what, `expected a ${name} chunk at byte ${offset}`, 'Parse');
  if (length % 4 !== 0) fail(file, what, `length ${length} is not a multiple of 4`, 'Parse');
  if (offset + 8 + length > dv.byteLength) fail(file, what, `length ${length} runs past the end of the file`, 'Parse');
  return { start: offset + 8, length };
}

/** Strict JSON value reads: `where` names the property in the message. */
export const read = {
  object(v, file, where) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(file, where, 'expected an object');
    return v;
  },
  array(v, file, where) {
    if (!Array.isArray(v)) fail(file, where, 'expected an array');
    return v;
  },
  string(v, file, where) {
    if (typeof v !== 'string') fail(file, where, 'expected a string');
    return v;
  },
  // JSON.parse cannot tell 1 from 1.0: both read as the integer 1 here.
  u32(v, file, where) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) fail(file, where, 'expected an unsigned integer');
    return v;
  },
  int(v, file, where) {
    if (!Number.isInteger(v) || Math.abs(v) > 0x7fffffff) fail(file, where, 'expected an integer');
    return v;
  },
  number(v, file, where) {
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > 3.4028234663852886e38) {
      fail(file, where, 'expected a finite number');
    }
    return v;
  },
  oneOf(v, choices, file, where) {
    if (!choices.includes(v)) fail(file, where, `${JSON.stringify(v)}, expected one of ${choices.join(', ')}`);
    return v;
  },
  member(object, key, file, where) {
    if (!(key in object)) fail(file, where, `missing "${key}"`);
    return object[key];
  },
};

/**
 * The parsed document over the BIN data: views and accessors read with their checks (rules 4, 7,
 * 10). Each object's bytes are claimed once; two objects sharing bytes are refused.
 */
export class GlbDocument {
  /** @param {Uint8Array} bytes the whole file, 16-byte aligned @param {string} file its name */
  constructor(bytes, file) {
    this.file = file;
    const { jsonBytes, bin, binOffset } = splitGlb(bytes, file);
    this.bin = bin;
    this.binOffset = binOffset;
    this.json = parseJson(jsonBytes, file);
    this.claims = [];
    this.bufferLength = this.checkBuffer();
  }

  fail(where, reason, code) {
    fail(this.file, where, reason, code);
  }

  /** A top-level array of the document; absent = empty. */
  top(key) {
    return key in this.json ? read.array(this.json[key], this.file, key) : [];
  }

  checkBuffer() {
    const buffers = this.top('buffers');
    if (buffers.length !== 1) this.fail('buffers', `${buffers.length} buffers, expected 1 (the BIN chunk)`);
    const buffer = read.object(buffers[0], this.file, 'buffers[0]');
    if ('uri' in buffer) this.fail('buffers[0].uri', 'a .vat.glb keeps its buffer in the BIN chunk');
    const length = read.u32(read.member(buffer, 'byteLength', this.file, 'buffers[0]'), this.file, 'buffers[0].byteLength');
    if (length > this.bin.byteLength || this.bin.byteLength - length > 3) {
      this.fail('buffers[0].byteLength', `${length}, the BIN chunk has ${this.bin.byteLength} bytes`);
    }
    if (this.binOffset % 16 !== 0) {
      this.fail('GLB', `BIN data starts at file offset ${this.binOffset}, not a multiple of 16 (planes must be 16-byte aligned)`);
    }
    return length;
  }

  /** Buffer view `index` as {offset, length, object}, inside the buffer. */
  view(index, where) {
    const views = this.top('bufferViews');
    const self = at('bufferViews', index);
    if (!Number.isInteger(index) || index < 0 || index >= views.length) this.fail(where, `${self} does not exist`);
    const v = read.object(views[index], this.file, self);
    if (read.u32(read.member(v, 'buffer', this.file, self), this.file, `${self}.buffer`) !== 0) {
      this.fail(`${self}.buffer`, 'not 0');
    }
    const offset = 'byteOffset' in v ? read.u32(v.byteOffset, this.file, `${self}.byteOffset`) : 0;
    const length = read.u32(read.member(v, 'byteLength', this.file, self), this.file, `${self}.byteLength`);
    if (length === 0) this.fail(`${self}.byteLength`, '0');
    if (offset + length > this.bufferLength) {
      this.fail(self, `bytes ${offset} + ${length} run past the buffer's ${this.bufferLength}`);
    }
    return { offset, length, object: v };
  }

  /** Marks a view's bytes as `who`'s data; refuses bytes another object already uses (rule 10). */
  claim(range, viewIndex, who) {
    const end = range.offset + range.length;
    for (const c of this.claims) {
      if (c.offset < end && range.offset < c.end) {
        this.fail(who, `${at('bufferViews', viewIndex)} (bytes ${range.offset} + ${range.length}) overlaps the data of ` +
          `${c.who}: a .vat.glb stores each object's data once`);
      }
    }
    this.claims.push({ offset: range.offset, end, who });
  }

  /** A view's bytes as a Uint8Array over the file (no copy). */
  bytes(range) {
    return this.bin.subarray(range.offset, range.offset + range.length);
  }

  /**
   * Accessor `index`, which must be of exactly this component type and type, tightly packed,
   * inside its view. Returns {array (a typed array over the file), count, byteOffset, viewIndex}.
   */
  accessor(index, componentType, type, where) {
    const accessors = this.top('accessors');
    if (!Number.isInteger(index) || index < 0 || index >= accessors.length) this.fail(where, `${at('accessors', index)} does not exist`);
    const self = `${where} (${at('accessors', index)})`;
    const a = read.object(accessors[index], this.file, self);
    const c = read.u32(read.member(a, 'componentType', this.file, self), this.file, `${self}.componentType`);
    if (c !== componentType) this.fail(`${self}.componentType`, `${c}, expected ${componentType}`);
    const t = read.string(read.member(a, 'type', this.file, self), this.file, `${self}.type`);
    if (t !== type) this.fail(`${self}.type`, `"${t}", expected "${type}"`);
    if (a.normalized === true) this.fail(`${self}.normalized`, 'true, expected false');
    if ('sparse' in a) this.fail(`${self}.sparse`, 'sparse accessors are not part of a .vat.glb');
    const viewIndex = read.u32(read.member(a, 'bufferView', this.file, self), this.file, `${self}.bufferView`);
    const byteOffset = 'byteOffset' in a ? read.u32(a.byteOffset, this.file, `${self}.byteOffset`) : 0;
    const count = read.u32(read.member(a, 'count', this.file, self), this.file, `${self}.count`);
    if (count === 0) this.fail(`${self}.count`, '0');
    const range = this.view(viewIndex, self);
    const elementBytes = COMPONENT_BYTES[componentType] * TYPE_COMPONENTS[type];
    if ('byteStride' in range.object && range.object.byteStride !== elementBytes) {
      this.fail(`${at('bufferViews', viewIndex)}.byteStride`, `${range.object.byteStride}, expected tightly packed elements (${elementBytes})`);
    }
    if (byteOffset + count * elementBytes > range.length) {
      this.fail(self, `bytes ${byteOffset} + ${count} * ${elementBytes} run past ${at('bufferViews', viewIndex)} (byteLength ${range.length})`);
    }
    const start = this.bin.byteOffset + range.offset + byteOffset;
    if (start % COMPONENT_BYTES[componentType] !== 0) this.fail(self, 'data is not aligned to its component size');
    const array = new ARRAYS[componentType](this.bin.buffer, start, count * TYPE_COMPONENTS[type]);
    return { array, count, byteOffset, viewIndex, range };
  }
}

function parseJson(jsonBytes, file) {
  let json;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(jsonBytes));
  } catch (e) {
    fail(file, 'JSON chunk', String(e.message).split('\n')[0], 'Parse');
  }
  return read.object(json, file, 'JSON chunk');
}
