// Squared distances from points to triangles, VATKIT_LOD_LANES (point, triangle) pairs at a time:
// the level-of-detail bound's inner loop (lod.cpp). Included by lod_distance.cpp once per width
// (1 and 4 lanes with the baseline target; 8 inside an AVX2 target region); it includes nothing,
// and every lane runs the same IEEE operations whatever the width, so every width gives the same
// bits.
//
// The closest point by the Voronoi region of p, as dist2_triangle finds it (Ericson, Real-Time
// Collision Detection, 5.1.5), without branches: each region's test is a lane mask, and the
// closest point is a + ab s + ac t with (s, t) = (num_s, num_t) / den taken from the first region
// whose test holds, in dist2_triangle's order (vertex a, b, edge ab, vertex c, edge ac, edge bc,
// face). A lane whose triangle is a sliver (kSliver), or whose point falls in the face region of a
// triangle too thin for its barycentric denominator, gets -1: the caller asks dist2_triangle,
// which measures against the edges.

constexpr int N = VATKIT_LOD_LANES;
typedef float fv __attribute__((vector_size(4 * N)));
typedef int32_t iv __attribute__((vector_size(4 * N)));

inline fv sel(iv m, fv a, fv b) { return (fv)((m & (iv)a) | (~m & (iv)b)); }
inline fv ld(const float* p) {
  fv r;
  __builtin_memcpy(&r, p, sizeof r);
  return r;
}

inline void put(iv m, fv s, fv t, fv d, fv& ns, fv& nt, fv& den, iv& region) {
  ns = sel(m, s, ns);
  nt = sel(m, t, nt);
  den = sel(m, d, den);
  region |= m;
}

// out[i] for i < n (n rounded up to the lane count: the arrays are padded).
inline void dist2_pairs(const PairSoA& s, uint32_t n, float* out) {
  const fv zero = fv{}, one = zero + 1.0f;
  for (uint32_t i = 0; i < n; i += N) {
    const fv px = ld(s.p[0] + i), py = ld(s.p[1] + i), pz = ld(s.p[2] + i);
    const fv ax = ld(s.a[0] + i), ay = ld(s.a[1] + i), az = ld(s.a[2] + i);
    const fv bx = ld(s.b[0] + i), by = ld(s.b[1] + i), bz = ld(s.b[2] + i);
    const fv cx = ld(s.c[0] + i), cy = ld(s.c[1] + i), cz = ld(s.c[2] + i);
    const fv abx = bx - ax, aby = by - ay, abz = bz - az;
    const fv acx = cx - ax, acy = cy - ay, acz = cz - az;
    const fv apx = px - ax, apy = py - ay, apz = pz - az;
    const fv bpx = px - bx, bpy = py - by, bpz = pz - bz;
    const fv cpx = px - cx, cpy = py - cy, cpz = pz - cz;
    const fv d1 = abx * apx + aby * apy + abz * apz, d2 = acx * apx + acy * apy + acz * apz;
    const fv d3 = abx * bpx + aby * bpy + abz * bpz, d4 = acx * bpx + acy * bpy + acz * bpz;
    const fv d5 = abx * cpx + aby * cpy + abz * cpz, d6 = acx * cpx + acy * cpy + acz * cpz;
    const fv vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    const fv e43 = d4 - d3, e56 = d5 - d6, sum = va + vb + vc;
    // Face first, then each region over it in reverse order of precedence.
    fv ns = vb, nt = vc, den = sum;
    iv region = (iv)zero;
    put((va <= zero) & (e43 >= zero) & (e56 >= zero), e56, e43, e43 + e56, ns, nt, den, region);  // edge bc
    put((vb <= zero) & (d2 >= zero) & (d6 <= zero), zero, d2, d2 - d6, ns, nt, den, region);      // edge ac
    put((d6 >= zero) & (d5 <= d6), zero, one, one, ns, nt, den, region);                          // vertex c
    put((vc <= zero) & (d1 >= zero) & (d3 <= zero), d1, zero, d1 - d3, ns, nt, den, region);      // edge ab
    put((d3 >= zero) & (d4 <= d3), one, zero, one, ns, nt, den, region);                          // vertex b
    put((d1 <= zero) & (d2 <= zero), zero, zero, one, ns, nt, den, region);                       // vertex a
    // Slivers (dist2_triangle's kSliver test, the same operations) and, below, faces too thin
    // for their denominator.
    const fv nx = aby * acz - abz * acy, ny = abz * acx - abx * acz, nz = abx * acy - aby * acx;
    const fv bcx = cx - bx, bcy = cy - by, bcz = cz - bz;
    const fv lab = abx * abx + aby * aby + abz * abz, lac = acx * acx + acy * acy + acz * acz;
    const fv lbc = bcx * bcx + bcy * bcy + bcz * bcz;
    fv longest2 = sel(lab > lac, lab, lac);
    longest2 = sel(lbc > longest2, lbc, longest2);
    const iv sliver = ~(nx * nx + ny * ny + nz * nz > (zero + kSliver * kSliver) * longest2 * longest2);
    const iv degenerate = sliver | (~region & ~(sum > zero));
    den = sel(degenerate, one, den);
    const fv s_ = ns / den, t_ = nt / den;
    const fv qx = px - (ax + abx * s_ + acx * t_), qy = py - (ay + aby * s_ + acy * t_),
             qz = pz - (az + abz * s_ + acz * t_);
    const fv d = sel(degenerate, zero - one, qx * qx + qy * qy + qz * qz);
    __builtin_memcpy(out + i, &d, sizeof d);
  }
}
