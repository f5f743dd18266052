// vat_decode_export.vert: the decode chunk as a complete Vulkan GLSL vertex shader, the source of
// the SPIR-V, HLSL and Metal files vatkit generates for engines of other APIs (docs/shaders.md).
// It adds nothing to the decode: it feeds the chunk a vertex and an instance, places the result
// with the instance's world matrix and projects it.
//
// Compiled once per define set of the chunk (gl/shaders/export/variants.cmake) by
// gl/cmake/export_shaders.cmake:
//   glslangValidator -V -R --amb --sdub VatUniforms 0 6 -D<defines> vat_decode_export.vert
// -R puts the loose uniforms (this file's and the chunk's ivec2 layouts) into one uniform block,
// VatUniforms (set 0, binding 6), in declaration order: this file's first, at fixed offsets, then
// the chunk's. The samplers get their bindings after compilation (the chunk declares them without
// layout qualifiers; the generator renumbers them to vatkit::gl::DecodeUnits' units).
//
// Draw contract: delta reads each vertex's texel column from a_vat_vertex (the file's
// _VAT_VERTEX attribute, format version 3; 0..V-1 for older files), so any vertex order and any
// base vertex draw right; rig ignores the address.
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef VAT_NO_INSTANCE_TABLE
#error "vat_decode_export.vert reads the playback table: leave VAT_NO_INSTANCE_TABLE undefined"
#endif

uniform mat4 u_view_projection;  // VatUniforms offset 0
uniform float u_vat_time;        // VatUniforms offset 64: the shared clock, seconds

#include "../vat_decode.glsl"

// Per vertex: the VAT's geometry, at vatkit::gl's attribute locations (vat_gpu.h). Colour
// (location 3) is not read.
layout(location = 0) in vec3 a_position;  // delta: rest position; rig: bind position
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_texcoord0;
layout(location = 4) in vec4 a_tangent;  // 0 where the VAT has no tangents
#ifdef VAT_RIG
layout(location = 5) in uvec4 a_slots0;
layout(location = 6) in vec4 a_weights0;
#ifdef VAT_EIGHT_INFLUENCES
layout(location = 7) in uvec4 a_slots1;
layout(location = 8) in vec4 a_weights1;
#endif
#else
layout(location = 14) in float a_vat_vertex;  // the vertex's texel column (_VAT_VERTEX)
#endif
// Per instance (instance-rate attributes): the world matrix (columns at 9-12) and the instance's
// row in the playback table. An attribute rather than gl_InstanceIndex, whose HLSL form
// (SV_InstanceID) leaves out the draw's first instance.
layout(location = 9) in mat4 a_world;
layout(location = 13) in int a_logical_instance;

layout(location = 0) out vec3 v_world_position;
layout(location = 1) out vec3 v_world_normal;
layout(location = 2) out vec2 v_texcoord0;
layout(location = 3) out vec4 v_world_tangent;  // delta without a Tangent plane: 0

void main() {
  VatRest rest;
  rest.position = a_position;
  rest.normal = a_normal;
  rest.tangent = a_tangent;
#ifdef VAT_RIG
  rest.slots0 = a_slots0;
  rest.weights0 = a_weights0;
#else
  rest.slots0 = uvec4(0u);
  rest.weights0 = vec4(0.0);
#endif
#if defined(VAT_RIG) && defined(VAT_EIGHT_INFLUENCES)
  rest.slots1 = a_slots1;
  rest.weights1 = a_weights1;
#else
  rest.slots1 = uvec4(0u);
  rest.weights1 = vec4(0.0);
#endif
  VatPose pose = vat_resolve_instance(a_logical_instance, u_vat_time);
  vec3 position, normal;
#ifdef VAT_RIG
  int vertex = 0;  // unread by the rig
#else
  int vertex = int(a_vat_vertex);
#endif
  vat_decode(pose, vertex, rest, position, normal);
  vec4 tangent = vat_decode_tangent(pose, vertex, rest);
  vec4 world = a_world * vec4(position, 1.0);
  mat3 linear = mat3(a_world);
  v_world_position = world.xyz;
  v_world_normal = linear * normal;  // exact for rotation and uniform scale
  v_world_tangent = vec4(linear * tangent.xyz, tangent.w);
  v_texcoord0 = a_texcoord0;
  gl_Position = u_view_projection * world;
}
