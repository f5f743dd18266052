// vatkit-three: the three.js runtime for .vat.glb files (docs/web-three.md).
export { VatError } from './errors.js';
export { loadVat } from './loader.js';
export { applyVat, injectDecode, vatShadowMaterials, vatUniforms } from './material.js';
export { VatCrowd, selectLod } from './crowd.js';
export { InstanceTable, clipBand } from './playback.js';
export { clipEventsCrossed, eventsCrossed } from './events.js';
