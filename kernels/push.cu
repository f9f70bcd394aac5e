// Top-down (push) masked SpMSpV: w = u' M over a list frontier, load-balanced over frontier
// edges (Bisson et al. 2015, 3.4 and 3.4.1). `scan` is the exclusive scan of the frontier
// entries' degrees (length nf + 1; scan[nf] = total edges, read here so the host need not).
// Each thread takes EDGES_PER_THREAD consecutive edges: one binary search for the first,
// then it walks forward. Output is a bitmap over the output space: a destination's bit is
// claimed with atomicOr, and for `any` only the first claimant writes its value.
#include "common.cuh"

#ifndef LD_EDGES_PER_THREAD
#define LD_EDGES_PER_THREAD 4
#endif

// degrees[k] = out-degree of frontier entry k, the input of the scan below.
extern "C" __global__ void ld_frontier_degrees(const i64* __restrict__ indptr, const int* __restrict__ frontier,
                                               int nf, i64* __restrict__ degrees) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nf; k += gridDim.x * blockDim.x) {
        const int u = frontier[k];
        degrees[k] = indptr[u + 1] - indptr[u];
    }
}

template <int MULT, int ADD, typename V>
__global__ void ld_push_spmspv(const i64* __restrict__ indptr, const int* __restrict__ indices,
                               const int* __restrict__ frontier, const V* __restrict__ frontier_values,
                               const i64* __restrict__ scan, int nf,
                               const u32* __restrict__ mask, int mask_mode,
                               u32* __restrict__ out_words, V* __restrict__ out_values, u64* __restrict__ counters,
                               i64 block_len, i64 stride, i64 offset) {
    const i64 total = scan[nf];
    const i64 step = (i64)gridDim.x * blockDim.x * LD_EDGES_PER_THREAD;
    u64 discovered = 0;
    for (i64 first = ((i64)blockIdx.x * blockDim.x + threadIdx.x) * LD_EDGES_PER_THREAD; first < total; first += step) {
        int lo = 0, hi = nf;                 // scan[lo] <= first < scan[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) >> 1;
            if (scan[mid] <= first) lo = mid; else hi = mid;
        }
        int k = lo;
#pragma unroll
        for (int e = 0; e < LD_EDGES_PER_THREAD; ++e) {
            const i64 edge = first + e;
            if (edge >= total) break;
            while (scan[k + 1] <= edge) ++k;  // empty columns are skipped here
            const int u = frontier[k];
            const int v = __ldg(indices + __ldg(indptr + u) + (edge - scan[k]));
            if (!ld_allowed(mask, mask_mode, v)) continue;
            const u32 bit = 1u << (v & 31);
            u32* word = out_words + (v >> 5);
            const V left = MULT == LD_MULT_LAND ? frontier_values[k] : V();
            const V value = ld_multiply<MULT, V>(u, left, block_len, stride, offset);
            if constexpr (ADD == LD_ADD_ANY) {
                if (*word & bit) continue;   // cheap read first: most repeats stop here
                if (!(atomicOr(word, bit) & bit)) { out_values[v] = value; ++discovered; }
            } else if constexpr (ADD == LD_ADD_MIN) {
                if (!(atomicOr(word, bit) & bit)) ++discovered;
                atomicMin(out_values + v, value);           // values start at the identity
            } else {
                if (!(atomicOr(word, bit) & bit)) ++discovered;
                if (value) out_values[v] = true;            // values start false
            }
        }
    }
    ld_add_block_count(counters, discovered);
    if (blockIdx.x == 0 && threadIdx.x == 0) counters[1] = (u64)total;
}

#ifdef LD_NVCC_CHECK   // explicit instances, so that a plain nvcc compile checks every body
#define LD_PUSH_INSTANCE(M, A, V) template __global__ void ld_push_spmspv<M, A, V>( \
    const i64*, const int*, const int*, const V*, const i64*, int, const u32*, int, u32*, V*, u64*, i64, i64, i64);
LD_PUSH_INSTANCE(LD_MULT_PAIR, LD_ADD_ANY, bool)
LD_PUSH_INSTANCE(LD_MULT_LAND, LD_ADD_LOR, bool)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_ANY, long long)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_MIN, long long)
#endif
