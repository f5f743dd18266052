// The one error class of vatkit-three: a file or an argument the runtime refuses.

/**
 * A `.vat.glb` (or an argument) that vatkit-three refuses. The message is one line:
 * `FILE: OBJECT: REASON`, e.g. `crowd.vat.glb: extensions.VATKIT_vertex_animation.planes[0].format:
 * "rgba16f", expected "rgba32f" for precision f32`.
 */
export class VatError extends Error {
  /** @param {string} message one line naming the file, the object and the reason */
  constructor(message) {
    super(message);
    this.name = 'VatError';
  }
}

/**
 * Throws a VatError `file: object: reason`.
 * @param {string} file @param {string} object @param {string} reason
 * @returns {never}
 */
export function fail(file, object, reason) {
  throw new VatError(`${file}: ${object}: ${reason}`);
}
