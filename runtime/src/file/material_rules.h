// The ranges a Material's values must hold (glTF's schema for baseColorFactor and alphaCutoff):
// one rule, checked where a material enters vatkit (the importer) and where it leaves (the
// .vat.glb writer), so that every material imported can be written.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include "util/number_text.h"
#include "vatkit/material.h"

namespace vatkit::detail {

struct MaterialProblem {
  const char* field;   // "baseColorFactor" or "alphaCutoff"
  int component = -1;  // the factor's component, -1 for a scalar
  std::string reason;
};

inline std::optional<MaterialProblem> material_value_problem(const Material& m) {
  for (int c = 0; c < 4; ++c) {
    const float v = m.base_color_factor[c];
    if (!(v >= 0.0f && v <= 1.0f)) return MaterialProblem{"baseColorFactor", c, number_text(v) + " is not in [0, 1]"};
  }
  if (!(m.alpha_cutoff >= 0.0f && std::isfinite(m.alpha_cutoff)))
    return MaterialProblem{"alphaCutoff", -1, number_text(m.alpha_cutoff) + " is not a finite number >= 0"};
  return std::nullopt;
}

}  // namespace vatkit::detail
