// The one error class of vatkit-three is playback.js's VatError; this adds the loader's form of it.
import { VatError } from './playback.js';

export { VatError };

/**
 * Throws a VatError whose message is one line, `file: object: reason`.
 * @param {string} file the file (or component) at fault
 * @param {string} object the object in it, e.g. `extensions.VATKIT_vertex_animation.planes[1].height`
 * @param {string} reason what is wrong
 * @param {string} [code] the C++ ErrorCode name: "Corrupt" (default: a .vat.glb that fails
 *   validation), "Parse" (no GLB or JSON at all), "Unsupported" (a format version not read),
 *   "Io" (a failed fetch), "Argument" (a bad argument)
 * @returns {never}
 */
export function fail(file, object, reason, code = 'Corrupt') {
  throw new VatError(code, `${file}: ${object}: ${reason}`);
}
