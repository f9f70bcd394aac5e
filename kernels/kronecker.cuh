// One Graph500 Kronecker edge, edge k a pure function of (seed, k): the arithmetic of
// lagraph_dist/io/generators.py's kronecker_edges (splitmix64 draws, R-MAT quadrants, then a seeded
// bijection of the vertex ids) for one counter, in functions that compile for the device
// (kronecker.cu) and for the host (tests/test_generators.py builds them with nvcc and compares
// them with the numpy generator). The per-stream keys, the quadrant thresholds and the bijection's
// keys are made once on the host (generators.kronecker_plan) and passed in.
#pragma once
#ifndef __CUDACC__
#define __host__
#define __device__
#endif

typedef unsigned long long ld_gen_u64;

// splitmix64's finaliser.
__host__ __device__ inline ld_gen_u64 ld_finalise(ld_gen_u64 z) {
    z ^= z >> 30;
    z *= 0xBF58476D1CE4E5B9ull;
    z ^= z >> 27;
    z *= 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// 64 pseudo-random bits of `counter` in the stream whose (finalised) key is `key`.
__host__ __device__ inline ld_gen_u64 ld_draw(ld_gen_u64 key, ld_gen_u64 counter) {
    return ld_finalise(counter * 0x9E3779B97F4A7C15ull + key);
}

// Quadrant of a 32-bit draw (A, B, C, D as thresholds[0..2] are passed): bit `level` of the
// row (C, D) and of the column (B, D).
__host__ __device__ inline void ld_quadrant(ld_gen_u64 draw, int level, const ld_gen_u64* thresholds,
                                            ld_gen_u64* src, ld_gen_u64* dst) {
    const ld_gen_u64 row = draw >= thresholds[1];
    const ld_gen_u64 col = (ld_gen_u64)(draw >= thresholds[0]) ^ row ^ (ld_gen_u64)(draw >= thresholds[2]);
    *src |= row << level;
    *dst |= col << level;
}

// The seeded bijection of [0, 2^scale): rounds of (add, odd multiply) keys with xor-shifts.
__host__ __device__ inline ld_gen_u64 ld_permute(ld_gen_u64 v, int scale, const ld_gen_u64* keys, int rounds) {
    const ld_gen_u64 mask = (1ull << scale) - 1, shift = (ld_gen_u64)((scale + 1) / 2);
    for (int r = 0; r < rounds; ++r) {
        v = (v + keys[2 * r]) & mask;
        v ^= v >> shift;
        v = (v * keys[2 * r + 1]) & mask;
    }
    return v ^ (v >> shift);
}

// Edge `counter`: levels 2m and 2m + 1 take the high and low 32 bits of stream m's draw.
__host__ __device__ inline void ld_kronecker_edge(ld_gen_u64 counter, int scale, const ld_gen_u64* level_keys,
                                                  const ld_gen_u64* thresholds, const ld_gen_u64* permute_keys,
                                                  int rounds, long long* src, long long* dst) {
    ld_gen_u64 s = 0, d = 0;
    for (int level = 0; level < scale; level += 2) {
        const ld_gen_u64 draw = ld_draw(level_keys[level / 2], counter);
        ld_quadrant(draw >> 32, level, thresholds, &s, &d);
        if (level + 1 < scale) ld_quadrant(draw & 0xFFFFFFFFull, level + 1, thresholds, &s, &d);
    }
    *src = (long long)ld_permute(s, scale, permute_keys, rounds);
    *dst = (long long)ld_permute(d, scale, permute_keys, rounds);
}
