// Top-down (push) masked SpMSpV: w = u' M over a list frontier, load-balanced over frontier
// edges (Bisson et al. 2015, 3.4; the CTA gathering of Merrill et al.'s load-balanced expand).
//
// `scan` is the exclusive scan of the frontier entries' degrees (length nf + 1; scan[nf] is the
// total, read here so the host need not). A block walks a contiguous run of tiles of
// blockDim * EDGES_PER_THREAD consecutive frontier edges. For each tile it loads the scan from
// the tile's first frontier entry on into shared memory (one coalesced read), finds the tile's
// last entry there in parallel, stages the range's vertex and row start, and its threads then
// read the tile's edges with consecutive threads on consecutive edges (coalesced), each
// finding its frontier entry by a short search in shared memory. A destination is claimed in the
// output bitmap with push_steps.cuh's ld_push_claim (the read-only-cache probe and the atomicOr
// claim, shared with fused.cu's push); new entries are staged in shared memory and appended to
// the output queue with one atomic a block flush, and their out-degrees summed for the
// direction rule. LD_PUSH_THREADS, LD_EDGES_PER_THREAD and LD_SMALL_SCAN (frontiers up to this
// size are scanned by one block) come from lagraph_dist/local/layout.py.
//
// In place (a BFS level too big for fused.cu's kernel, which hands it here between two of its
// runs): the output bitmap and values are the search's visited bits and parents, so one probe of
// a neighbour's bit is both the mask's test and the claim's (no mask, no product output, no
// assign after it); the claimant also writes the vertex's depth, and out-degrees come from the
// matrix's own indptr. ld_push_level_stamp brackets such a level with the device clock.
#include "common.cuh"
#include "push_steps.cuh"

#define LD_TILE_EDGES (LD_PUSH_THREADS * LD_EDGES_PER_THREAD)
static_assert(LD_SMALL_SCAN <= 32 * 32, "ld_frontier_scan_small sums at most 32 warps");

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
               i64 block_len, i64 stride, i64 offset,
               int in_place, long long* __restrict__ depths, u32* __restrict__ depth_words, long long depth) {
    __shared__ i64 s_scan[LD_TILE_EDGES + 1];   // scan[k0 .. k0 + TILE], past nf: "infinity"
    __shared__ i64 s_start[LD_TILE_EDGES];      // indptr[u] - scan[k]: edge e of entry k is s_start + e
    __shared__ int s_vertex[LD_TILE_EDGES];
    __shared__ int s_k0, s_k1, s_next;
    __shared__ ld_stage found;
    ld_stage_init(found);
    const i64 total = scan[nf];
    const i64 ntiles = (total + LD_TILE_EDGES - 1) / LD_TILE_EDGES;
    // a block walks a contiguous run of tiles, so each tile's first frontier entry is where the
    // previous tile ended: one search a block, not one a tile
    const i64 per_block = (ntiles + gridDim.x - 1) / gridDim.x;
    const i64 tile_begin = blockIdx.x * per_block, tile_end = min(tile_begin + per_block, ntiles);
    if (threadIdx.x == 0 && tile_begin < tile_end) s_k0 = ld_owner_of_edge(scan, 0, nf, tile_begin * LD_TILE_EDGES);
    __syncthreads();
    u64 pushed_edges = 0;
    for (i64 tile = tile_begin; tile < tile_end; ++tile) {
        const i64 first = tile * LD_TILE_EDGES;
        const i64 last = min(first + (i64)LD_TILE_EDGES, total);
        const int k0 = s_k0;
        for (int i = threadIdx.x; i <= LD_TILE_EDGES; i += blockDim.x)
            s_scan[i] = k0 + i <= nf ? scan[k0 + i] : LD_I64_MAX;
        if (threadIdx.x == 0) { s_k1 = -1; s_next = -1; }
        __syncthreads();
        // the owners of the tile's last edge and of the next tile's first edge, found in parallel
        for (int i = threadIdx.x; i < LD_TILE_EDGES; i += blockDim.x) {
            if (s_scan[i] <= last - 1 && last - 1 < s_scan[i + 1]) s_k1 = k0 + i;
            if (s_scan[i] <= last && last < s_scan[i + 1]) s_next = k0 + i;
        }
        __syncthreads();
        const bool staged = s_k1 >= 0;            // else many empty entries: search globally
        const int k1 = staged ? s_k1 : ld_owner_of_edge(scan, k0, nf, last - 1);
        const int span = k1 - k0 + 1;
        if (staged) {
            for (int i = threadIdx.x; i < span; i += blockDim.x) {
                const int u = frontier[k0 + i];
                s_vertex[i] = u;
                s_start[i] = indptr[u] - s_scan[i];
            }
        }
        __syncthreads();
        // a thread's edges in phases, every load of a phase issued before any is used: their
        // sources, then their out-neighbours, then the neighbours' bits (mask, output), then the
        // claims. One edge after another, a tile was four chains of dependent loads in a row.
        constexpr int J = LD_EDGES_PER_THREAD;
        int k[J], u[J], v[J];
        i64 at[J];
        bool open[J];
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const i64 edge = first + (i64)j * LD_PUSH_THREADS + threadIdx.x;
            open[j] = edge < last;
            k[j] = k0; u[j] = 0; at[j] = 0;
            if (open[j]) {
                if (staged) {
                    const int i = ld_owner_of_edge(s_scan, 0, span, edge);
                    k[j] = k0 + i; u[j] = s_vertex[i]; at[j] = s_start[i] + edge;
                } else {
                    k[j] = ld_owner_of_edge(scan, k0, k0 + span, edge);
                    u[j] = frontier[k[j]]; at[j] = indptr[u[j]] + (edge - scan[k[j]]);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < J; ++j) v[j] = open[j] ? __ldg(indices + at[j]) : 0;
#pragma unroll
        for (int j = 0; j < J; ++j) open[j] = open[j] && ld_allowed(mask, mask_mode, v[j]);
#pragma unroll
        for (int j = 0; j < J; ++j) open[j] = open[j] && ld_push_probe<ADD>(out_words, v[j]);
#pragma unroll
        for (int j = 0; j < J; ++j) {
            bool fresh = false;
            if (open[j]) {
                const V left = MULT == LD_MULT_LAND ? frontier_values[k[j]] : V();
                fresh = ld_claim<ADD, V>(out_words, out_values, v[j],
                                         ld_multiply<MULT, V>(u[j], left, block_len, stride, offset));
            }
            ld_stage_add(found, fresh, v[j]);
            if (fresh && out_degree) pushed_edges += (u64)out_degree[v[j]];
            if (fresh && in_place) {       // the matrix is the output's space: its own out-degrees
                pushed_edges += (u64)(indptr[v[j] + 1] - indptr[v[j]]);
                if (depths) {
                    depths[v[j]] = depth;
                    atomicOr(depth_words + (v[j] >> 5), 1u << (v[j] & 31));
                }
            }
        }
        if (threadIdx.x == 0)
            s_k0 = s_next >= 0 ? s_next : (last < total ? ld_owner_of_edge(scan, k1, nf, last) : k1);
        ld_stage_flush(found, queue, counters + LD_FOUND, LD_TILE_EDGES, false);   // also a barrier
    }
    ld_stage_flush(found, queue, counters + LD_FOUND, 0, true);
    ld_add_block_count(counters + LD_PUSH_EDGES, pushed_edges);
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(counters + LD_EXAMINED, (u64)total);
}

// A single push level's clock and record (fused.py's big push levels), in order on the stream:
// before the level (closing 0) it zeroes the level's counters and reads the clock into
// clock[0]; after it (closing 1) it writes the level's record in fused.cu's layout, ended by the
// clock, and in clock[1] whether the level claimed `target` (-1: none).
extern "C" __global__ void ld_push_level_stamp(u64* __restrict__ counters, u64* __restrict__ clock,
                                               u64* __restrict__ record, i64 frontier,
                                               const u32* __restrict__ words, i64 target, int closing) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    if (!closing) {
        for (int k = 0; k < LD_NCOUNTERS; ++k) counters[k] = 0ull;
        clock[0] = ld_now_ns();
        return;
    }
    record[LD_RECORD_FRONTIER] = (u64)frontier;
    record[LD_RECORD_DISCOVERED] = counters[LD_FOUND];
    record[LD_RECORD_EXAMINED] = counters[LD_EXAMINED];
    record[LD_RECORD_PUSH] = 1ull;
    record[LD_RECORD_END_NS] = ld_now_ns();
    // the target was unvisited before the level (the search stops where it is found)
    clock[1] = target >= 0 && ((words[target >> 5] >> (target & 31)) & 1u) ? 1ull : 0ull;
}

#ifdef LD_NVCC_CHECK   // explicit instances, so that a plain nvcc compile checks every body
#define LD_PUSH_INSTANCE(M, A, V) template __global__ void ld_push_spmspv<M, A, V>( \
    const i64*, const int*, const int*, const V*, const i64*, int, const u32*, int, u32*, V*, int*, u64*, \
    const i64*, i64, i64, i64, int, long long*, u32*, long long);
LD_PUSH_INSTANCE(LD_MULT_PAIR, LD_ADD_ANY, bool)
LD_PUSH_INSTANCE(LD_MULT_LAND, LD_ADD_LOR, bool)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_ANY, long long)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_MIN, long long)
#endif
