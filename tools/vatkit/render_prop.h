// `vatkit render --prop SPEC` (render_prop.cpp): the prop's mesh and joint from SPEC.
#pragma once

#include <string>
#include <vector>

#include "vatkit/gl/props.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit::cli {

struct PropChoice {
  gl::PropMesh mesh;
  gl::PropDesc desc;
};

// SPEC is sword, box or a glTF file, optionally followed by @JOINT. Errors: a joint the VAT has no
// slot for (listing the slots), no hand found when @JOINT is left out, the file's import errors,
// a file without triangles.
Result<PropChoice> parse_prop(const std::string& spec, const Vat& vat, const std::vector<std::string>& allow_roots);

}  // namespace vatkit::cli
