// A whole search on one GPU: one persistent cooperative kernel runs BFS level after level, push
// or pull as Beamer's rule says, with a grid-wide barrier between levels (simd-x, section 5:
// push-pull fusion in one kernel, the grid barrier) instead of a return to Python. It is the GPU
// backend's implementation of the composite lagraph_dist.ops.repeat_masked_vxm, repeated until
// a stop condition:
//     q<!visited.S, replace> = q' A        (semiring any_pair or any_secondi)
//     visited<q.S> = q                     (visited values: true, or the parent's id)
//     depths<q.S> = depth                  (when depths are kept: values and bits)
//     depth += 1
// The product is computed top-down (push: the frontier's out-edges) or bottom-up (pull: each
// unvisited vertex's in-edges, stopping at its first frontier in-neighbour), the choice made
// on the device by the rule of lagraph_dist/direction.py (DirectionRule.choose) from counters
// the levels write. Both directions update visited in place (Bisson et al.): a push claims a
// neighbour's bit with atomicOr, so the claimant alone writes its parent and depth; a pull
// warp owns the 32 rows of a word. No product output or separate assign exists.
//
// Frontier representations rotate over three slots (level L reads slot L%3, writes (L+1)%3
// and clears (L+2)%3, level L-1's input), so that one barrier a level suffices:
//   queue  Q[s]: ids (push levels write it; a push after a pull compacts the bitmap first),
//   bitmap F[s]: bits (a pull writes and reads them; a push writes none, and a pull after a push
//   sets its frontier's bits from the queue first, so that thin push levels neither set bits
//   nor clear them),
//   giants G[s]: its vertices of more than LD_FUSED_PUSH_GIANT_DEGREE out-edges (sliced over the
//   warps),
//   and counters (count, out-edges, giants, work, giant rows, examined, fill) per slot.
// Work inside a level: push warps fetch up to 32 frontier entries at a time; the edges of those of
// at most LD_SMALL_DEGREE are flattened over the warp's lanes (a warp scan and a shuffle
// search find each edge's source), larger ones are read a warp at a time, giants by the whole
// grid (ld_giant_parts slices each, a warp a slice, all giants at once); a push level of at most
// LD_FLAT_FRONTIER entries instead splits all its edges evenly over the grid's warps
// (ld_push_flat_level: no warp walks a vertex's hundreds of edges alone). Pull warps fetch
// LD_ROW_GROUP words of rows; a lane scans a row of at most LD_LONG_ROW_THRESHOLD in-edges
// alone, the warp scans longer ones 32 at a time, and rows of more than LD_FUSED_GIANT_DEGREE
// in-edges wait for a second phase that slices them the same way.
// Small push levels run inside block 0 alone (ld_block_levels, below): block barriers only, the
// frontier in shared memory (and, where the launch gives it n / 8 bytes, a copy of the visited
// words to claim in), while the other blocks wait; levels of at most LD_WARP_EDGES edges run in
// its warp 0 alone (ld_warp_levels), warp-synchronous. The grid takes the search back
// when a level's output grows past one block's share or the rule turns to pull.
// Data written inside the kernel is read with __ldcg or volatile (never the read-only cache),
// but for the visited bits' probe of ld_push_claim (a set bit is final).
//
// Steps shared with the one-product kernels (a fix lands in both): push_steps.cuh's
// ld_push_claim (the read-only-cache probe and atomicOr claim of an out-neighbour, as in
// push.cu) under ld_push_visit; pull_steps.cuh's ld_pull_short_row (a lane a row, four in-edges
// in flight) and ld_pull_warp_row (a warp a row with ballot and early exit, one load a step
// here) as in pull.cu, and ld_pull_warp_hits for the giant rows' slices, all reading the
// frontier bitmap with __ldcg (COHERENT true); common.cuh's ld_giant_slice for giant vertices
// and rows. The block (LD_FUSED_THREADS), the giant degree, the status and record layout, the
// stop reasons and the rule's modes come from lagraph_dist/local/layout.py.
#include <cooperative_groups.h>
#include "common.cuh"
#include "push_steps.cuh"
#include "pull_steps.cuh"

namespace cg = cooperative_groups;

#define LD_SMALL_DEGREE 32
#define LD_ROW_GROUP 8

// per-slot counters: slots[what * 3 + slot]
#define LD_SLOT_COUNT 0
#define LD_SLOT_EDGES 1
#define LD_SLOT_GIANTS 2
#define LD_SLOT_WORK 3
#define LD_SLOT_GIANT_ROWS 4
#define LD_SLOT_EXAMINED 5
#define LD_SLOT_FILL 6
#define LD_SLOT_TARGET 21          // one word: the target was found
static_assert(LD_SLOT_TARGET < LD_FUSED_NSLOTS, "the slots buffer holds LD_FUSED_NSLOTS words");

// From lagraph_dist/local/layout.py: status[] written at exit (i64), LD_STATUS_LEVELS, LD_STATUS_SLOT (the slot
// holding the last frontier; its queue is valid), LD_STATUS_FRONTIER, LD_STATUS_EDGES,
// LD_STATUS_REASON (an LD_STOP_*), LD_STATUS_PUSH, LD_STATUS_PREVIOUS, LD_STATUS_UNEXPLORED (the
// rule's state after the run), LD_STATUS_STARTED (%globaltimer (ns) when the first level
// began), LD_STATUS_CLUSTER_LEVELS and LD_STATUS_CLUSTER_SPILLS (levels run inside the first
// thread block cluster, and those whose output overfilled an inbox); then LD_FUSED_RECORD words
// a level: LD_RECORD_FRONTIER, LD_RECORD_DISCOVERED, LD_RECORD_EXAMINED, LD_RECORD_PUSH (1 push /
// 0 pull), LD_RECORD_END_NS (%globaltimer at its end).

// lagraph_dist.direction.DirectionRule.choose, evaluated by every thread on the same inputs
struct ld_rule {
    int mode;
    double alpha, beta, n;
    long long push, previous, unexplored;

    __device__ bool choose(long long nf, long long edges) {
        if (mode != LD_RULE_AUTO) return mode == LD_RULE_PUSH;
        if (previous == 0) { previous = nf; return push; }
        const bool growing = nf > previous;
        if (push && growing) {
            unexplored -= edges;
            if ((double)edges > (double)unexplored / alpha) push = 0;
        } else if (!push && !growing && (double)nf < n / beta) {
            push = 1;
        }
        previous = nf;
        return push;
    }
};

// Where a level's time goes (benchmarks/fused_trace.py builds this file with -DLD_FUSED_TRACE):
// block 0's thread 0 adds the clock64 cycles since its previous mark to ld_trace[mark] and
// counts the mark in ld_trace[LD_TRACE_MARKS + mark]. ld_trace_use makes a value's load finish
// before the next mark (a volatile instruction that reads it). Without the define the marks are
// no code at all.
#ifdef LD_FUSED_TRACE
#define LD_TRACE_MARKS 32
__device__ unsigned long long ld_trace[2 * LD_TRACE_MARKS + 1];     // the last word: the uses' sink
struct ld_tracer {
    long long last;
    unsigned sink;
    __device__ ld_tracer() : last(0), sink(0) {}
    __device__ __forceinline__ bool mine() const { return blockIdx.x == 0 && threadIdx.x == 0; }
    __device__ __forceinline__ void start() { if (mine()) last = clock64(); }
    __device__ __forceinline__ void mark(int k) {
        if (!mine()) return;
        const long long now = clock64();
        ld_trace[k] += (unsigned long long)(now - last);
        ld_trace[LD_TRACE_MARKS + k] += 1ull;
        last = clock64();
    }
    template <typename T> __device__ __forceinline__ void use(T x) {
        const unsigned low = (unsigned)(unsigned long long)x;
        asm volatile("xor.b32 %0, %0, %1;" : "+r"(sink) : "r"(low));
    }
    __device__ __forceinline__ void finish() { if (mine()) ld_trace[2 * LD_TRACE_MARKS] ^= sink; }
};
#define LD_TRACE_START(t) (t).start()
#define LD_TRACE_MARK(t, k) (t).mark(k)
#define LD_TRACE_USE(t, x) (t).use(x)
#define LD_TRACE_FINISH(t) (t).finish()
#else
struct ld_tracer {};
#define LD_TRACE_START(t) ((void)(t))
#define LD_TRACE_MARK(t, k) ((void)0)
#define LD_TRACE_USE(t, x) ((void)0)
#define LD_TRACE_FINISH(t) ((void)0)
#endif

// Every warp's clocks of every grid level (benchmarks/warp_clocks.py builds this file with
// -DLD_WARP_CLOCKS): lane 0 of each warp writes, for grid level L < ld_warp_clock_levels of a
// run, at ld_warp_clocks[(L * nwarps + warp) * LD_WARP_CLOCK_ROW]: six clock64 readings of its
// own SM (the exit of the barrier before the level, the counters known, the level set up, the
// end of its work, the end of its block's count, the exit of the level's barrier), then
// %globaltimer at the first and at the end of its work (one clock for the grid, 32 ns steps on
// an H100). A reading right after a barrier is the warp's
// arrival there (the barrier instruction defers its wait to a later one): only the warp that
// arrives last, the block's master, reads the release. The level count and the rows' address
// are read once before the levels (a load of them after every barrier slowed the clocked
// mesh's levels by 0.3 ms). Without the define the clocks are no code at all.
#ifdef LD_WARP_CLOCKS
#define LD_WARP_CLOCK_ROW 8
__device__ unsigned long long* ld_warp_clocks;
__device__ long long ld_warp_clock_levels;
// (read with a memory clobber: the compiler keeps them where they stand among the loads,
// stores and atomics around them)
__device__ __forceinline__ unsigned long long ld_clock_here() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}
__device__ __forceinline__ unsigned long long ld_ns_here() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory");
    return t;
}
#define LD_WARP_CLOCKS_START                                                                         \
    unsigned long long clock_start = ld_clock_here(), clock_known = 0, clock_set = 0, clock_work = 0,          \
        clock_count = 0, ns_start = ld_ns_here(), ns_work = 0;                                       \
    const long long clock_levels = ld_warp_clock_levels;    /* read once: no load after a barrier */ \
    unsigned long long* const clock_rows = ld_warp_clocks
#define LD_WARP_CLOCK(name) (name = ld_clock_here())
#define LD_WARP_CLOCK_WORK() (clock_work = ld_clock_here(), ns_work = ld_ns_here())
#define LD_WARP_CLOCK_RESTART() (clock_start = ld_clock_here(), ns_start = ld_ns_here())
#define LD_WARP_CLOCKS_EXIT(level) do {                                                              \
        const unsigned long long clock_exit = ld_clock_here(), ns_exit = ld_ns_here();              \
        if (lane == 0 && (level) < clock_levels) {                                                   \
            unsigned long long* row = clock_rows + ((level) * nwarps + warp) * LD_WARP_CLOCK_ROW;    \
            row[0] = clock_start; row[1] = clock_known; row[2] = clock_set; row[3] = clock_work;     \
            row[4] = clock_count; row[5] = clock_exit; row[6] = ns_start; row[7] = ns_work;          \
        }                                                                                            \
        clock_start = clock_exit;                                                                    \
        ns_start = ns_exit;                                                                          \
    } while (0)
#else
#define LD_WARP_CLOCKS_START ((void)0)
#define LD_WARP_CLOCK(name) ((void)0)
#define LD_WARP_CLOCK_WORK() ((void)0)
#define LD_WARP_CLOCK_RESTART() ((void)0)
#define LD_WARP_CLOCKS_EXIT(level) ((void)0)
#endif
// the marks: block levels (B_*), grid levels (G_*), hand-overs (H_*)
#define LD_B_SEARCH 0
#define LD_B_CLAIM 1
#define LD_B_APPEND 2
#define LD_B_BARRIER 3
#define LD_B_RECORD 4
#define LD_B_WARP 5
#define LD_W_LOAD 19
#define LD_W_CLAIM 20
#define LD_W_FOUND 21
#define LD_W_SCAN 22
#define LD_W_NEXT 23
#define LD_G_HEAD 8
#define LD_G_CLEAR 9
#define LD_G_WORK 10
#define LD_G_COUNT 11
#define LD_G_BARRIER 12
#define LD_G_RECORD 13
#define LD_H_BLOCK 16
#define LD_H_BARRIER 17
#define LD_C_ENTRY 24
#define LD_C_LOAD 25
#define LD_C_CLAIM 26
#define LD_C_FOUND 27
#define LD_C_SUM 28
#define LD_C_BARRIER 29
#define LD_C_TOTAL 30
#define LD_C_NEXT 31

// Everything a level writes for the vertices it finds.
template <typename V>
struct ld_level_out {
    u32* words; V* parents; long long* depths; u32* depth_words; long long depth;
    const i64* out_indptr;
    u32* next_bits; int* next_queue; u64* next_count; int* next_giants; u64* next_giant_count;
    int target; u64* target_hit;
    u32* cache;                    // block 0's shared copy of `words`, where its levels claim, or null
};

// The visited words a level claims in: block 0's shared copy where it keeps one (its levels then
// claim at shared-memory latency, and the copy goes back to `words` when they hand the search
// back), else `words`.
template <typename V>
__device__ __forceinline__ u32* ld_claim_words(const ld_level_out<V>& out) { return out.cache ? out.cache : out.words; }

__device__ __forceinline__ u32 ld_load_word(const u32* p) { return __ldcg(p); }

// A level's record (the grid's, a block's and a warp's levels write it the same way).
__device__ __forceinline__ void ld_write_record(u64* records, i64 level, i64 frontier, i64 discovered, i64 examined,
                                                bool push, u64 end_ns) {
    u64* record = records + LD_FUSED_RECORD * level;
    record[LD_RECORD_FRONTIER] = (u64)frontier;
    record[LD_RECORD_DISCOVERED] = (u64)discovered;
    record[LD_RECORD_EXAMINED] = (u64)examined;
    record[LD_RECORD_PUSH] = push ? 1ull : 0ull;
    record[LD_RECORD_END_NS] = end_ns;
}

// Why the search stops after a level that found `found` vertices (the target among them when
// `hit`), or -1 to go on: the one stop rule of grid, block and warp levels and, read at the
// start of the run after it, of a tile push level.
__device__ __forceinline__ long long ld_stop_after(i64 found, bool hit, i64 max_frontier) {
    if (found == 0) return LD_STOP_EMPTY;
    if (hit) return LD_STOP_TARGET;
    if (found > max_frontier) return LD_STOP_TOO_BIG;
    return -1;
}

// Work items of a level: warp w takes item w first, then the next free one past the first
// round (one atomic a fetch, and none from warps that have no first item). When the first round
// covers every item (`items` at most nwarps), no warp fetches: a thousand warps' atomics on one
// counter would serialise at its L2 slice in exactly the small levels that are latency.
__device__ __forceinline__ u64 ld_next_item(u64* work, i64 nwarps, i64 items, int lane) {
    if (items <= nwarps) return ~0ull >> 1;
    u64 item = 0;
    if (lane == 0) item = atomicAdd(work, 1ull) + (u64)nwarps;
    return __shfl_sync(0xffffffffu, item, 0);
}

// Counters every thread needs after a grid barrier, read once a block: thread k < N reads
// slots[index[k]] into shared memory, every thread takes the N values from there. All threads
// of the grid reading the same few words would queue thousands of requests at one L2 slice
// (the trace of a 1000 x 1000 mesh level: 3,600 cycles of a level's head went there).
template <int N>
__device__ __forceinline__ void ld_read_slots(const u64* slots, const int (&index)[N], u64 (&value)[N]) {
    __shared__ u64 seen[N];
    __syncthreads();                 // the previous call's values are read by every thread
    if (threadIdx.x < N) seen[threadIdx.x] = *(volatile const u64*)(slots + index[threadIdx.x]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < N; ++k) value[k] = seen[k];
}

// After v's bit was claimed for this level: its depth and its frontier bit (push levels keep
// no frontier bits: next_bits is null there).
template <typename V>
__device__ __forceinline__ void ld_mark_found(const ld_level_out<V>& out, int v, bool word_owned) {
    const u32 bit = 1u << (v & 31);
    if (out.depths) ld_set_depth(out.depths, out.depth_words, v, out.depth, !word_owned && out.depth_words);
    if (out.next_bits && !word_owned) atomicOr(out.next_bits + (v >> 5), bit);
    if (v == out.target) atomicOr(out.target_hit, 1ull);
}

// ld_mark_found, then v's out-edges.
template <typename V>
__device__ __forceinline__ i64 ld_record_found(const ld_level_out<V>& out, int v, bool word_owned) {
    ld_mark_found(out, v, word_owned);
    return __ldg(out.out_indptr + v + 1) - __ldg(out.out_indptr + v);
}

// Both eager claims' bit: set with one atomic, v found here when it was off in the word before
// (and the lane's v is real: `ok`).
__device__ __forceinline__ u32 ld_claim_bit(u32* words, int v) { return atomicOr(words + (v >> 5), 1u << (v & 31)); }
__device__ __forceinline__ bool ld_claimed_here(u32 before, bool ok, int v) { return ok && !((before >> (v & 31)) & 1u); }

// A claim of v with the atomic alone and v's out-edges [start, end) read beside it, all issued
// before any is used (small levels: their time is this chain, not the traffic): the block's, the
// warp's and an eager grid level's claim.
struct ld_eager_claim {
    i64 start = 0, end = 0;
    u32 before = ~0u;
    __device__ __forceinline__ void issue(const i64* __restrict__ indptr, u32* words, int v) {
        start = __ldg(indptr + v);
        end = __ldg(indptr + v + 1);
        before = ld_claim_bit(words, v);
    }
    __device__ __forceinline__ bool fresh(bool ok, int v) const { return ld_claimed_here(before, ok, v); }
    __device__ __forceinline__ i64 degree() const { return end - start; }
};

// A thin graph's row (at most LD_FUSED_THIN_ROW out-edges) as one word, start <<
// LD_THIN_ROW_DEGREE_BITS | degree: the launch's `thin_rows` (fused.py's _thin_rows, made once
// per matrix), so that a claim reads the found vertex's row with one load where indptr takes two.
// The thin levels' memory instructions are their cost: the second load cost a cluster level of
// 513-1,024 mesh entries 0.16 us of 3.67 (nvidia-h200). A cluster inbox entry carries the word.
static_assert(LD_FUSED_THIN_ROW < (1 << LD_THIN_ROW_DEGREE_BITS), "a thin row's degree fits its word's low bits");
__device__ __forceinline__ i64 ld_thin_start(u64 row) { return (i64)(row >> LD_THIN_ROW_DEGREE_BITS); }
__device__ __forceinline__ int ld_thin_degree(u64 row) { return (int)(row & ((1u << LD_THIN_ROW_DEGREE_BITS) - 1u)); }

// ld_eager_claim on a thin graph: the row's word read beside the atomic.
struct ld_thin_claim {
    u64 row = 0;
    u32 before = ~0u;
    __device__ __forceinline__ void issue(const u64* __restrict__ thin_rows, u32* words, int v) {
        row = __ldg(thin_rows + v);
        before = ld_claim_bit(words, v);
    }
    __device__ __forceinline__ bool fresh(bool ok, int v) const { return ld_claimed_here(before, ok, v); }
    __device__ __forceinline__ i64 start() const { return ld_thin_start(row); }
    __device__ __forceinline__ int degree() const { return ld_thin_degree(row); }
};

// A grid push level of at most this many frontier edges claims eagerly (ld_push_visit), in the
// one-block-an-SM build: its time is its latency chain, not the atomics' or the loads' traffic.
#define LD_EAGER_EDGES 65536

// Push: claim v for parent value `value`; every lane of the warp calls it. Bits only turn on
// during a search, so on a big level ld_push_claim's probes (the read-only cache, then a
// coherent read) skip most repeats before the atomic, and the claimant alone reads v's degree.
// An `eager` (small) level claims with the atomic alone and reads the degree beside it: the
// probes and the read after the claim would be three more round trips on the level's chain.
template <typename V>
__device__ __forceinline__ void ld_push_visit(const ld_level_out<V>& out, bool valid, int v, V value,
                                              u64& next_edges, bool eager) {
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
    ld_warp_append(fresh, v, out.next_queue, out.next_count);
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
// offsets. Giants need no pass of their own: their edges are in the ranges like any other.
#define LD_FLAT_FRONTIER LD_FUSED_THREADS
static_assert(LD_FLAT_FRONTIER <= LD_FUSED_THREADS, "a flat frontier holds an entry a thread");

struct ld_flat_frontier {
    int vertex[LD_FLAT_FRONTIER];
    int offset[LD_FLAT_FRONTIER];     // out-edges of the entries before it
    i64 start[LD_FLAT_FRONTIER];      // its first out-edge
    i64 warp_edges[32];               // ld_block_exclusive_scan's warp totals
};

template <int MULT, typename V>
__device__ void ld_push_flat_level(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                   const int* __restrict__ frontier, int nf, const ld_level_out<V>& out,
                                   u64& next_edges, bool eager, ld_flat_frontier& flat, int lane, i64 warp,
                                   i64 nwarps) {
    const int i = threadIdx.x;        // this thread's entry (blockDim.x >= LD_FLAT_FRONTIER)
    int degree = 0;
    if (i < nf) {
        const int u = __ldcg(frontier + i);
        const i64 start = __ldg(indptr + u);
        degree = (int)(__ldg(indptr + u + 1) - start);
        flat.vertex[i] = u;
        flat.start[i] = start;
    }
    i64 edges;
    const i64 before = ld_block_exclusive_scan(degree, flat.warp_edges, edges);
    if (i < nf) flat.offset[i] = (int)before;
    __syncthreads();
    // warp w: edges [w * share, (w + 1) * share), share a multiple of 32 (whole steps)
    const i64 share = ((edges + nwarps - 1) / nwarps + 31) & ~(i64)31;
    const i64 first = warp * share, last = min(edges, first + share);
    const int top = 1 << (31 - __clz(max(nf, 1)));
    for (i64 base = first; base < last; base += 32) {
        const i64 e = base + lane;
        const bool valid = e < last;
        int v = 0, source = 0;
        if (valid) {
            const int k = ld_edge_owner(flat.offset, nf, top, e);
            source = flat.vertex[k];
            v = __ldg(indices + flat.start[k] + (e - flat.offset[k]));
        }
        ld_push_visit(out, valid, v, ld_multiply<MULT, V>(source, V(), 1, 1, 0), next_edges, eager);
    }
}

// Pull, phase one: rows of at most LD_FUSED_GIANT_DEGREE in-edges; longer unvisited rows are
// queued in `giant_rows` for phase two. Rows without in-edges (`empty_rows`, made once per
// matrix) are closed like visited ones: a Kronecker graph's isolated vertices, a third or more
// of them, would otherwise be read (their indptr) and skipped again on every pull level.
template <int MULT, typename V>
__device__ void ld_pull_level(const i64* __restrict__ indptr, const int* __restrict__ indices, i64 n,
                              const u32* __restrict__ empty_rows, const u32* __restrict__ frontier_bits, u64* work,
                              int* __restrict__ giant_rows, u64* giant_row_count,
                              const ld_level_out<V>& out, u64& found, u64& next_edges, u64& examined, int lane,
                              i64 warp, i64 nwarps) {
    const u32 full = 0xffffffffu;
    const i64 nwords = (n + 31) >> 5;
    const i64 groups = (nwords + LD_ROW_GROUP - 1) / LD_ROW_GROUP;
    for (u64 group = (u64)warp;; group = ld_next_item(work, nwarps, groups, lane)) {
        if ((i64)group >= groups) break;
        const i64 first_word = (i64)group * LD_ROW_GROUP;
        for (i64 w = first_word; w < first_word + LD_ROW_GROUP && w < nwords; ++w) {
            const u32 closed = ld_load_word(out.words + w) | __ldg(empty_rows + w);
            if (closed == full) continue;
            const i64 r = w * 32 + lane;
            bool open = r < n && !((closed >> lane) & 1u);
            i64 start = 0, end = 0;
            if (open) { start = __ldg(indptr + r); end = __ldg(indptr + r + 1); }
            const bool giant = open && end - start > LD_FUSED_GIANT_DEGREE;
            ld_warp_append(giant, (int)r, giant_rows, giant_row_count);
            bool hit = false;
            V value = V();
            if (open && !giant && end - start <= LD_LONG_ROW_THRESHOLD)     // a lane a row
                hit = ld_pull_short_row<MULT, LD_ADD_ANY, V, true>(indices, start, end, frontier_bits,
                                                                   (const V*)nullptr, examined, value, 1, 1, 0);
            u32 longer = __ballot_sync(full, open && !giant && end - start > LD_LONG_ROW_THRESHOLD);
            while (longer) {                                 // a warp a row, 32 in-edges a step
                const int owner = __ffs(longer) - 1;
                longer &= longer - 1;
                const i64 s = __shfl_sync(full, start, owner), t = __shfl_sync(full, end, owner);
                V row_value = V();
                if (ld_pull_warp_row<MULT, LD_ADD_ANY, V, true, 1>(indices, s, t, frontier_bits, (const V*)nullptr,
                                                                   lane, examined, row_value, 1, 1, 0)
                    && lane == owner) { hit = true; value = row_value; }
            }
            const u32 bits = __ballot_sync(full, hit);
            bool giant_found = false;
            if (hit) {
                out.parents[r] = value;
                const i64 degree = ld_record_found(out, (int)r, true);
                next_edges += (u64)degree;
                giant_found = degree > LD_FUSED_PUSH_GIANT_DEGREE;
                ++found;
            }
            if (bits && lane == 0) {                         // the warp owns these words
                atomicOr(out.words + w, bits);
                out.next_bits[w] = bits;
                if (out.depth_words) atomicOr(out.depth_words + w, bits);
            }
            ld_warp_append(giant_found, (int)r, out.next_giants, out.next_giant_count);
        }
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

// -- levels inside one thread block cluster --------------------------------------------------------
// On a thin graph (the one-block-an-SM build launched in clusters of LD_FUSED_CLUSTER blocks,
// ld_bfs_fused_clustered, compute capability 9.0 and up), a push level too big for block 0 and
// of at most LD_CLUSTER_FRONTIER entries runs in the first cluster alone, with the cluster's
// barrier, while the other blocks wait on the hand-over's epoch as they do for block 0. The
// frontier lives in the cluster's shared memories: vertex v is block ld_owner(v)'s, whose inbox
// lists it with its row (read beside its claim), and a found vertex goes to its owner's next
// inbox with one remote shared atomic (distributed shared memory). A level's chain so has no
// global queue entry to read and no global tail to append to: the inbox, the row's neighbours,
// their claims (rows read beside), the places (benchmarks/level_floor.py's inbox variant: 2.7-3.0
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

// The shared memory of block 0's levels, the cluster's and a flat push level's: one block, as
// they never run at once (the kernel's static shared memory stays under the 48 KB a block may
// declare).
union ld_level_shared {
    ld_block_state block;
    ld_cluster_state cluster;
    ld_flat_frontier flat;
};

// BLOCKS: the blocks a multiprocessor the launch is built for. Two hide the latency of big
// Kronecker levels; one, on graphs of thin frontiers, gives each thread twice the registers (128),
// so that the level loops keep their state in registers instead of spilling it to local memory
// on the latency chain of every small level (lagraph_dist/local/gpu_kernels/fused.py picks).
template <int MULT, typename V, int BLOCKS, bool CLUSTERED>
__device__ __forceinline__ void
ld_bfs_fused_search(const i64* __restrict__ out_indptr, const int* __restrict__ out_indices,   // push: A by source
             const i64* __restrict__ in_indptr, const int* __restrict__ in_indices,     // pull: A by destination
             const u32* __restrict__ empty_rows,                                        // rows without in-edges
             i64 n, u32* __restrict__ words, V* __restrict__ parents,
             long long* __restrict__ depths, u32* __restrict__ depth_words, long long first_depth,
             const int* __restrict__ first, i64 nfirst, int source, const u64* __restrict__ pushed,
             int* __restrict__ queues, u32* __restrict__ bitmaps, int* __restrict__ giants,
             int* __restrict__ giant_rows, i64 giant_capacity, int giant_rows_possible,
             const u64* __restrict__ thin_rows,       // a thin graph's rows (ld_thin_claim), else null
             u64* __restrict__ slots,
             int rule_mode, double alpha, double beta, long long rule_push, long long rule_previous,
             long long rule_unexplored,
             i64 max_frontier, i64 max_edges, i64 max_levels, i64 block_edges, int target,
             u64* __restrict__ records, long long* __restrict__ status, u64* __restrict__ mirror,
             i64 mirror_levels, bool cache_visited, bool depth_bits_follow) {
    cg::grid_group grid = cg::this_grid();
    // block 0's copy of the visited words (cache_visited: the launch gave it n / 8 bytes of
    // dynamic shared memory), where its levels claim
    extern __shared__ u32 ld_visited_cache[];
    // block 0's levels and a flat push level's frontier (grid levels) never run at once
    __shared__ ld_level_shared level_shared;
    const int lane = threadIdx.x & 31;
    const i64 thread = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 nthreads = (i64)gridDim.x * blockDim.x;
    const i64 warp = thread >> 5, nwarps = nthreads >> 5;
    const i64 nwords = (n + 31) >> 5;
    // depth_bits_follow: the depths' bits equal the visited bits at the start (a search started
    // here, or by the host's start): the levels write depths without their bits, and the exit
    // copies the visited words to them, one coalesced pass instead of an atomic a found vertex
    u32* const level_depth_words = depth_bits_follow ? nullptr : depth_words;
    auto slot = [&](int what, int s) { return slots + what * 3 + s; };
    auto queue = [&](int s) { return queues + (i64)s * n; };
    auto bitmap = [&](int s) { return bitmaps + (i64)s * nwords; };
    auto giant_list = [&](int s) { return giants + (i64)s * giant_capacity; };

    // start: counters zero, bitmaps clear, the first frontier in slot 0 (queue, bits, giants).
    // A search that starts here (first null, nfirst 1) starts at `source`: visited and depths
    // are cleared and take the source alone (its value: its id or true; its depth first_depth
    // - 1), as the host's Vector.singles would have made them, with no launch or list of its own.
    // A first frontier a tile push made (push.cu in place, just before this launch: `pushed`,
    // its stamps, not null; `first` its output queue) comes with its count, out-edges and giants
    // in the push's counters (read here: the host launches this run without reading them), its
    // giants in slot 0's list and slot 0's bitmap holding the visited words from before that
    // push: its bits are the words that changed (visited bits only turn on), so that a run
    // after a big push level neither walks millions of entries nor claims their bits with
    // atomics before its first level. The push's own stop (its output empty, too big, or
    // holding the target) ends the run before any level.
    const bool made = pushed != nullptr, seeded = first == nullptr;
    if (made) nfirst = (i64)__ldcg(pushed + LD_FOUND);
    if (thread == 0)
        for (int k = 0; k < LD_FUSED_NSLOTS; ++k)
            slots[k] = k == LD_SLOT_COUNT * 3 ? (u64)nfirst
                     : made && k == LD_SLOT_EDGES * 3 ? __ldcg(pushed + LD_PUSH_EDGES)
                     : made && k == LD_SLOT_GIANTS * 3 ? __ldcg(pushed + LD_PUSH_GIANTS) : 0ull;
    for (i64 k = thread; k < 3 * nwords; k += nthreads) bitmaps[k] = made && k < nwords ? bitmaps[k] ^ words[k] : 0u;
    if (seeded)
        for (i64 k = thread; k < nwords; k += nthreads) {
            words[k] = 0u;
            if (depth_words) depth_words[k] = 0u;
        }
    for (i64 k = thread; k < nfirst; k += nthreads) queues[k] = seeded ? source : first[k];
    grid.sync();
    if (seeded && thread == 0) {
        words[source >> 5] = 1u << (source & 31);
        parents[source] = ld_multiply<MULT, V>(source, V(), 1, 1, 0);
        if (depths) ld_set_depth(depths, depth_words, source, first_depth - 1, true);
    }
    if (!made) {
        u64 first_edges = 0;
        for (i64 base = warp * 32; base < nfirst; base += nwarps * 32) {
            const i64 i = base + lane;
            bool giant = false;
            int u = 0;
            if (i < nfirst) {
                u = __ldcg(queues + i);
                atomicOr(bitmaps + (u >> 5), 1u << (u & 31));
                const i64 degree = __ldg(out_indptr + u + 1) - __ldg(out_indptr + u);
                first_edges += (u64)degree;
                giant = degree > LD_FUSED_PUSH_GIANT_DEGREE;
            }
            ld_warp_append(giant, u, giants, slot(LD_SLOT_GIANTS, 0));
        }
        ld_add_block_count(slot(LD_SLOT_EDGES, 0), first_edges);
    }
    grid.sync();
    if (thread == 0) status[LD_STATUS_STARTED] = (long long)ld_now_ns();
    ld_tracer trace;
    LD_TRACE_START(trace);
    LD_WARP_CLOCKS_START;
    // the current level's frontier (count, out-edges, giants), carried from level to level
    i64 nf, fe, ngiants;
    {
        u64 counts[3];
        ld_read_slots<3>(slots, {LD_SLOT_COUNT * 3, LD_SLOT_EDGES * 3, LD_SLOT_GIANTS * 3}, counts);
        nf = (i64)counts[0], fe = (i64)counts[1], ngiants = (i64)counts[2];
    }

    ld_rule rule{rule_mode, alpha, beta, (double)n, rule_push, rule_previous, rule_unexplored};
    int queue_valid = 1;                 // bit s: Q[s] holds slot s's frontier
    // bit s: F[s] holds slot s's frontier bits (else it is all clear). Push levels write none: a
    // pull lists its frontier's bits when a push made it, and only written bitmaps are cleared.
    int bits_held = 1;
    u64 handovers = 0;                   // runs of block levels so far
    i64 level = 0, previous_count = 0;
    const long long pushed_stop = made ? ld_stop_after(nf, __ldcg(pushed + LD_NCOUNTERS + 1) != 0ull, max_frontier) : -1;
    int reason = pushed_stop >= 0 ? (int)pushed_stop : LD_STOP_LEVELS;
    while (pushed_stop < 0 && level < max_levels) {
        const int cur = (int)(level % 3), nxt = (int)((level + 1) % 3), old = (int)((level + 2) % 3);
        if (nf == 0) { reason = LD_STOP_EMPTY; break; }
        LD_WARP_CLOCK(clock_known);          // (after a branch on the counters: past the barrier's wait)
        const bool push = rule.choose(nf, fe);
        if (push && fe > max_edges) { reason = LD_STOP_TOO_BIG; break; }
        LD_TRACE_USE(trace, nf + fe);
        LD_TRACE_MARK(trace, LD_G_HEAD);
        if (push && !((queue_valid >> cur) & 1)) {         // a pull made this frontier: list it
            ld_compact(bitmap(cur), nwords, queue(cur), slot(LD_SLOT_FILL, cur), lane, warp, nwarps);
            queue_valid |= 1 << cur;
            grid.sync();
        }
        if (!push && !((bits_held >> cur) & 1)) {          // a push made it: its bits for the pull
            ld_set_list_bits(queue(cur), nf, bitmap(cur), thread, nthreads);
            bits_held |= 1 << cur;
            grid.sync();
        }
        // level L-1's counters and input bits are no one's now: clear them for level L+1 to
        // write. A grid level does it after its own work (nothing of this level reads them, and
        // the barrier closing the level orders it before L+1), off the level's latency chain.
        // (Loading the first stale id before the work saved ~1% of a mesh's levels and cost
        // Kronecker 22's levels ~5% on nvidia-h100-x1: not kept.)
        auto clear_old = [&]() {
            if (thread == 0)
                for (int what = 0; what <= LD_SLOT_FILL; ++what) *slot(what, old) = 0ull;
            if (!((bits_held >> old) & 1)) return;
            bits_held &= ~(1 << old);
            if (((queue_valid >> old) & 1) && previous_count * 4 < nwords) {
                const int* stale = queue(old);
                for (i64 k = thread; k < previous_count; k += nthreads) bitmap(old)[__ldcg(stale + k) >> 5] = 0u;
            } else {
                for (i64 k = thread; k < nwords; k += nthreads) bitmap(old)[k] = 0u;
            }
        };
        const bool to_block = ld_block_fits(push, nf, fe, ngiants, block_edges, max_edges);
        const bool to_cluster = CLUSTERED && thin_rows && ld_cluster_fits(push, nf, fe, ngiants, block_edges,
                                                                                 max_edges);
        if (to_block || to_cluster) {
            clear_old();
            // the other blocks wait on the hand-over's epoch with a pause between reads, not in
            // the grid barrier's tight loop, whose reads would crowd block 0's memory traffic
            const u64 epoch = ++handovers;          // the same count in every thread
            if (to_block ? blockIdx.x == 0 : blockIdx.x < LD_FUSED_CLUSTER) {
                if (to_block) {
                    ld_block_levels<MULT, V, BLOCKS>(out_indptr, out_indices, n, words, parents, depths,
                                                     level_depth_words, first_depth, queues, bitmaps, giants,
                                                     giant_capacity, slots, rule, level, nf, fe, max_frontier,
                                                     max_edges, max_levels, block_edges, thin_rows, target,
                                                     records, cache_visited ? ld_visited_cache : nullptr,
                                                     level_shared.block);
                    __syncthreads();
                } else {                            // (ends with the cluster's barrier)
                    ld_cluster_levels<MULT, V>(out_indptr, out_indices, n, words, parents, depths, level_depth_words,
                                               first_depth, queues, bitmaps, slots, rule, level, nf, fe, max_frontier,
                                               max_edges, max_levels, block_edges, target, thin_rows, records,
                                               level_shared.cluster, trace);
                }
                if (blockIdx.x == 0 && threadIdx.x == 0) {
                    __threadfence();
                    *(volatile u64*)(slots + LD_SLOT_EPOCH) = epoch;
                }
            } else if (threadIdx.x == 0) {
                while (*(volatile u64*)(slots + LD_SLOT_EPOCH) < epoch) __nanosleep(LD_BLOCK_WAIT_NS);
            }
            LD_TRACE_MARK(trace, LD_H_BLOCK);
            grid.sync();
            LD_TRACE_MARK(trace, LD_H_BARRIER);
            LD_WARP_CLOCK_RESTART();
            u64 handover[8];
            ld_read_slots<8>(slots, {LD_SLOT_HANDOVER, LD_SLOT_HANDOVER + 1, LD_SLOT_HANDOVER + 2, LD_SLOT_HANDOVER + 3,
                                     LD_SLOT_HANDOVER + 4, LD_SLOT_HANDED, LD_SLOT_HANDED + 1, LD_SLOT_HANDED + 2},
                             handover);
            level = (i64)handover[0];
            rule.push = (long long)handover[1];
            rule.previous = (long long)handover[2];
            rule.unexplored = (long long)handover[3];
            const long long stop = (long long)handover[4];
            nf = (i64)handover[5], fe = (i64)handover[6], ngiants = (i64)handover[7];
            queue_valid = 1 << (int)(level % 3);  // block levels list their outputs and leave every
            bits_held = 0;                        // bitmap clear
            previous_count = 0;
            if (stop >= 0) { reason = (int)stop; break; }
            continue;
        }
        LD_WARP_CLOCK(clock_set);
        const ld_level_out<V> out{words, parents, depths, level_depth_words, first_depth + level, out_indptr,
                                  push ? nullptr : bitmap(nxt), queue(nxt), slot(LD_SLOT_COUNT, nxt), giant_list(nxt),
                                  slot(LD_SLOT_GIANTS, nxt), target, slots + LD_SLOT_TARGET};
        u64 next_edges = 0, found = 0, examined = 0;
        if (push) {
            // eager claims only in the 128-register build (the 64-register one would spill them)
            bool eager = false;
            if constexpr (BLOCKS == 1) eager = fe <= LD_EAGER_EDGES;
            if (nf <= LD_FLAT_FRONTIER && fe <= INT_MAX)
                ld_push_flat_level<MULT, V>(out_indptr, out_indices, queue(cur), (int)nf, out, next_edges, eager,
                                            level_shared.flat, lane, warp, nwarps);
            else if (eager)
                ld_push_level<MULT, V, true>(out_indptr, out_indices, queue(cur), nf, giant_list(cur), ngiants,
                                             slot(LD_SLOT_WORK, cur), out, next_edges, lane, warp, nwarps);
            else
                ld_push_level<MULT, V, false>(out_indptr, out_indices, queue(cur), nf, giant_list(cur), ngiants,
                                              slot(LD_SLOT_WORK, cur), out, next_edges, lane, warp, nwarps);
            queue_valid |= 1 << nxt;
        } else {
            ld_pull_level<MULT, V>(in_indptr, in_indices, n, empty_rows, bitmap(cur), slot(LD_SLOT_WORK, cur), giant_rows,
                                   slot(LD_SLOT_GIANT_ROWS, cur), out, found, next_edges, examined, lane, warp,
                                   nwarps);
            if (giant_rows_possible) {       // a second barrier only where a row can be giant
                grid.sync();
                u64 rows[1];
                ld_read_slots<1>(slots, {LD_SLOT_GIANT_ROWS * 3 + cur}, rows);
                const i64 count = (i64)rows[0];
                ld_pull_giant_rows<MULT, V>(in_indptr, in_indices, bitmap(cur), giant_rows, count, out, found,
                                            next_edges, examined, lane, warp, nwarps);
            }
            ld_add_block_count(slot(LD_SLOT_COUNT, nxt), found);
            ld_add_block_count(slot(LD_SLOT_EXAMINED, cur), examined);
            queue_valid &= ~(1 << nxt);
            bits_held |= 1 << nxt;
        }
        LD_TRACE_MARK(trace, LD_G_WORK);
        LD_WARP_CLOCK_WORK();
        clear_old();
        LD_TRACE_MARK(trace, LD_G_CLEAR);
        ld_add_block_count(slot(LD_SLOT_EDGES, nxt), next_edges);
        LD_TRACE_MARK(trace, LD_G_COUNT);
        LD_WARP_CLOCK(clock_count);
        grid.sync();
        LD_TRACE_MARK(trace, LD_G_BARRIER);
        LD_WARP_CLOCKS_EXIT(level);
        u64 after[4];
        ld_read_slots<4>(slots, {LD_SLOT_COUNT * 3 + nxt, LD_SLOT_EDGES * 3 + nxt, LD_SLOT_GIANTS * 3 + nxt, LD_SLOT_TARGET},
                         after);
        const i64 discovered = (i64)after[0];
        if (thread == 0)
            ld_write_record(records, level, nf, discovered,
                            push ? fe : (i64)*(volatile u64*)slot(LD_SLOT_EXAMINED, cur), push, ld_now_ns());
        previous_count = nf;
        ++level;
        nf = discovered, fe = (i64)after[1], ngiants = (i64)after[2];
        const long long stop = ld_stop_after(discovered, after[3] != 0, max_frontier);
        if (stop >= 0) { reason = (int)stop; break; }
        LD_TRACE_USE(trace, discovered);
        LD_TRACE_MARK(trace, LD_G_RECORD);
    }
    LD_TRACE_FINISH(trace);
    const int last = (int)(level % 3);
    const i64 remaining = nf;            // the count of slot `last`, as every exit leaves it
    if (remaining && !((queue_valid >> last) & 1)) {       // the caller reads the frontier's ids
        ld_compact(bitmap(last), nwords, queue(last), slot(LD_SLOT_FILL, last), lane, warp, nwarps);
        grid.sync();
    }
    if (depth_bits_follow && depths)     // (every exit follows a grid barrier: every level's bits are in)
        for (i64 k = thread; k < nwords; k += nthreads) depth_words[k] = __ldcg(words + k);
    if (thread == 0) {
        status[LD_STATUS_LEVELS] = level;
        status[LD_STATUS_SLOT] = last;
        status[LD_STATUS_FRONTIER] = remaining;
        status[LD_STATUS_EDGES] = (long long)*(volatile u64*)slot(LD_SLOT_EDGES, last);
        status[LD_STATUS_REASON] = reason;
        status[LD_STATUS_PUSH] = rule.push;
        status[LD_STATUS_PREVIOUS] = rule.previous;
        status[LD_STATUS_UNEXPLORED] = rule.unexplored;
        status[LD_STATUS_CLUSTER_LEVELS] = (long long)*(volatile u64*)(slots + LD_SLOT_CLUSTER_LEVELS);
        status[LD_STATUS_CLUSTER_SPILLS] = (long long)*(volatile u64*)(slots + LD_SLOT_CLUSTER_SPILLS);
    }
    // The report's head (the status, a tile push's stamps between them and the records, the
    // first mirror_levels records) written into the host's page-locked mirror by block 0, whose
    // threads wrote all of it: the host reads it after the stream's synchronize, with no copy of
    // its own queued behind the kernel (the copy's call and its latency were 5-7 us of each call;
    // a deep search's records, copied after it, 70 us on a 1000 x 1000 mesh)
    if (blockIdx.x == 0) {
        __syncthreads();
        const volatile u64* head = (const volatile u64*)status;
        const i64 levels = (i64)head[LD_STATUS_LEVELS];
        const i64 words = (i64)(records - (const u64*)status) + LD_FUSED_RECORD * min(levels, mirror_levels);
        for (i64 k = threadIdx.x; k < words; k += blockDim.x) mirror[k] = head[k];
    }
}

// The kernel's arguments as one struct, so that a launch passes one argument (CuPy packs it
// from one buffer: lagraph_dist/local/gpu_kernels/fused.py's FUSED_ARGUMENTS names these
// fields in this order, tests/test_cuda_sources.py checks it). Every field is 8 bytes wide,
// so that the packing has no padding: the graph's and the workspace's fields first (packed
// once a matrix), then the call's.
template <typename V>
struct ld_fused_args {
    const i64* out_indptr; const int* out_indices; const i64* in_indptr; const int* in_indices;
    const u32* empty_rows; i64 n;
    int* queues; u32* bitmaps; int* giants; int* giant_rows; i64 giant_capacity; i64 giant_rows_possible;
    const u64* thin_rows; u64* slots;
    u32* words; V* parents; long long* depths; u32* depth_words; long long first_depth;
    const int* first; i64 nfirst; i64 source; const u64* pushed;
    i64 rule_mode; double alpha; double beta; long long rule_push; long long rule_previous;
    long long rule_unexplored;
    i64 max_frontier; i64 max_edges; i64 max_levels; i64 block_edges; i64 target;
    u64* records; long long* status; u64* mirror; i64 mirror_levels; i64 cache_visited; i64 depth_bits_follow;
};

// The search's call of ld_bfs_fused_search from its one argument.
#define LD_FUSED_SEARCH(MULT, V, BLOCKS, CLUSTERED) ld_bfs_fused_search<MULT, V, BLOCKS, CLUSTERED>( \
        a.out_indptr, a.out_indices, a.in_indptr, a.in_indices, a.empty_rows, a.n, a.words, a.parents, a.depths, \
        a.depth_words, a.first_depth, a.first, a.nfirst, (int)a.source, a.pushed, a.queues, \
        a.bitmaps, a.giants, a.giant_rows, a.giant_capacity, (int)a.giant_rows_possible, a.thin_rows, a.slots, \
        (int)a.rule_mode, a.alpha, a.beta, a.rule_push, a.rule_previous, a.rule_unexplored, a.max_frontier, \
        a.max_edges, a.max_levels, a.block_edges, (int)a.target, a.records, a.status, a.mirror, a.mirror_levels, \
        a.cache_visited != 0, a.depth_bits_follow != 0)

// BLOCKS: the blocks a multiprocessor the launch is built for (see ld_bfs_fused_search).
template <int MULT, typename V, int BLOCKS>
__global__ void __launch_bounds__(LD_FUSED_THREADS, BLOCKS) ld_bfs_fused(const ld_fused_args<V> a) {
    LD_FUSED_SEARCH(MULT, V, BLOCKS, false);
}

// The one-block-an-SM build launched in thread block clusters, whose first cluster runs the
// levels between block 0's and the grid's on thin graphs (ld_cluster_levels; compute capability
// 9.0 and up: built elsewhere without the clusters, it traps if a cluster level is reached).
#ifdef LD_CLUSTER_LEVELS
#define LD_CLUSTER_DIMS __cluster_dims__(LD_FUSED_CLUSTER, 1, 1)
#else
#define LD_CLUSTER_DIMS
#endif
template <int MULT, typename V>
__global__ void __launch_bounds__(LD_FUSED_THREADS, 1) LD_CLUSTER_DIMS ld_bfs_fused_clustered(const ld_fused_args<V> a) {
    LD_FUSED_SEARCH(MULT, V, 1, true);
}
#undef LD_FUSED_SEARCH

#ifdef LD_NVCC_CHECK
#define LD_FUSED_INSTANCE(M, V, B) template __global__ void ld_bfs_fused<M, V, B>(const ld_fused_args<V>);
LD_FUSED_INSTANCE(LD_MULT_PAIR, bool, 1)
LD_FUSED_INSTANCE(LD_MULT_SECONDI, long long, 1)
LD_FUSED_INSTANCE(LD_MULT_PAIR, bool, 2)
LD_FUSED_INSTANCE(LD_MULT_SECONDI, long long, 2)
template __global__ void ld_bfs_fused_clustered<LD_MULT_PAIR, bool>(const ld_fused_args<bool>);
template __global__ void ld_bfs_fused_clustered<LD_MULT_SECONDI, long long>(const ld_fused_args<long long>);
#endif
