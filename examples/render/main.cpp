// vatkit_render_crowd FILE.vat.glb OUT.png [INSTANCES]: draws a crowd of the baked file (100
// instances by default, each playing a clip of its own, desynchronised) one second into their
// animation, on an offscreen 640x360 target, and writes the picture. Headless: EGL on whatever
// driver the machine has (Mesa's llvmpipe without a GPU).
#include <cstdio>
#include <cstdlib>

#include <vatkit/gl/context.h>
#include <vatkit/gl/crowd.h>
#include <vatkit/gl/image.h>
#include <vatkit/gl/render_target.h>
#include <vatkit/gl/vat_gpu.h>
#include <vatkit/vat_file.h>

namespace {

template <class T>
T take(vatkit::Result<T> result) {
  if (!result) {
    std::fprintf(stderr, "vatkit_render_crowd: %s\n", result.error().message.c_str());
    std::exit(1);
  }
  return std::move(*result);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: vatkit_render_crowd FILE.vat.glb OUT.png [INSTANCES]\n");
    return 2;
  }
  const uint32_t instances = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 100;
  const int width = 640, height = 360;

  vatkit::gl::Context context = take(vatkit::gl::Context::create_headless());
  const vatkit::Vat vat = take(vatkit::load_vat(argv[1]));
  vatkit::gl::VatGpu gpu = take(vatkit::gl::VatGpu::upload(vat));
  vatkit::gl::Crowd crowd = take(vatkit::gl::Crowd::create(gpu, instances));
  if (vatkit::Result<void> spread = vatkit::gl::spread_crowd(crowd); !spread) {
    std::fprintf(stderr, "vatkit_render_crowd: %s\n", spread.error().message.c_str());
    return 1;
  }
  vatkit::gl::Renderer renderer = take(vatkit::gl::Renderer::create());
  vatkit::gl::RenderTarget target = take(vatkit::gl::RenderTarget::create({width, height, 4}));
  const vatkit::gl::Camera camera = vatkit::gl::camera_for_bounds(crowd.world_bounds(), float(width) / float(height));
  renderer.render(target, crowd, camera, 1.0f);
  const vatkit::gl::Image image = target.read_rgba8();
  if (vatkit::Result<void> written = vatkit::gl::write_png(argv[2], image.view()); !written) {
    std::fprintf(stderr, "vatkit_render_crowd: %s\n", written.error().message.c_str());
    return 1;
  }
  std::printf("%s: %u instances of %s, %dx%d\n", argv[2], instances, argv[1], width, height);
  return 0;
}
