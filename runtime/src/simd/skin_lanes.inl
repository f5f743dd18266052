// The reference skinner's wide blocks, for VATKIT_XYZ_LANES (8 or 16) vertices at a time:
// normalization, the transforms of one block (positions, cofactor normals, tangents) and the
// loops over a stream. Included by skin.cpp inside the namespace of one width (avx2, avx512),
// itself inside that width's target region (simd.h), after simd_xyz.inl and these, which differ
// by width:
//   lane_sqrt(xyz_fv), all_lanes(xyz_iv): the square root and whether every lane is set;
//   blend_block<kEight>(s, v0, m): the blended matrices of vertices v0.. as m[row][col];
//   skin_tail<...>(s), transform_tail<...>(in, matrix, out, n): the narrower kernel for the last
//   vertices.
// Every lane runs the SSE block's operations (transform_block4, normalize4_or) in their order,
// so every width gives the same bits. It includes nothing.

constexpr size_t kLanes = VATKIT_XYZ_LANES;

// As normalize4_or, kLanes lanes.
inline void normalize_or(xyz_fv& x, xyz_fv& y, xyz_fv& z, const glm::vec3* in) {
  const xyz_fv len2 = x * x + y * y + z * z;
  const xyz_iv ok = len2 >= std::numeric_limits<float>::min();
  const xyz_fv inv = (xyz_fv{} + 1.0f) / lane_sqrt(len2);
  if (all_lanes(ok)) [[likely]] {
    x = x * inv;
    y = y * inv;
    z = z * inv;
    return;
  }
  for (size_t i = 0; i < kLanes; ++i) {
    const glm::vec3 r = normalized_or(x[i], y[i], z[i], in[i]);
    x[i] = r.x;
    y[i] = r.y;
    z[i] = r.z;
  }
}

// transform_block4 for kLanes vertices, m[row][col] one lane per vertex.
template <bool kPos, bool kNrm, bool kTan>
__attribute__((always_inline)) inline void transform_block(const xyz_fv (&m)[3][4], const BlockStreams& s) {
  if constexpr (kPos) {
    xyz_fv x, y, z;
    load_xyz(s.positions, x, y, z);
    store_xyz(((m[0][0] * x + m[0][1] * y) + m[0][2] * z) + m[0][3],
              ((m[1][0] * x + m[1][1] * y) + m[1][2] * z) + m[1][3],
              ((m[2][0] * x + m[2][1] * y) + m[2][2] * z) + m[2][3], s.out_positions);
  }
  if constexpr (kNrm) {
    const xyz_fv c0 = m[1][1] * m[2][2] - m[2][1] * m[1][2];
    const xyz_fv c1 = m[2][1] * m[0][2] - m[0][1] * m[2][2];
    const xyz_fv c2 = m[0][1] * m[1][2] - m[1][1] * m[0][2];
    const xyz_fv c3 = m[1][2] * m[2][0] - m[2][2] * m[1][0];
    const xyz_fv c4 = m[2][2] * m[0][0] - m[0][2] * m[2][0];
    const xyz_fv c5 = m[0][2] * m[1][0] - m[1][2] * m[0][0];
    const xyz_fv c6 = m[1][0] * m[2][1] - m[2][0] * m[1][1];
    const xyz_fv c7 = m[2][0] * m[0][1] - m[0][0] * m[2][1];
    const xyz_fv c8 = m[0][0] * m[1][1] - m[1][0] * m[0][1];
    const xyz_fv det = (m[0][0] * c0 + m[1][0] * c1) + m[2][0] * c2;
    const xyz_iv flip = (det < 0.0f) & int32_t(0x80000000u);  // the sign bit where det < 0
    xyz_fv x, y, z;
    load_xyz(s.normals, x, y, z);
    xyz_fv ox = xyz_fv(flip ^ xyz_iv((c0 * x + c3 * y) + c6 * z));
    xyz_fv oy = xyz_fv(flip ^ xyz_iv((c1 * x + c4 * y) + c7 * z));
    xyz_fv oz = xyz_fv(flip ^ xyz_iv((c2 * x + c5 * y) + c8 * z));
    normalize_or(ox, oy, oz, s.normals);
    store_xyz(ox, oy, oz, s.out_normals);
  }
  if constexpr (kTan) {
    const glm::vec4* t = s.tangents;
    xyz_fv x, y, z;
    glm::vec3 in[kLanes];
    for (size_t i = 0; i < kLanes; ++i) {
      x[i] = t[i].x;
      y[i] = t[i].y;
      z[i] = t[i].z;
      in[i] = glm::vec3(t[i]);
    }
    xyz_fv ox = (m[0][0] * x + m[0][1] * y) + m[0][2] * z;
    xyz_fv oy = (m[1][0] * x + m[1][1] * y) + m[1][2] * z;
    xyz_fv oz = (m[2][0] * x + m[2][1] * y) + m[2][2] * z;
    normalize_or(ox, oy, oz, in);
    for (size_t i = 0; i < kLanes; ++i) s.out_tangents[i] = glm::vec4(ox[i], oy[i], oz[i], t[i].w);
  }
}

template <bool kEight, bool kPos, bool kNrm, bool kTan>
void skin_kernel(const SkinStreams& s) {
  const size_t full = s.count / kLanes * kLanes;
  for (size_t v = 0; v < full; v += kLanes) {
    xyz_fv m[3][4];
    blend_block<kEight>(s, v, m);
    BlockStreams io;
    if constexpr (kPos) io.positions = s.positions + v, io.out_positions = s.out_positions + v;
    if constexpr (kNrm) io.normals = s.normals + v, io.out_normals = s.out_normals + v;
    if constexpr (kTan) io.tangents = s.tangents + v, io.out_tangents = s.out_tangents + v;
    transform_block<kPos, kNrm, kTan>(m, io);
  }
  if (full == s.count) return;
  skin_tail<kEight, kPos, kNrm, kTan>(streams_from(s, full));
}

template <bool kPos, bool kNrm, bool kTan>
void transform_kernel(VertexSpan in, const glm::mat4& matrix, VertexOutput out, size_t n) {
  xyz_fv m[3][4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m[r][c] = xyz_fv{} + matrix[c][r];
  const size_t full = n / kLanes * kLanes;
  for (size_t v = 0; v < full; v += kLanes) {
    BlockStreams io;
    if constexpr (kPos) io.positions = &in.positions[v], io.out_positions = &out.positions[v];
    if constexpr (kNrm) io.normals = &in.normals[v], io.out_normals = &out.normals[v];
    if constexpr (kTan) io.tangents = &in.tangents[v], io.out_tangents = &out.tangents[v];
    transform_block<kPos, kNrm, kTan>(m, io);
  }
  if (full == n) return;
  auto tail = [](auto span, size_t k) { return span.size() >= k ? span.subspan(k) : decltype(span){}; };
  transform_tail<kPos, kNrm, kTan>(
      VertexSpan{tail(in.positions, full), tail(in.normals, full), tail(in.tangents, full)}, matrix,
      VertexOutput{tail(out.positions, full), tail(out.normals, full), tail(out.tangents, full)}, n - full);
}
