// vatkit/gl/props.h: props, rigid meshes held by a joint of every instance of a crowd (a sword in a
// hand, a hat on a head), posed on the GPU.
//
// A prop is drawn instanced once per instance the crowd draws. Its vertex shader (prop.vert over
// the decode chunk) resolves the instance's playback at the frame's time and decodes the socket
// joint's matrix exactly as the CPU mirror's mirror_joint does (mirror.h: resolve, the slot's two
// rows per band blended with the hemisphere flip, the bands blended by the fade or blend weight,
// the quaternion normalized, times inverse(inverse_bind)), then places the mesh:
//   p_world = W_instance * joint_world * offset * p_prop,
// normals by the cofactor of that matrix's 3x3 part (as mirror_vertices). Both encodings: a rig's
// slots are its joints; a delta bake keeps its socket joints in a Slots plane (docs/encodings.md).
// Nothing happens per frame on the CPU.
//
// What it does NOT do: skin the prop (it is rigid), textures (one base colour), levels of detail
// for the prop (it follows the crowd's culling, not its levels).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace vatkit::gl {

// A rigid mesh in the joint's space (after PropDesc::offset): triangles, counter-clockwise.
struct PropMesh {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;  // one per position
  std::vector<uint32_t> indices;   // a multiple of 3, each < positions.size()
};

struct PropDesc {
  uint32_t slot = 0;                           // the socket joint: Vat::slots index (find_slot by name, decode.h)
  glm::mat4 offset{1.0f};                      // prop space to the joint's space
  glm::vec4 color{0.75f, 0.75f, 0.78f, 1.0f};  // linear base colour
  bool casts_shadows = true;
};

// A box of half extents `half` centred on `centre` (24 vertices, flat normals).
PropMesh box_prop(const glm::vec3& half, const glm::vec3& centre = glm::vec3(0.0f));
// A sword along +Y from the origin (the grip at the joint): a grip, a cross guard and a blade,
// `length` long in all.
PropMesh sword_prop(float length);

// The prop vertex shader (the decode chunk followed by prop.vert), for a VertexCapture of one's
// own: compile it with the crowd VAT's defines plus "VAT_SOCKETS" and draw_parameters; outputs
// v_world_position, v_world_normal, v_socket (mat4: W_instance * joint_world, before the offset),
// gl_Position. Crowd::prepare_prop_program sets its uniforms.
std::string prop_vertex_glsl();

}  // namespace vatkit::gl
