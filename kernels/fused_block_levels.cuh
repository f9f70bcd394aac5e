// fused.cu's levels inside one block (fused.cu includes it, after fused_grid_levels.cuh): the
// hand-over, block 0's frontier and appends, its push and thin levels, warp 0's levels
// (ld_warp_levels) and ld_block_levels.
#pragma once
#include "fused_grid_levels.cuh"

// -- levels inside one block --------------------------------------------------------------------
// A push level whose frontier and out-edges are small (ld_block_fits) is latency, not work
// (simd-x, task management; the expand-factor hybrid of the load-balanced BFS): block 0 runs
// it, and the levels after it while they stay small, with block barriers only, the frontier in
// shared memory, while the other blocks wait at the grid barrier. Block levels write what grid
// push levels write (visited, parents, depths, the global queue and giant list of each level's
// output, the records; no frontier bits, and the bitmaps stay clear); the level, the rule's
// state and a stop reason go back in the slots (LD_SLOT_HANDOVER).
#define LD_SLOT_HANDOVER 22        // level, rule push, rule previous, rule unexplored, stop (-1: none)
#define LD_SLOT_EPOCH 27           // hand-overs so far: the waiting blocks watch it change
#define LD_BLOCK_WAIT_NS 500       // their pause between two reads of it
#define LD_SLOT_HANDED 28          // the last level's output: count, out-edges, giants
static_assert(LD_SLOT_HANDED + 2 < LD_FUSED_NSLOTS, "the slots buffer holds LD_FUSED_NSLOTS words");

// The hand-over of block 0's or the cluster's levels back to the grid: the slots' counters as a
// grid level leaves them (the output of `level` - 1 at level % 3), the level, the rule's state,
// the stop (-1: none), and the output again where the grid reads it after its barrier.
__device__ __forceinline__ void ld_write_handover(u64* slots, i64 level, i64 found, i64 found_edges, i64 found_giants,
                                                  const ld_rule& rule, long long stop) {
    for (int k = 0; k < 3 * (LD_SLOT_FILL + 1); ++k) slots[k] = 0ull;
    const int now = (int)(level % 3);
    slots[LD_SLOT_COUNT * 3 + now] = (u64)found;
    slots[LD_SLOT_EDGES * 3 + now] = (u64)found_edges;
    slots[LD_SLOT_GIANTS * 3 + now] = (u64)found_giants;
    u64* handover = slots + LD_SLOT_HANDOVER;
    handover[0] = (u64)level;
    handover[1] = (u64)rule.push;
    handover[2] = (u64)rule.previous;
    handover[3] = (u64)rule.unexplored;
    handover[4] = (u64)stop;
    slots[LD_SLOT_HANDED] = (u64)found;
    slots[LD_SLOT_HANDED + 1] = (u64)found_edges;
    slots[LD_SLOT_HANDED + 2] = (u64)found_giants;
}

__device__ __forceinline__ bool ld_block_fits(bool push, i64 nf, i64 edges, i64 ngiants, i64 block_edges,
                                              i64 max_edges) {
    return push && nf <= LD_FUSED_BLOCK_FRONTIER && edges <= block_edges && edges <= max_edges && ngiants == 0;
}

// Each entry of at most LD_BLOCK_OWN_DEGREE out-edges also writes its place at each of its edges
// (up to LD_BLOCK_OWNED edges), so that the next level reads an edge's source in one shared
// load instead of a binary search over the offsets (a 1000 x 1000 mesh's block level: 2,700
// cycles a round for the search and the neighbour load).
#define LD_BLOCK_OWNED 2048
#define LD_BLOCK_OWN_DEGREE 16

// Whether the next level (found vertices with found_edges out-edges and found_giants giants)
// stays in block 0: the rule chooses it, and on a no the rule's state goes back to before the
// choice, which the grid then makes again, the same way.
__device__ __forceinline__ bool ld_block_keeps(ld_rule& rule, i64 found, i64 found_edges, i64 found_giants,
                                               i64 block_edges, i64 max_edges) {
    const ld_rule before = rule;
    if (ld_block_fits(rule.choose(found, found_edges), found, found_edges, found_giants, block_edges, max_edges))
        return true;
    rule = before;
    return false;
}

struct ld_block_frontier {         // a block level's frontier, in the order its ids were found
    int vertex[LD_FUSED_BLOCK_FRONTIER];
    int offset[LD_FUSED_BLOCK_FRONTIER];      // out-edges of the entries before it
    i64 start[LD_FUSED_BLOCK_FRONTIER];       // its first out-edge
    unsigned short owner[LD_BLOCK_OWNED];     // edge e's entry, when every entry wrote its own
};                                            // (ld_block_state.unowned)
static_assert(LD_FUSED_BLOCK_FRONTIER <= 65536, "an owner is an unsigned short");

// A level's output count and out-edges packed in one word ((count << 40) + edges), so that one
// shared atomic gives an entry both its place and its edges' offset, in the same order.
#define LD_BLOCK_EDGE_BITS 40
#define LD_BLOCK_ONE_ENTRY (1ull << LD_BLOCK_EDGE_BITS)

struct ld_warp_result {            // where warp 0 left the search, for the block
    i64 level, nf, edges, giants;
    long long stop, push, previous, unexplored;
    int done;                      // back to the grid (else block levels go on)
};

struct ld_block_state {
    ld_block_frontier frontier[2];      // a level's input and output, alternating
    u64 tail[3];                        // a level's output (count, edges) and giants, at level % 3
    unsigned giants[3];                 // (reset two levels ahead, when no thread reads them)
    unsigned unowned[3];                // some entry of the level's output did not write its owners
    int target_hit;
    ld_warp_result warp;                // where warp 0's levels left the search
    u64 loaded;                         // the first frontier's (count, edges) as it is loaded
    unsigned loaded_unowned;
};

// A warp's places on a shared tail, one atomic a warp: each lane's `mine` (a count, or counts
// packed as the caller packs them) goes after the lanes' below it; `at` gets the lane's first
// place. Returns the warp's sum (zero: nothing added). Every lane calls it.
template <typename T>
__device__ __forceinline__ T ld_warp_place(T mine, T* tail, T& at) {
    const T inclusive = ld_warp_inclusive_sum(mine);
    const T total = __shfl_sync(0xffffffffu, inclusive, 31);
    if (!total) return total;
    T base = 0;
    if ((threadIdx.x & 31) == 31) base = atomicAdd(tail, total);
    at = __shfl_sync(0xffffffffu, base, 31) + inclusive - mine;
    return total;
}

// Entry `position` of a block level's next frontier: vertex v, its first out-edge and the
// out-edges before it (`offset`), and its place at each of its edges while it has few and they
// fit the owner map (else the level's `unowned` flag).
__device__ __forceinline__ void ld_add_entry(ld_block_frontier& next, int position, int v, i64 start, int offset,
                                             i64 degree, unsigned* unowned) {
    next.vertex[position] = v;
    next.offset[position] = offset;
    next.start[position] = start;
    if (degree <= LD_BLOCK_OWN_DEGREE && offset + degree <= LD_BLOCK_OWNED) {
        for (int j = 0; j < (int)degree; ++j) next.owner[offset + j] = (unsigned short)position;
    } else if (*unowned == 0u) {
        *unowned = 1u;
    }
}

// K vertices a lane (fresh[k]: the k-th is new) put on the level's global queue (unless null)
// and, while it has room, on the shared frontier `next`, with one shared atomic a warp for all
// of them. Every lane of the warp calls it.
template <int K>
__device__ __forceinline__ void ld_block_append(const bool (&fresh)[K], const int (&v)[K], const i64 (&start)[K],
                                                const i64 (&degree)[K], int* __restrict__ queue,
                                                ld_block_frontier& next, u64* tail, unsigned* unowned) {
    u64 mine = 0;
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (fresh[k]) mine += LD_BLOCK_ONE_ENTRY + (u64)degree[k];
    u64 at;
    if (!ld_warp_place(mine, tail, at)) return;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        if (!fresh[k]) continue;
        const u64 position = at >> LD_BLOCK_EDGE_BITS;
        if (queue) queue[position] = v[k];
        if (position < LD_FUSED_BLOCK_FRONTIER)
            ld_add_entry(next, (int)position, v[k], start[k], (int)(at & (LD_BLOCK_ONE_ENTRY - 1)), degree[k], unowned);
        at += LD_BLOCK_ONE_ENTRY + (u64)degree[k];
    }
}

// One push level of block 0 over the frontier's edges flattened: edge e = k * blockDim + thread
// (coalesced), each lane finding its K edges' sources, then their K out-neighbours, then
// issuing every degree load and claim before it uses any result, so that a level of up to
// K x blockDim edges costs about two memory round trips.
#define LD_BLOCK_EDGES_A_THREAD 2   // a round's edges a thread

template <int MULT, typename V>
__device__ void ld_block_push_level(const int* __restrict__ indices, const ld_block_frontier& in, int nf, i64 edges,
                                    bool owned, ld_block_frontier& next, ld_block_state& sh, int at_level,
                                    const ld_level_out<V>& out, ld_tracer& trace) {
    constexpr int K = LD_BLOCK_EDGES_A_THREAD;
    const int top = 1 << (31 - __clz(max(nf, 1)));
    const int warp_first = threadIdx.x & ~31;
    for (i64 e0 = 0; e0 < edges; e0 += K * blockDim.x) {
        // a warp with no edge left skips to the barrier: idle warps would take issue slots from
        // the few that carry a small level's latency
        if (e0 + warp_first >= edges) break;
        int v[K], source[K];
        bool ok[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const i64 e = e0 + k * blockDim.x + threadIdx.x;
            ok[k] = e < edges;
            source[k] = v[k] = 0;
            if (ok[k]) {
                const int i = owned ? (int)in.owner[e] : ld_edge_owner(in.offset, nf, top, e);
                source[k] = in.vertex[i];
                v[k] = __ldg(indices + in.start[i] + (e - in.offset[i]));
            }
        }
        LD_TRACE_USE(trace, v[0]);
        LD_TRACE_MARK(trace, LD_B_SEARCH);
        ld_eager_claim claim[K];
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (ok[k]) claim[k].issue(out.out_indptr, ld_claim_words(out), v[k]);
        LD_TRACE_USE(trace, claim[0].before);
        LD_TRACE_USE(trace, claim[0].degree());
        LD_TRACE_MARK(trace, LD_B_CLAIM);
        i64 start[K], degree[K];
        bool fresh[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            start[k] = claim[k].start;
            degree[k] = claim[k].degree();
            fresh[k] = claim[k].fresh(ok[k], v[k]);
            if (fresh[k]) {
                out.parents[v[k]] = ld_multiply<MULT, V>(source[k], V(), 1, 1, 0);
                ld_mark_found(out, v[k], false);
                if (v[k] == out.target) sh.target_hit = 1;
            }
            const bool giant = fresh[k] && degree[k] > LD_FUSED_PUSH_GIANT_DEGREE;
            const unsigned g = ld_warp_reserve(giant, &sh.giants[at_level]);
            if (giant) out.next_giants[g] = v[k];
        }
        ld_block_append<K>(fresh, v, start, degree, out.next_queue, next, &sh.tail[at_level], &sh.unowned[at_level]);
        LD_TRACE_MARK(trace, LD_B_APPEND);
    }
}

// A thin graph's block push level (every row of at most LD_FUSED_THIN_ROW out-edges; the
// one-block-an-SM build) of more edges than one round of ld_block_push_level takes: a thread an
// entry (two when the frontier outgrows the block), its row's out-edges read LD_THIN_STEP at a
// time, every load of a step issued before any is used, so that the level is one round (the
// neighbour loads, the claims beside the degree loads, the append) where the edge-flattened
// level takes two, and needs no edge-to-entry map. The found vertices' count and out-edges go
// packed in the low 32 bits of the level's tail, (count << LD_THIN_EDGE_BITS) + edges, one native
// shared atomic a warp (the 64-bit packing is a compare-and-swap loop in shared memory).
#define LD_THIN_STEP 4
#define LD_THIN_ENTRIES 2          // entries a thread
#define LD_THIN_EDGE_BITS 17
#define LD_THIN_ONE_ENTRY (1u << LD_THIN_EDGE_BITS)
static_assert(LD_FUSED_BLOCK_FRONTIER <= LD_THIN_ENTRIES * LD_FUSED_THREADS, "a thin level holds an entry a thread");
static_assert((u64)LD_FUSED_BLOCK_FRONTIER * LD_FUSED_THIN_ROW * LD_FUSED_THIN_ROW < (1ull << LD_THIN_EDGE_BITS),
              "a thin level's found out-edges fit their field");
static_assert(((u64)LD_FUSED_BLOCK_FRONTIER * LD_FUSED_THIN_ROW << LD_THIN_EDGE_BITS) < (1ull << 32),
              "a thin level's packed count fits 32 bits");

template <int MULT, typename V>
__device__ void ld_block_thin_level(const int* __restrict__ indices, const u64* __restrict__ thin_rows,
                                    const ld_block_frontier& in, int nf, i64 edges, ld_block_frontier& next,
                                    ld_block_state& sh, int at_level, const ld_level_out<V>& out) {
    int u[LD_THIN_ENTRIES], degree[LD_THIN_ENTRIES];
    i64 row[LD_THIN_ENTRIES];
    int longest = 0;
#pragma unroll
    for (int e = 0; e < LD_THIN_ENTRIES; ++e) {
        const int i = threadIdx.x + e * LD_FUSED_THREADS;
        u[e] = 0; row[e] = 0; degree[e] = 0;
        if (i < nf) {
            u[e] = in.vertex[i];
            row[e] = in.start[i];
            degree[e] = (int)((i + 1 < nf ? (i64)in.offset[i + 1] : edges) - in.offset[i]);
        }
        longest = max(longest, degree[e]);
    }
    longest = ld_warp_max(longest);                          // the warp's steps: appends are warp-wide
    u32* tail = reinterpret_cast<u32*>(&sh.tail[at_level]);  // the low half of the level's tail
    for (int first = 0; first < longest; first += LD_THIN_STEP) {
        int v[LD_THIN_ENTRIES][LD_THIN_STEP];
        bool ok[LD_THIN_ENTRIES][LD_THIN_STEP];
#pragma unroll
        for (int e = 0; e < LD_THIN_ENTRIES; ++e)
#pragma unroll
            for (int j = 0; j < LD_THIN_STEP; ++j) {
                ok[e][j] = first + j < degree[e];
                v[e][j] = ok[e][j] ? __ldg(indices + row[e] + first + j) : 0;
            }
        ld_thin_claim claim[LD_THIN_ENTRIES][LD_THIN_STEP];
#pragma unroll
        for (int e = 0; e < LD_THIN_ENTRIES; ++e)
#pragma unroll
            for (int j = 0; j < LD_THIN_STEP; ++j)
                if (ok[e][j]) claim[e][j].issue(thin_rows, ld_claim_words(out), v[e][j]);
        u32 mine = 0;
#pragma unroll
        for (int e = 0; e < LD_THIN_ENTRIES; ++e)
#pragma unroll
            for (int j = 0; j < LD_THIN_STEP; ++j) {
                ok[e][j] = claim[e][j].fresh(ok[e][j], v[e][j]);      // now: found here
                if (ok[e][j]) {
                    out.parents[v[e][j]] = ld_multiply<MULT, V>(u[e], V(), 1, 1, 0);
                    ld_mark_found(out, v[e][j], false);
                    if (v[e][j] == out.target) sh.target_hit = 1;
                    mine += LD_THIN_ONE_ENTRY + (u32)claim[e][j].degree();
                }
            }
        u32 at;
        if (!ld_warp_place(mine, tail, at)) continue;
#pragma unroll
        for (int e = 0; e < LD_THIN_ENTRIES; ++e)
#pragma unroll
            for (int j = 0; j < LD_THIN_STEP; ++j) {
                if (!ok[e][j]) continue;
                const u32 position = at >> LD_THIN_EDGE_BITS;
                out.next_queue[position] = v[e][j];
                if (position < LD_FUSED_BLOCK_FRONTIER)
                    ld_add_entry(next, (int)position, v[e][j], claim[e][j].start(),
                                 (int)(at & (LD_THIN_ONE_ENTRY - 1u)), claim[e][j].degree(), &sh.unowned[at_level]);
                at += LD_THIN_ONE_ENTRY + (u32)claim[e][j].degree();
            }
    }
}

// Levels of at most LD_WARP_EDGES frontier edges (a path's, a mesh's corners, every search's
// first and last) run in warp 0 alone, with warp-synchronous steps only: the frontier's entries
// live in lanes (vertex, first out-edge, out-edges before it), a lane finds its edge's source by
// a search over the lanes' offsets, the new entries' places come from a ballot and their
// offsets from a scan, and they move to their lanes by shuffles; no shared atomic, no block
// barrier, no frontier in shared memory. The block waits at one barrier until the warp leaves:
// at a stop, when the rule turns or a level no longer fits the block (the search goes back to
// the grid), or when a level fits the block but not the warp (block levels go on from the
// frontier the warp writes back).
#define LD_WARP_EDGES 32

template <int MULT, typename V>
__device__ __forceinline__ void ld_warp_levels(const i64* __restrict__ indptr, const int* __restrict__ indices, i64 n,
                                               u32* __restrict__ words, V* __restrict__ parents,
                                               long long* __restrict__ depths, u32* __restrict__ depth_words,
                                               long long first_depth, int* __restrict__ queues,
                                               int* __restrict__ giants, i64 giant_capacity, u64* __restrict__ slots,
                                               u64* __restrict__ records, int target, i64 max_frontier, i64 max_edges,
                                               i64 max_levels, i64 block_edges, ld_rule rule, i64 level, i64 nf,
                                               i64 edges, ld_block_frontier& frontier, ld_warp_result& result,
                                               u64* tails, unsigned* giant_tails, unsigned* unowned, u32* cache,
                                               ld_tracer& trace) {
    const u32 full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const u32 below = (1u << lane) - 1u;
    int u = 0, offset = INT_MAX;       // this lane's entry (lanes past the frontier: offset none)
    i64 first = 0;
    if (lane < nf) { u = frontier.vertex[lane]; first = frontier.start[lane]; offset = frontier.offset[lane]; }
    i64 found = 0, found_edges = 0, found_giants = 0;
    long long stop = -1;
    bool done = true;
    int nxt = (int)((level + 1) % 3);
    // a frontier of one entry (a path's every level) skips the searches and the scan: each step
    // below is a few dependent shuffles on the level's latency chain
    while (true) {
        const bool ok = lane < edges;
        int owner = 0;                 // the last lane whose offset is at most this lane's edge
        if (nf > 1)
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(full, offset, owner + step) <= lane) owner += step;
        const int source = __shfl_sync(full, u, owner);
        const i64 from = __shfl_sync(full, first, owner) + (lane - __shfl_sync(full, offset, owner));
        const int v = ok ? __ldg(indices + from) : 0;
        LD_TRACE_USE(trace, v);
        LD_TRACE_MARK(trace, LD_W_LOAD);
        ld_eager_claim claim;
        if (ok) claim.issue(indptr, cache ? cache : words, v);
        const i64 start = claim.start, degree = claim.degree();
        LD_TRACE_USE(trace, claim.before + degree);
        LD_TRACE_MARK(trace, LD_W_CLAIM);
        const bool fresh = claim.fresh(ok, v);
        if (fresh) {
            const ld_level_out<V> out{words, parents, depths, depth_words, first_depth + level, indptr, nullptr,
                                      nullptr, nullptr, nullptr, nullptr, target, slots + LD_SLOT_TARGET, cache};
            parents[v] = ld_multiply<MULT, V>(source, V(), 1, 1, 0);
            ld_mark_found(out, v, false);
        }
        const u32 news = __ballot_sync(full, fresh);
        if (fresh) queues[(i64)nxt * n + __popc(news & below)] = v;
        const u32 big = __ballot_sync(full, fresh && degree > LD_FUSED_PUSH_GIANT_DEGREE);
        if ((big >> lane) & 1u) giants[(i64)nxt * giant_capacity + __popc(big & below)] = v;
        const bool hit = __ballot_sync(full, fresh && v == target) != 0u;
        LD_TRACE_MARK(trace, LD_W_FOUND);
        const u64 ended = ld_now_ns();     // read here, stored below: off the level's chain
        found = __popc(news);
        i64 inclusive = fresh ? degree : 0;
        int rank_lane = news ? __ffs(news) - 1 : 0;     // lane j takes the new entry of rank j
        if (found > 1) {
            inclusive = ld_warp_inclusive_sum(inclusive);
            found_edges = __shfl_sync(full, inclusive, 31);
            rank_lane = 0;                 // the lane below which j of them were found
            for (int step = 16; step > 0; step >>= 1)
                if (__popc(news & ((1u << (rank_lane + step)) - 1u)) <= lane) rank_lane += step;
        } else {
            found_edges = __shfl_sync(full, inclusive, rank_lane);
        }
        found_giants = __popc(big);
        LD_TRACE_USE(trace, found_edges);
        LD_TRACE_MARK(trace, LD_W_SCAN);
        u = __shfl_sync(full, v, rank_lane);
        first = __shfl_sync(full, start, rank_lane);
        const i64 exclusive = __shfl_sync(full, inclusive - (fresh ? degree : 0), rank_lane);
        offset = lane < found ? (int)exclusive : INT_MAX;
        if (lane == 31) ld_write_record(records, level, nf, found, edges, true, ended);
        LD_TRACE_USE(trace, offset);
        LD_TRACE_MARK(trace, LD_W_NEXT);
        ++level;
        nxt = nxt == 2 ? 0 : nxt + 1;
        stop = ld_stop_after(found, hit, max_frontier);
        if (stop >= 0) break;
        if (level >= max_levels) break;
        if (!ld_block_keeps(rule, found, found_edges, found_giants, block_edges, max_edges)) break;
        nf = found;
        edges = found_edges;
        if (edges > LD_WARP_EDGES) { done = false; break; }
    }
    if (lane < found) { frontier.vertex[lane] = u; frontier.start[lane] = first; frontier.offset[lane] = offset; }
    if (lane < 3) { tails[lane] = 0; giant_tails[lane] = 0; unowned[lane] = 0; }    // the block levels' counters start clear
    if (lane == 0) {
        result.level = level; result.nf = found; result.edges = found_edges; result.giants = found_giants;
        result.stop = stop; result.push = rule.push; result.previous = rule.previous; result.unexplored = rule.unexplored;
        result.done = done;
    }
}

// Block 0's levels from `level` (whose frontier, nf vertices with `edges` out-edges, is in the
// global queue of slot level % 3 and was chosen push by every thread's rule), until a level's
// output does not fit one block, the rule turns to pull, the level limit or a stop. Writes the
// hand-over: the slots' counters as a grid level leaves them, the level, the rule's state from
// before its choice for the next level (the grid chooses it again, the same way), the stop.
template <int MULT, typename V, int BLOCKS>
__device__ __noinline__ void ld_block_levels(const i64* __restrict__ out_indptr, const int* __restrict__ out_indices, i64 n,
                                u32* __restrict__ words, V* __restrict__ parents, long long* __restrict__ depths,
                                u32* __restrict__ depth_words, long long first_depth, int* __restrict__ queues,
                                u32* __restrict__ bitmaps, int* __restrict__ giants, i64 giant_capacity,
                                u64* __restrict__ slots, ld_rule rule, i64 level, i64 nf, i64 edges,
                                i64 max_frontier, i64 max_edges, i64 max_levels, i64 block_edges,
                                const u64* __restrict__ thin_rows, int target, u64* __restrict__ records, u32* cache,
                                ld_block_state& sh) {
    ld_tracer trace;
    LD_TRACE_START(trace);
    const i64 nwords = (n + 31) >> 5;
    if (threadIdx.x < 3) { sh.tail[threadIdx.x] = 0; sh.giants[threadIdx.x] = 0; sh.unowned[threadIdx.x] = 0; }
    if (threadIdx.x == 0) { sh.target_hit = 0; sh.loaded = 0; sh.loaded_unowned = 0; }
    __syncthreads();
    // the first frontier, from the global queue (left as it is: other blocks may still read the
    // queue of the slot before), with its edges' offsets; its bits leave the bitmap
    {
        const int s = (int)(level % 3);
        for (i64 base = 0; base < nf; base += blockDim.x) {
            const i64 i = base + threadIdx.x;
            const bool here[1] = {i < nf};
            int v[1] = {0};
            i64 start[1] = {0}, degree[1] = {0};
            if (here[0]) {
                v[0] = __ldcg(queues + (i64)s * n + i);
                start[0] = __ldg(out_indptr + v[0]);
                degree[0] = __ldg(out_indptr + v[0] + 1) - start[0];
                bitmaps[(i64)s * nwords + (v[0] >> 5)] = 0u;
            }
            ld_block_append<1>(here, v, start, degree, nullptr, sh.frontier[0], &sh.loaded, &sh.loaded_unowned);
        }
        // the visited words into the block's copy, where its levels claim (the grid's levels
        // and the hand-over's barrier are behind every word written so far)
        if (cache)
            for (i64 k = threadIdx.x; k < nwords; k += blockDim.x) cache[k] = __ldcg(words + k);
    }
    __syncthreads();
    int input = 0;
    bool owned = sh.loaded_unowned == 0u;
    i64 found = nf, found_edges = edges, found_giants = 0;
    long long stop = -1;
    while (true) {
        if (edges <= LD_WARP_EDGES) {
            if (threadIdx.x < 32)
                ld_warp_levels<MULT, V>(out_indptr, out_indices, n, words, parents, depths, depth_words, first_depth,
                                        queues, giants, giant_capacity, slots, records, target, max_frontier,
                                        max_edges, max_levels, block_edges, rule, level, nf, edges,
                                        sh.frontier[input], sh.warp, sh.tail, sh.giants, sh.unowned, cache, trace);
            __syncthreads();
            LD_TRACE_MARK(trace, LD_B_WARP);
            level = sh.warp.level;
            nf = found = sh.warp.nf;
            edges = found_edges = sh.warp.edges;
            found_giants = sh.warp.giants;
            stop = sh.warp.stop;
            rule.push = sh.warp.push;
            rule.previous = sh.warp.previous;
            rule.unexplored = sh.warp.unexplored;
            if (sh.warp.done) break;
            owned = false;                 // the warp wrote the frontier back, not its owners
            continue;
        }
        const int at_level = (int)(level % 3), nxt = (int)((level + 1) % 3);
        if (threadIdx.x == 0) {
            const int ahead = (at_level + 1) % 3;
            sh.tail[ahead] = 0;
            sh.giants[ahead] = 0;
            sh.unowned[ahead] = 0;
        }
        const ld_level_out<V> out{words, parents, depths, depth_words, first_depth + level, out_indptr,
                                  nullptr, queues + (i64)nxt * n, nullptr, giants + (i64)nxt * giant_capacity,
                                  nullptr, target, slots + LD_SLOT_TARGET, cache};
        // a thin graph's level of more than one edge-flattened round: a thread an entry
        const bool thin_level = BLOCKS == 1 && thin_rows && edges > (i64)LD_BLOCK_EDGES_A_THREAD * LD_FUSED_THREADS;
        if (thin_level)
            ld_block_thin_level<MULT, V>(out_indices, thin_rows, sh.frontier[input], (int)nf, edges,
                                         sh.frontier[input ^ 1], sh, at_level, out);
        else
            ld_block_push_level<MULT, V>(out_indices, sh.frontier[input], (int)nf, edges, owned,
                                         sh.frontier[input ^ 1], sh, at_level, out, trace);
        __syncthreads();
        LD_TRACE_MARK(trace, LD_B_BARRIER);
        const u64 tail = sh.tail[at_level];
        if (thin_level) {                // (count << LD_THIN_EDGE_BITS) + edges in the low half
            found = (i64)((u32)tail >> LD_THIN_EDGE_BITS);
            found_edges = (i64)((u32)tail & (LD_THIN_ONE_ENTRY - 1u));
        } else {
            found = (i64)(tail >> LD_BLOCK_EDGE_BITS);
            found_edges = (i64)(tail & (LD_BLOCK_ONE_ENTRY - 1));
        }
        owned = sh.unowned[at_level] == 0u;
        found_giants = sh.giants[at_level];
        // the last thread writes the record: in a small level its warp had no edge, while warp
        // 0, which always has, goes on to the next level
        if (threadIdx.x == blockDim.x - 1) ld_write_record(records, level, nf, found, edges, true, ld_now_ns());
        ++level;
        stop = ld_stop_after(found, sh.target_hit, max_frontier);
        if (stop >= 0) break;
        if (level >= max_levels) break;
        if (!ld_block_keeps(rule, found, found_edges, found_giants, block_edges, max_edges)) break;
        input ^= 1;
        nf = found;
        edges = found_edges;
        LD_TRACE_MARK(trace, LD_B_RECORD);
    }
    LD_TRACE_FINISH(trace);
    if (cache) {                     // the claims go back to the visited words (the hand-over's
        __syncthreads();             // barrier shows them to the grid)
        for (i64 k = threadIdx.x; k < nwords; k += blockDim.x) words[k] = cache[k];
    }
    if (threadIdx.x == 0) ld_write_handover(slots, level, found, found_edges, found_giants, rule, stop);
}
