// Multi-source BFS of up to 512 searches in one persistent cooperative kernel: the whole batch
// runs level after level with a grid barrier between levels and no return to Python (the
// multi-source twin of fused.cu; the bit-parallel BFS of Then et al., VLDB 2014, with W uint64
// words a vertex, W = 1, 2, 4 or 8, a template parameter). Search i is bit i % 64 of word i / 64.
//
// Per level L (frontier F_L: the bits found at depth L; "seen": visited | F_L, every bit found
// at depth L or before):
//   push: each frontier vertex u offers its words to its out-neighbours v; the bits v has not
//         seen are claimed with one atomicOr on v's next-frontier word, whose old value tells
//         which bits are new, so each bit has one claimant (its parent's writer);
//   pull: each vertex with searches that have not reached it (want = live & ~seen) reads its
//         in-neighbours' frontier words until it has them all (early exit) or runs out.
// visited is not claimed into: F_L's words are merged into it at the start of level L (while
// the level runs, a reader ORs F_L's word anyway), so a claim costs one atomic, and a pull row
// that one group reads alone costs none: it writes its next-frontier words once at the end.
// A push level of LD_MF_MERGED_PUSH_EDGES out-edges or more with one word a vertex waits for
// that merge at a grid barrier instead, so that an edge's seen test reads visited alone.
// The direction is the rule of lagraph_dist/core/direction.py (ld_mf_rule), evaluated by every
// thread on the same counters, with the inputs of algebra/multi.py's _MatrixLevels.step.
//
// Layout: a vertex's W words are contiguous (visited, frontiers), so a group of W lanes reads or
// claims a vertex's words in one coalesced access; lane l works on word l % W in every phase
// (W divides 32). Frontiers rotate over three slots (level L reads slot L%3, writes (L+1)%3 and
// clears (L+2)%3, F_{L-1}, through its queue) so that one barrier a level suffices; each slot
// has a queue of its vertices (staged a warp in shared memory, then one reservation a stage), a
// list of its giants (out-degree over LD_MF_PUSH_GIANT) and, with several words a vertex, a
// bitmap of its vertices. A vertex enters the next frontier once: one word a vertex, by the
// claim that makes its word nonzero; several, by whoever sets its bit in the next bitmap first.
// Counters are a row of LD_MF_ROW u64 per frontier (row L describes F_L), reduced per block.
//
// Work inside a level: push warps take 32 frontier entries at a time and flatten their edges
// over the lanes (a warp scan and a shuffle search find each edge's source), W lanes an edge;
// the giants' edges, end to end, are cut in equal runs, a warp a run; a lane offers
// LD_MF_PUSH_UNROLL edges a step, their loads and atomics in flight together (a profile of
// the old loop, one edge a step, showed its warps stalled on each step's chain of returning
// loads and atomics two thirds of the time). Pull groups take a row each
// (W lanes, lane j for word j; one word: PULL_LANES lanes reading that many in-edges a step);
// rows of more than LD_MF_LONG_ROW in-edges are read in slices of that many (the host's slice
// list, made once a graph) by groups of their own, claiming with atomicOr, so that a hub's
// thousands of in-edges are read by many groups at once. A pull looks first at a bit a vertex:
// done (every search has reached it) or, for the row sweep, skipped (no in-edges, or sliced).
//
// Outputs: levels / parents int32 (rows, k), row v's k values contiguous; or the levels as bit
// planes (1 + P, rows, W) uint64: plane 0 the reached bits (the run's visited words themselves),
// plane 1 + p the bits whose depth has bit p, ORed in as each frontier settles (a run of at
// most 2^P - 1 levels). A parent is written by the finder of its bit; the levels of the first
// a.kept depths, and the -1 of what was never reached, by the end pass (ld_mf_write_rows,
// whole rows); a deeper F_L's as it settles at the start of level L (a warp a vertex,
// coalesced along the row), so that every element is written once. Data written inside the
// kernel is read with __ldcg (never the read-only cache).
#include <cooperative_groups.h>
#include "common.cuh"

namespace cg = cooperative_groups;

#define LD_MF_THREADS 512
#define LD_MF_FULL_WARP 0xffffffffu
#define LD_MF_LONG_ROW 64          // pull: rows of more in-edges are read in slices of this many
#define LD_MF_PUSH_GIANT 256       // push: vertices of more out-edges are sliced over all warps
#ifndef LD_MF_MERGED_PUSH_EDGES
#define LD_MF_MERGED_PUSH_EDGES (1ll << 20)   // push levels of more out-edges (one word a vertex) wait for the settle
#endif
#define LD_MF_KEPT_PLANES 7        // depths below 128: a.kept <= 128 and a.plane_bits <= 7, which
                                   // multi_fused.py's MULTI_FUSED_KEPT_LEVELS, _multi_fused_kept and
                                   // MULTI_FUSED_PLANE_BITS_MOST enforce
#define LD_MF_STAGE 256            // a warp's entering vertices staged before it reserves queue places
#ifndef LD_MF_PUSH_UNROLL
#define LD_MF_PUSH_UNROLL 4        // edges a lane offers a step (their loads and atomics in flight together)
#endif

// a frontier's counters, row[what]: vertices (its queue's tail), their out-edges, entries
// ((search, vertex) bits), out-edges of the vertices that became complete (all k bits
// visited) as it was found, matrix entries read making it, giants (their list's tail in the
// high LD_MF_GIANT_SHIFT bits, their out-edges in the low: one atomic gives a giant its place
// and its edges' place end to end), and the OR of its bits a word (LD_MF_LIVE + j)
#define LD_MF_COUNT 0
#define LD_MF_EDGES 1
#define LD_MF_ENTRIES 2
#define LD_MF_COMPLETED 3
#define LD_MF_EXAMINED 4
#define LD_MF_GIANTS 5
#define LD_MF_LIVE 8
#define LD_MF_ROW 16
#define LD_MF_GIANT_SHIFT 40       // (multi_fused.py's MULTI_FUSED_GIANT_SHIFT: at most 2^24 giants)
#define LD_MF_GIANT_EDGES ((1ull << LD_MF_GIANT_SHIFT) - 1ull)

// the report (lagraph_dist/local/gpu_kernels/multi_fused.py reads it): status words, then
// LD_MF_RECORD words a level
#define LD_MF_STATUS_LEVELS 0
#define LD_MF_STATUS_PUSH 1
#define LD_MF_STATUS_PREVIOUS 2
#define LD_MF_STATUS_UNEXPLORED 3
#define LD_MF_STATUS_STARTED 4
#define LD_MF_STATUS_ENTERED 5    // when the kernel began (its set-up: ENTERED to STARTED)
#define LD_MF_STATUS_WRITTEN 6    // when the rows were written (the end pass: the last level's end to WRITTEN)
#define LD_MF_NSTATUS 8
#define LD_MF_REC_FRONTIER 0
#define LD_MF_REC_DISCOVERED 1
#define LD_MF_REC_EXAMINED 2
#define LD_MF_REC_PUSH 3
#define LD_MF_REC_VERTICES 4
#define LD_MF_REC_END_NS 5
#define LD_MF_RECORD 6

// The kernel's one argument (multi_fused.py's MULTI_FUSED_ARGUMENTS names the fields in this
// order; every field is 8 bytes wide, so the packing has no padding).
struct ld_mf_args {
    const i64* out_indptr; const int* out_indices; const i64* in_indptr; const int* in_indices;
    const i64* out_degree; const int* slice_rows; const i64* slice_starts; i64 nslices;
    i64 n; i64 rows; i64 k; i64 nwords; const i64* sources;
    u64* visited; u64* frontiers; u32* bitmaps; int* queues; int* giants; i64* giant_ends; u32* full_words;
    int* levels; int* parents; u64* counters; i64 counter_rows;
    i64 rule_mode; double alpha; double beta; double rule_n; i64 rule_push; i64 rule_previous;
    i64 rule_unexplored; i64 nnz; i64 max_levels;
    u64* report; u64* mirror; i64 mirror_levels; i64 kept;
    u64* planes;    // the levels as bit planes instead of rows (null: rows): (1 + plane_bits, rows, W),
    i64 plane_bits; // plane 0 being `visited` (a run in planes keeps no frontier: a.kept == 0)
    u32* done;              // a bit a vertex: every search has reached it (set as it completes)
    const u32* skip_rows;   // a bit a row the pull's row sweep never reads (no in-edges, or sliced)
};

// lagraph_dist.core.direction.DirectionRule.choose with the unexplored edges handed over (the
// multi-source search counts them itself), evaluated by every thread on the same inputs.
struct ld_mf_rule {
    int mode;
    double alpha, beta, n;
    long long push, previous, unexplored;

    __device__ bool choose(long long nf, long long edges, long long handed) {
        unexplored = handed;
        if (mode != LD_RULE_AUTO) return mode == LD_RULE_PUSH;
        if (previous == 0) { previous = nf; return push; }
        const bool growing = nf > previous;
        if (push && growing) {
            if ((double)edges > (double)unexplored / alpha) push = 0;
        } else if (!push && !growing && (double)nf < n / beta) {
            push = 1;
        }
        previous = nf;
        return push;
    }
};

// What a level reads and writes: the run's arrays and the level's slots.
template <int W>
struct ld_mf_level {
    const ld_mf_args* a;
    const u64* frontier;          // F_L's words (slot L % 3)
    const u32* frontier_bits;     // F_L's vertices as bits (a pull reads a neighbour's words only when set)
    const int* queue;             // F_L's vertices
    const int* giants;            // F_L's giants, and where each one's out-edges end, end to end
    const i64* giant_ends;
    u64* next;                    // F_{L+1}'s words, bits, queue, giants and counters
    u32* next_bits;
    int* next_queue;
    int* next_giants;
    i64* next_giant_ends;
    u64* row;
    bool merged;                  // F_L's words are in visited already (a barrier after the settle)
    u64 live;                     // this lane's word of F_L's live bits, within the k searches
    const u64* live_words;        // all W of them (shared memory), not yet cut to the k searches
};

// What a thread tallies for the counters, added once a phase (block-reduced).
struct ld_mf_tally {
    u64 edges = 0, entries = 0, completed = 0, examined = 0, live = 0;
};

__device__ __forceinline__ int ld_mf_low_bit(u64 x) { return __ffsll((long long)x) - 1; }

// An edge's other end, read once a level from the graph's index arrays (never written here):
// marked first to go from L2 and not kept in L1, so that the index stream leaves the caches to
// the frontier and visited words. H200, Kronecker 22, two alternated rounds against __ldg: 512
// sources' levels 13.65-13.68 -> 13.45 ms, 64 sources' unchanged.
// (Cache policies need sm_80: before it, a plain read-only load.)
__device__ __forceinline__ int ld_mf_edge_end(const int* at) {
#if __CUDA_ARCH__ >= 800
    u64 policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    int end;
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(end) : "l"(at), "l"(policy));
    return end;
#else
    return __ldg(at);
#endif
}

// The bits of word j that belong to the k searches.
__device__ __forceinline__ u64 ld_mf_full(i64 k, int j) {
    const i64 below = (i64)j * 64;
    if (k >= below + 64) return ~0ull;
    return k > below ? (1ull << (k - below)) - 1ull : 0ull;
}

// The bits of v's word j that the searches have reached at level L: those of the levels before
// (visited, into which F_L's are merged during level L) and F_L's own.
template <int W>
__device__ __forceinline__ u64 ld_mf_seen(const ld_mf_level<W>& m, int v, int j) {
    const i64 at = (i64)v * W + j;
    if (W == 1 && m.merged) return __ldcg(m.a->visited + at);                // F_L is in visited already
    return __ldcg(m.a->visited + at) | __ldcg(m.frontier + at);
}

// Set v's bit in a frontier's bitmap: true for the one that set it first (v enters that frontier).
__device__ __forceinline__ bool ld_mf_mark(u32* bits, int v) {
    const u32 bit = 1u << (v & 31);
    return !(atomicOr(bits + (v >> 5), bit) & bit);
}

// The parents of the bits `fresh` of v's word j: `parent` (each bit has one finder).
__device__ __forceinline__ void ld_mf_parents(const ld_mf_args& a, int v, int j, u64 fresh, int parent) {
    int* row = a.parents + (i64)v * a.k + 64 * j;
    for (u64 b = fresh; b; b &= b - 1) row[ld_mf_low_bit(b)] = parent;
}

__device__ __forceinline__ i64 ld_mf_bitmap_words(i64 n) { return (n + 31) / 32; }

// v completes (every search has reached it; once a vertex): its out-edges leave the unexplored,
// and its done bit spares the pull sweeps of the levels after a look at its row. One word a
// vertex, the bit is set as v's frontier word settles (ld_mf_settle_done), where a sweep sets a
// window's 32 with one atomic: one a completion here made the widest levels of 64 sources 2-5%
// slower on Kronecker 22 (2.4 M atomics, the vertices of a burst sharing words).
template <int W>
__device__ __forceinline__ void ld_mf_completed(const ld_mf_args& a, int v, ld_mf_tally& t) {
    t.completed += (u64)__ldg(a.out_degree + v);
    if (W > 1) atomicOr(a.done + (v >> 5), 1u << (v & 31));
}

// Word j of v is now full: v completes with its last word (one word: at once; several: a count
// of full words a vertex).
template <int W>
__device__ __forceinline__ void ld_mf_word_filled(const ld_mf_args& a, int v, ld_mf_tally& t) {
    if (W == 1 || atomicAdd(a.full_words + v, 1u) == (u32)a.nwords - 1u) ld_mf_completed<W>(a, v, t);
}

// Claim `bits` of v's word j (none of them in `seen`, the word's reached bits) for the next
// frontier, found from `parent` (-1: its finder wrote the parents), where others may claim the
// same word at once (a push, a long row's slices): the atomic's old word tells which bits are
// new, so a bit has one claimant, and
// the claim that makes the word nonzero marks v, whose first mark enters it (`entered`).
// Returns the new bits and the word's old value.
// One word a vertex: the claim that makes the word nonzero is v's first, and enters it (no
// bitmap: a pull reads a neighbour's one word as soon as its bit). ld_mf_claimed is the part after the atomic (a push issues several atomics first).
template <int W>
__device__ __forceinline__ u64 ld_mf_claimed(const ld_mf_level<W>& m, int v, int j, u64 bits, u64 seen, u64 old,
                                             int parent, ld_mf_tally& t, bool& entered) {
    const u64 fresh = bits & ~old;
    if (!fresh) return 0;
    t.entries += __popcll(fresh);
    t.live |= fresh;
    if (m.a->parents && parent >= 0) ld_mf_parents(*m.a, v, j, fresh, parent);
    if ((seen | old | fresh) == ld_mf_full(m.a->k, j)) ld_mf_word_filled<W>(*m.a, v, t);
    if (!old && (W == 1 || ld_mf_mark(m.next_bits, v))) entered = true;
    return fresh;
}

template <int W>
__device__ __forceinline__ u64 ld_mf_claim(const ld_mf_level<W>& m, int v, int j, u64 bits, u64 seen, int parent,
                                           ld_mf_tally& t, bool& entered) {
    const u64 old = atomicOr(m.next + (i64)v * W + j, bits);
    return ld_mf_claimed(m, v, j, bits, seen, old, parent, t, entered);
}

// A warp's vertices entering the next frontier, staged in shared memory: the warp reserves their
// places in the queue with one atomic for a stage of them, and loads their out-degrees then, many
// at once, where a reservation a step held the step's next loads behind a returning atomic and
// the degree's load. Every lane of the warp calls enter, keep_room and flush.
struct ld_mf_stage {
    int* ids;                     // the warp's LD_MF_STAGE slots
    int count;                    // (warp-uniform)
};

__device__ __forceinline__ ld_mf_stage ld_mf_warp_stage(int (*slots)[LD_MF_STAGE]) {
    return ld_mf_stage{slots[threadIdx.x >> 5], 0};
}

// The staged vertices go to the next queue; giants also to the next giant list.
template <int W>
__device__ __forceinline__ void ld_mf_stage_flush(const ld_mf_level<W>& m, ld_mf_stage& stage, ld_mf_tally& t) {
    __syncwarp();
    if (!stage.count) return;
    const int lane = threadIdx.x & 31;
    u64 base = 0;
    if (lane == 0) base = atomicAdd(m.row + LD_MF_COUNT, (u64)stage.count);
    base = __shfl_sync(LD_MF_FULL_WARP, base, 0);
    for (int i = lane; i < stage.count; i += 32) {
        const int v = stage.ids[i];
        m.next_queue[base + i] = v;
        const i64 degree = __ldg(m.a->out_degree + v);
        t.edges += (u64)degree;
        if (degree > LD_MF_PUSH_GIANT) {
            const u64 at = atomicAdd(m.row + LD_MF_GIANTS, (1ull << LD_MF_GIANT_SHIFT) | (u64)degree);
            m.next_giants[at >> LD_MF_GIANT_SHIFT] = v;
            m.next_giant_ends[at >> LD_MF_GIANT_SHIFT] = (i64)(at & LD_MF_GIANT_EDGES) + degree;
        }
    }
    __syncwarp();
    stage.count = 0;
}

// v is staged to enter the next frontier for the lanes with `entered` (room for 32 is kept).
__device__ __forceinline__ void ld_mf_enter(ld_mf_stage& stage, bool entered, int v) {
    const u32 entering = __ballot_sync(LD_MF_FULL_WARP, entered);
    if (entered) stage.ids[stage.count + __popc(entering & ((1u << (threadIdx.x & 31)) - 1u))] = v;
    stage.count += __popc(entering);
}

// Flush the stage unless it has room for `room` more.
template <int W>
__device__ __forceinline__ void ld_mf_keep_room(const ld_mf_level<W>& m, ld_mf_stage& stage, int room, ld_mf_tally& t) {
    if (stage.count > LD_MF_STAGE - room) ld_mf_stage_flush(m, stage, t);
}
// Add the block's tallies to the row (every thread of the block calls it).
__device__ __forceinline__ void ld_mf_flush(u64* row, const ld_mf_tally& t, int width) {
    __shared__ u64 s_live[8];
    if (threadIdx.x < 8) s_live[threadIdx.x] = 0;
    ld_add_block_count(row + LD_MF_EDGES, t.edges);        // (its first barrier orders s_live's zeroing)
    ld_add_block_count(row + LD_MF_ENTRIES, t.entries);
    ld_add_block_count(row + LD_MF_COMPLETED, t.completed);
    ld_add_block_count(row + LD_MF_EXAMINED, t.examined);
    u64 live = t.live;                                      // lanes l, l + W, ... hold word l % W
    for (int d = width; d < 32; d <<= 1) live |= __shfl_xor_sync(LD_MF_FULL_WARP, live, d);
    const int lane = threadIdx.x & 31;
    if (lane < width && live) atomicOr(s_live + lane, live);
    __syncthreads();
    if (threadIdx.x < width && s_live[threadIdx.x]) atomicOr(row + LD_MF_LIVE + threadIdx.x, s_live[threadIdx.x]);
}

// -- push: every frontier vertex's words offered to its out-neighbours --------------------------
// A lane offers LD_MF_PUSH_UNROLL edges a step, the loads of their heads, then of the heads'
// seen and next-frontier words together, then the claims' atomics each issued for all of them
// before any is waited on. A claim whose bits the head's next-frontier word holds already is
// not made (its atomic would find them all claimed): a hub that many frontier vertices point at
// takes one atomic for each bit it gets at the level, not one an edge, where the atomics on one
// word wait on each other.
template <int W>
__device__ __forceinline__ void ld_mf_offer_edges(const ld_mf_level<W>& m, ld_mf_stage& stage, const int (&v)[LD_MF_PUSH_UNROLL],
                                                  const u64 (&offer)[LD_MF_PUSH_UNROLL], const int (&from)[LD_MF_PUSH_UNROLL],
                                                  int j, ld_mf_tally& t) {
    constexpr int U = LD_MF_PUSH_UNROLL;
    u64 seen[U], taken[U], bits[U], old[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const bool offered = v[u] >= 0 && offer[u];
        seen[u] = offered ? ld_mf_seen(m, v[u], j) : ~0ull;
        taken[u] = offered ? __ldcg(m.next + (i64)v[u] * W + j) : ~0ull;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        bits[u] = v[u] >= 0 ? offer[u] & ~seen[u] & ~taken[u] : 0ull;
        old[u] = bits[u] ? atomicOr(m.next + (i64)v[u] * W + j, bits[u]) : ~0ull;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        bool entered = false;
        if (bits[u]) ld_mf_claimed(m, v[u], j, bits[u], seen[u], old[u], from[u], t, entered);
        ld_mf_enter(stage, entered, v[u]);
    }
    ld_mf_keep_room(m, stage, 32 * U, t);
}

// The giants: their out-edges, end to end (in their list's order), cut in equal runs, a warp a
// run, so that a hub of a million edges is read by hundreds of warps and a level's giants end
// together. A warp finds the giant its run starts in by a binary search of their ends.
template <int W>
__device__ void ld_mf_push_giants(const ld_mf_level<W>& m, ld_mf_stage& stage, u64 giants, i64 warp, i64 nwarps,
                                  int lane, ld_mf_tally& t) {
    constexpr int U = LD_MF_PUSH_UNROLL, per = 32 / W;             // edges a warp offers a pass of its lanes
    const ld_mf_args& a = *m.a;
    const int j = lane % W;
    const i64 count = (i64)(giants >> LD_MF_GIANT_SHIFT), total = (i64)(giants & LD_MF_GIANT_EDGES);
    i64 p = total * warp / nwarps;
    const i64 last = total * (warp + 1) / nwarps;
    if (p >= last) return;                                               // warp-uniform
    i64 g = 0;
    for (i64 hi = count - 1; g < hi;) {                                  // the first giant ending past p
        const i64 mid = (g + hi) / 2;
        if (__ldcg(m.giant_ends + mid) > p) hi = mid; else g = mid + 1;
    }
    if (lane == 0) t.examined += (u64)(last - p);
    for (; p < last; ++g) {                                              // warp-uniform
        const int u = __ldcg(m.giants + g);
        const i64 ends = __ldcg(m.giant_ends + g), stop = min(last, ends);
        const i64 at = __ldg(a.out_indptr + u + 1) - ends;                 // edge position q is out_indices[at + q]
        const u64 word = __ldcg(m.frontier + (i64)u * W + j);
        for (; p < stop; p += per * U) {
            int v[U], from[U];
            u64 offer[U];
#pragma unroll
            for (int i = 0; i < U; ++i) {
                const i64 q = p + lane / W + i * per;
                v[i] = q < stop && word ? ld_mf_edge_end(a.out_indices + at + q) : -1;
                offer[i] = word;
                from[i] = u;
            }
            ld_mf_offer_edges(m, stage, v, offer, from, j, t);
        }
        p = stop;
    }
}

// The rest: a warp takes up to 32 entries, their edges flattened over its lanes, W lanes an edge
// (a giant counts no edges here). A frontier of fewer than 32 entries a warp gives each warp as
// many as spread it over all of them (one, where it has fewer than the warps), so that its edges
// are not left to the few warps that 32 a warp would fill (512 sources' first level: 16 warps
// walked 17,886 edges in 0.38 ms, where a later push of 4,284 took 0.06).
template <int W>
__device__ void ld_mf_push_entries(const ld_mf_level<W>& m, ld_mf_stage& stage, i64 nf, i64 warp, i64 nwarps,
                                   int lane, ld_mf_tally& t) {
    constexpr int U = LD_MF_PUSH_UNROLL;
    const ld_mf_args& a = *m.a;
    const int j = lane % W;
    const i64 per = min((i64)32, max((i64)1, (nf + nwarps - 1) / nwarps));         // entries a warp at once
    for (i64 base = warp * per; base < nf; base += nwarps * per) {
        int u = 0;
        i64 degree = 0, first = 0;
        u64 word = 0;                        // one word a vertex: the lane's entry's, shuffled to its edges' lanes
        if (lane < per && base + lane < nf) {
            u = __ldcg(m.queue + base + lane);
            first = __ldg(a.out_indptr + u);
            degree = __ldg(a.out_indptr + u + 1) - first;
            if (degree > LD_MF_PUSH_GIANT) degree = 0;
            if (W == 1) word = __ldcg(m.frontier + u);
        }
        const i64 inclusive = ld_warp_inclusive_sum(degree);
        const i64 total = __shfl_sync(LD_MF_FULL_WARP, inclusive, 31);
        if (lane == 0) t.examined += (u64)total;
        for (i64 step = 0; step < total * W; step += 32 * U) {       // warp-uniform
            int v[U], from[U];
            u64 offer[U];
#pragma unroll
            for (int i = 0; i < U; ++i) {
                const i64 e = (step + 32 * i + lane) / W;
                int owner = 0;               // the lanes whose edges end at or before e
                for (int b = 16; b; b >>= 1)
                    if (__shfl_sync(LD_MF_FULL_WARP, inclusive, owner + b - 1) <= e) owner += b;
                from[i] = __shfl_sync(LD_MF_FULL_WARP, u, owner);
                const i64 below = __shfl_sync(LD_MF_FULL_WARP, inclusive - degree, owner);
                const i64 at = __shfl_sync(LD_MF_FULL_WARP, first, owner) + (e - below);
                offer[i] = W == 1 ? __shfl_sync(LD_MF_FULL_WARP, word, owner) : 0ull;
                v[i] = e < total ? ld_mf_edge_end(a.out_indices + at) : -1;
            }
            if (W > 1) {
#pragma unroll
                for (int i = 0; i < U; ++i) offer[i] = v[i] >= 0 ? __ldcg(m.frontier + (i64)from[i] * W + j) : 0ull;
            }
            ld_mf_offer_edges(m, stage, v, offer, from, j, t);
        }
    }
}

// -- pull: rows look for the searches that have not reached them ------------------------------
__device__ __forceinline__ bool ld_mf_in(const u32* bits, int v) { return (__ldcg(bits + (v >> 5)) >> (v & 31)) & 1u; }

// OR of `x` over the lanes of a P-lane group (P a power of two).
template <int P>
__device__ __forceinline__ u64 ld_mf_group_or(u32 group, u64 x) {
    for (int d = 1; d < P; d <<= 1) x |= __shfl_xor_sync(group, x, d, P);
    return x;
}

// Whether v, seen as `seen` (word j), wants bits from a pull: a live search has not reached it.
template <int W>
__device__ __forceinline__ bool ld_mf_wants(const ld_mf_level<W>& m, int v) {
#pragma unroll
    for (int j = 0; j < W; ++j)
        if (m.live_words[j] & ld_mf_full(m.a->k, j) & ~ld_mf_seen(m, v, j)) return true;
    return false;
}

#ifndef LD_MF_PULL_UNROLL
#define LD_MF_PULL_UNROLL 4       // in-edges a lane reads a step (their loads in flight together)
#endif

// In-edge `at` of a row ending at `end`: its other end, or -1 past the row.
__device__ __forceinline__ int ld_mf_in_edge(const ld_mf_args& a, i64 at, i64 end) {
    return at < end ? ld_mf_edge_end(a.in_indices + at) : -1;
}

// A group of P lanes reads in-edges [start, end) of v until it has every bit v wants (the live
// searches' bits v has not seen) or runs out; lane j returns the bits it found of word j (one
// word: every lane has them all). One word (W = 1): each lane reads LD_MF_PULL_UNROLL in-edges
// a step, P apart; several: lane j owns word j (P = W), the lanes test W in-neighbours'
// frontier bits at once, then each reads word j of all those in the frontier together. A
// parent is written as found: every finder of a bit this level is a valid parent, so the
// writes may race. SLICE: the group reads a slice of a long row, other groups the rest, so v's
// next-frontier words, where they claim, are read each step to drop what they found.
// The loads run a step ahead: a step's frontier words are loaded with the next step's in-edges
// (and, several words a vertex, the next step's frontier bits and the in-edges of the step
// after), so that a step waits on one round of loads where it waited on two (one word: in-edges,
// then their words) or three (several: in-edges, bits, words) in a row; a row that ends early
// has loaded a step or two it does not read. With several words, a lane whose word has every
// bit it wanted loads no more words of the row (the group reads on for the others).
template <int W, int P, bool SLICE>
__device__ __forceinline__ u64 ld_mf_pull_scan(const ld_mf_level<W>& m, int v, i64 start, i64 end, u32 group,
                                               int sub, u64 seen, ld_mf_tally& t) {
    const ld_mf_args& a = *m.a;
    const int j = W == 1 ? 0 : sub;
    const u64 wanted = m.live & ~seen;
    u64 want = wanted;
    i64 e = start;
    if constexpr (W == 1) {
        constexpr int U = LD_MF_PULL_UNROLL;
        int c[U];                                                  // this step's in-edges
#pragma unroll
        for (int u = 0; u < U; ++u) c[u] = ld_mf_in_edge(a, e + sub + u * P, end);
        while (e < end && want) {                                  // group-uniform
            const u64 taken = SLICE ? __ldcg(m.next + v) : 0ull;
            u64 words[U];
            int from[U];
#pragma unroll
            for (int u = 0; u < U; ++u) words[u] = c[u] >= 0 ? __ldcg(m.frontier + c[u]) : 0ull;   // (zero off F_L)
#pragma unroll
            for (int u = 0; u < U; ++u) {
                from[u] = c[u];
                c[u] = ld_mf_in_edge(a, e + U * P + sub + u * P, end);
            }
            u64 hits = 0;
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const u64 hit = words[u] & want & ~hits;
                if (hit && a.parents) ld_mf_parents(a, v, 0, hit, from[u]);
                hits |= hit;
            }
            want &= ~(ld_mf_group_or<P>(group, hits) | taken);
            e += U * P;
        }
    } else {
        const int lead = __ffs(group) - 1;
        int c = ld_mf_in_edge(a, e + j, end);                      // this step's in-edge
        int c_ahead = ld_mf_in_edge(a, e + W + j, end);            // the next step's
        bool inside = c >= 0 && ld_mf_in(m.frontier_bits, c);
        while (e < end && __ballot_sync(group, want != 0)) {      // group-uniform
            const u32 in = __ballot_sync(group, inside) >> lead;
            const u64 taken = SLICE ? __ldcg(m.next + (i64)v * W + j) : 0ull;
            int from[W];
            u64 words[W];
#pragma unroll
            for (int i = 0; i < W; ++i) {
                from[i] = __shfl_sync(group, c, lead + i);
                words[i] = ((in >> i) & 1u) && want ? __ldcg(m.frontier + (i64)from[i] * W + j) : 0ull;
            }
            inside = c_ahead >= 0 && ld_mf_in(m.frontier_bits, c_ahead);
            c = c_ahead;
            c_ahead = ld_mf_in_edge(a, e + 2 * W + j, end);
#pragma unroll
            for (int i = 0; i < W; ++i) {
                const u64 hit = words[i] & want;
                if (hit && a.parents) ld_mf_parents(a, v, j, hit, from[i]);
                want &= ~hit;
            }
            want &= ~taken;
            e += W;
        }
    }
    if (sub == 0) t.examined += (u64)(min(e, end) - start);
    return wanted & ~want;
}
// The end of a row the group read alone: its found bits (lane j: word j; one word: every lane
// has it and the first writes it) become v's next frontier words, the counts are tallied, and
// the group's first lane marks v and enters it.
template <int W>
__device__ __forceinline__ void ld_mf_settle_row(const ld_mf_level<W>& m, int v, u32 group, int sub, u64 seen,
                                                 u64 found, ld_mf_tally& t, bool& entered) {
    const ld_mf_args& a = *m.a;
    const int j = W == 1 ? 0 : sub;
    const u64 mine = W == 1 && sub != 0 ? 0ull : found;
    const bool full = (seen | found) == ld_mf_full(a.k, j);
    const u32 filled = __ballot_sync(group, mine != 0 && full);      // the words this row filled
    const u32 any = __ballot_sync(group, mine != 0);
    const u32 all_full = __ballot_sync(group, full);
    if (mine) {
        m.next[(i64)v * W + j] = mine;
        t.entries += __popcll(mine);
        t.live |= mine;
    }
    if (sub != 0 || !any) return;
    if (filled) {                  // v completes when its last words fill (no one else counts v's this level)
        if (W > 1) a.full_words[v] += __popc(filled);
        if (all_full == group) ld_mf_completed<W>(a, v, t);
    }
    if (W > 1) atomicOr(m.next_bits + (v >> 5), 1u << (v & 31));
    entered = true;
}

// The i-th (from 0) set bit of `bits`, or -1.
__device__ __forceinline__ int ld_mf_nth_bit(u32 bits, int i) {
    for (; i > 0 && bits; --i) bits &= bits - 1;
    return bits ? __ffs(bits) - 1 : -1;
}

// `bits` without its lowest `count` set bits.
__device__ __forceinline__ u32 ld_mf_drop_bits(u32 bits, int count) {
    for (; count > 0 && bits; --count) bits &= bits - 1;
    return bits;
}

// The 32 rows from `base` whose bits of `open` are set (lane l: row base + l): a lane looks at
// its row, and those that want bits are handed to the warp's groups of P lanes (W, lane j for
// word j; one word: PULL_LANES), each reading its row alone.
template <int W, int P>
__device__ __forceinline__ void ld_mf_pull_rows(const ld_mf_level<W>& m, ld_mf_stage& stage, i64 base, u32 open,
                                                int lane, ld_mf_tally& t) {
    const ld_mf_args& a = *m.a;
    constexpr int groups = 32 / P;
    const int sub = lane % P, g = lane / P, j = W == 1 ? 0 : sub;
    const u32 group = (P == 32 ? LD_MF_FULL_WARP : ((1u << P) - 1u)) << (g * P);
    const i64 r = base + lane;
    i64 start = 0, end = 0;
    bool wants = false;
    if (((open >> lane) & 1u) && r < a.n) {
        start = __ldg(a.in_indptr + r);
        end = __ldg(a.in_indptr + r + 1);
        wants = end > start && end - start <= LD_MF_LONG_ROW && ld_mf_wants(m, (int)r);
    }
    for (u32 rows = __ballot_sync(LD_MF_FULL_WARP, wants); rows; rows = ld_mf_drop_bits(rows, groups)) {
        const int pick = ld_mf_nth_bit(rows, g);                           // group-uniform
        const int from = pick < 0 ? 0 : pick;
        const i64 row_start = __shfl_sync(LD_MF_FULL_WARP, start, from);
        const i64 row_end = __shfl_sync(LD_MF_FULL_WARP, end, from);
        const int v = (int)(base + from);
        bool entered = false;
        if (pick >= 0) {
            const u64 seen = ld_mf_seen(m, v, j);
            const u64 found = ld_mf_pull_scan<W, P, false>(m, v, row_start, row_end, group, sub, seen, t);
            ld_mf_settle_row(m, v, group, sub, seen, found, t, entered);
        }
        ld_mf_enter(stage, entered, v);
        ld_mf_keep_room(m, stage, 32, t);
    }
}

// A pull level. The rows of at most LD_MF_LONG_ROW in-edges, 32 at a time (a window: a word of
// the done and skip bits), the warps' windows interleaved over the vertices (a Kronecker graph's
// low ids hold its hubs: 1024 rows in a row a warp made 512 sources' widest level 5% slower): a
// warp reads the bits of its next 32 windows at once, a lane each, and looks only at the rows
// that neither bit rules out (ld_mf_pull_rows), so that a level whose rows are mostly complete
// reads a word of each window, where their indptr and seen words took a chain of dependent
// loads a window (Kronecker 22, 64 sources: a pull level that found a few thousand bits took
// 158 us). Then the longer rows' slices, the same way, each group claiming what its slice found.
template <int W, int PULL_LANES>
__device__ void ld_mf_pull(const ld_mf_level<W>& m, ld_mf_stage& stage, i64 warp, i64 nwarps, int lane,
                           ld_mf_tally& t) {
    const ld_mf_args& a = *m.a;
    constexpr int P = W == 1 ? PULL_LANES : W;
    constexpr int groups = 32 / P;
    const int sub = lane % P, g = lane / P, j = W == 1 ? 0 : sub;
    const u32 group = (P == 32 ? LD_MF_FULL_WARP : ((1u << P) - 1u)) << (g * P);
    const i64 windows = ld_mf_bitmap_words(a.n);
    for (i64 first = warp; first < windows; first += 32 * nwarps) {          // warp-uniform
        const i64 w = first + lane * nwarps;                                  // lane i: the warp's i-th window
        const u32 open = w < windows ? ~(__ldcg(a.done + w) | __ldg(a.skip_rows + w)) : 0u;
        for (u32 owners = __ballot_sync(LD_MF_FULL_WARP, open != 0u); owners; owners &= owners - 1u) {
            const int owner = __ffs(owners) - 1;
            ld_mf_pull_rows<W, P>(m, stage, (first + owner * nwarps) * 32, __shfl_sync(LD_MF_FULL_WARP, open, owner),
                                  lane, t);
        }
    }
    for (i64 base = warp * 32; base < a.nslices; base += nwarps * 32) {
        const i64 s = base + lane;
        int v = 0;
        i64 start = 0, end = 0;
        bool wants = false;
        if (s < a.nslices) {
            v = __ldg(a.slice_rows + s);
            if (!ld_mf_in(a.done, v)) {                                    // (a complete row's slices: a bit)
                start = __ldg(a.slice_starts + s);
                end = min(start + LD_MF_LONG_ROW, __ldg(a.in_indptr + v + 1));
                wants = ld_mf_wants(m, v);
            }
        }
        for (u32 slices = __ballot_sync(LD_MF_FULL_WARP, wants); slices; slices = ld_mf_drop_bits(slices, groups)) {
            const int pick = ld_mf_nth_bit(slices, g);
            const int from = pick < 0 ? 0 : pick;
            const i64 slice_start = __shfl_sync(LD_MF_FULL_WARP, start, from);
            const i64 slice_end = __shfl_sync(LD_MF_FULL_WARP, end, from);
            const int row = __shfl_sync(LD_MF_FULL_WARP, v, from);
            bool entered = false;
            if (pick >= 0) {
                const u64 seen = ld_mf_seen(m, row, j);
                const u64 found = ld_mf_pull_scan<W, P, true>(m, row, slice_start, slice_end, group, sub, seen, t);
                if (found && (W > 1 || sub == 0)) ld_mf_claim(m, row, j, found, seen, -1, t, entered);
            }
            ld_mf_enter(stage, entered, row);
            ld_mf_keep_room(m, stage, 32, t);
        }
    }
}

// -- the run's set-up and bookkeeping ------------------------------------------------------------
// Zero what a run claims into (visited, or all the planes, visited among them; full words; the
// first two counter rows); the frontier slots are left zero by the run before (ld_mf_clear).
template <int W>
__device__ void ld_mf_reset(const ld_mf_args& a, i64 thread, i64 nthreads) {
    const i64 claimed = a.planes ? (1 + a.plane_bits) * a.rows * W : a.n * W;
    for (i64 i = thread; i < claimed; i += nthreads) a.visited[i] = 0;
    for (i64 i = thread; i < a.n; i += nthreads) a.full_words[i] = 0;
    for (i64 i = thread; i < ld_mf_bitmap_words(a.n); i += nthreads) a.done[i] = 0;
    for (i64 i = thread; i < 2 * LD_MF_ROW; i += nthreads) a.counters[i] = 0;
}

// Zero the words of a frontier's vertices (a thread a word).
template <int W>
__device__ void ld_mf_clear(u64* words, const int* queue, i64 count, i64 thread, i64 nthreads) {
    for (i64 i = thread; i < count * W; i += nthreads) words[(i64)__ldcg(queue + i / W) * W + i % W] = 0;
}

// F_L's bits of vertex v, word j, into the depth planes of L's set bits (its visited word,
// plane 0, is merged beside), each by an atomic OR whose old value is not read: a reduction
// the lane issues and leaves, where a load and a store made each plane wait on its load.
template <int W>
__device__ __forceinline__ void ld_mf_settle_planes(const ld_mf_args& a, i64 v, int j, int depth, u64 word) {
#pragma unroll
    for (int p = 0; p < LD_MF_KEPT_PLANES; ++p)
        if (p < a.plane_bits && ((depth >> p) & 1)) atomicOr(a.planes + ((1 + p) * a.rows + v) * W + j, word);
}

// Whether a settle of `count` queued vertices reads fewer bytes by a sweep over all n: the queue
// costs an id and a vertex's W words, scattered (a 32-byte sector at least); the sweep, every
// vertex's words in order. One word a vertex, the sweep wins past about n / 4.5 (measured on
// nvidia-h200, Kronecker 22: 64 sources' levels 3.20 -> 3.06 ms with a sweep past n / 4, where
// 512 sources', eight words a vertex, read whole either way, went 14.7 -> 15.1 ms).
template <int W>
__device__ __forceinline__ bool ld_mf_settle_by_sweep(i64 count, i64 n) {
    constexpr i64 queued_bytes = 4 + (8 * W > 32 ? 8 * W : 32);
    return count * queued_bytes > n * 8 * W;
}

// One word a vertex: the done bits of the settling vertices that F_L's word completes
// (`complete`, lane l's vertex `v`), after their claims (ld_mf_completed): a sweep's warp holds
// the window of 32 from `window` (its first vertex, a multiple of 32; -1: the queue's vertices,
// a bit each).
__device__ __forceinline__ void ld_mf_settle_done(const ld_mf_args& a, int v, bool complete, i64 window, int lane) {
    if (window >= 0) {
        const u32 bits = __ballot_sync(LD_MF_FULL_WARP, complete);
        if (lane == 0 && bits) atomicOr(a.done + (window >> 5), bits);
    } else if (complete) {
        atomicOr(a.done + (v >> 5), 1u << (v & 31));
    }
}

// F_L settles (at the start of level L): its words are merged into visited, and the levels of
// its bits (depth L) written: as rows, or into the depth planes. A warp takes 32 / W vertices,
// W lanes a vertex, lane j loading and merging its word j (one access for the vertex's W words;
// a vertex is in the queue once: no one else writes its visited words now; readers see the
// word before or after, and OR it with F_L's anyway), then the warp writes each vertex's row in
// turn (coalesced along the row; no load in the loop).
// A frontier whose levels are not written as rows settles by a sweep over every vertex, in order,
// where that reads fewer bytes than its queue does (ld_mf_settle_by_sweep).
template <int W>
__device__ void ld_mf_settle(const ld_mf_args& a, const u64* frontier, const int* queue, i64 count,
                             int depth, i64 warp, i64 nwarps, int lane) {
    constexpr int R = 32 / W;            // vertices a warp takes at once: lane r * W + j merges word j of its r-th
    const int j = lane % W;
    const bool rows = a.levels && depth >= a.kept;              // (a kept depth is written at the end)
    const bool sweep = !rows && ld_mf_settle_by_sweep<W>(count, a.n);
    const i64 span = sweep ? a.n : count;
    for (i64 base = warp * R; base < span; base += nwarps * R) {
        const i64 at = base + lane / W;
        const int mine = at < span ? (sweep ? (int)at : __ldcg(queue + at)) : -1;
        const u64 word = mine >= 0 ? __ldcg(frontier + (i64)mine * W + j) : 0ull;
        const u64 before = word ? __ldcg(a.visited + (i64)mine * W + j) : 0ull;
        if (word) a.visited[(i64)mine * W + j] = before | word;
        if (word && a.planes) ld_mf_settle_planes<W>(a, mine, j, depth, word);
        if (W == 1) ld_mf_settle_done(a, mine, word && (before | word) == ld_mf_full(a.k, 0), sweep ? base : -1, lane);
        if (!rows) continue;
        const int many = (int)min((i64)R, count - base);
        for (int e = 0; e < many; ++e) {
            int* row = a.levels + (i64)__shfl_sync(LD_MF_FULL_WARP, mine, e * W) * a.k;
#pragma unroll
            for (int step = 0; step < 2 * W; ++step) {
                const u64 bits = __shfl_sync(LD_MF_FULL_WARP, word, e * W + (step >> 1));
                const int c = 32 * step + lane;
                if (c < a.k && ((bits >> (c & 63)) & 1ull)) row[c] = depth;
            }
        }
    }
}

// Bits 0..3 of x as four bytes, 0 or 1 (byte i: bit i): the four products land apart, so no carry.
__device__ __forceinline__ u32 ld_mf_bytes4(u32 x) { return ((x & 0xFu) * 0x00204081u) & 0x01010101u; }

// Byte i of x, sign-extended (0xFF: -1).
__device__ __forceinline__ int ld_mf_signed_byte(u32 x, int i) { return (int)(x << (24 - 8 * i)) >> 24; }

// A half-warp's 16 words as a 16 x 16 matrix of nibbles (row: a lane, column: a nibble),
// transposed: lane t of the half ends with nibble t of the half's s-th lane's word as its nibble
// s. Step m exchanges with the lane m apart and swaps the lane's bit m with the nibble index's.
__device__ __forceinline__ u64 ld_mf_transpose_nibbles(u64 x, int lane) {
#pragma unroll
    for (int m = 0; m < 4; ++m) {
        const int d = 1 << m, shift = 4 << m;
        const u64 low = m == 0 ? 0x0F0F0F0F0F0F0F0Full : m == 1 ? 0x00FF00FF00FF00FFull
                      : m == 2 ? 0x0000FFFF0000FFFFull : 0x00000000FFFFFFFFull;   // nibbles whose index has bit m clear
        const u64 y = __shfl_xor_sync(LD_MF_FULL_WARP, x, d);
        x = lane & d ? (x & ~low) | ((y & ~low) >> shift) : (x & low) | ((y & low) << shift);
    }
    return x;
}

// Four columns of a row from c on, `valid` of them inside it: one 16-byte access where rows are
// 16-byte aligned (k a multiple of 4), else one access a column.
__device__ __forceinline__ int4 ld_mf_load4(const int* row, int c, int valid, bool aligned) {
    if (aligned) return __ldcg(reinterpret_cast<const int4*>(row + c));
    int v[4] = {0, 0, 0, 0};
    for (int i = 0; i < valid && i < 4; ++i) v[i] = __ldcg(row + c + i);
    return make_int4(v[0], v[1], v[2], v[3]);
}

__device__ __forceinline__ void ld_mf_store4(int* row, int c, int valid, bool aligned, int4 value) {
    if (aligned) { *reinterpret_cast<int4*>(row + c) = value; return; }
    const int v[4] = {value.x, value.y, value.z, value.w};
    for (int i = 0; i < valid && i < 4; ++i) row[c + i] = v[i];
}

// The end: every row's levels written once, 32 / W rows a warp. W lanes take a vertex, lane j
// folding word j of its kept frontiers' words (F_l's in slot l for l < a.kept; a bit is in one
// of them, its depth's) into planes (plane p: the bits whose depth has bit p), zeroing them for
// the next run. Each half-warp then transposes its 16 words' nibbles (reached, kept, each plane),
// so that lane t holds columns 4t..4t+3 of each of those words, and writes them word after word
// with one 16-byte store (a half-warp: one word's 64 columns, 256 contiguous bytes), their depths
// made four at a time as bytes from the planes' bits: a kept depth, -1 where the search never
// reached the vertex (rows past n: everywhere; parents too), what a deeper level's settle wrote
// elsewhere. (Handing each row's bits to the lanes by shuffles took some 36 instructions a
// column; a lane writing its own word's 64 columns, 16 stores 256 bytes apart across the lanes,
// took 2.5 times as long as that.) A run in bit planes has nothing of its levels left to write
// here (its settles wrote them); with parents, their -1 alone.
template <int W>
__device__ void ld_mf_write_rows(const ld_mf_args& a, i64 kept_levels, i64 warp, i64 nwarps, int lane) {
    constexpr int R = 32 / W;            // rows a warp takes at once: lane r * W + j folds word j of its r-th
    const int j = lane % W;              // (a row's W words are contiguous: its lanes' loads are one access)
    const int half = lane >> 4, t = lane & 15;
    const bool aligned = a.k % 4 == 0;
    int planes = 0;
    while ((1 << planes) < kept_levels) ++planes;
    for (i64 base = warp * R; base < a.rows; base += nwarps * R) {
        const i64 mine = base + lane / W;
        u64 reached = mine < a.n ? __ldcg(a.visited + mine * W + j) : 0ull;
        u64 kept = 0, plane[LD_MF_KEPT_PLANES] = {};
        for (i64 first = 0; reached && first < kept_levels; first += 8) {     // 8 loads in flight
            u64 words[8];
#pragma unroll
            for (int i = 0; i < 8; ++i)
                words[i] = first + i < kept_levels ? __ldcg(a.frontiers + ((first + i) * a.n + mine) * W + j) : 0ull;
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                if (!words[i]) continue;
                a.frontiers[((first + i) * a.n + mine) * W + j] = 0ull;
                kept |= words[i];
#pragma unroll
                for (int p = 0; p < LD_MF_KEPT_PLANES; ++p) if (((first + i) >> p) & 1) plane[p] |= words[i];
            }
        }
        reached = ld_mf_transpose_nibbles(reached, lane);
        if (a.levels) {                                                   // (uniform: the planes' shuffles)
            kept = ld_mf_transpose_nibbles(kept, lane);
#pragma unroll
            for (int p = 0; p < LD_MF_KEPT_PLANES; ++p) if (p < planes) plane[p] = ld_mf_transpose_nibbles(plane[p], lane);
        }
#pragma unroll
        for (int s = 0; s < 16; ++s) {
            const int source = 16 * half + s;                             // the lane whose word this is
            const i64 row = base + source / W;
            const int c = 64 * (source % W) + 4 * t;
            if (row >= a.rows || c >= a.k) continue;
            const int valid = (int)min((i64)4, a.k - c);
            const u32 hit = (u32)(reached >> (4 * s)) & 0xFu;
            if (a.levels) {
                int* level_row = a.levels + row * a.k;
                u32 depths = ld_mf_bytes4(~hit) * 0xFFu;                   // unreached: -1
#pragma unroll
                for (int p = 0; p < LD_MF_KEPT_PLANES; ++p)
                    if (p < planes) depths += ld_mf_bytes4((u32)(plane[p] >> (4 * s))) << p;
                int4 value = make_int4(ld_mf_signed_byte(depths, 0), ld_mf_signed_byte(depths, 1),
                                       ld_mf_signed_byte(depths, 2), ld_mf_signed_byte(depths, 3));
                const u32 settled = hit & ~(u32)(kept >> (4 * s));         // deeper levels, written by their settle
                if (settled) {
                    const int4 old = ld_mf_load4(level_row, c, valid, aligned);
                    if (settled & 1u) value.x = old.x;
                    if (settled & 2u) value.y = old.y;
                    if (settled & 4u) value.z = old.z;
                    if (settled & 8u) value.w = old.w;
                }
                ld_mf_store4(level_row, c, valid, aligned, value);
            }
            if (a.parents && hit != 0xFu) {                               // (the reached columns' parents: set by the levels)
                int* parent_row = a.parents + row * a.k;
                int4 value = hit ? ld_mf_load4(parent_row, c, valid, aligned) : make_int4(-1, -1, -1, -1);
                if (!(hit & 1u)) value.x = -1;
                if (!(hit & 2u)) value.y = -1;
                if (!(hit & 4u)) value.z = -1;
                if (!(hit & 8u)) value.w = -1;
                ld_mf_store4(parent_row, c, valid, aligned, value);
            }
        }
    }
}

// The first frontier: search i's source claims bit i of its word, depth 0, its own parent.
template <int W>
__device__ void ld_mf_sources(const ld_mf_level<W>& m, ld_mf_stage& stage, i64 thread, i64 nthreads, ld_mf_tally& t) {
    const ld_mf_args& a = *m.a;
    const i64 rounds = (a.k + nthreads - 1) / nthreads;             // the same for every lane
    for (i64 round = 0; round < rounds; ++round) {
        const i64 i = thread + round * nthreads;
        bool entered = false;
        int s = 0;
        if (i < a.k) {
            s = (int)a.sources[i];
            const int j = (int)(i >> 6);
            const u64 fresh = ld_mf_claim(m, s, j, 1ull << (i & 63), 0ull, s, t, entered);
            if (fresh) atomicOr(m.row + LD_MF_LIVE + j, fresh);       // (a source's word is not the lane's)
        }
        ld_mf_enter(stage, entered, s);
        ld_mf_keep_room(m, stage, 32, t);
    }
    ld_mf_stage_flush(m, stage, t);
    t.live = 0;
}

// Where F_L's words are: its own slot L while L < a.kept (kept to the end, which writes their
// depths), else one of three that rotate.
__device__ __forceinline__ i64 ld_mf_words_slot(const ld_mf_args& a, i64 level) {
    return level < a.kept ? level : a.kept + (level - a.kept) % 3;
}

// Zero F_L's words, unless kept (through its queue of `count` vertices), and its bits.
template <int W>
__device__ void ld_mf_clear_frontier(const ld_mf_args& a, i64 level, i64 count, i64 thread, i64 nthreads) {
    const i64 slot = level % 3;                                       // (queues and bitmaps rotate over three)
    if (level >= a.kept)
        ld_mf_clear<W>(a.frontiers + ld_mf_words_slot(a, level) * a.n * W, a.queues + slot * a.n, count, thread,
                       nthreads);
    if (W == 1) return;                                               // (one word a vertex: no bitmaps)
    u32* bits = a.bitmaps + slot * ld_mf_bitmap_words(a.n);
    for (i64 i = thread; i < ld_mf_bitmap_words(a.n); i += nthreads) bits[i] = 0;
}

// The level's slots: F_L's queue, giants and bits in slot L % 3, F_{L+1}'s in (L+1) % 3; their
// words where ld_mf_words_slot puts them.
template <int W>
__device__ __forceinline__ ld_mf_level<W> ld_mf_slots(const ld_mf_args& a, i64 level) {
    ld_mf_level<W> m;
    const i64 in = level % 3, out = (level + 1) % 3;
    m.a = &a;
    m.frontier = a.frontiers + ld_mf_words_slot(a, level) * a.n * W;
    m.frontier_bits = a.bitmaps + in * ld_mf_bitmap_words(a.n);
    m.queue = a.queues + in * a.n;
    m.giants = a.giants + in * a.n;
    m.giant_ends = a.giant_ends + in * a.n;
    m.next = a.frontiers + ld_mf_words_slot(a, level + 1) * a.n * W;
    m.next_bits = a.bitmaps + out * ld_mf_bitmap_words(a.n);
    m.next_queue = a.queues + out * a.n;
    m.next_giants = a.giants + out * a.n;
    m.next_giant_ends = a.giant_ends + out * a.n;
    m.row = a.counters + (level + 1) * LD_MF_ROW;
    m.live = 0;
    m.merged = false;
    return m;
}

template <int W>
__device__ __forceinline__ void ld_mf_write_record(const ld_mf_args& a, i64 level, const u64* row, const u64* out,
                                                   bool push, u64 end_ns) {
    u64 record[LD_MF_RECORD];
    record[LD_MF_REC_FRONTIER] = __ldcg(row + LD_MF_ENTRIES);
    record[LD_MF_REC_DISCOVERED] = __ldcg(out + LD_MF_ENTRIES);
    record[LD_MF_REC_EXAMINED] = __ldcg(out + LD_MF_EXAMINED);
    record[LD_MF_REC_PUSH] = push ? 1ull : 0ull;
    record[LD_MF_REC_VERTICES] = __ldcg(out + LD_MF_COUNT);
    record[LD_MF_REC_END_NS] = end_ns;
    for (int f = 0; f < LD_MF_RECORD; ++f) {
        a.report[LD_MF_NSTATUS + level * LD_MF_RECORD + f] = record[f];
        if (level < a.mirror_levels) a.mirror[LD_MF_NSTATUS + level * LD_MF_RECORD + f] = record[f];
    }
}

// BLOCKS: the blocks a multiprocessor the launch is built for (1: about 110 registers a thread,
// no spills; 2: 64, some spilled, twice the warps in flight). PULL_LANES: the lanes that read a
// pull row together when a vertex has one word (layout.py's MULTI_FUSED_PULL_LANES_BUILT).
template <int W, int BLOCKS, int PULL_LANES>
__global__ void __launch_bounds__(LD_MF_THREADS, BLOCKS) ld_multi_bfs_fused(const ld_mf_args a) {
    const u64 entered = ld_now_ns();
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31;
    const i64 thread = (i64)blockIdx.x * blockDim.x + threadIdx.x, nthreads = (i64)gridDim.x * blockDim.x;
    const i64 warp = thread >> 5, nwarps = nthreads >> 5;
    const bool master = blockIdx.x == 0 && threadIdx.x == 0;
    __shared__ u64 s_row[LD_MF_ROW + 1];          // F_L's counters, and F_{L-1}'s vertex count
    __shared__ int s_stage[LD_MF_THREADS / 32][LD_MF_STAGE];
    ld_mf_stage stage = ld_mf_warp_stage(s_stage);

    ld_mf_reset<W>(a, thread, nthreads);
    grid.sync();
    {
        ld_mf_level<W> m = ld_mf_slots<W>(a, -1);    // the sources: "level -1" writes F_0 into slot 0
        m.next = a.frontiers;
        m.next_bits = a.bitmaps;
        m.next_queue = a.queues;
        m.next_giants = a.giants;
        m.next_giant_ends = a.giant_ends;
        ld_mf_tally t;
        ld_mf_sources(m, stage, thread, nthreads, t);
        ld_mf_flush(m.row, t, W);
    }
    grid.sync();
    const u64 started = ld_now_ns();
    ld_mf_rule rule{(int)a.rule_mode, a.alpha, a.beta, a.rule_n, a.rule_push, a.rule_previous, a.rule_unexplored};
    u64 completed = 0;              // out-edges of the vertices every search has reached
    i64 level = 0;
    for (;; ++level) {
        __syncthreads();
        if (threadIdx.x < LD_MF_ROW) s_row[threadIdx.x] = __ldcg(a.counters + level * LD_MF_ROW + threadIdx.x);
        if (threadIdx.x == LD_MF_ROW) s_row[LD_MF_ROW] = level ? __ldcg(a.counters + (level - 1) * LD_MF_ROW) : 0;
        __syncthreads();
        const i64 nf = (i64)s_row[LD_MF_COUNT];
        ld_mf_level<W> m = ld_mf_slots<W>(a, level);
        ld_mf_settle<W>(a, m.frontier, m.queue, nf, (int)level, warp, nwarps, lane);
        completed += s_row[LD_MF_COMPLETED];
        if (s_row[LD_MF_ENTRIES] == 0 || level >= a.max_levels) break;
        const bool push = rule.choose(nf, (long long)s_row[LD_MF_EDGES], a.nnz - (long long)completed);
        // a big push with one word a vertex waits for F_L to be merged into visited, so that an
        // edge's seen test is one load, not two (uniform: every thread reads the same counters).
        // Measured on an H200, Kronecker 22: 64 sources' second level 1.17 -> 0.87 ms; with 8
        // words (512 sources) the same wait made that level 5% slower, so W > 1 keeps two loads.
        m.merged = W == 1 && push && (long long)s_row[LD_MF_EDGES] >= LD_MF_MERGED_PUSH_EDGES;
        if (m.merged) grid.sync();
        // F_{L-1}'s slot is free (nothing reads it now) for F_{L+2}; row L + 2 likewise
        if (level > 0) ld_mf_clear_frontier<W>(a, level - 1, (i64)s_row[LD_MF_ROW], thread, nthreads);
        if (level + 2 < a.counter_rows && thread < LD_MF_ROW) a.counters[(level + 2) * LD_MF_ROW + thread] = 0;
        m.live = s_row[LD_MF_LIVE + lane % W] & ld_mf_full(a.k, lane % W);
        m.live_words = s_row + LD_MF_LIVE;
        ld_mf_tally t;
        if (push) {
            ld_mf_push_giants(m, stage, s_row[LD_MF_GIANTS], warp, nwarps, lane, t);
            ld_mf_push_entries(m, stage, nf, warp, nwarps, lane, t);
        } else {
            ld_mf_pull<W, PULL_LANES>(m, stage, warp, nwarps, lane, t);
        }
        ld_mf_stage_flush(m, stage, t);
        ld_mf_flush(m.row, t, W);
        grid.sync();
        if (master) ld_mf_write_record<W>(a, level, a.counters + level * LD_MF_ROW, m.row, push, ld_now_ns());
    }
    // the end (once the last frontier has settled): the rows written, the kept frontiers zeroed
    // with it; then the last two frontiers' slots for the next run
    grid.sync();
    if (a.levels || a.parents) ld_mf_write_rows<W>(a, min(level + 1, a.kept), warp, nwarps, lane);
    grid.sync();                    // (the last level's pass may still read F_L)
    const u64 written = ld_now_ns();
    ld_mf_clear_frontier<W>(a, level, (i64)s_row[LD_MF_COUNT], thread, nthreads);
    if (level > 0) ld_mf_clear_frontier<W>(a, level - 1, (i64)s_row[LD_MF_ROW], thread, nthreads);
    if (master) {
        const u64 status[7] = {(u64)level, (u64)rule.push, (u64)rule.previous, (u64)rule.unexplored, started,
                               entered, written};
        for (int f = 0; f < 7; ++f) a.report[f] = a.mirror[f] = status[f];
    }
}

#ifdef LD_NVCC_CHECK   // explicit instances, so that a plain nvcc compile checks every body
#define LD_MF_INSTANCES(B) \
    template __global__ void ld_multi_bfs_fused<1, B, 1>(const ld_mf_args); \
    template __global__ void ld_multi_bfs_fused<1, B, 4>(const ld_mf_args); \
    template __global__ void ld_multi_bfs_fused<2, B, 2>(const ld_mf_args); \
    template __global__ void ld_multi_bfs_fused<4, B, 4>(const ld_mf_args); \
    template __global__ void ld_multi_bfs_fused<8, B, 8>(const ld_mf_args);
LD_MF_INSTANCES(2)       // (BLOCKS changes only the launch bounds: one build checks the code)
#endif
