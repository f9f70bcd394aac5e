// fused.cu's grid levels (fused.cu includes it, after fused_base.cuh): a push level's visit
// (ld_push_visit) and warp runs, ld_push_level, the flat push level (ld_push_flat_level),
// ld_pull_level, the giant rows' pull (ld_pull_giant_rows) and ld_compact.
#pragma once
#include "fused_base.cuh"

// A grid push level of at most this many frontier edges claims eagerly (ld_push_visit), in the
// one-block-an-SM build: its time is its latency chain, not the atomics' or the loads' traffic.
#define LD_EAGER_EDGES 65536

// Flat levels of up to four entries a thread, their stages of 128 ids (so that the union's shared
// memory stays under 48 KB), kept in the run whatever their edges (ld_flat_keeps): no hand-over
// to push.cu. A Kronecker search's third level of 1,000-2,000 entries and millions of edges then
// stays in the kernel, staged (one H100, Kronecker 20: its levels 0.178-0.183 -> 0.164 ms, the
// first root's third level 90-105 -> 62 us; Kronecker 22's, whose big levels hold more entries,
// unmoved). -DLD_FLAT_WIDE=0 builds the earlier shape (one entry a thread, warp-sized stages,
// levels past the hand-over's edges given to push.cu) for benchmarks/probes/fused_variants.py.
#ifndef LD_FLAT_WIDE
#define LD_FLAT_WIDE 1
#endif
#define LD_FLAT_ENTRIES_A_THREAD (LD_FLAT_WIDE ? 4 : 1)
#define LD_FLAT_FRONTIER (LD_FLAT_ENTRIES_A_THREAD * LD_FUSED_THREADS)
#define LD_FLAT_STAGE (LD_FLAT_WIDE ? 128 : LD_WARP_STAGE)
using ld_flat_stage = ld_warp_stage_of<LD_FLAT_STAGE>;

// Whether a push level of nf entries and fe out-edges past the hand-over's edges stays in the run
// (flat, in the wide build; its edges counted in int). A search's own edge limit stops it anyway.
__device__ __forceinline__ bool ld_flat_keeps(i64 nf, i64 fe) {
    return LD_FLAT_WIDE && nf <= LD_FLAT_FRONTIER && fe <= INT_MAX;
}

// Push: claim v for parent value `value`; every lane of the warp calls it. Bits only turn on
// during a search, so on a big level ld_push_claim's probes (the read-only cache, then a
// coherent read) skip most repeats before the atomic, and the claimant alone reads v's degree.
// An `eager` (small) level claims with the atomic alone and reads the degree beside it: the
// probes and the read after the claim would be three more round trips on the level's chain.
// STAGED (the flat level, ld_push_flat_level): a level that is not eager gathers its finds in the
// warp's `stage` (ld_warp_stage) instead of appending them a step at a time.
template <typename V, bool STAGED = false>
__device__ __forceinline__ void ld_push_visit(const ld_level_out<V>& out, bool valid, int v, V value,
                                              u64& next_edges, bool eager, ld_flat_stage* stage = nullptr) {
    bool fresh = false, giant = false;
    if (eager) {
        ld_eager_claim claim;
        if (valid) claim.issue(out.out_indptr, out.words, v);
        fresh = claim.fresh(valid, v);
        if (fresh) {
            out.parents[v] = value;
            ld_mark_found(out, v, false);
            next_edges += (u64)claim.degree();
            giant = claim.degree() > LD_FUSED_PUSH_GIANT_DEGREE;
        }
    } else if (valid && ld_push_claim<LD_ADD_ANY, V>(out.words, out.parents, v, value)) {
        fresh = true;
        const i64 degree = ld_record_found(out, v, false);
        next_edges += (u64)degree;
        giant = degree > LD_FUSED_PUSH_GIANT_DEGREE;
    }
    if (STAGED && !eager) stage->add(fresh, v, threadIdx.x & 31, out.next_queue, out.next_count);
    else ld_warp_append(fresh, v, out.next_queue, out.next_count);
    ld_warp_append(giant, v, out.next_giants, out.next_giant_count);
}

// A warp visits out-edges [start, end) of `source`, 32 a step (a larger vertex, a giant's slice).
template <int MULT, typename V, bool EAGER>
__device__ __forceinline__ void ld_push_warp_run(const int* __restrict__ indices, int source, i64 start, i64 end,
                                                 const ld_level_out<V>& out, u64& next_edges, int lane) {
    for (i64 base = start; base < end; base += 32) {
        const bool valid = base + lane < end;
        const int v = valid ? __ldg(indices + base + lane) : 0;
        ld_push_visit(out, valid, v, ld_multiply<MULT, V>(source, V(), 1, 1, 0), next_edges, EAGER);
    }
}

template <int MULT, typename V, bool EAGER>
__device__ void ld_push_level(const i64* __restrict__ indptr, const int* __restrict__ indices,
                              const int* __restrict__ frontier, i64 nf, const int* __restrict__ giants, i64 ngiants,
                              u64* work, const ld_level_out<V>& out, u64& next_edges,
                              int lane, i64 warp, i64 nwarps) {
    const u32 full = 0xffffffffu;
    // vertices a warp item: 32 when the frontier fills every warp 32 times over, fewer when it
    // is small, so that a small level's few edges spread over many warps (latency, not work);
    // a power of two, 1 << shift, so that the items' count is a shift, not a 64-bit division on
    // the head of every grid level
    int shift = 5;
    while (shift > 0 && (nwarps << shift) > nf) --shift;
    const int per = 1 << shift;
    const i64 items = (nf + per - 1) >> shift;
    for (u64 chunk = (u64)warp;; chunk = ld_next_item(work, nwarps, items, lane)) {
        if ((i64)chunk >= items) break;
        if (EAGER && shift == 0) {
            // one vertex an item (a thin level: fewer entries than warps): every lane reads the
            // entry and its row (one request each), so its edges need no scan, search or shuffle
            // on the level's chain; a giant's edges are the grid's (below). Eager levels only: the
            // two-block build, at the edge of its registers, keeps its code as it was
            const int u = __ldcg(frontier + chunk);
            const i64 start = __ldg(indptr + u), end = __ldg(indptr + u + 1);
            if (end - start <= LD_FUSED_PUSH_GIANT_DEGREE)
                ld_push_warp_run<MULT, V, EAGER>(indices, u, start, end, out, next_edges, lane);
            continue;
        }
        const i64 i = ((i64)chunk << shift) + lane;
        int u = 0;
        i64 start = 0, degree = 0;
        if (lane < per && i < nf) {
            u = __ldcg(frontier + i);
            start = __ldg(indptr + u);
            degree = __ldg(indptr + u + 1) - start;
        }
        const bool small = degree <= LD_SMALL_DEGREE;
        // the small entries' edges, flattened over the lanes
        const int mine = small ? (int)degree : 0;
        const int inclusive = ld_warp_inclusive_sum(mine);
        const int total = __shfl_sync(full, inclusive, 31);
        const int exclusive = inclusive - mine;
        for (int e0 = 0; e0 < total; e0 += 32) {
            const int e = e0 + lane;
            int owner = 0;                                  // lanes whose inclusive sum is <= e
            for (int step = 16; step > 0; step >>= 1) {
                const int probe = __shfl_sync(full, inclusive, owner + step - 1);
                if (probe <= e) owner += step;
            }
            owner &= 31;
            const int source = __shfl_sync(full, u, owner);
            const i64 source_start = __shfl_sync(full, start, owner);
            const int before = __shfl_sync(full, exclusive, owner);
            const bool valid = e < total;
            const int v = valid ? __ldg(indices + source_start + (e - before)) : 0;
            ld_push_visit(out, valid, v, ld_multiply<MULT, V>(source, V(), 1, 1, 0), next_edges, EAGER);
        }
        // larger entries, a warp each (giants are the grid's, below)
        u32 larger = __ballot_sync(full, !small && degree <= LD_FUSED_PUSH_GIANT_DEGREE);
        while (larger) {
            const int owner = __ffs(larger) - 1;
            larger &= larger - 1;
            const int source = __shfl_sync(full, u, owner);
            const i64 s = __shfl_sync(full, start, owner), end = s + __shfl_sync(full, degree, owner);
            ld_push_warp_run<MULT, V, EAGER>(indices, source, s, end, out, next_edges, lane);
        }
    }
    // giants: ld_giant_parts slices each, a warp a slice, all at once
    const i64 parts = ld_giant_parts(ngiants, nwarps);
    for (i64 k = warp; k < ngiants * parts; k += nwarps) {
        const int source = __ldcg(giants + k / parts);
        i64 s, end;
        ld_giant_slice(indptr, source, k % parts, parts, s, end);
        ld_push_warp_run<MULT, V, EAGER>(indices, source, s, end, out, next_edges, lane);
    }
}

// The entry of a shared frontier holding edge e: the last whose `offset` (out-edges of the
// entries before it) is at most e, `top` the largest power of two at most nf.
__device__ __forceinline__ int ld_edge_owner(const int* offset, int nf, int top, i64 e) {
    int at = 0;
    for (int step = top; step > 0; step >>= 1)
        if (at + step < nf && offset[at + step] <= e) at += step;
    return at;
}

// A grid push level of at most LD_FLAT_FRONTIER entries (a Kronecker search's second and third
// levels: a few to a few hundred vertices of hundreds to thousands of edges each) splits its
// edges evenly over the grid's warps instead of giving each vertex of up to
// LD_FUSED_PUSH_GIANT_DEGREE edges to one warp, which walked them 32 a step, a claim's few round
// trips each (Kronecker 22's second level, 6 entries and 29,000 edges: 100 us). Every block
// lists the entries in shared memory with their edges' offsets (a block scan); a warp takes a
// contiguous range of the flattened edges and finds each edge's entry by a search of the
// offsets. Giants need no pass of their own: their edges are in the ranges like any other. A
// flat level that is not eager gathers each warp's finds in its `stage` (ld_warp_stage), flushed
// as the level ends: Kronecker 20's third level (413 entries, 975,000 edges) made about 30,000
// appends on the next queue's one counter, a warp's step each, and took 70 us with them, 59
// staged (nvidia-h100-x1, 69b5184). Levels of more entries append a step at a time: staging
// there too cost the two-block build's registers more than it saved.
struct ld_flat_frontier {
    int vertex[LD_FLAT_FRONTIER];
    int offset[LD_FLAT_FRONTIER];     // out-edges of the entries before it
    i64 start[LD_FLAT_FRONTIER];      // its first out-edge
    i64 warp_edges[32];               // ld_block_exclusive_scan's warp totals
};

template <int MULT, typename V>
__device__ void ld_push_flat_level(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                   const int* __restrict__ frontier, int nf, const ld_level_out<V>& out,
                                   u64& next_edges, bool eager, ld_flat_frontier& flat, ld_flat_stage& stage,
                                   int lane, i64 warp, i64 nwarps) {
    // thread t holds entries t * LD_FLAT_ENTRIES_A_THREAD on (one in the plain build)
    int degrees[LD_FLAT_ENTRIES_A_THREAD], degree = 0;
    for (int j = 0; j < LD_FLAT_ENTRIES_A_THREAD; ++j) {
        const int i = threadIdx.x * LD_FLAT_ENTRIES_A_THREAD + j;
        degrees[j] = 0;
        if (i < nf) {
            const int u = __ldcg(frontier + i);
            const i64 start = __ldg(indptr + u);
            degrees[j] = (int)(__ldg(indptr + u + 1) - start);
            flat.vertex[i] = u;
            flat.start[i] = start;
        }
        degree += degrees[j];
    }
    i64 edges;
    i64 before = ld_block_exclusive_scan(degree, flat.warp_edges, edges);
    for (int j = 0; j < LD_FLAT_ENTRIES_A_THREAD; ++j) {
        const int i = threadIdx.x * LD_FLAT_ENTRIES_A_THREAD + j;
        if (i < nf) flat.offset[i] = (int)before;
        before += degrees[j];
    }
    __syncthreads();
    // warp w: edges [w * share, (w + 1) * share), share a multiple of a step's edges
    constexpr int step = 32;
    const i64 share = ((edges + nwarps - 1) / nwarps + step - 1) & ~(i64)(step - 1);
    const i64 first = warp * share, last = min(edges, first + share);
    const int top = 1 << (31 - __clz(max(nf, 1)));
    for (i64 base = first; base < last; base += step) {
        const i64 e = base + lane;
        const bool valid = e < last;
        int v = 0, source = 0;
        if (valid) {
            const int k = ld_edge_owner(flat.offset, nf, top, e);
            source = flat.vertex[k];
            v = __ldg(indices + flat.start[k] + (e - flat.offset[k]));
        }
        ld_push_visit<V, true>(out, valid, v, ld_multiply<MULT, V>(source, V(), 1, 1, 0), next_edges, eager, &stage);
    }
    if (!eager) stage.flush(lane, out.next_queue, out.next_count);
}

// The in-edges a lane scans of its row alone before the warp takes the rest of it. pull.cu's long
// rows (LD_LONG_ROW_THRESHOLD) are a warp's from their start, one after another while its other
// lanes wait; with the cooperative kernel's quarter of the GPU's warps that cost more than the
// lanes' own scans, which mostly stop at an early frontier in-neighbour (one H100, levels' own:
// Kronecker 22 0.37 -> 0.35 ms, Kronecker 26 5.12 -> 4.72 ms with every row a lane's;
// docs/notes/gpu-single-search.md). A row past this many that found none in them is one no lane
// should walk alone: an unreachable hub's thousands of in-edges, read again on every pull level.
// A probe build may set another (4096, the giant degree: every row a lane's).
#ifndef LD_FUSED_LANE_EDGES
#define LD_FUSED_LANE_EDGES 128
#endif

// A pull group's closed words are read a lane a word (ld_pull_level says why).
static_assert(LD_ROW_GROUP <= 32, "a pull group's closed words are read a lane a word");

// A pull warp whose group had no open row fetches its next LD_PULL_EMPTY_RUN groups with one
// atomic; a group with an open row is followed by one group a fetch. A late pull level's groups are
// mostly closed, and its time went to one atomic a group on the level's one counter. At 4, one H100
// (183de5f): Kronecker 24's levels 0.912 -> 0.883 ms, its fifth level 72 -> 47 us; Kronecker 22
// level. 16-word groups gave the same fifth level but coarsened Kronecker 20's busy levels, and two
// groups a fetch at every group the busy levels' ends; runs follow only empty groups, which cost a
// load each, so the busy levels keep their balance. The fetch is ld_next_in_runs (fused_base.cuh).
#ifndef LD_PULL_EMPTY_RUN
#define LD_PULL_EMPTY_RUN 4
#endif

// The rows of phase one's pass, a lane's row r where `open`: its offsets, then its first
// LD_FUSED_LANE_EDGES in-edges by the lane, the rest by the warp; a giant row is queued for phase
// two. Whether the row found a frontier in-neighbour (its parent and records written), and in
// `giant_found` whether it is a push giant of the next level.
template <int MULT, typename V>
__device__ __forceinline__ bool ld_pull_pass(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                             const u32* __restrict__ frontier_bits, int* __restrict__ giant_rows,
                                             u64* giant_row_count, const ld_level_out<V>& out, bool open, i64 r,
                                             u64& found, u64& next_edges, u64& examined, bool& giant_found,
                                             int lane) {
    const u32 full = 0xffffffffu;
    i64 start = 0, end = 0;
    if (open) { start = __ldg(indptr + r); end = __ldg(indptr + r + 1); }
    const bool giant = open && end - start > LD_FUSED_GIANT_DEGREE;
    ld_warp_append(giant, (int)r, giant_rows, giant_row_count);
    bool hit = false;
    V value = V();
    const i64 lane_end = end - start > LD_FUSED_LANE_EDGES ? start + LD_FUSED_LANE_EDGES : end;
    if (open && !giant)
        hit = ld_pull_short_row<MULT, LD_ADD_ANY, V, true>(indices, start, lane_end, frontier_bits,
                                                           (const V*)nullptr, examined, value, 1, 1, 0);
    u32 longer = __ballot_sync(full, open && !giant && !hit && end > lane_end);
    while (longer) {                                 // the rest a warp at a time, 32 in-edges a step
        const int owner = __ffs(longer) - 1;
        longer &= longer - 1;
        const i64 s = __shfl_sync(full, lane_end, owner), t = __shfl_sync(full, end, owner);
        V row_value = V();
        if (ld_pull_warp_row<MULT, LD_ADD_ANY, V, true, 1>(indices, s, t, frontier_bits, (const V*)nullptr,
                                                           lane, examined, row_value, 1, 1, 0)
            && lane == owner) { hit = true; value = row_value; }
    }
    giant_found = false;
    if (hit) {
        out.parents[r] = value;
        const i64 degree = ld_record_found(out, (int)r, true);
        next_edges += (u64)degree;
        giant_found = degree > LD_FUSED_PUSH_GIANT_DEGREE;
        ++found;
    }
    return hit;
}

// A word's rows found by the warp that owns it: its visited bits, the next frontier's and the
// depth's (one lane writes them).
template <typename V>
__device__ __forceinline__ void ld_pull_word_found(const ld_level_out<V>& out, i64 w, u32 bits) {
    atomicOr(out.words + w, bits);
    out.next_bits[w] = bits;
    if (out.depth_words) atomicOr(out.depth_words + w, bits);
}

// The place of the k-th (from 0) set bit of mask, k below its count: five halvings by count.
__device__ __forceinline__ int ld_nth_set_bit(u32 mask, int k) {
    int place = 0;
#pragma unroll
    for (int width = 16; width > 0; width >>= 1) {
        const int below = __popc(mask & ((1u << width) - 1u));
        if (k >= below) { k -= below; place += width; mask >>= width; }
    }
    return place;
}

// Pull, phase one: rows of at most LD_FUSED_GIANT_DEGREE in-edges, a lane a row (four in-edges in
// flight) for its first LD_FUSED_LANE_EDGES, the warp a row for the rest of a row that found no
// frontier in-neighbour in them; longer unvisited rows are queued in `giant_rows` for phase two.
// Rows without in-edges (`empty_rows`, made once per matrix) are closed like visited ones: a
// Kronecker graph's isolated vertices, a third or more of them, would otherwise be read (their
// indptr) and skipped again on every pull level. A warp takes a group of LD_ROW_GROUP words and
// packs the group's open rows into its lanes, 32 a pass in row order: each pass is one chain of
// dependent loads (offsets, in-edges, frontier words), so a group costs a chain per 32 open rows,
// not a chain per word with an open row (Kronecker 22's fourth level keeps four open rows a word;
// packed, 2-8% of Kronecker 22-24's levels on an H100 at 20035e1). The group's closed words are
// read at its start, a lane a word, in one load; the warp alone writes its words' visited bits in
// phase one, once a word at the group's end, so the early read sees what a later one would.
template <int MULT, typename V>
__device__ void ld_pull_level(const i64* __restrict__ indptr, const int* __restrict__ indices, i64 n,
                              const u32* __restrict__ empty_rows, const u32* __restrict__ frontier_bits, u64* work,
                              int* __restrict__ giant_rows, u64* giant_row_count,
                              const ld_level_out<V>& out, u64& found, u64& next_edges, u64& examined, int lane,
                              i64 warp, i64 nwarps) {
    const u32 full = 0xffffffffu;
    const i64 nwords = (n + 31) >> 5;
    const i64 groups = (nwords + LD_ROW_GROUP - 1) / LD_ROW_GROUP;
    int left = 0, run = 1;                           // the warp's run: groups left in it, its length
    for (u64 group = (u64)warp;; group = ld_next_in_runs(group, left, run, work, nwarps, groups, lane)) {
        if ((i64)group >= groups) break;
        const i64 first_word = (i64)group * LD_ROW_GROUP;
        const i64 lane_word = first_word + lane;
        const u32 lane_closed = lane < LD_ROW_GROUP && lane_word < nwords
                                    ? ld_load_word(out.words + lane_word) | __ldg(empty_rows + lane_word) : full;
        // lane j < LD_ROW_GROUP: word j of the group's open rows, and how many open rows words 0 to j hold
        const i64 word_rows = n - lane_word * 32;
        const u32 lane_open = ~lane_closed & (word_rows >= 32 ? full : word_rows > 0 ? (1u << word_rows) - 1u : 0u);
        const int lane_open_rows = __popc(lane_open);
        const int through = ld_warp_inclusive_sum(lane_open_rows);
        const int total = __shfl_sync(full, through, LD_ROW_GROUP - 1);
        u32 lane_found = 0;                          // lane j: word j's rows found
        for (int pass = 0; pass < total; pass += 32) {
            const int index = pass + lane;           // this lane's row: the group's index-th open one
            int j = 0;                               // in word j (LD_ROW_GROUP past the last row)
#pragma unroll
            for (int k = 0; k < LD_ROW_GROUP; ++k) j += __shfl_sync(full, through, k) <= index;
            const int before = __shfl_sync(full, through - lane_open_rows, j);
            const u32 word_open = __shfl_sync(full, lane_open, j);
            const bool open = index < total;
            const i64 r = (first_word + j) * 32 + (open ? ld_nth_set_bit(word_open, index - before) : 0);
            bool giant_found;
            const bool hit = ld_pull_pass<MULT, V>(indptr, indices, frontier_bits, giant_rows, giant_row_count, out,
                                                   open, r, found, next_edges, examined, giant_found, lane);
            const u32 bit = hit ? 1u << (r & 31) : 0u;
#pragma unroll
            for (int k = 0; k < LD_ROW_GROUP; ++k) {
                const u32 bits = ld_warp_or(j == k ? bit : 0u);
                if (lane == k) lane_found |= bits;
            }
            ld_warp_append(giant_found, (int)r, out.next_giants, out.next_giant_count);
        }
        if (lane_found) ld_pull_word_found(out, lane_word, lane_found);      // the warp owns these words
        run = total == 0 ? LD_PULL_EMPTY_RUN : 1;
    }
}

// Pull, phase two: the queued giant rows in slices, a warp a slice; a hit claims the row's bit.
template <int MULT, typename V>
__device__ void ld_pull_giant_rows(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                   const u32* __restrict__ frontier_bits, const int* __restrict__ giant_rows,
                                   i64 count, const ld_level_out<V>& out, u64& found, u64& next_edges,
                                   u64& examined, int lane, i64 warp, i64 nwarps) {
    const u32 full = 0xffffffffu;
    const i64 parts = ld_giant_parts(count, nwarps);
    for (i64 k = warp; k < count * parts; k += nwarps) {     // a warp a slice of a row
        const int r = __ldcg(giant_rows + k / parts);
        i64 s, t;
        ld_giant_slice(indptr, r, k % parts, parts, s, t);
        const u32 bit = 1u << (r & 31);
        for (i64 base = s; base < t; base += 32) {
            u32 seen = 0;
            if (lane == 0) seen = *(volatile u32*)(out.words + (r >> 5));
            if (__shfl_sync(full, seen, 0) & bit) break;                  // found by another warp
            const int c = base + lane < t ? __ldg(indices + base + lane) : -1;
            const u32 hits = ld_pull_warp_hits<true>(frontier_bits, c, base, t, lane, examined);
            if (!hits) continue;
            const int first = __shfl_sync(full, c, __ffs(hits) - 1);
            if (lane == 0 && !(atomicOr(out.words + (r >> 5), bit) & bit)) {
                out.parents[r] = ld_multiply<MULT, V>(first, V(), 1, 1, 0);
                const i64 degree = ld_record_found(out, r, false);
                next_edges += (u64)degree;
                ++found;
                if (degree > LD_FUSED_PUSH_GIANT_DEGREE) out.next_giants[atomicAdd(out.next_giant_count, 1ull)] = r;
            }
            break;
        }
    }
}

// The ids of bitmap `bits` appended to `queue` (a pull's frontier, before a push reads it).
__device__ void ld_compact(const u32* __restrict__ bits, i64 nwords, int* __restrict__ queue, u64* count,
                           int lane, i64 warp, i64 nwarps) {
    for (i64 base = warp * 32; base < nwords; base += nwarps * 32) {
        const i64 w = base + lane;
        u32 word = w < nwords ? ld_load_word(bits + w) : 0u;
        while (__any_sync(0xffffffffu, word != 0)) {
            const bool want = word != 0;
            const int id = want ? (int)(w * 32 + __ffs(word) - 1) : 0;
            ld_warp_append(want, id, queue, count);
            word &= word - 1;
        }
    }
}
