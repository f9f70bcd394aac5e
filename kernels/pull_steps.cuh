// The row scans of a bottom-up (pull) product, shared by pull.cu (ld_pull_rows,
// ld_pull_long_rows) and fused.cu (ld_pull_level, ld_pull_giant_rows), so that a fix lands in
// both:
//   ld_pull_short_row  a lane scans a short row alone, LD_PULL_UNROLL in-edges (and their
//                      frontier words) in flight;
//   ld_pull_warp_hits  one step of a warp over 32 in-edges of a row: the ballot of those in
//                      the frontier, the step's inputs counted;
//   ld_pull_warp_row   a warp scans a long row, LOADS coalesced steps in flight, until no later
//                      input can change the row's value.
// A row's inputs are read in increasing order; a scan stops at its first frontier input when
// the semiring allows it (ld_first_hit_final), or, for lor, at its first true value; the valued
// monoids (plus, min, max of values) read the whole row, a warp combining a step's hits by
// ld_warp_combine.
// COHERENT says how the frontier bitmap is read: through the read-only cache when no thread of
// the kernel writes it (pull.cu), at L2 with __ldcg when the same kernel writes it (fused.cu).
#pragma once
#include "common.cuh"

// (8 took fewer lock-step steps by benchmarks/probes/pull_lanes.py's count, and lost 13-20% of
// Kronecker 20-24's levels to its spills: docs/notes/gpu-single-search.md)
#define LD_PULL_UNROLL 4

// Lane x ^ d's value (bool travels as an int: the shuffles take no bytes).
template <typename V>
__device__ __forceinline__ V ld_shfl_xor(V x, int d) {
    if constexpr (ld_is_bool<V>::value) return __shfl_xor_sync(0xffffffffu, (int)x, d) != 0;
    else return __shfl_xor_sync(0xffffffffu, x, d);
}

// The monoid ADD over the values x of the lanes with `has` (one lane at least), in every lane:
// an xor butterfly whose steps combine two lanes' partial values with the operands in either
// order, so a commutative op (plus, float plus too) leaves the same bits in every lane; min and
// max may differ only in the sign of a zero, and lane 0's is the one written.
template <int ADD, typename V>
__device__ __forceinline__ V ld_warp_combine(V x, bool has) {
    for (int d = 16; d > 0; d >>= 1) {
        const V other = ld_shfl_xor(x, d);
        const bool other_has = __shfl_xor_sync(0xffffffffu, (int)has, d) != 0;
        if (other_has) x = has ? ld_combine<ADD, V>(x, other) : other;
        has = has || other_has;
    }
    return x;
}

template <bool COHERENT>
__device__ __forceinline__ u32 ld_frontier_word(const u32* __restrict__ frontier_words, int c) {
    if constexpr (COHERENT) return __ldcg(frontier_words + (c >> 5));
    else return __ldg(frontier_words + (c >> 5));
}

// Scan inputs [start, end) of one row, LD_PULL_UNROLL in-edges and then their frontier words
// in flight; returns whether a frontier input was found and, through `value`, the row's value.
// `examined` counts the inputs read up to the last one tested.
template <int MULT, int ADD, typename V, bool COHERENT>
__device__ __forceinline__ bool ld_pull_short_row(const int* __restrict__ indices, i64 start, i64 end,
                                                  const u32* __restrict__ frontier_words,
                                                  const V* __restrict__ frontier_values, u64& examined, V& value,
                                                  i64 block_len, i64 stride, i64 offset) {
    constexpr bool stop_at_first = ld_first_hit_final<MULT, ADD>::value;
    bool found = false, settled = false;    // settled: lor's value is true
    const auto done = [&] { return stop_at_first ? found : settled; };   // no later input can change it
    int first = 0;                          // stop_at_first: the input found
    for (i64 e = start; e < end && !done(); e += LD_PULL_UNROLL) {
        int c[LD_PULL_UNROLL];
        u32 word[LD_PULL_UNROLL];
#pragma unroll
        for (int k = 0; k < LD_PULL_UNROLL; ++k) c[k] = e + k < end ? __ldg(indices + e + k) : -1;
#pragma unroll
        for (int k = 0; k < LD_PULL_UNROLL; ++k) word[k] = c[k] >= 0 ? ld_frontier_word<COHERENT>(frontier_words, c[k]) : 0u;
#pragma unroll
        for (int k = 0; k < LD_PULL_UNROLL; ++k) {
            if (done() || c[k] < 0) continue;
            ++examined;
            if (!((word[k] >> (c[k] & 31)) & 1u)) continue;
            if constexpr (stop_at_first) {
                first = c[k];
            } else {
                const V x = ld_multiply<MULT, V>(c[k], ld_left<MULT>(frontier_values, c[k]), block_len, stride,
                                                 offset);
                value = found ? ld_combine<ADD, V>(value, x) : x;
                settled = ADD == LD_ADD_LOR && value;
            }
            found = true;
        }
    }
    if (stop_at_first && found)
        value = ld_multiply<MULT, V>(first, ld_left<MULT>(frontier_values, first), block_len, stride, offset);
    return found;
}

// One step of a warp's scan of a row ending at `end`: lane l holds input c = in-edge chunk + l
// (-1 past the end). Returns the ballot of the lanes whose input is in the frontier; lane 0
// counts the step's inputs in `examined`. Every lane of the warp must call it.
template <bool COHERENT>
__device__ __forceinline__ u32 ld_pull_warp_hits(const u32* __restrict__ frontier_words, int c, i64 chunk, i64 end,
                                                 int lane, u64& examined) {
    const bool hit = c >= 0 && ((ld_frontier_word<COHERENT>(frontier_words, c) >> (c & 31)) & 1u);
    if (lane == 0) examined += (u64)((end - chunk < 32) ? (end - chunk) : 32);
    return __ballot_sync(0xffffffffu, hit);
}

// A warp scans inputs [start, end) of one row, 32 * LOADS a step with LOADS coalesced loads in
// flight before the frontier is probed, and stops after the first step that settles the row's
// value. Every lane of the warp calls it with the same row and gets the same result: whether
// a frontier input was found and, through `value`, the row's value (for a first-hit semiring,
// that of the lowest lane's input of the first step with a hit: the smallest input id).
template <int MULT, int ADD, typename V, bool COHERENT, int LOADS>
__device__ __forceinline__ bool ld_pull_warp_row(const int* __restrict__ indices, i64 start, i64 end,
                                                 const u32* __restrict__ frontier_words,
                                                 const V* __restrict__ frontier_values, int lane, u64& examined,
                                                 V& value, i64 block_len, i64 stride, i64 offset) {
    constexpr bool stop_at_first = ld_first_hit_final<MULT, ADD>::value;
    bool found = false, settled = false;    // settled: lor's value is true
    const auto done = [&] { return stop_at_first ? found : settled; };   // no later input can change it
    for (i64 base = start; base < end && !done(); base += 32 * LOADS) {
        int c[LOADS];
#pragma unroll
        for (int h = 0; h < LOADS; ++h) {
            const i64 e = base + 32 * h + lane;
            c[h] = e < end ? __ldg(indices + e) : -1;
        }
#pragma unroll
        for (int h = 0; h < LOADS; ++h) {
            const i64 chunk = base + 32 * h;
            if (done() || chunk >= end) break;
            const u32 hits = ld_pull_warp_hits<COHERENT>(frontier_words, c[h], chunk, end, lane, examined);
            if (!hits) continue;
            if constexpr (stop_at_first) {           // the lowest lane holds the smallest input id
                const int first = __shfl_sync(0xffffffffu, c[h], __ffs(hits) - 1);
                value = ld_multiply<MULT, V>(first, ld_left<MULT>(frontier_values, first), block_len, stride, offset);
            } else if constexpr (ADD == LD_ADD_LOR) {    // lor: true as soon as any hit is true
                const bool hit = (hits >> lane) & 1u;
                V x = V();
                if (hit) x = ld_multiply<MULT, V>(c[h], ld_left<MULT>(frontier_values, c[h]), block_len, stride,
                                                  offset);
                const bool any_true = __ballot_sync(0xffffffffu, hit && x) != 0;
                value = found ? ld_combine<ADD, V>(value, (V)any_true) : (V)any_true;
                settled = (bool)value;
            } else {                                 // a valued monoid: the step's hits combined, then the row's
                const bool hit = (hits >> lane) & 1u;
                V x = V();
                if (hit) x = ld_multiply<MULT, V>(c[h], ld_left<MULT>(frontier_values, c[h]), block_len, stride,
                                                  offset);
                x = ld_warp_combine<ADD, V>(x, hit);
                value = found ? ld_combine<ADD, V>(value, x) : x;
            }
            found = true;
        }
    }
    return found;
}
