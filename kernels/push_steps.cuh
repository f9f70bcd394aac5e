// The per-edge step of a top-down (push) product, shared by push.cu (ld_push_spmspv) and
// fused.cu (ld_push_visit, under each of its push paths: flattened small vertices, a warp a
// larger vertex, giant slices), so that a fix to the claim lands in both.
#pragma once
#include "common.cuh"

// Claim out-neighbour v in the bitmap `words` for `value` under the monoid ADD: true for the
// first claimant (v is new this product), which alone wrote its value (ld_claim); ld_push_probe
// is its first step, whether a claim is worth trying (push.cu issues the probes of a thread's
// edges together before their claims). For `any`,
// bits only turn on while a product runs, so a set bit seen through the read-only cache is
// final and ends the visit without a coherent read; a stale clear bit only costs the coherent
// claim (Bisson et al.'s filter). `min` and `lor` always claim: a repeat may still change v's
// value.
template <int ADD>
__device__ __forceinline__ bool ld_push_probe(const u32* __restrict__ words, i64 v) {
    if constexpr (ADD == LD_ADD_ANY) return !ld_bit(words, v);
    else return true;
}

template <int ADD, typename V>
__device__ __forceinline__ bool ld_push_claim(u32* __restrict__ words, V* __restrict__ values, i64 v, V value) {
    return ld_push_probe<ADD>(words, v) && ld_claim<ADD, V>(words, values, v, value);
}
