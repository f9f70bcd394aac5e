// The per-edge step of a top-down (push) product, shared by push.cu (ld_push_spmspv) and
// fused.cu (ld_push_visit, under each of its push paths: flattened small vertices, a warp a
// larger vertex, giant slices), so that a fix to the claim lands in both.
#pragma once
#include "common.cuh"

// Claim out-neighbour v in the bitmap `words` for `value` under the monoid ADD: true for the
// first claimant (v is new this product), which alone wrote its value (ld_claim). For `any`,
// bits only turn on while a product runs, so a set bit seen through the read-only cache is
// final and ends the visit without a coherent read; a stale clear bit only costs the coherent
// claim (Bisson et al.'s filter). `min` and `lor` always claim: a repeat may still change v's
// value.
template <int ADD, typename V>
__device__ __forceinline__ bool ld_push_claim(u32* __restrict__ words, V* __restrict__ values, i64 v, V value) {
    if constexpr (ADD == LD_ADD_ANY) {
        if (ld_bit(words, v)) return false;
    }
    return ld_claim<ADD, V>(words, values, v, value);
}
