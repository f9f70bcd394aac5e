// Shared pieces of lagraph_dist's CUDA kernels: types, the semiring switches, the 2D layout's
// local -> global id map, mask tests and block-level counters. Kernels are specialised per
// semiring through template parameters (MULT, ADD, value type V), instantiated from Python
// with cupy.RawModule name_expressions.
#pragma once

typedef long long i64;
typedef unsigned int u32;
typedef unsigned long long u64;
#define LD_I64_MAX 0x7fffffffffffffffLL

// multiply operators
#define LD_MULT_PAIR 0      // 1 / true
#define LD_MULT_LAND 1      // the input entry's value (the matrix is all true)
#define LD_MULT_SECONDI 2   // the input entry's global id
// add monoids
#define LD_ADD_ANY 0
#define LD_ADD_MIN 1
#define LD_ADD_LOR 2
// mask modes
#define LD_MASK_NONE 0
#define LD_MASK_KEEP_SET 1      // result only where the mask has an entry
#define LD_MASK_KEEP_CLEAR 2    // complement: only where it has none

// Local index l of a space -> global id (the IdMap of lagraph_dist/grid.py).
__device__ __forceinline__ i64 ld_to_global(i64 l, i64 block_len, i64 stride, i64 offset) {
    return (l / block_len) * stride + offset + l % block_len;
}

__device__ __forceinline__ bool ld_bit(const u32* __restrict__ words, i64 i) {
    return (__ldg(words + (i >> 5)) >> (i & 31)) & 1u;
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

template <int MULT, typename V>
__device__ __forceinline__ V ld_multiply(i64 source_local, V left, i64 block_len, i64 stride, i64 offset) {
    if constexpr (MULT == LD_MULT_SECONDI) return (V)ld_to_global(source_local, block_len, stride, offset);
    else if constexpr (MULT == LD_MULT_LAND) return left;
    else return (V)1;
}

template <int ADD, typename V>
__device__ __forceinline__ V ld_combine(V a, V b) {
    if constexpr (ADD == LD_ADD_MIN) return a < b ? a : b;
    else if constexpr (ADD == LD_ADD_LOR) return a || b;
    else return a;
}

// Counters every product kernel shares (one u64 each, zeroed with the output):
#define LD_FOUND 0          // entries found = length of the output queue
#define LD_EXAMINED 1       // edges (matrix entries) read
#define LD_PUSH_EDGES 2     // sum of out_degree over the entries found (the direction rule's input)
#define LD_LONG_ROWS 3      // pull: rows queued for the warp-per-row kernel
#define LD_OVERFLOW 4       // fold: a piece held more entries than its capacity (a wrong bound)
#define LD_NCOUNTERS 6      // (even, so that words after the counters stay 8-byte aligned)

// Append the ids of the lanes with `want` to `queue`, with one atomic on *tail per warp.
// Every lane of the warp must call it (it ballots).
__device__ __forceinline__ void ld_warp_append(bool want, int id, int* __restrict__ queue, u64* tail) {
    const u32 wanting = __ballot_sync(0xffffffffu, want);
    if (!wanting) return;
    const int lane = threadIdx.x & 31, leader = __ffs(wanting) - 1;
    u64 base = 0;
    if (lane == leader) base = atomicAdd(tail, (u64)__popc(wanting));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (want) queue[base + __popc(wanting & ((1u << lane) - 1u))] = id;
}

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

// Claim entry v of an output bitmap for a product whose monoid is ADD, writing `value`:
// returns true for the first claimant (the entry is new). `any` writes only the first value;
// `min` keeps the smallest (values start at the identity); `lor` ors (values start false).
template <int ADD, typename V>
__device__ __forceinline__ bool ld_claim(u32* __restrict__ words, V* __restrict__ values, i64 v, V value) {
    const u32 bit = 1u << (v & 31);
    u32* word = words + (v >> 5);
    if constexpr (ADD == LD_ADD_ANY) {
        if (*(volatile u32*)word & bit) return false;      // cheap read first: most repeats stop here
        if (atomicOr(word, bit) & bit) return false;
        values[v] = value;
        return true;
    } else if constexpr (ADD == LD_ADD_MIN) {
        const bool fresh = !(atomicOr(word, bit) & bit);
        atomicMin((long long*)(values + v), (long long)value);
        return fresh;
    } else {
        const bool fresh = !(atomicOr(word, bit) & bit);
        if (value) values[v] = true;
        return fresh;
    }
}

// Sum a per-thread count over the block and add it to *counter with one atomic.
__device__ __forceinline__ void ld_add_block_count(u64* counter, u64 mine) {
    __shared__ u64 warp_sums[32];
    __syncthreads();              // a previous call in this kernel may still be reading warp_sums
    for (int d = 16; d > 0; d >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, d);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = mine;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        u64 total = lane < nwarps ? warp_sums[lane] : 0;
        for (int d = 16; d > 0; d >>= 1) total += __shfl_down_sync(0xffffffffu, total, d);
        if (lane == 0 && total) atomicAdd(counter, total);
    }
}
