// WebGL2 under the test flags, and the page-side tools the other pages rely on: three.js renders a
// quad facing the camera with MeshNormalMaterial over the left half of a black frame; the page
// reports the GL strings, pixel samples and counts of that frame, and the difference between the
// frame and its own PNG read back (the PNG encode and decode must be lossless).
import * as THREE from 'three';
import { runTest, canvasPixels, imagePixels, meanAbsDiff, pngDataUrl } from './page.js';

runTest(async (params) => {
  const width = Number(params.get('width') ?? 64);
  const height = Number(params.get('height') ?? 32);
  const probe = document.createElement('canvas').getContext('webgl2');
  if (!probe) throw new Error('no WebGL2 context');
  const info = probe.getExtension('WEBGL_debug_renderer_info');
  const gl = {
    version: probe.getParameter(probe.VERSION),
    shadingLanguage: probe.getParameter(probe.SHADING_LANGUAGE_VERSION),
    renderer: info ? probe.getParameter(info.UNMASKED_RENDERER_WEBGL) : probe.getParameter(probe.RENDERER),
    maxTextureSize: probe.getParameter(probe.MAX_TEXTURE_SIZE),
    maxSamples: probe.getParameter(probe.MAX_SAMPLES),
    colorBufferFloat: probe.getExtension('EXT_color_buffer_float') !== null,
  };

  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(width, height, false);
  renderer.setClearColor(0x000000, 1);
  const camera = new THREE.OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
  camera.position.z = 1;
  const quad = new THREE.Mesh(new THREE.PlaneGeometry(1, 2), new THREE.MeshNormalMaterial());
  quad.position.x = -0.5;  // covers x in [-1, 0]: the left half of the frame
  const scene = new THREE.Scene();
  scene.add(quad);
  renderer.render(scene, camera);
  const frame = canvasPixels(renderer.domElement);

  const at = (x, y) => Array.from(frame.data.subarray((y * width + x) * 4, (y * width + x) * 4 + 4));
  let left = 0;
  let right = 0;
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const [r, g, b] = at(x, y);
      if (x < width / 2 && r > 0 && b > 0) ++left;
      if (x >= width / 2 && r === 0 && g === 0 && b === 0) ++right;
    }
  }
  const png = await pngDataUrl(frame);
  const roundTrip = meanAbsDiff(frame, await imagePixels(png));
  return {
    gl,
    width,
    height,
    leftSample: at(width / 4, height / 2),
    rightSample: at((3 * width) / 4, height / 2),
    leftCovered: left,
    rightClear: right,
    pngRoundTripMad: roundTrip,
    png,
  };
});
