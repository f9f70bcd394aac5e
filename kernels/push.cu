// Top-down (push) masked SpMSpV: w = u' M over a list frontier, load-balanced over frontier
// edges (Bisson et al. 2015, 3.4; the CTA gathering of Merrill et al.'s load-balanced expand).
//
// `scan` is the exclusive scan of the frontier entries' degrees (length nf + 1; scan[nf] is the
// total, read here so the host need not). A block takes a tile of blockDim * EDGES_PER_THREAD
// consecutive frontier edges: it finds the tile's frontier range [k0, k1] with two binary
// searches, stages that range's scan, row start and vertex in shared memory, and its threads
// then read the tile's edges with consecutive threads on consecutive edges (coalesced), each
// finding its frontier entry by a short search in shared memory. A destination is claimed in the
// output bitmap with atomicOr (ld_claim); new entries are staged in shared memory and appended to the output
// queue with one atomic a block flush, and their out-degrees summed for the direction rule.
#include "common.cuh"

#ifndef LD_EDGES_PER_THREAD
#define LD_EDGES_PER_THREAD 4
#endif
#define LD_PUSH_THREADS 256
#define LD_TILE_EDGES (LD_PUSH_THREADS * LD_EDGES_PER_THREAD)
#define LD_SMALL_SCAN 1024          // frontiers up to this size are scanned by one block

// degrees[k] = out-degree of frontier entry k, the input of a device-wide scan.
extern "C" __global__ void ld_frontier_degrees(const i64* __restrict__ indptr, const int* __restrict__ frontier,
                                               i64 nf, i64* __restrict__ degrees) {
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < nf; k += (i64)gridDim.x * blockDim.x) {
        const int u = frontier[k];
        degrees[k] = indptr[u + 1] - indptr[u];
    }
}

// One block of LD_SMALL_SCAN threads: the exclusive scan of the degrees of nf <= LD_SMALL_SCAN
// frontier entries, written to scan[0..nf] (one launch instead of degrees + a device scan).
extern "C" __global__ void ld_frontier_scan_small(const i64* __restrict__ indptr, const int* __restrict__ frontier,
                                                  int nf, i64* __restrict__ scan) {
    __shared__ i64 warp_totals[32];
    const int k = threadIdx.x, lane = k & 31, warp = k >> 5;
    i64 degree = 0;
    if (k < nf) { const int u = frontier[k]; degree = indptr[u + 1] - indptr[u]; }
    i64 inclusive = degree;
    for (int d = 1; d < 32; d <<= 1) {
        const i64 below = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += below;
    }
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = blockDim.x >> 5;
        i64 total = lane < nwarps ? warp_totals[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            const i64 below = __shfl_up_sync(0xffffffffu, total, d);
            if (lane >= d) total += below;
        }
        warp_totals[lane] = total;            // inclusive over warps
    }
    __syncthreads();
    const i64 before = (warp ? warp_totals[warp - 1] : 0) + inclusive - degree;
    if (k < nf) scan[k] = before;
    if (k == nf - 1) scan[nf] = before + degree;
    if (nf == 0 && k == 0) scan[0] = 0;
}

// The last k in [lo, hi) with scan[k] <= edge (scan increasing, scan[lo] <= edge).
__device__ __forceinline__ int ld_owner_of_edge(const i64* __restrict__ scan, int lo, int hi, i64 edge) {
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (scan[mid] <= edge) lo = mid; else hi = mid;
    }
    return lo;
}

template <int MULT, int ADD, typename V>
__global__ void __launch_bounds__(LD_PUSH_THREADS)
ld_push_spmspv(const i64* __restrict__ indptr, const int* __restrict__ indices,
               const int* __restrict__ frontier, const V* __restrict__ frontier_values,
               const i64* __restrict__ scan, int nf,
               const u32* __restrict__ mask, int mask_mode,
               u32* __restrict__ out_words, V* __restrict__ out_values, int* __restrict__ queue,
               u64* __restrict__ counters, const i64* __restrict__ out_degree,
               i64 block_len, i64 stride, i64 offset) {
    __shared__ i64 s_scan[LD_TILE_EDGES + 1];   // the tile's frontier range, when it fits
    __shared__ i64 s_start[LD_TILE_EDGES];      // indptr[u] - scan[k]: edge e of entry k is s_start + e
    __shared__ int s_vertex[LD_TILE_EDGES];
    __shared__ int s_range[2];
    __shared__ ld_stage found;
    ld_stage_init(found);
    const i64 total = scan[nf];
    u64 pushed_edges = 0;
    for (i64 tile = blockIdx.x; tile * LD_TILE_EDGES < total; tile += gridDim.x) {
        const i64 first = tile * LD_TILE_EDGES;
        const i64 last = min(first + (i64)LD_TILE_EDGES, total);
        if (threadIdx.x == 0) s_range[0] = ld_owner_of_edge(scan, 0, nf, first);
        if (threadIdx.x == 32) s_range[1] = ld_owner_of_edge(scan, 0, nf, last - 1);
        __syncthreads();
        const int k0 = s_range[0], span = s_range[1] - k0 + 1;
        const bool staged = span <= LD_TILE_EDGES;
        if (staged) {
            for (int i = threadIdx.x; i <= span; i += blockDim.x) {
                const i64 at = scan[k0 + i];
                s_scan[i] = at;
                if (i < span) {
                    const int u = frontier[k0 + i];
                    s_vertex[i] = u;
                    s_start[i] = indptr[u] - at;
                }
            }
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < LD_EDGES_PER_THREAD; ++j) {
            const i64 edge = first + (i64)j * LD_PUSH_THREADS + threadIdx.x;
            bool fresh = false;
            int v = 0;
            if (edge < last) {
                int k, u;
                i64 at;
                if (staged) {
                    const int i = ld_owner_of_edge(s_scan, 0, span, edge);
                    k = k0 + i; u = s_vertex[i]; at = s_start[i] + edge;
                } else {             // a range of many empty frontier entries: search globally
                    k = ld_owner_of_edge(scan, k0, k0 + span, edge);
                    u = frontier[k]; at = indptr[u] + (edge - scan[k]);
                }
                v = __ldg(indices + at);
                if (ld_allowed(mask, mask_mode, v)) {
                    const V left = MULT == LD_MULT_LAND ? frontier_values[k] : V();
                    fresh = ld_claim<ADD, V>(out_words, out_values, v,
                                             ld_multiply<MULT, V>(u, left, block_len, stride, offset));
                }
            }
            ld_stage_add(found, fresh, v);
            if (fresh && out_degree) pushed_edges += (u64)out_degree[v];
        }
        ld_stage_flush(found, queue, counters + LD_FOUND, LD_TILE_EDGES, false);   // also a barrier
    }
    ld_stage_flush(found, queue, counters + LD_FOUND, 0, true);
    ld_add_block_count(counters + LD_PUSH_EDGES, pushed_edges);
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(counters + LD_EXAMINED, (u64)total);
}

#ifdef LD_NVCC_CHECK   // explicit instances, so that a plain nvcc compile checks every body
#define LD_PUSH_INSTANCE(M, A, V) template __global__ void ld_push_spmspv<M, A, V>( \
    const i64*, const int*, const int*, const V*, const i64*, int, const u32*, int, u32*, V*, int*, u64*, \
    const i64*, i64, i64, i64);
LD_PUSH_INSTANCE(LD_MULT_PAIR, LD_ADD_ANY, bool)
LD_PUSH_INSTANCE(LD_MULT_LAND, LD_ADD_LOR, bool)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_ANY, long long)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_MIN, long long)
#endif
