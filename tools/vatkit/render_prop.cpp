// `vatkit render --prop SPEC`: a prop held by a joint of every instance (vatkit/gl/props.h).
// SPEC is sword, box or a glTF file (its default scene's meshes at rest, in their own units),
// then optionally @JOINT (a slot's joint name; `vatkit info` lists them); without @JOINT, the
// first slot whose name reads as a right hand ("hand" with "right", ".r", "_r" or "r" after it).
#include <algorithm>
#include <cctype>
#include <string>

#include "render_prop.h"

#include "cli.h"
#include "vatkit/decode.h"
#include "vatkit/scene.h"

namespace vatkit::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// The slot of a right hand, else of any hand.
int hand_slot(const Vat& vat) {
  int any = -1;
  for (size_t i = 0; i < vat.slots.size(); ++i) {
    const std::string name = lower(vat.slots[i].name);
    const size_t at = name.find("hand");
    if (at == std::string::npos) continue;
    if (any < 0) any = int(i);
    const std::string rest = name.substr(at + 4);
    if (name.find("right") != std::string::npos || rest == "r" || rest.rfind(".r", 0) == 0 ||
        rest.rfind("_r", 0) == 0 || name.rfind("r_", 0) == 0 || name.rfind("r.", 0) == 0)
      return int(i);
  }
  return any;
}

Result<gl::PropMesh> prop_mesh(const std::string& what, const Vat& vat, const std::vector<std::string>& allow_roots) {
  const float height = vat.bounds.max.y - vat.bounds.min.y;
  if (what == "sword") return gl::sword_prop(std::max(height, 1e-3f) * 0.45f);
  if (what == "box") return gl::box_prop(glm::vec3(std::max(height, 1e-3f) * 0.05f));
  Result<Asset> asset = load_input(what, allow_roots, nullptr);
  if (!asset) return asset.error();
  gl::PropMesh mesh;
  mesh.positions.resize(asset->instance_vertex_count);
  mesh.normals.resize(asset->instance_vertex_count);
  SceneEvaluator evaluator(*asset);
  evaluator.pose(-1, 0.0f);
  evaluator.skin(mesh.positions, mesh.normals);
  for (const MeshInstance& in : asset->instances) {
    for (uint32_t i : asset->meshes[in.mesh].primitives[in.primitive].indices)
      mesh.indices.push_back(in.first_vertex + i);
  }
  if (mesh.indices.empty()) return make_error(ErrorCode::Argument, what, "--prop: the file has no triangles");
  return mesh;
}

}  // namespace

Result<PropChoice> parse_prop(const std::string& spec, const Vat& vat, const std::vector<std::string>& allow_roots) {
  const size_t at = spec.rfind('@');
  const std::string what = spec.substr(0, at);
  PropChoice out;
  if (at != std::string::npos) {
    Result<int> slot = find_slot(vat, spec.substr(at + 1));
    if (!slot) return make_error(ErrorCode::Argument, "--prop " + printable(spec), slot.error().message);
    out.desc.slot = uint32_t(*slot);
  } else {
    const int slot = hand_slot(vat);
    if (slot < 0) {
      return make_error(ErrorCode::Argument, "--prop " + printable(spec),
                        "no joint named like a hand in " + printable(vat.source) + ": name one as SPEC@JOINT");
    }
    out.desc.slot = uint32_t(slot);
  }
  Result<gl::PropMesh> mesh = prop_mesh(what, vat, allow_roots);
  if (!mesh) return mesh.error();
  out.mesh = std::move(*mesh);
  return out;
}

}  // namespace vatkit::cli
