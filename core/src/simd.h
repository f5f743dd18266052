// The SIMD width of the bake kernels (the rig kernel, bake_rig_kernel_lanes.inl; the octahedral
// normal encoder, bake_oct.inl): 8 lanes where the CPU runs AVX2, 4 elsewhere. Both widths run the
// same IEEE operations per lane and write the same bytes; tests and benchmarks force one or the
// other to show it.
#pragma once

namespace vatkit::detail {

// 8 where the CPU has AVX2 (x86-64 builds with GCC or Clang), else 4; or the forced width.
unsigned simd_lanes();
// Forces 4 or 8 lanes (8 only where the CPU has AVX2); 0 restores the automatic choice.
void force_simd_lanes(unsigned lanes);

}  // namespace vatkit::detail
