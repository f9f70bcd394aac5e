// fused.cu's levels inside one thread block cluster (fused.cu includes it, after
// fused_block_levels.cuh): the cluster's inboxes and state, the remote shared-memory steps and
// ld_cluster_levels.
#pragma once
#include "fused_block_levels.cuh"

// -- levels inside one thread block cluster --------------------------------------------------------
// On a thin graph (the one-block-an-SM build launched in clusters of LD_FUSED_CLUSTER blocks,
// ld_bfs_fused_clustered, compute capability 9.0 and up), a push level too big for block 0 and
// of at most LD_CLUSTER_FRONTIER entries runs in the first cluster alone, with the cluster's
// barrier, while the other blocks wait on the hand-over's epoch as they do for block 0. The
// frontier lives in the cluster's shared memories: vertex v is block ld_owner(v)'s, whose inbox
// lists it with its row (read beside its claim), and a found vertex goes to its owner's next
// inbox with one remote shared atomic (distributed shared memory). A level's chain so has no
// global queue entry to read and no global tail to append to: the inbox, the row's neighbours,
// their claims (rows read beside), the places (benchmarks/probes/level_floor.py's inbox variant: 2.7-3.0
// us a level of 257 or more entries on an H100, the grid's 3.3-3.4). A level's totals (count,
// out-edges, a hit of the target, a spill) reach every block's shared memory before the barrier
// (ld_cluster_add_totals), and a found vertex's parent and depth are written a level later.
// What such a level costs is its memory instructions more than its chain: a claim reads its
// vertex's thin row as one word, an inbox entry is one 16-byte pair, and a vertex read from an
// inbox does not claim its parent. On an H200 these levels measure 2.6-2.8 us for 257-1,024 mesh
// entries, the grid levels' about 4 (KernelsBase.fused_cluster_levels, docs/design.md).
// The first level reads its entries from the global queue (entry i by block i mod the cluster).
// An inbox that fills spills the vertex to the level's global queue (one global atomic), and the
// search goes back to the grid after that level. Levels write what block levels write (no
// global queue but at the hand-over, which lists the last output after the spilled entries).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define LD_CLUSTER_LEVELS 1
#endif
#define LD_CLUSTER_FRONTIER (LD_FUSED_CLUSTER * LD_FUSED_INBOX / 4)   // room for owners' uneven shares
#define LD_SLOT_SPILL 31           // entries the full inboxes spilled to the level's global queue
#define LD_SLOT_CLUSTER_LEVELS 32  // the run's cluster levels so far (LD_STATUS_CLUSTER_LEVELS)
#define LD_SLOT_CLUSTER_SPILLS 33  // and those that spilled (LD_STATUS_CLUSTER_SPILLS)
static_assert(LD_SLOT_CLUSTER_SPILLS < LD_FUSED_NSLOTS, "the slots buffer holds LD_FUSED_NSLOTS words");
static_assert((LD_FUSED_CLUSTER & (LD_FUSED_CLUSTER - 1)) == 0 && LD_FUSED_CLUSTER <= 32,
              "a cluster's size is a power of two, its blocks' counters read by one warp");

// A vertex in its owner's inbox: its id and its parent's id (the parent's value and the depth
// are written a level later, by the thread that reads the entry: written when found, those
// global stores sat on the level's chain, as the cluster barrier's release waits for them:
// 0.25-0.3 us of a 3.9 us level on an H100, by a build without them), and its thin row's word
// as its claim read it (cluster levels run on thin graphs only).
struct __align__(16) ld_inbox_entry {     // one 16-byte store places it, one load reads it
    u64 who;                       // vertex | parent << 32
    u64 row;                       // start << LD_THIN_ROW_DEGREE_BITS | degree
};
struct ld_inbox {                  // the vertices of a level a cluster block owns
    ld_inbox_entry entry[LD_FUSED_INBOX];
};

// A level's output sits at slot level % 3 of each field, zeroed by its block two levels ahead,
// when every thread of the block has read it. `count` is this block's inbox count (spilled
// vertices too); the totals are the cluster's, which every warp that found vertices adds to
// every block's copy before the barrier, so that after it each thread reads them in its own
// block's shared memory (no remote read and no block barrier after the cluster's).
struct ld_cluster_state {
    ld_inbox inbox[2];                   // a level's input and output, alternating
    unsigned count[3];
    unsigned found[3];                   // the totals: found vertices, their out-edges, a hit of
    u64 edges[3];                        // the target, a spill
    unsigned hit[3], spilled[3];
    unsigned owned[LD_FUSED_CLUSTER];    // every block's count of the last output (the hand-over)
};

// The block of the cluster that owns v: v mod the cluster's size. On a mesh a vertex's neighbour
// along its row is the next block's and along its column often its own (a local shared atomic):
// 3.90 us a level of 513-1,024 entries against 4.06 with a multiplicative hash that spread every
// vertex to any block (nvidia-h100-x1). Ids that crowd one block spill, and the grid goes on.
__device__ __forceinline__ unsigned ld_owner(int v) { return (unsigned)v % LD_FUSED_CLUSTER; }

// Whether a push level runs in the cluster: more than block 0 takes, at most
// LD_CLUSTER_FRONTIER entries, no giant (thin graphs have none).
__device__ __forceinline__ bool ld_cluster_fits(bool push, i64 nf, i64 edges, i64 ngiants, i64 block_edges,
                                                i64 max_edges) {
    return push && nf <= LD_CLUSTER_FRONTIER && edges <= max_edges && ngiants == 0 &&
           !ld_block_fits(push, nf, edges, ngiants, block_edges, max_edges);
}

// As ld_block_keeps, for the cluster's levels.
__device__ __forceinline__ bool ld_cluster_keeps(ld_rule& rule, i64 found, i64 found_edges, i64 block_edges,
                                                 i64 max_edges) {
    const ld_rule before = rule;
    if (ld_cluster_fits(rule.choose(found, found_edges), found, found_edges, 0, block_edges, max_edges)) return true;
    rule = before;
    return false;
}

#ifdef LD_CLUSTER_LEVELS
// Another block's shared memory (distributed shared memory) by its shared::cluster address, the
// accesses spelled out: the state is reached through a reference, a generic address, and generic
// atomics and stores that land in another block's shared memory measured about 1 us a level
// slower than these.
__device__ __forceinline__ u32 ld_in_block(const void* mine, unsigned rank) {
    u32 there;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(there) : "r"((u32)__cvta_generic_to_shared(mine)), "r"(rank));
    return there;
}
__device__ __forceinline__ u32 ld_remote_add(u32 at, u32 x) {
    u32 old;
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(at), "r"(x) : "memory");
    return old;
}
__device__ __forceinline__ void ld_remote_red(u32 at, u32 x) {
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" :: "r"(at), "r"(x) : "memory");
}
__device__ __forceinline__ void ld_remote_red(u32 at, u64 x) {
    asm volatile("red.shared::cluster.add.u64 [%0], %1;" :: "r"(at), "l"(x) : "memory");
}
__device__ __forceinline__ void ld_remote_store(u32 at, u32 x) {
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(at), "r"(x) : "memory");
}
__device__ __forceinline__ void ld_remote_store(u32 at, u64 x, u64 y) {       // 16 bytes, aligned
    asm volatile("st.shared::cluster.v2.u64 [%0], {%1, %2};" :: "r"(at), "l"(x), "l"(y) : "memory");
}
__device__ __forceinline__ u32 ld_remote_load(u32 at) {
    u32 x;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(at) : "memory");
    return x;
}

// Found vertex v (parent `parent`, its thin row's word `row`) into its owner's inbox `into` of
// the level whose output counters are at `slot`; false when that inbox is full.
__device__ __forceinline__ bool ld_inbox_place(ld_cluster_state& sh, int into, int slot, int v, int parent, u64 row) {
    const unsigned owner = ld_owner(v);
    const u32 at = ld_remote_add(ld_in_block(&sh.count[slot], owner), 1u);
    if (at >= LD_FUSED_INBOX) return false;
    ld_remote_store(ld_in_block(&sh.inbox[into].entry[at], owner), (u64)(u32)v | (u64)(u32)parent << 32, row);
    return true;
}

// This warp's share of a level's output totals, added to every block's copy (lane r to block r's).
__device__ __forceinline__ void ld_cluster_add_totals(ld_cluster_state& sh, int slot, unsigned found, u64 edges,
                                                      bool hit, bool spilled) {
    const u32 full = 0xffffffffu;
    const unsigned lane = threadIdx.x & 31;
    found = __reduce_add_sync(full, found);
    edges = ld_warp_sum(edges);
    hit = __any_sync(full, hit);
    spilled = __any_sync(full, spilled);
    if (found == 0 || lane >= LD_FUSED_CLUSTER) return;
    ld_remote_red(ld_in_block(&sh.found[slot], lane), found);
    if (edges) ld_remote_red(ld_in_block(&sh.edges[slot], lane), edges);
    if (hit) ld_remote_store(ld_in_block(&sh.hit[slot], lane), 1u);
    if (spilled) ld_remote_store(ld_in_block(&sh.spilled[slot], lane), 1u);
}
#endif

// Vertex v's parent (`parent`'s value) and depth (`out`'s): a found vertex's at the next level
// (or the hand-over), as it reads its inbox entry, or a spilled vertex's at once.
template <int MULT, typename V>
__device__ __forceinline__ void ld_cluster_write_found(const ld_level_out<V>& out, int v, int parent) {
    out.parents[v] = ld_multiply<MULT, V>(parent, V(), 1, 1, 0);
    ld_mark_found(out, v, false);
}

// The first cluster's levels from `level` (whose frontier, nf vertices with `edges` out-edges, is
// in the global queue of slot level % 3 and was chosen push by every thread's rule), until a
// level's output leaves the cluster (ld_cluster_keeps), an inbox spills, the level limit or a
// stop. Writes the hand-over as ld_block_levels does; every block of the cluster calls it, and
// leaves it after the cluster's barrier that follows every block's writes.
template <int MULT, typename V>
__device__ __noinline__ void ld_cluster_levels(const i64* __restrict__ out_indptr, const int* __restrict__ out_indices,
                                               i64 n, u32* __restrict__ words, V* __restrict__ parents,
                                               long long* __restrict__ depths, u32* __restrict__ depth_words,
                                               long long first_depth, int* __restrict__ queues,
                                               u32* __restrict__ bitmaps, u64* __restrict__ slots, ld_rule rule,
                                               i64 level, i64 nf, i64 edges, i64 max_frontier, i64 max_edges,
                                               i64 max_levels, i64 block_edges, int target,
                                               const u64* __restrict__ thin_rows, u64* __restrict__ records,
                                               ld_cluster_state& sh, ld_tracer& trace) {
#ifdef LD_CLUSTER_LEVELS
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const i64 nwords = (n + 31) >> 5;
    if (threadIdx.x < 3) {
        sh.count[threadIdx.x] = 0; sh.found[threadIdx.x] = 0; sh.edges[threadIdx.x] = 0;
        sh.hit[threadIdx.x] = 0; sh.spilled[threadIdx.x] = 0;
    }
    if (rank == 0 && threadIdx.x == 0) slots[LD_SLOT_SPILL] = 0ull;
    cluster.sync();                  // every block's counters clear before any block places a vertex
    int input = 0;                   // the inbox holding this level's entries (from the second level)
    bool from_queue = true;
    const i64 first_level = level;
    int slot = (int)(level % 3);     // the slots rotate in 32 bits: a 64-bit `level % 3` is some
    i64 found = nf, found_edges = edges;    // thirty dependent instructions (0.22-0.26 us a level)
    long long stop = -1;
    auto found_at = [&](i64 at_level) {        // what a level writes for the vertices it found
        return ld_level_out<V>{words, parents, depths, depth_words, first_depth + at_level, out_indptr, nullptr,
                               nullptr, nullptr, nullptr, nullptr, target, slots + LD_SLOT_TARGET, nullptr};
    };
    while (true) {
        const int nxt = slot == 2 ? 0 : slot + 1, ahead = nxt == 2 ? 0 : nxt + 1;
        const ld_level_out<V> out = found_at(level), before = found_at(level - 1);
        const ld_inbox& in = sh.inbox[input];
        const int mine = from_queue ? (int)((nf + LD_FUSED_CLUSTER - 1 - rank) / LD_FUSED_CLUSTER)
                                    : (int)min(sh.count[slot], (unsigned)LD_FUSED_INBOX);
        unsigned next_found = 0;
        u64 next_edges = 0;
        bool hit = false, spilled = false;
        for (int base = 0; base < mine; base += blockDim.x) {      // a thread an entry
            const int i = base + threadIdx.x;
            int u = 0, parent = -1;
            u64 thin_row = 0;
            if (i < mine && from_queue) {
                u = __ldcg(queues + (i64)slot * n + rank + (i64)i * LD_FUSED_CLUSTER);
                thin_row = __ldg(thin_rows + u);
                bitmaps[(i64)slot * nwords + (u >> 5)] = 0u;     // its bits leave the bitmap
            } else if (i < mine) {
                const ld_inbox_entry entry = in.entry[i];
                u = (int)(u32)entry.who;
                parent = (int)(entry.who >> 32);
                thin_row = entry.row;
                ld_cluster_write_found<MULT, V>(before, u, parent);
            }
            const i64 row = ld_thin_start(thin_row);
            const int degree = ld_thin_degree(thin_row);
            LD_TRACE_USE(trace, row + degree);
            LD_TRACE_MARK(trace, LD_C_ENTRY);
            for (int first = 0; first < degree; first += LD_THIN_STEP) {
                int v[LD_THIN_STEP];
                bool ok[LD_THIN_STEP];
#pragma unroll
                for (int j = 0; j < LD_THIN_STEP; ++j) {
                    ok[j] = first + j < degree;
                    v[j] = ok[j] ? __ldg(out_indices + row + first + j) : 0;
                }
                LD_TRACE_USE(trace, v[0] + v[LD_THIN_STEP - 1]);
                LD_TRACE_MARK(trace, LD_C_LOAD);
                // u's parent is visited: no claim (the level's memory instructions are its cost)
#pragma unroll
                for (int j = 0; j < LD_THIN_STEP; ++j) ok[j] = ok[j] && v[j] != parent;
                ld_thin_claim claim[LD_THIN_STEP];
#pragma unroll
                for (int j = 0; j < LD_THIN_STEP; ++j)
                    if (ok[j]) claim[j].issue(thin_rows, words, v[j]);
                LD_TRACE_USE(trace, claim[0].before + claim[0].row + claim[LD_THIN_STEP - 1].before +
                                        claim[LD_THIN_STEP - 1].row);
                LD_TRACE_MARK(trace, LD_C_CLAIM);
#pragma unroll
                for (int j = 0; j < LD_THIN_STEP; ++j)
                    if (claim[j].fresh(ok[j], v[j])) {
                        ++next_found;
                        next_edges += (u64)claim[j].degree();
                        hit |= v[j] == target;
                        if (!ld_inbox_place(sh, input ^ 1, nxt, v[j], u, claim[j].row)) {
                            ld_cluster_write_found<MULT, V>(out, v[j], u);     // a full inbox: spill
                            queues[(i64)nxt * n + atomicAdd(slots + LD_SLOT_SPILL, 1ull)] = v[j];
                            spilled = true;
                        }
                    }
                LD_TRACE_MARK(trace, LD_C_FOUND);
            }
        }
        ld_cluster_add_totals(sh, nxt, next_found, next_edges, hit, spilled);
        if (threadIdx.x == 0) {
            sh.count[ahead] = 0; sh.found[ahead] = 0; sh.edges[ahead] = 0; sh.hit[ahead] = 0; sh.spilled[ahead] = 0;
        }
        LD_TRACE_MARK(trace, LD_C_SUM);
        cluster.sync();
        LD_TRACE_MARK(trace, LD_C_BARRIER);
        found = (i64)sh.found[nxt];
        found_edges = (i64)sh.edges[nxt];
        LD_TRACE_MARK(trace, LD_C_TOTAL);
        if (rank == 0 && threadIdx.x == blockDim.x - 1)
            ld_write_record(records, level, nf, found, edges, true, ld_now_ns());
        ++level;
        slot = nxt;
        input ^= 1;
        from_queue = false;
        stop = ld_stop_after(found, sh.hit[nxt] != 0u, max_frontier);
        if (stop >= 0 || sh.spilled[nxt] != 0u || level >= max_levels) break;
        if (!ld_cluster_keeps(rule, found, found_edges, block_edges, max_edges)) break;
        nf = found;
        edges = found_edges;
        LD_TRACE_MARK(trace, LD_C_NEXT);
    }
    // the hand-over: the last output (its parents and depths written now) onto its global
    // queue, after the spilled entries, in the blocks' order
    if (threadIdx.x < LD_FUSED_CLUSTER)
        sh.owned[threadIdx.x] = min(ld_remote_load(ld_in_block(&sh.count[slot], threadIdx.x)), (u32)LD_FUSED_INBOX);
    __syncthreads();
    i64 offset = (i64)__ldcg(slots + LD_SLOT_SPILL);
    for (unsigned r = 0; r < rank; ++r) offset += sh.owned[r];
    const ld_level_out<V> last = found_at(level - 1);
    for (int i = threadIdx.x; i < (int)sh.owned[rank]; i += blockDim.x) {
        const u64 who = sh.inbox[input].entry[i].who;
        ld_cluster_write_found<MULT, V>(last, (int)(u32)who, (int)(who >> 32));
        queues[(i64)slot * n + offset + i] = (int)(u32)who;
    }
    if (rank == 0 && threadIdx.x == 0) {
        ld_write_handover(slots, level, found, found_edges, 0, rule, stop);
        slots[LD_SLOT_CLUSTER_LEVELS] += (u64)(level - first_level);
        if (sh.spilled[slot] != 0u) slots[LD_SLOT_CLUSTER_SPILLS] += 1ull;
    }
    cluster.sync();                  // every block's writes before block 0's epoch; no block leaves
#else                                // while another may read its shared memory
    __trap();                        // (a clustered launch needs compute capability 9.0)
#endif
}
