// Fused push levels on one GPU: one persistent cooperative kernel runs many BFS levels while
// the frontier stays small, with a grid-wide barrier between levels (simd-x, section 5) instead
// of a return to Python. It is the GPU backend's implementation of the composite
// lagraph_dist.ops.repeat_masked_vxm, repeated until a stop condition:
//     q<!visited.S, replace> = q' A        (semiring any_pair or any_secondi)
//     visited<q.S> = q                     (visited values: true, or the parent's id)
//     depths<q.S> = depth                  (when depths are kept: values and bits)
//     depth += 1
// Each level: warps take frontier vertices (lanes stride over the adjacency, coalesced); a
// vertex of more than LD_HUB_DEGREE edges is instead spread over the whole grid (hubs are queued
// apart when discovered). A neighbour's bit is claimed in the visited bitmap itself (the
// Bisson et al. update), so the claimant alone writes its parent and depth and appends it to
// the next queue. A level runs only when its frontier's out-edges fit `max_edges`, which sizes
// the queues (a level finds at most as many vertices as its frontier has edges). Counters rotate over three slots so that one barrier a level suffices:
// level L reads slot L%3, writes slot (L+1)%3, and zeroes slot (L+2)%3.
#include <cooperative_groups.h>
#include "common.cuh"

namespace cg = cooperative_groups;

#define LD_HUB_DEGREE 1024

// status[] written at exit (i64): levels run, queue holding the frontier, its size, its
// out-edges, why it stopped.
#define LD_STATUS_LEVELS 0
#define LD_STATUS_QUEUE 1
#define LD_STATUS_FRONTIER 2
#define LD_STATUS_EDGES 3
#define LD_STATUS_REASON 4
#define LD_STOP_EMPTY 0
#define LD_STOP_TOO_BIG 1
#define LD_STOP_LEVELS 2
#define LD_STOP_TARGET 3

template <int MULT, typename V>
__device__ __forceinline__ void ld_fused_visit(const int* __restrict__ indices, const i64* __restrict__ indptr,
                                               u32* __restrict__ words, V* __restrict__ parents,
                                               long long* __restrict__ depths, u32* __restrict__ depth_words,
                                               long long depth,
                                               int u, i64 e, i64 end, int target,
                                               int* __restrict__ next, u64* next_count,
                                               int* __restrict__ next_hubs, u64* next_hub_count,
                                               u64& next_edges, u64* target_hit) {
    bool fresh = false, hub = false;
    int v = 0;
    if (e < end) {
        v = __ldg(indices + e);
        fresh = ld_claim<LD_ADD_ANY, V>(words, parents, v, ld_multiply<MULT, V>(u, V(), 1, 1, 0));  // one rank: global = local
        if (fresh) {
            if (depths) {
                depths[v] = depth;
                atomicOr(depth_words + (v >> 5), 1u << (v & 31));
            }
            const i64 degree = indptr[v + 1] - indptr[v];
            next_edges += (u64)degree;
            hub = degree > LD_HUB_DEGREE;
            if (v == target) atomicOr(target_hit, 1ull);
        }
    }
    ld_warp_append(fresh, v, next, next_count);
    ld_warp_append(hub, v, next_hubs, next_hub_count);
}

template <int MULT, typename V>
__global__ void ld_bfs_fused(const i64* __restrict__ indptr, const int* __restrict__ indices,
                             u32* __restrict__ words, V* __restrict__ parents, long long* __restrict__ depths,
                             u32* __restrict__ depth_words, long long first_depth, int* __restrict__ queue0, int* __restrict__ queue1,
                             int* __restrict__ hubs0, int* __restrict__ hubs1,
                             u64* __restrict__ slots,        // [3 counts][3 edges][3 hub counts][target hit];
                                                             // edges[0] == ~0: count the first frontier's
                             i64 max_frontier, i64 max_edges, i64 max_levels, int target,
                             u64* __restrict__ records,      // per level: frontier, discovered, examined
                             long long* __restrict__ status) {
    cg::grid_group grid = cg::this_grid();
    u64* counts = slots;
    u64* edges = slots + 3;
    u64* hub_counts = slots + 6;
    u64* target_hit = slots + 9;
    int* queues[2] = {queue0, queue1};
    int* hub_queues[2] = {hubs0, hubs1};
    const int lane = threadIdx.x & 31;
    const i64 thread = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 nthreads = (i64)gridDim.x * blockDim.x;
    const i64 warp = thread >> 5, nwarps = nthreads >> 5;

    // the first frontier's hubs (later frontiers queue theirs as they are found), and its
    // out-edges when the caller does not know them (slots[3] == ~0)
    {
        const i64 nf = (i64)counts[0];
        const bool count_edges = edges[0] == ~0ull;
        u64 first_edges = 0;
        for (i64 base = warp * 32; base < nf; base += nwarps * 32) {
            const i64 i = base + lane;
            bool hub = false;
            int u = 0;
            if (i < nf) {
                u = queue0[i];
                const i64 degree = indptr[u + 1] - indptr[u];
                hub = degree > LD_HUB_DEGREE;
                first_edges += (u64)degree;
            }
            ld_warp_append(hub, u, hubs0, hub_counts);
        }
        grid.sync();                          // every thread has read edges[0]
        if (count_edges) {
            if (thread == 0) edges[0] = 0;
            grid.sync();
            ld_add_block_count(edges, first_edges);
        }
    }
    grid.sync();

    i64 level = 0;
    int reason = LD_STOP_LEVELS;
    while (level < max_levels) {
        const int cur = (int)(level % 3), nxt = (int)((level + 1) % 3);
        const int qc = (int)(level & 1), qn = 1 - qc;
        if (thread == 0) {
            const int stale = (int)((level + 2) % 3);
            counts[stale] = 0; edges[stale] = 0; hub_counts[stale] = 0;
        }
        const i64 nf = (i64)counts[cur];
        // a frontier of more out-edges than the queues hold goes back to the caller unexpanded
        // (only the first can be one: every later level's edges were checked when found)
        if ((i64)edges[cur] > max_edges) { reason = LD_STOP_TOO_BIG; break; }
        const long long depth = first_depth + level;
        const int* frontier = queues[qc];
        u64 next_edges = 0;
        // ordinary vertices: a warp each, lanes over its edges
        for (i64 k = warp; k < nf; k += nwarps) {
            const int u = frontier[k];
            const i64 start = indptr[u], end = indptr[u + 1];
            if (end - start > LD_HUB_DEGREE) continue;
            for (i64 base = start; base < end; base += 32)
                ld_fused_visit<MULT, V>(indices, indptr, words, parents, depths, depth_words, depth, u, base + lane, end,
                                        target, queues[qn], counts + nxt, hub_queues[qn], hub_counts + nxt,
                                        next_edges, target_hit);
        }
        // hubs: every thread of the grid takes a share of each hub's edges
        const i64 nhubs = (i64)hub_counts[cur];
        for (i64 h = 0; h < nhubs; ++h) {
            const int u = hub_queues[qc][h];
            const i64 start = indptr[u], end = indptr[u + 1];
            for (i64 base = start + warp * 32; base < end; base += nwarps * 32)
                ld_fused_visit<MULT, V>(indices, indptr, words, parents, depths, depth_words, depth, u, base + lane, end,
                                        target, queues[qn], counts + nxt, hub_queues[qn], hub_counts + nxt,
                                        next_edges, target_hit);
        }
        ld_add_block_count(edges + nxt, next_edges);
        grid.sync();
        const i64 found = (i64)counts[nxt];
        if (thread == 0) {
            records[3 * level] = (u64)nf;
            records[3 * level + 1] = (u64)found;
            records[3 * level + 2] = edges[cur];
        }
        ++level;
        if (found == 0) { reason = LD_STOP_EMPTY; break; }
        if (*(volatile u64*)target_hit) { reason = LD_STOP_TARGET; break; }
        if (found > max_frontier) { reason = LD_STOP_TOO_BIG; break; }
    }
    if (thread == 0) {
        status[LD_STATUS_LEVELS] = level;
        status[LD_STATUS_QUEUE] = level & 1;
        status[LD_STATUS_FRONTIER] = (long long)counts[level % 3];
        status[LD_STATUS_EDGES] = (long long)edges[level % 3];
        status[LD_STATUS_REASON] = reason;
    }
}

#ifdef LD_NVCC_CHECK
template __global__ void ld_bfs_fused<LD_MULT_PAIR, bool>(const i64*, const int*, u32*, bool*, long long*,
    u32*, long long, int*, int*, int*, int*, u64*, i64, i64, i64, int, u64*, long long*);
template __global__ void ld_bfs_fused<LD_MULT_SECONDI, long long>(const i64*, const int*, u32*, long long*,
    long long*, u32*, long long, int*, int*, int*, int*, u64*, i64, i64, i64, int, u64*, long long*);
#endif
