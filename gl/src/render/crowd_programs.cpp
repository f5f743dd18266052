// The crowd's programs: the lit and shadow vertex stages over the decode chunk, and the culling
// passes (cull.comp, cull_commands.comp).
#include <string>

#include "objects/shaders.h"
#include "render/crowd_internal.h"

namespace vatkit::gl {

void LightingSlots::find(GLuint p) {
  direction = glGetUniformLocation(p, "u_light_direction");
  color = glGetUniformLocation(p, "u_light_color");
  sky = glGetUniformLocation(p, "u_sky_color");
  bounce = glGetUniformLocation(p, "u_bounce_color");
  shadows = glGetUniformLocation(p, "u_shadows");
  light_vp = glGetUniformLocation(p, "u_light_view_projection");
  texel_world = glGetUniformLocation(p, "u_shadow_texel_world");
  shading = glGetUniformLocation(p, "u_shading");
  view = glGetUniformLocation(p, "u_view");
  const GLint map = glGetUniformLocation(p, "u_shadow_map");
  if (map >= 0) glProgramUniform1i(p, map, kUnitShadow);
}

void set_crowd_samplers(GLuint p) {
  auto sampler = [&](const char* name, int unit) {
    const GLint at = glGetUniformLocation(p, name);
    if (at >= 0) glProgramUniform1i(p, at, unit);
  };
  sampler("u_crowd_world", kUnitWorld);
  sampler("u_crowd_drawn", kUnitDrawn);
  sampler("u_crowd_pose_cache", kUnitCache);
  sampler("u_crowd_slots0", kUnitInfluences);
  sampler("u_crowd_weights0", kUnitInfluences + 1);
  sampler("u_crowd_slots1", kUnitInfluences + 2);
  sampler("u_crowd_weights1", kUnitInfluences + 3);
  sampler("u_base_color_texture", kUnitBaseColor);
  sampler("u_crowd_previous_world", kUnitPreviousWorld);
  sampler("u_crowd_tint", kUnitTint);
}

bool uses_cache(const VatGpu& vat) { return vat.encoding() == Encoding::Delta || !vat.metadata().slots.empty(); }
size_t cache_texels(const VatGpu& vat) { return vat.encoding() == Encoding::Rig ? vat.metadata().slots.size() * 3 : 2; }

Result<CrowdProgram> build_crowd_program(const VatGpu& vat, bool shadow, bool static_pose, const CrowdDesc& crowd,
                                         const ProgramVariant& variant) {
  ProgramDesc desc;
  desc.name = std::string(variant.prop ? "prop" : "crowd") + (static_pose ? " static" : "") +
              (shadow ? " shadow" : "") + (variant.motion ? " motion" : "") + " (" + to_string(vat.encoding()) + " " +
              to_string(vat.precision()) + ")";
  desc.draw_parameters = true;
  desc.defines = vat.defines();
  if (static_pose) desc.defines.push_back("CROWD_STATIC");
  if (variant.motion) desc.defines.push_back("CROWD_MOTION");
  if (variant.prop) desc.defines.push_back("VAT_SOCKETS");
  if (crowd.transforms == CrowdTransforms::PositionHeading) desc.defines.push_back("CROWD_PLACEMENT");
  // The caller's shading hook colours the characters (a prop keeps its own colour).
  const bool hook = !shadow && !variant.prop && !crowd.shade_glsl.empty();
  if (hook) {
    desc.defines.push_back("VATKIT_SHADE_HOOK");
    desc.name += " with the caller's vatkit_shade";
  }
  std::string vertex = variant.prop ? prop_vertex_glsl() : crowd_vertex_glsl();
  std::string fragment;
  if (shadow) {
    fragment = detail::shader_text("shadow.frag");
  } else {
    fragment =
        std::string(detail::shader_text("lighting.glsl")) + "\n" + std::string(detail::shader_text("crowd.frag"));
    if (hook) fragment += "\n#line 1\n" + crowd.shade_glsl;
  }
  desc.shaders = {{ShaderStage::Vertex, std::move(vertex), ""}, {ShaderStage::Fragment, std::move(fragment), ""}};
  Result<Program> built = build_program(desc);
  if (!built) return built.error();
  CrowdProgram out;
  out.program = std::move(*built);
  const GLuint p = out.program.id();
  vat.set_decode_uniforms(p);
  set_crowd_samplers(p);
  const GLint slot_count = glGetUniformLocation(p, "u_crowd_slot_count");
  if (slot_count >= 0) glProgramUniform1i(p, slot_count, int(vat.metadata().slots.size()));
  out.view_projection = glGetUniformLocation(p, "u_view_projection");
  out.time = glGetUniformLocation(p, "u_vat_time");
  out.previous_time = glGetUniformLocation(p, "u_vat_previous_time");
  out.previous_view_projection = glGetUniformLocation(p, "u_previous_view_projection");
  out.prop_slot = glGetUniformLocation(p, "u_prop_slot");
  out.prop_joint = glGetUniformLocation(p, "u_prop_joint");
  out.prop_offset = glGetUniformLocation(p, "u_prop_offset");
  out.material = MaterialUniforms::find(p);
  out.lighting.find(p);
  return out;
}

Result<CullProgram> build_cull_program(const VatGpu& vat, const CrowdDesc& crowd) {
  ProgramDesc desc;
  desc.name = std::string("crowd cull (") + to_string(vat.encoding()) + " " + to_string(vat.precision()) + ")";
  desc.defines = vat.defines();
  if (crowd.transforms == CrowdTransforms::PositionHeading) desc.defines.push_back("CROWD_PLACEMENT");
  if (uses_cache(vat)) desc.defines.push_back("CROWD_POSE_CACHE");
  desc.shaders = {{ShaderStage::Compute, decode_chunk_then("cull.comp"), ""}};
  Result<Program> built = build_program(desc);
  if (!built) return built.error();
  CullProgram out;
  out.program = std::move(*built);
  const GLuint p = out.program.id();
  vat.set_decode_uniforms(p);
  const GLint row_bounds = glGetUniformLocation(p, "u_cull_row_bounds");
  if (row_bounds >= 0) glProgramUniform1i(p, row_bounds, kUnitRowBounds);
  out.time = glGetUniformLocation(p, "u_vat_time");
  out.count = glGetUniformLocation(p, "u_cull_count");
  out.first = glGetUniformLocation(p, "u_cull_first");
  out.capacity = glGetUniformLocation(p, "u_cull_capacity");
  out.planes = glGetUniformLocation(p, "u_cull_planes");
  out.is_static = glGetUniformLocation(p, "u_cull_static");
  out.static_min = glGetUniformLocation(p, "u_cull_static_min");
  out.static_max = glGetUniformLocation(p, "u_cull_static_max");
  out.lod_levels = glGetUniformLocation(p, "u_lod_levels");
  out.lod_screen_size = glGetUniformLocation(p, "u_lod_screen_size");
  out.lod_eye = glGetUniformLocation(p, "u_lod_eye");
  out.lod_pixels = glGetUniformLocation(p, "u_lod_pixels");
  out.lod_radius = glGetUniformLocation(p, "u_lod_radius");
  out.lod_centre = glGetUniformLocation(p, "u_lod_centre");
  out.lod_texel = glGetUniformLocation(p, "u_lod_texel");

  ProgramDesc commands;
  commands.name = "crowd cull commands";
  commands.shaders = {{ShaderStage::Compute, std::string(detail::shader_text("cull_commands.comp")), ""}};
  Result<Program> built_commands = build_program(commands);
  if (!built_commands) return built_commands.error();
  out.commands = std::move(*built_commands);
  out.command_count = glGetUniformLocation(out.commands.id(), "u_command_count");
  out.command_levels = glGetUniformLocation(out.commands.id(), "u_levels");
  out.command_levels_drawn = glGetUniformLocation(out.commands.id(), "u_levels_drawn");
  out.counter_base = glGetUniformLocation(out.commands.id(), "u_counter_base");
  out.command_base = glGetUniformLocation(out.commands.id(), "u_command_base");
  out.cull_counter_base = glGetUniformLocation(p, "u_cull_counter_base");
  out.cache_counter = glGetUniformLocation(p, "u_cull_cache_counter");
  out.cache_capacity = glGetUniformLocation(p, "u_cull_cache_capacity");
  out.slot_count = glGetUniformLocation(p, "u_cull_slot_count");
  if (out.slot_count >= 0) glProgramUniform1i(p, out.slot_count, int(vat.metadata().slots.size()));
  return out;
}

std::string decode_chunk_then(std::string_view shader) {
  std::string text(detail::shader_text("vat_decode.glsl"));
  text += "\n";
  text += detail::shader_text("crowd_world.glsl");
  text += "\n";
  text += detail::shader_text(shader);
  return text;
}

std::string crowd_vertex_glsl() { return decode_chunk_then("crowd.vert"); }

}  // namespace vatkit::gl
