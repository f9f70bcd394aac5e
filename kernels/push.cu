// Top-down (push) masked SpMSpV: w = u' M over a list frontier, load-balanced over frontier
// edges (Bisson et al. 2015, 3.4; the gathering of Merrill et al.'s load-balanced expand, here a
// warp's instead of a block's).
//
// `scan` is the exclusive scan of the frontier entries' degrees (length nf + 1; scan[nf] is the
// total, read here so the host need not). Each warp walks a contiguous run of tiles of 32 *
// EDGES_PER_THREAD consecutive frontier edges, with warp-synchronous steps only (a block-wide
// tile spent a third of its stalls at block barriers, ncu on Kronecker 22). For each tile it
// loads the scan from the tile's first frontier entry on into its share of shared memory (32
// entries in one coalesced read, more only when the tile reaches past them: ld_load_window),
// finds the tile's last entry there, stages the range's vertex and row start, and its lanes then
// read the tile's edges with consecutive lanes on consecutive edges (coalesced, evict-first: each
// is read once), each finding its frontier entry by a short search in shared memory. A lane's
// edges go in phases, each phase's loads issued together (sources, out-neighbours, mask and
// output bits, claims). A destination is claimed in the output bitmap with push_steps.cuh's
// ld_push_probe and ld_claim (the read-only-cache probe and the atomicOr claim, shared with
// fused.cu's push); new entries are staged in the warp's shared memory and appended to the
// output queue with one atomic a flush, and their out-degrees summed for the direction rule.
// LD_PUSH_THREADS, LD_EDGES_PER_THREAD and LD_SMALL_SCAN (frontiers up to this size are scanned
// by one block) come from lagraph_dist/local/layout.py.
//
// In place (a BFS level too big for fused.cu's kernel, which hands it here between two of its
// runs): the output bitmap and values are the search's visited bits and parents, so one probe of
// a neighbour's bit is both the mask's test and the claim's (no mask, no product output, no
// assign after it); the claimant also writes the vertex's depth (and its depth bit, unless
// depth_words is null: a search the fused kernel started gets them copied from the visited words
// as its next run exits), and out-degrees come from the matrix's own indptr.
// ld_push_level_stamp brackets such a level with the device clock.
#include "common.cuh"
#include "push_steps.cuh"

static_assert(LD_SMALL_SCAN <= 32 * 32, "a frontier scan block sums at most 32 warps");

__device__ __forceinline__ i64 ld_entry_degree(const i64* __restrict__ indptr, const int* __restrict__ frontier,
                                               i64 k, i64 nf) {
    if (k >= nf) return 0;
    const int u = frontier[k];
    return indptr[u + 1] - indptr[u];
}

// One block of LD_SMALL_SCAN threads: the exclusive scan of the degrees of nf <= LD_SMALL_SCAN
// frontier entries, written to scan[0..nf] (one launch).
extern "C" __global__ void ld_frontier_scan_small(const i64* __restrict__ indptr, const int* __restrict__ frontier,
                                                  int nf, i64* __restrict__ scan) {
    __shared__ i64 warp_totals[32];
    const int k = threadIdx.x;
    i64 total;
    const i64 before = ld_block_exclusive_scan(ld_entry_degree(indptr, frontier, k, nf), warp_totals, total);
    if (k < nf) scan[k] = before;
    if (k == 0) scan[nf] = total;
}

// A larger frontier's scan in two launches of our own (a library's device-wide scan costs a few
// hundred microseconds of host time, on the chain of a level the fused search hands over).
// First: block b scans the degrees of its chunk of entries [b * chunk, (b + 1) * chunk), one
// blockDim piece after another, and writes the chunk's total to totals[b].
extern "C" __global__ void ld_frontier_scan_chunks(const i64* __restrict__ indptr, const int* __restrict__ frontier,
                                                   i64 nf, i64 chunk, i64* __restrict__ scan,
                                                   i64* __restrict__ totals) {
    __shared__ i64 warp_totals[32];
    const i64 first = (i64)blockIdx.x * chunk, last = min(first + chunk, nf);
    i64 carried = 0;
    for (i64 base = first; base < last; base += blockDim.x) {
        const i64 k = base + threadIdx.x;
        i64 piece;
        const i64 before = ld_block_exclusive_scan(ld_entry_degree(indptr, frontier, k, last), warp_totals, piece);
        if (k < last) scan[k] = carried + before;
        carried += piece;
    }
    if (threadIdx.x == 0) totals[blockIdx.x] = carried;
}

// Second: block b adds the totals of the chunks before it (at most blockDim of them) to its
// chunk; the last block writes scan[nf], the sum of all.
extern "C" __global__ void ld_frontier_scan_add(i64 nf, i64 chunk, i64* __restrict__ scan,
                                                const i64* __restrict__ totals) {
    __shared__ i64 warp_totals[32];
    const int b = blockIdx.x;
    i64 all;
    const i64 before_mine = threadIdx.x < gridDim.x ? totals[threadIdx.x] : 0;
    const i64 offset_of_thread = ld_block_exclusive_scan(before_mine, warp_totals, all);
    __shared__ i64 offset;
    if (threadIdx.x == b) offset = offset_of_thread;      // the totals of chunks 0 .. b-1
    __syncthreads();
    const i64 first = (i64)b * chunk, last = min(first + chunk, nf);
    if (offset)
        for (i64 k = first + threadIdx.x; k < last; k += blockDim.x) scan[k] += offset;
    if (b == gridDim.x - 1 && threadIdx.x == 0) scan[nf] = all;
}

// The last k in [lo, hi) with scan[k] <= edge (scan increasing, scan[lo] <= edge).
__device__ __forceinline__ int ld_owner_of_edge(const i64* __restrict__ scan, int lo, int hi, i64 edge) {
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (scan[mid] <= edge) lo = mid; else hi = mid;
    }
    return lo;
}

// A warp's tile: LD_WARP_TILE consecutive frontier edges, staged and read by that warp alone.
#define LD_WARP_TILE (32 * LD_EDGES_PER_THREAD)

// The warp's window of the scan from entry k0 on, for a tile whose edges end before `next` (the
// next tile's first edge): its first 32 entries, and the rest of window[0 .. LD_WARP_TILE] only
// when the 32nd does not reach past `next`. Returns the last position loaded (31 or LD_WARP_TILE).
// A Kronecker level's tile spans a few entries: loading all LD_WARP_TILE + 1 of them every tile
// was a sixth of push-only scale 26's L2 sectors.
static_assert(LD_WARP_TILE >= 32, "a window's first load is one entry a lane");
__device__ __forceinline__ int ld_load_window(i64* window, const i64* __restrict__ scan, int k0, int nf, i64 next,
                                              int lane) {
    window[lane] = k0 + lane <= nf ? scan[k0 + lane] : LD_I64_MAX;
    __syncwarp();
    if (window[31] > next) return 31;
    for (int i = 32 + lane; i <= LD_WARP_TILE; i += 32) window[i] = k0 + i <= nf ? scan[k0 + i] : LD_I64_MAX;
    __syncwarp();
    return LD_WARP_TILE;
}

// The owner of `edge` (the last entry k with scan[k] <= edge) from entry k0 on: in the warp's
// window of scan[k0 .. k0 + width] when it holds it, else by a search of the global scan.
__device__ __forceinline__ int ld_window_owner(const i64* __restrict__ window, int width, const i64* __restrict__ scan,
                                               int k0, int nf, i64 edge) {
    if (window[width] > edge) return k0 + ld_owner_of_edge(window, 0, width + 1, edge);
    return ld_owner_of_edge(scan, k0, nf, edge);
}

// Each warp walks a contiguous run of warp tiles with warp-synchronous steps only (no block
// barrier: ncu put a third of the stalls of a block-wide tile at its barriers). A tile: the
// window of the scan from its first entry on, the entries it spans (vertex, start), then its
// edges in phases, each phase's loads issued together: sources, out-neighbours, the mask's and
// the output's bits, claims.
template <int MULT, int ADD, typename V>
__global__ void __launch_bounds__(LD_PUSH_THREADS)
ld_push_spmspv(const i64* __restrict__ indptr, const int* __restrict__ indices,
               const int* __restrict__ frontier, const V* __restrict__ frontier_values,
               const i64* __restrict__ scan, int nf,
               const u32* __restrict__ mask, int mask_mode,
               u32* __restrict__ out_words, V* __restrict__ out_values, int* __restrict__ queue,
               u64* __restrict__ counters, const i64* __restrict__ out_degree,
               i64 block_len, i64 stride, i64 offset,
               int in_place, long long* __restrict__ depths, u32* __restrict__ depth_words, long long depth,
               int* __restrict__ next_giants) {
    constexpr int WARPS = LD_PUSH_THREADS / 32, J = LD_EDGES_PER_THREAD;
    __shared__ i64 s_scan[WARPS][LD_WARP_TILE + 1];   // scan[k0 ..], past nf: "infinity"
    __shared__ i64 s_start[WARPS][LD_WARP_TILE];      // indptr[u] - scan[k]: edge e of entry k is s_start + e
    __shared__ int s_vertex[WARPS][LD_WARP_TILE];
    __shared__ int s_found[WARPS][LD_WARP_STAGE];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    i64* window = s_scan[w];
    ld_warp_stage found{s_found[w], 0};
    const i64 total = scan[nf];
    const i64 ntiles = (total + LD_WARP_TILE - 1) / LD_WARP_TILE;
    const i64 nwarps = (i64)gridDim.x * WARPS, warp = (i64)blockIdx.x * WARPS + w;
    // a warp walks a contiguous run of tiles, so each tile's first entry is where the previous
    // tile ended: one global search a warp, not one a tile
    const i64 per_warp = (ntiles + nwarps - 1) / nwarps;
    const i64 tile_begin = warp * per_warp, tile_end = min(tile_begin + per_warp, ntiles);
    int k0 = tile_begin < tile_end ? ld_owner_of_edge(scan, 0, nf, tile_begin * LD_WARP_TILE) : 0;
    u64 pushed_edges = 0;
    for (i64 tile = tile_begin; tile < tile_end; ++tile) {
        const i64 first = tile * LD_WARP_TILE, last = min(first + (i64)LD_WARP_TILE, total);
        const int width = ld_load_window(window, scan, k0, nf, last, lane);
        const int k1 = ld_window_owner(window, width, scan, k0, nf, last - 1);
        const int span = k1 - k0 + 1;
        const bool staged = span <= LD_WARP_TILE;     // else many empty entries: read them globally
        if (staged) {
            for (int i = lane; i < span; i += 32) {
                const int u = frontier[k0 + i];
                s_vertex[w][i] = u;
                s_start[w][i] = indptr[u] - window[i];
            }
        }
        __syncwarp();
        int k[J], u[J], v[J];
        i64 at[J];
        bool open[J];
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const i64 edge = first + j * 32 + lane;
            open[j] = edge < last;
            k[j] = k0; u[j] = 0; at[j] = 0;
            if (open[j]) {
                if (staged) {
                    const int i = ld_owner_of_edge(window, 0, span, edge);
                    k[j] = k0 + i; u[j] = s_vertex[w][i]; at[j] = s_start[w][i] + edge;
                } else {
                    k[j] = ld_owner_of_edge(scan, k0, k1 + 1, edge);
                    u[j] = frontier[k[j]]; at[j] = indptr[u[j]] + (edge - scan[k[j]]);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < J; ++j) v[j] = open[j] ? __ldcs(indices + at[j]) : 0;   // read once: evict first
#pragma unroll
        for (int j = 0; j < J; ++j) open[j] = open[j] && ld_allowed(mask, mask_mode, v[j]);
#pragma unroll
        for (int j = 0; j < J; ++j) open[j] = open[j] && ld_push_probe<ADD>(out_words, v[j]);
#pragma unroll
        for (int j = 0; j < J; ++j) {
            bool fresh = false;
            if (open[j]) {
                const V left = ld_left<MULT>(frontier_values, k[j]);
                fresh = ld_claim<ADD, V>(out_words, out_values, v[j],
                                         ld_multiply<MULT, V>(u[j], left, block_len, stride, offset));
            }
            found.add(fresh, v[j], lane, queue, counters + LD_FOUND);
            if (fresh && out_degree) pushed_edges += (u64)out_degree[v[j]];
            if (fresh && in_place) {       // the matrix is the output's space: its own out-degrees
                const i64 degree = indptr[v[j] + 1] - indptr[v[j]];
                pushed_edges += (u64)degree;
                if (depths) ld_set_depth(depths, depth_words, v[j], depth, depth_words != nullptr);
                // the next fused run's first giants, listed as its set-up would (fused.cu), so
                // that the run does not walk this level's output again
                if (next_giants && degree > LD_FUSED_PUSH_GIANT_DEGREE)
                    next_giants[atomicAdd(counters + LD_PUSH_GIANTS, 1ull)] = v[j];
            }
        }
        // the next tile's first entry: the owner of edge `last`
        if (tile + 1 < tile_end) k0 = ld_window_owner(window, width, scan, k0, nf, last);
        __syncwarp();                      // the window is read before the next tile writes it
    }
    found.flush(lane, queue, counters + LD_FOUND);
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
    const i64*, i64, i64, i64, int, long long*, u32*, long long, int*);
LD_PUSH_INSTANCE(LD_MULT_PAIR, LD_ADD_ANY, bool)
LD_PUSH_INSTANCE(LD_MULT_LAND, LD_ADD_LOR, bool)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_ANY, long long)
LD_PUSH_INSTANCE(LD_MULT_SECONDI, LD_ADD_MIN, long long)
LD_VALUED_CHECKS(LD_PUSH_INSTANCE)
#endif
