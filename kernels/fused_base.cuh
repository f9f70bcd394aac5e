// fused.cu's first part (fused.cu includes it; it is no kernel on its own): the includes, the
// slots' layout, the direction rule (ld_rule), the trace and warp-clock instrumentation and
// their mark numbers, and the helpers the levels share (a level's output ld_level_out, records,
// the stop test, work items, found vertices, claims, thin rows).
#pragma once
#include <cooperative_groups.h>
#include "common.cuh"
#include "push_steps.cuh"
#include "pull_steps.cuh"

namespace cg = cooperative_groups;

#define LD_SMALL_DEGREE 32
// Words of rows a pull warp takes a work item (past the first round, one fetch on the level's
// one work counter each). A probe build may set another (benchmarks/probes/fused_variants.py:
// fewer fetches against a coarser balance).
#ifndef LD_ROW_GROUP
#define LD_ROW_GROUP 8
#endif

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

// Where a level's time goes (benchmarks/probes/fused_trace.py builds this file with -DLD_FUSED_TRACE):
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

// Every warp's clocks of every grid level (benchmarks/probes/warp_clocks.py builds this file with
// -DLD_WARP_CLOCKS): lane 0 of each warp writes, for each grid level L < ld_warp_clock_levels of
// the search (L its index in the search's records, the level's depth - 1: a run after a push.cu
// hand-over continues the count, where the run's own would write over the first run's rows), at
// ld_warp_clocks[(L * nwarps + warp) * LD_WARP_CLOCK_ROW]: six clock64 readings of its own SM (the
// exit of the barrier before the level, the counters known, the level set up, the end of its work,
// the end of its block's count, the exit of the level's barrier), then %globaltimer at the first
// and at the end of its work (one clock for the grid, 32 ns steps on an H100). A reading right
// after a barrier is the warp's arrival there (the barrier instruction defers its wait to a later
// one): only the warp that arrives last, the block's master, reads the release. The level count and
// the rows' address are read once before the levels (a load of them after every barrier slowed the
// clocked mesh's levels by 0.3 ms). Without the define the clocks are no code at all.
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
__device__ __forceinline__ u64 ld_next_in_runs(u64 item, int& left, int run, u64* work, i64 nwarps, i64 items,
                                               int lane);
__device__ __forceinline__ u64 ld_next_item(u64* work, i64 nwarps, i64 items, int lane) {
    int left = 0;
    return ld_next_in_runs(0, left, 1, work, nwarps, items, lane);
}

// The item after `item` where a warp takes runs of items: the rest of its run (`left` items), else a
// fetch of `run` items on the level's work counter `work`, counted in items past the first round
// (ld_next_item's rule: none where the first round covered every item). The pull takes runs of
// LD_PULL_EMPTY_RUN after an empty group.
__device__ __forceinline__ u64 ld_next_in_runs(u64 item, int& left, int run, u64* work, i64 nwarps, i64 items,
                                               int lane) {
    if (left > 0) {
        --left;
        return item + 1;
    }
    if (items <= nwarps) return ~0ull >> 1;
    left = run - 1;
    u64 first = 0;
    if (lane == 0) first = atomicAdd(work, (u64)run) + (u64)nwarps;
    return __shfl_sync(0xffffffffu, first, 0);
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
