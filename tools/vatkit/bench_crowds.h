// `vatkit bench --mode mixed|agents` (bench_crowds.cpp): the cost of drawing several characters in
// one crowd against one character with the same triangles, and the CPU time and bytes uploaded
// per frame of agents a game moves every frame (full matrices against position + heading).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vatkit/result.h"

namespace vatkit::cli {

struct CrowdBenchOptions {
  std::string file;  // a .vat.glb or a glTF baked here (rig f16); "" the built-in sample
  std::vector<std::string> allow_roots;
  std::vector<uint32_t> counts;  // crowd sizes
  uint32_t frames = 60;
  uint32_t warmup = 5;
  int width = 1920, height = 1080;
  uint64_t seed = 1;
  uint32_t characters = 4;  // mixed: crowds the instances are dealt over
};

// Per size: one crowd of N instances against `characters` crowds of N / characters each (the
// same VAT uploaded once per crowd: the same triangles, every per-crowd cost paid per crowd),
// median frame time (render + glFinish) and CPU submission time, and their ratio.
Result<void> run_mixed_bench(const CrowdBenchOptions& options);

// Per size: N agents moving every frame, three ways: set_world with a full matrix (64 bytes an
// agent), set_placement per agent, set_placements over all (16 bytes an agent); median CPU time
// of the updates, of their upload (Crowd::sync) and of the rest of Renderer::render (culling and
// draw submission), and the bytes uploaded per frame.
Result<void> run_agents_bench(const CrowdBenchOptions& options);

}  // namespace vatkit::cli
