// glm::vec3 streams as lane vectors, for the lane-generic kernels (oct.inl, the skinner's
// 8- and 16-lane blocks): VATKIT_XYZ_LANES (1, 4, 8 or 16) consecutive vec3 become three vectors of
// x, y and z by shuffles of three plain loads, and (8 and 16 lanes) go back the same way.
// Building the vectors lane by lane went through the stack and stalled on store forwarding.
// Included inside a namespace (and, for 8 and 16 lanes, inside an AVX2 or AVX-512 target region,
// simd.h); it includes nothing.
typedef float xyz_fv __attribute__((vector_size(4 * VATKIT_XYZ_LANES)));
typedef int32_t xyz_iv __attribute__((vector_size(4 * VATKIT_XYZ_LANES)));

inline void load_xyz(const glm::vec3* n, xyz_fv& x, xyz_fv& y, xyz_fv& z) {
  xyz_fv a, b, c;
  __builtin_memcpy(&a, &n[0].x, sizeof a);
  __builtin_memcpy(&b, &n[0].x + VATKIT_XYZ_LANES, sizeof b);
  __builtin_memcpy(&c, &n[0].x + 2 * VATKIT_XYZ_LANES, sizeof c);
#if VATKIT_XYZ_LANES == 16
  x = __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0), c,
                              0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29);
  y = __builtin_shufflevector(__builtin_shufflevector(a, b, 1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0), c,
                              0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30);
  z = __builtin_shufflevector(__builtin_shufflevector(a, b, 2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0), c,
                              0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31);
#elif VATKIT_XYZ_LANES == 8
  x = __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 3, 6, 9, 12, 15, 0, 0), c, 0, 1, 2, 3, 4, 5, 10, 13);
  y = __builtin_shufflevector(__builtin_shufflevector(a, b, 1, 4, 7, 10, 13, 0, 0, 0), c, 0, 1, 2, 3, 4, 8, 11, 14);
  z = __builtin_shufflevector(__builtin_shufflevector(a, b, 2, 5, 8, 11, 14, 0, 0, 0), c, 0, 1, 2, 3, 4, 9, 12, 15);
#elif VATKIT_XYZ_LANES == 1
  x = a;
  y = b;
  z = c;
#else
  x = __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 3, 6, 0), c, 0, 1, 2, 5);
  y = __builtin_shufflevector(__builtin_shufflevector(a, b, 1, 4, 7, 0), c, 0, 1, 2, 6);
  z = __builtin_shufflevector(__builtin_shufflevector(a, b, 2, 5, 0, 0), c, 0, 1, 4, 7);
#endif
}

#if VATKIT_XYZ_LANES == 16
inline void store_xyz(xyz_fv x, xyz_fv y, xyz_fv z, glm::vec3* out) {
  // x0 y0 x1 y1 ... x7 y7 and x8 y8 ... x15 y15, then z merged in.
  const xyz_fv lo = __builtin_shufflevector(x, y, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const xyz_fv hi = __builtin_shufflevector(x, y, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const xyz_fv a = __builtin_shufflevector(lo, z, 0, 1, 16, 2, 3, 17, 4, 5, 18, 6, 7, 19, 8, 9, 20, 10);
  const xyz_fv mid = __builtin_shufflevector(lo, hi, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 0, 0, 0, 0, 0);
  const xyz_fv b = __builtin_shufflevector(mid, z, 0, 21, 1, 2, 22, 3, 4, 23, 5, 6, 24, 7, 8, 25, 9, 10);
  const xyz_fv c = __builtin_shufflevector(hi, z, 26, 6, 7, 27, 8, 9, 28, 10, 11, 29, 12, 13, 30, 14, 15, 31);
  __builtin_memcpy(&out[0].x, &a, sizeof a);
  __builtin_memcpy(&out[0].x + 16, &b, sizeof b);
  __builtin_memcpy(&out[0].x + 32, &c, sizeof c);
}
#elif VATKIT_XYZ_LANES == 8
inline void store_xyz(xyz_fv x, xyz_fv y, xyz_fv z, glm::vec3* out) {
  const xyz_fv lo = __builtin_shufflevector(x, y, 0, 8, 1, 9, 2, 10, 3, 11);    // x0 y0 x1 y1 x2 y2 x3 y3
  const xyz_fv hi = __builtin_shufflevector(x, y, 4, 12, 5, 13, 6, 14, 7, 15);  // x4 y4 ... x7 y7
  const xyz_fv a = __builtin_shufflevector(lo, z, 0, 1, 8, 2, 3, 9, 4, 5);
  const xyz_fv mid = __builtin_shufflevector(lo, hi, 6, 7, 8, 9, 10, 0, 0, 0);  // x3 y3 x4 y4 x5
  const xyz_fv b = __builtin_shufflevector(mid, z, 10, 0, 1, 11, 2, 3, 12, 4);
  const xyz_fv c = __builtin_shufflevector(hi, z, 3, 13, 4, 5, 14, 6, 7, 15);
  __builtin_memcpy(&out[0].x, &a, sizeof a);
  __builtin_memcpy(&out[0].x + 8, &b, sizeof b);
  __builtin_memcpy(&out[0].x + 16, &c, sizeof c);
}
#endif
