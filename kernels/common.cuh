// Shared pieces of lagraph_dist's CUDA kernels: types, the semiring switches, the 2D layout's
// local -> global id map, mask tests, claims, warp and block appends, block-level counters and
// the slicing of a giant's adjacency. Kernels are specialised per semiring through template
// parameters (MULT, ADD, value type V), instantiated from Python with cupy.RawModule
// name_expressions. The push and pull steps shared by push.cu, pull.cu and fused.cu are in
// push_steps.cuh and pull_steps.cuh.
//
// The numbers shared with Python (LD_WORD_BITS, the semiring and mask codes, the counters'
// layout, launch shapes, the fused search's status and records ...) are not defined in these
// sources: each is a -D option made by lagraph_dist/local/layout.py (cuda_defines()), which
// gpu_kernels passes to every module. A compile without one stops at the guard below.
#pragma once

// the guard: one #error a missing layout define (the list of lagraph_dist.local.layout.SHARED)
#if !defined(LD_WORD_BITS)
#error "LD_WORD_BITS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_PUSH_THREADS)
#error "LD_PUSH_THREADS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_EDGES_PER_THREAD)
#error "LD_EDGES_PER_THREAD is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_SMALL_SCAN)
#error "LD_SMALL_SCAN is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_LONG_ROW_THRESHOLD)
#error "LD_LONG_ROW_THRESHOLD is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_THREADS)
#error "LD_FUSED_THREADS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_GIANT_DEGREE)
#error "LD_FUSED_GIANT_DEGREE is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_PUSH_GIANT_DEGREE)
#error "LD_FUSED_PUSH_GIANT_DEGREE is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_BLOCK_FRONTIER)
#error "LD_FUSED_BLOCK_FRONTIER is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_THIN_ROW)
#error "LD_FUSED_THIN_ROW is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_THIN_ROW_DEGREE_BITS)
#error "LD_THIN_ROW_DEGREE_BITS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_CLUSTER)
#error "LD_FUSED_CLUSTER is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_INBOX)
#error "LD_FUSED_INBOX is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MAX_OWNERS)
#error "LD_MAX_OWNERS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_SWEEP_GROUP_WORDS)
#error "LD_SWEEP_GROUP_WORDS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_PAIR)
#error "LD_MULT_PAIR is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_LAND)
#error "LD_MULT_LAND is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_SECONDI)
#error "LD_MULT_SECONDI is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_FIRST)
#error "LD_MULT_FIRST is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_SECOND)
#error "LD_MULT_SECOND is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_TIMES)
#error "LD_MULT_TIMES is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MULT_PLUS)
#error "LD_MULT_PLUS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_ADD_ANY)
#error "LD_ADD_ANY is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_ADD_MIN)
#error "LD_ADD_MIN is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_ADD_LOR)
#error "LD_ADD_LOR is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_ADD_PLUS)
#error "LD_ADD_PLUS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_ADD_MAX)
#error "LD_ADD_MAX is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_ADD_LAND)
#error "LD_ADD_LAND is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MASK_NONE)
#error "LD_MASK_NONE is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MASK_KEEP_SET)
#error "LD_MASK_KEEP_SET is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_MASK_KEEP_CLEAR)
#error "LD_MASK_KEEP_CLEAR is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FOUND)
#error "LD_FOUND is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_EXAMINED)
#error "LD_EXAMINED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_PUSH_EDGES)
#error "LD_PUSH_EDGES is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_LONG_ROWS)
#error "LD_LONG_ROWS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_OVERFLOW)
#error "LD_OVERFLOW is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_PUSH_GIANTS)
#error "LD_PUSH_GIANTS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_NCOUNTERS)
#error "LD_NCOUNTERS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_FOUND)
#error "LD_M_FOUND is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_BITS)
#error "LD_M_BITS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_EXAMINED)
#error "LD_M_EXAMINED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_PUSH_EDGES)
#error "LD_M_PUSH_EDGES is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_COMPLETED)
#error "LD_M_COMPLETED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_LIVE)
#error "LD_M_LIVE is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_M_NCOUNTERS)
#error "LD_M_NCOUNTERS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RULE_PUSH)
#error "LD_RULE_PUSH is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RULE_PULL)
#error "LD_RULE_PULL is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RULE_AUTO)
#error "LD_RULE_AUTO is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STOP_EMPTY)
#error "LD_STOP_EMPTY is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STOP_TOO_BIG)
#error "LD_STOP_TOO_BIG is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STOP_LEVELS)
#error "LD_STOP_LEVELS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STOP_TARGET)
#error "LD_STOP_TARGET is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_NSLOTS)
#error "LD_FUSED_NSLOTS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_LEVELS)
#error "LD_STATUS_LEVELS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_SLOT)
#error "LD_STATUS_SLOT is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_FRONTIER)
#error "LD_STATUS_FRONTIER is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_EDGES)
#error "LD_STATUS_EDGES is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_REASON)
#error "LD_STATUS_REASON is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_PUSH)
#error "LD_STATUS_PUSH is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_PREVIOUS)
#error "LD_STATUS_PREVIOUS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_UNEXPLORED)
#error "LD_STATUS_UNEXPLORED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_STARTED)
#error "LD_STATUS_STARTED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_CLUSTER_LEVELS)
#error "LD_STATUS_CLUSTER_LEVELS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_STATUS_CLUSTER_SPILLS)
#error "LD_STATUS_CLUSTER_SPILLS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_NSTATUS)
#error "LD_FUSED_NSTATUS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RECORD_FRONTIER)
#error "LD_RECORD_FRONTIER is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RECORD_DISCOVERED)
#error "LD_RECORD_DISCOVERED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RECORD_EXAMINED)
#error "LD_RECORD_EXAMINED is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RECORD_PUSH)
#error "LD_RECORD_PUSH is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_RECORD_END_NS)
#error "LD_RECORD_END_NS is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#elif !defined(LD_FUSED_RECORD)
#error "LD_FUSED_RECORD is not defined: compile with lagraph_dist.local.layout.cuda_defines()"
#endif
static_assert(LD_WORD_BITS == 32, "bitmap words are u32: ids index them by id >> 5 and id & 31");

typedef long long i64;
typedef unsigned int u32;
typedef unsigned long long u64;
#define LD_I64_MAX 0x7fffffffffffffffLL

// Codes from lagraph_dist/local/layout.py: multiply operators of the input entry's value x and a
// matrix entry (the value 1 of V: matrices are patterns) LD_MULT_PAIR and LD_MULT_SECOND (1),
// LD_MULT_LAND (x != 0; V is bool), LD_MULT_SECONDI (the input entry's global id), LD_MULT_FIRST
// (x), LD_MULT_TIMES (x * 1 = x), LD_MULT_PLUS (x + 1, in V); add monoids LD_ADD_ANY, LD_ADD_MIN,
// LD_ADD_MAX, LD_ADD_PLUS, LD_ADD_LOR, LD_ADD_LAND; mask modes LD_MASK_NONE, LD_MASK_KEEP_SET
// (result only where the mask has an entry), LD_MASK_KEEP_CLEAR (complement: only where it has
// none). Value types V: bool, int, long long, float, double (lagraph_dist.semirings.VALUE_DTYPES).

// Local index l of a space -> global id (the IdMap of lagraph_dist/grid.py). A contiguous space
// (one GPU's, a grid's column spaces) is a shift: no 64-bit division, dozens of instructions.
__device__ __forceinline__ i64 ld_to_global(i64 l, i64 block_len, i64 stride, i64 offset) {
    if (stride == block_len) return offset + l;
    return (l / block_len) * stride + offset + l % block_len;
}

// The device's nanosecond clock (%globaltimer), the same on every SM: a fused level's time is
// the difference of the readings taken by one thread right after the barriers that close the
// level before and it; push.cu's single levels are bracketed by the same clock.
__device__ __forceinline__ u64 ld_now_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// A search's depth for vertex v, found at `depth`: its value, and its bit unless the caller
// owns v's word and sets the word's bits itself (fused.cu's ld_mark_found with word_owned);
// the fused levels and push.cu's in-place level write depths through it.
__device__ __forceinline__ void ld_set_depth(long long* __restrict__ depths, u32* __restrict__ depth_words, i64 v,
                                             long long depth, bool set_bit) {
    depths[v] = depth;
    if (set_bit) atomicOr(depth_words + (v >> 5), 1u << (v & 31));
}

__device__ __forceinline__ bool ld_bit(const u32* __restrict__ words, i64 i) {
    return (__ldg(words + (i >> 5)) >> (i & 31)) & 1u;
}

// The bits of ids[first], ids[first + stride], ... (below count) set in `words`: a list's bitmap.
// The ids are read coherently (__ldcg), so that a kernel may list a queue it wrote itself.
__device__ __forceinline__ void ld_set_list_bits(const int* __restrict__ ids, i64 count, u32* __restrict__ words,
                                                 i64 first, i64 stride) {
    for (i64 i = first; i < count; i += stride) {
        const int id = __ldcg(ids + i);
        atomicOr(words + (id >> 5), 1u << (id & 31));
    }
}

__device__ __forceinline__ bool ld_allowed(const u32* __restrict__ mask, int mode, i64 i) {
    if (mode == LD_MASK_NONE) return true;
    const bool set = ld_bit(mask, i);
    return mode == LD_MASK_KEEP_SET ? set : !set;
}

// A pull row may stop at its first present input when no later one can change the result:
// any, or min over a positional op (rows scan inputs in increasing global id).
template <int MULT, int ADD>
struct ld_first_hit_final {
    static constexpr bool value = ADD == LD_ADD_ANY || (ADD == LD_ADD_MIN && MULT == LD_MULT_SECONDI);
};

// Whether a multiply reads the input entry's value (the others leave the input's values unread).
template <int MULT>
struct ld_reads_left {
    static constexpr bool value = MULT == LD_MULT_LAND || MULT == LD_MULT_FIRST || MULT == LD_MULT_TIMES ||
                                  MULT == LD_MULT_PLUS;
};

// Input entry i's value as the multiply reads it (V() where it reads none: no load); the index
// keeps the caller's type, so the load is the one written inline before.
template <int MULT, typename V, typename I>
__device__ __forceinline__ V ld_left(const V* __restrict__ values, I i) {
    if constexpr (ld_reads_left<MULT>::value) return values[i];
    else return V();
}

template <int MULT, typename V>
__device__ __forceinline__ V ld_multiply(i64 source_local, V left, i64 block_len, i64 stride, i64 offset) {
    if constexpr (MULT == LD_MULT_SECONDI) return (V)ld_to_global(source_local, block_len, stride, offset);
    else if constexpr (MULT == LD_MULT_LAND) return left;                 // x != 0: land's V is bool
    else if constexpr (MULT == LD_MULT_FIRST || MULT == LD_MULT_TIMES) return left;   // x, x * 1
    else if constexpr (MULT == LD_MULT_PLUS) return (V)(left + (V)1);     // wraps as V, as graphblas's
    else return (V)1;                                                      // pair, second: the matrix's 1
}

template <int ADD, typename V>
__device__ __forceinline__ V ld_combine(V a, V b) {
    if constexpr (ADD == LD_ADD_MIN) return a < b ? a : b;
    else if constexpr (ADD == LD_ADD_LOR) return a || b;
    else if constexpr (ADD == LD_ADD_MAX) return a > b ? a : b;
    else if constexpr (ADD == LD_ADD_PLUS) return (V)(a + b);
    else if constexpr (ADD == LD_ADD_LAND) return a && b;
    else return a;
}

#ifdef LD_NVCC_CHECK
// The valued instances a plain nvcc compile checks in push.cu and pull.cu (the drivers build any
// (multiply, add, type) on first use): each multiply, and each monoid's atomic and combine on
// each kind of value it takes (bool's or/and, int and long long atomics, float and double adds
// and compare-and-swap loops).
#define LD_VALUED_CHECKS(INSTANCE) \
    INSTANCE(LD_MULT_PAIR, LD_ADD_PLUS, long long) \
    INSTANCE(LD_MULT_FIRST, LD_ADD_PLUS, float) \
    INSTANCE(LD_MULT_TIMES, LD_ADD_PLUS, double) \
    INSTANCE(LD_MULT_SECOND, LD_ADD_PLUS, int) \
    INSTANCE(LD_MULT_PLUS, LD_ADD_MIN, float) \
    INSTANCE(LD_MULT_FIRST, LD_ADD_MAX, double) \
    INSTANCE(LD_MULT_FIRST, LD_ADD_MIN, int) \
    INSTANCE(LD_MULT_SECOND, LD_ADD_MAX, long long) \
    INSTANCE(LD_MULT_FIRST, LD_ADD_MIN, bool) \
    INSTANCE(LD_MULT_SECOND, LD_ADD_MAX, bool) \
    INSTANCE(LD_MULT_LAND, LD_ADD_LAND, bool)
#endif

// Counters every product kernel shares (one u64 each, zeroed with the output; local/layout.py):
// LD_FOUND (entries found = length of the output queue), LD_EXAMINED (edges read),
// LD_PUSH_EDGES (out_degree summed over the entries found: the direction rule's input),
// LD_LONG_ROWS (pull: rows queued for the warp-per-row kernel), LD_OVERFLOW (fold: a piece held
// more entries than its capacity), LD_PUSH_GIANTS (push in place: giants listed for fused.cu's
// next run), LD_NCOUNTERS of them (even: later words stay 8-byte aligned).

// The inclusive sum of `value` over the lanes up to this one (every lane of the warp calls it):
// a warp's entries' places and offsets in the fused and push kernels.
template <typename T>
__device__ __forceinline__ T ld_warp_inclusive_sum(T value) {
    const int lane = threadIdx.x & 31;
    for (int d = 1; d < 32; d <<= 1) {
        const T below = __shfl_up_sync(0xffffffffu, value, d);
        if (lane >= d) value += below;
    }
    return value;
}

// The exclusive scan of `value` over a block of up to 32 warps (every thread calls it, with
// `warp_totals` of 32 slots in shared memory); `total` gets the block's sum. Two block barriers.
__device__ __forceinline__ i64 ld_block_exclusive_scan(i64 value, i64* warp_totals, i64& total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const i64 inclusive = ld_warp_inclusive_sum(value);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    i64 before = 0;
    total = 0;
    for (int w = 0; w < nwarps; ++w) {       // (at most 32 shared reads, the same for every lane)
        const i64 t = warp_totals[w];
        if (w < warp) before += t;
        total += t;
    }
    __syncthreads();                          // warp_totals is free for the next call
    return before + inclusive - value;
}

// Positions for the lanes that want one, from one atomic on `tail` a warp (global or shared);
// every lane calls it, and the lanes that want none get a meaningless value.
template <typename T>
__device__ __forceinline__ T ld_warp_reserve(bool want, T* tail) {
    const u32 wanting = __ballot_sync(0xffffffffu, want);
    if (!wanting) return T(0);
    const int lane = threadIdx.x & 31, leader = __ffs(wanting) - 1;
    T base = 0;
    if (lane == leader) base = atomicAdd(tail, (T)__popc(wanting));
    base = __shfl_sync(0xffffffffu, base, leader);
    return base + (T)__popc(wanting & ((1u << lane) - 1u));
}

// Lanes with `want` each add one to counts[key] (shared memory), the warp's lanes of one key
// together in one atomic: returns the lane's place among the adds to counts[key] (meaningless
// where it wants none). Every lane of the warp calls it (it ballots); a fold sorting its entries
// by owner takes a shared atomic a warp and an owner, not one an entry on two or three counters.
__device__ __forceinline__ unsigned int ld_warp_count_by_key(bool want, int key, unsigned int* counts) {
    const u32 wanting = __ballot_sync(0xffffffffu, want);
    if (!want) return 0;
    const u32 peers = __match_any_sync(wanting, key);
    const int lane = threadIdx.x & 31, leader = __ffs(peers) - 1;
    unsigned int at = 0;
    if (lane == leader) at = atomicAdd(counts + key, (unsigned int)__popc(peers));
    at = __shfl_sync(peers, at, leader);
    return at + (unsigned int)__popc(peers & ((1u << lane) - 1u));
}

// Append the ids of the lanes with `want` to `queue`, with one atomic on *tail per warp.
// Every lane of the warp must call it (it ballots).
__device__ __forceinline__ void ld_warp_append(bool want, int id, int* __restrict__ queue, u64* tail) {
    const u64 at = ld_warp_reserve(want, tail);
    if (want) queue[at] = id;
}

// A warp's found ids, kept in its share of shared memory (LD_WARP_STAGE slots) and moved to the
// output queue with one global atomic a flush, where ld_warp_append makes one a step: a single
// counter bumped by every warp of a big level serialises (push.cu's levels; the fused kernel's
// flat push levels, where a level of a million edges made 30,000 of them, about 20 us of its 50
// in a kernel that does nothing else: benchmarks/probes/big_level_floor.py). No block barrier:
// a warp flushes alone, when its next add might not fit and as its level ends (every lane calls
// add and flush).
#define LD_WARP_STAGE 256
template <int SLOTS>
struct ld_warp_stage_of {
    int* items;
    int count;                      // the same in every lane
    __device__ __forceinline__ void add(bool fresh, int v, int lane, int* __restrict__ queue, u64* tail) {
        const u32 news = __ballot_sync(0xffffffffu, fresh);
        if (fresh) items[count + __popc(news & ((1u << lane) - 1u))] = v;
        count += __popc(news);
        if (count > SLOTS - 32) flush(lane, queue, tail);
    }
    __device__ __forceinline__ void flush(int lane, int* __restrict__ queue, u64* tail) {
        __syncwarp();
        if (count == 0) return;
        u64 base = 0;
        if (lane == 0) base = atomicAdd(tail, (u64)count);
        base = __shfl_sync(0xffffffffu, base, 0);
        for (int i = lane; i < count; i += 32) queue[base + i] = items[i];
        __syncwarp();
        count = 0;
    }
};
using ld_warp_stage = ld_warp_stage_of<LD_WARP_STAGE>;

// A block's share of an output queue, staged in shared memory (LD_STAGE ids): warps add their
// lanes' ids with one shared atomic a warp, and the block moves them to the global queue with
// one global atomic a flush instead of one a warp (a single global counter is what slows a
// kernel that finds millions of entries). Every thread of the block calls add and flush at
// the same points; flush moves the stage when fewer than `room` slots are left, or always
// when `force`.
#define LD_STAGE 2048
struct ld_stage {
    int items[LD_STAGE];
    unsigned int count;
    u64 base;
};

__device__ __forceinline__ void ld_stage_add(ld_stage& stage, bool want, int id) {
    const u32 wanting = __ballot_sync(0xffffffffu, want);
    if (!wanting) return;
    const int lane = threadIdx.x & 31, leader = __ffs(wanting) - 1;
    unsigned int at = 0;
    if (lane == leader) at = atomicAdd(&stage.count, (unsigned int)__popc(wanting));
    at = __shfl_sync(0xffffffffu, at, leader);
    if (want) stage.items[at + __popc(wanting & ((1u << lane) - 1u))] = id;
}

__device__ __forceinline__ void ld_stage_flush(ld_stage& stage, int* __restrict__ queue, u64* tail,
                                               unsigned int room, bool force) {
    __syncthreads();
    const unsigned int n = stage.count;
    __syncthreads();                          // all have read n before anyone adds again
    if (n == 0 || (!force && n + room <= LD_STAGE)) return;
    if (threadIdx.x == 0) { stage.base = atomicAdd(tail, (u64)n); stage.count = 0; }
    __syncthreads();
    const u64 base = stage.base;
    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) queue[base + i] = stage.items[i];
    __syncthreads();                          // copied out before the stage fills again
}

__device__ __forceinline__ void ld_stage_init(ld_stage& stage) {
    if (threadIdx.x == 0) stage.count = 0;
    __syncthreads();
}

// Which value types are floats, and bool (the atomic combines differ).
template <typename V> struct ld_is_float { static constexpr bool value = false; };
template <> struct ld_is_float<float> { static constexpr bool value = true; };
template <> struct ld_is_float<double> { static constexpr bool value = true; };
template <typename V> struct ld_is_bool { static constexpr bool value = false; };
template <> struct ld_is_bool<bool> { static constexpr bool value = true; };

// A float's or double's bits as the unsigned word atomicCAS takes, and back.
__device__ __forceinline__ u32 ld_to_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ u64 ld_to_bits(double x) { return (u64)__double_as_longlong(x); }
__device__ __forceinline__ float ld_from_bits(u32 bits) { return __uint_as_float(bits); }
__device__ __forceinline__ double ld_from_bits(u64 bits) { return __longlong_as_double((long long)bits); }

// min/max of a float or double slot by compare-and-swap (no atomicMin/Max for them; their bits
// ordered as integers would put negatives backwards). The comparison is the float's own: -0.0
// and +0.0 are equal (the first stays), infinities order as numbers; a larger value (for min)
// costs one plain read and no atomic.
template <int ADD, typename V>
__device__ __forceinline__ void ld_atomic_keep(V* slot, V value) {
    using Bits = decltype(ld_to_bits(value));
    Bits* at = reinterpret_cast<Bits*>(slot);
    Bits seen = *(volatile Bits*)at;
    while (ADD == LD_ADD_MIN ? value < ld_from_bits(seen) : value > ld_from_bits(seen)) {
        const Bits before = atomicCAS(at, seen, ld_to_bits(value));
        if (before == seen) return;
        seen = before;
    }
}

// Combine `value` into values[v] under the monoid ADD, atomically, the slot starting at the monoid's
// identity (gpu_kernels' _output). Integers: atomicAdd/Min/Max (long long's add as unsigned:
// the same two's-complement sum); floats: atomicAdd, min/max by compare-and-swap; bool: an or
// (lor, max) or and (land, min) whose every writer writes the same value, a plain store.
template <int ADD, typename V>
__device__ __forceinline__ void ld_atomic_combine(V* __restrict__ values, i64 v, V value) {
    V* slot = values + v;
    constexpr bool is_bool = ld_is_bool<V>::value, is_float = ld_is_float<V>::value;
    if constexpr (is_bool && (ADD == LD_ADD_LOR || ADD == LD_ADD_MAX)) {
        if (value) values[v] = true;
    } else if constexpr (is_bool && (ADD == LD_ADD_LAND || ADD == LD_ADD_MIN)) {
        if (!value) values[v] = false;
    } else if constexpr (ADD == LD_ADD_PLUS && sizeof(V) == 8 && !is_float) {
        atomicAdd((unsigned long long*)slot, (unsigned long long)value);
    } else if constexpr (ADD == LD_ADD_PLUS) {
        static_assert(!is_bool, "plus does not take bool values (the semirings refuse it)");
        atomicAdd(slot, value);
    } else if constexpr (is_float) {
        static_assert(ADD == LD_ADD_MIN || ADD == LD_ADD_MAX, "a float's monoid: plus, min or max");
        ld_atomic_keep<ADD, V>(slot, value);
    } else if constexpr (ADD == LD_ADD_MIN) {
        atomicMin(slot, value);
    } else {
        static_assert(ADD == LD_ADD_MAX, "an integer's monoid: plus, min or max");
        atomicMax(slot, value);
    }
}

// Claim entry v of an output bitmap for a product whose monoid is ADD, writing `value`:
// returns true for the first claimant (the entry is new). `any` writes only the first value;
// the other monoids combine every value into the slot (ld_atomic_combine: values start at the
// monoid's identity, lor's at false).
template <int ADD, typename V>
__device__ __forceinline__ bool ld_claim(u32* __restrict__ words, V* __restrict__ values, i64 v, V value) {
    const u32 bit = 1u << (v & 31);
    u32* word = words + (v >> 5);
    if constexpr (ADD == LD_ADD_ANY) {
        if (*(volatile u32*)word & bit) return false;      // cheap read first: most repeats stop here
        if (atomicOr(word, bit) & bit) return false;
        values[v] = value;
        return true;
    } else {
        const bool fresh = !(atomicOr(word, bit) & bit);
        ld_atomic_combine<ADD, V>(values, v, value);
        return fresh;
    }
}

// A giant's adjacency (more than LD_FUSED_PUSH_GIANT_DEGREE out-edges, a giant row's more than
// LD_FUSED_GIANT_DEGREE in-edges) is read in slices, a warp each, by fused.cu's push (giant
// vertices) and pull (giant rows), all of a level's giants at once: ld_giant_parts slices each,
// enough that every warp of the grid has one (a few hubs of tens of thousands of edges in 64
// slices kept 64 warps walking a thousand edges each while the rest of the grid waited at the
// barrier: 79 us for Kronecker 22's second level of 33,000 edges), never fewer than
// LD_GIANT_PARTS; a giant too short for them all is cut in slices of at least a warp's 32
// edges, the rest of its slices empty. Slice `part` of `parts` of row v is [start, end).
#define LD_GIANT_PARTS 64
__device__ __forceinline__ i64 ld_giant_parts(i64 giants, i64 nwarps) {
    return giants > 0 && nwarps / giants > LD_GIANT_PARTS ? nwarps / giants : LD_GIANT_PARTS;
}

__device__ __forceinline__ void ld_giant_slice(const i64* __restrict__ indptr, int v, i64 part, i64 parts,
                                               i64& start, i64& end) {
    const i64 s = __ldg(indptr + v), length = __ldg(indptr + v + 1) - s;
    const i64 own = min(parts, (length + 31) / 32);
    start = s + (part < own ? length * part / own : length);
    end = s + (part < own ? length * (part + 1) / own : length);
}

// The sum of a 64-bit value over the warp's 32 lanes (modulo 2^64, as adding them one by one),
// in every lane. On sm_80 and later: three independent 32-bit reductions (__reduce_add_sync, one
// instruction each) of the value's 24-, 24- and 16-bit pieces, none of whose 32-lane sums can
// overflow, instead of five dependent steps of two shuffles and a 64-bit add (a grid level's
// count, on the chain of every level of a thin graph).
__device__ __forceinline__ u64 ld_warp_sum(u64 value) {
#if __CUDA_ARCH__ >= 800
    const u32 low = __reduce_add_sync(0xffffffffu, (u32)(value & 0xffffffu));
    const u32 middle = __reduce_add_sync(0xffffffffu, (u32)((value >> 24) & 0xffffffu));
    const u32 high = __reduce_add_sync(0xffffffffu, (u32)(value >> 48));
    return (u64)low + ((u64)middle << 24) + ((u64)high << 48);
#else
    for (int d = 16; d > 0; d >>= 1) value += __shfl_xor_sync(0xffffffffu, value, d);
    return value;
#endif
}

// The largest `value` over the warp's 32 lanes, in every lane (one instruction on sm_80 and later).
__device__ __forceinline__ int ld_warp_max(int value) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, value);
#else
    for (int d = 16; d > 0; d >>= 1) value = max(value, __shfl_xor_sync(0xffffffffu, value, d));
    return value;
#endif
}

// The or of `value` over the warp's 32 lanes, in every lane (one instruction on sm_80 and later).
__device__ __forceinline__ u32 ld_warp_or(u32 value) {
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(0xffffffffu, value);
#else
    for (int d = 16; d > 0; d >>= 1) value |= __shfl_xor_sync(0xffffffffu, value, d);
    return value;
#endif
}

// Sum a per-thread count over the block and add it to *counter with one atomic.
__device__ __forceinline__ void ld_add_block_count(u64* counter, u64 mine) {
    __shared__ u64 warp_sums[32];
    __syncthreads();              // a previous call in this kernel may still be reading warp_sums
    mine = ld_warp_sum(mine);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = mine;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        const u64 total = ld_warp_sum(lane < nwarps ? warp_sums[lane] : 0);
        if (lane == 0 && total) atomicAdd(counter, total);
    }
}
