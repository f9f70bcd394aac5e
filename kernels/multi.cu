// Multi-source BFS: up to 64 searches at once, one uint64 word a vertex (bit i = search i), the
// bit-parallel BFS of Then et al. (VLDB 2014) as the masked product of lagraph_dist/multi.py.
//
// Every product kernel claims bits into a target (the MultiTarget of lagraph_dist/cpu_kernels.py):
// a bit (v, i) not yet in words[v] is set there with one atomicOr, whose old word says which
// bits are new (a bit is claimed once, so its parent and level have one writer); the new bits go
// to next[v], and v to the output queue when next[v] was zero. parents/levels are (length, width)
// int64, row v holding the searches of vertex v side by side (null: not kept). Counters (u64):
// LD_M_* of lagraph_dist/local/layout.py (LD_M_FOUND: vertices appended to the queue,
// LD_M_BITS: bits claimed, LD_M_EXAMINED: matrix entries read, LD_M_PUSH_EDGES: out-degrees of
// the vertices appended, LD_M_COMPLETED: out-degrees of the vertices whose word became `full`,
// LD_M_LIVE: OR of the bits claimed; LD_M_NCOUNTERS of them). Loops are block-uniform (a block
// takes blockDim items at a time) so that the queue is written through a shared-memory stage,
// one global atomic a flush. PARENTS is a template parameter so that the level-only searches
// carry no parent code; the levels pointer may be null. Per-owner tables hold LD_MAX_OWNERS
// members, as fold.cu's.
#include "common.cuh"

#define LD_FULL_WARP 0xffffffffu

__device__ __forceinline__ u64 ld_warp_or64(u64 x) {
    for (int d = 16; d > 0; d >>= 1) x |= __shfl_xor_sync(LD_FULL_WARP, x, d);
    return x;
}

__device__ __forceinline__ int ld_lowest_bit(u64 x) { return __ffsll((long long)x) - 1; }

// What a thread tallies for the counters, added once at the end of a kernel.
struct ld_multi_tally {
    u64 bits = 0, pushed = 0, completed = 0, live = 0, examined = 0;
};

// Every thread of the block must call it (it synchronises the block).
__device__ __forceinline__ void ld_multi_flush(u64* __restrict__ counters, const ld_multi_tally& t) {
    ld_add_block_count(counters + LD_M_BITS, t.bits);
    ld_add_block_count(counters + LD_M_PUSH_EDGES, t.pushed);
    ld_add_block_count(counters + LD_M_COMPLETED, t.completed);
    ld_add_block_count(counters + LD_M_EXAMINED, t.examined);
    const u64 live = ld_warp_or64(t.live);
    if ((threadIdx.x & 31) == 0 && live) atomicOr(counters + LD_M_LIVE, live);
}

// The bookkeeping of `fresh` (nonzero) new bits of v whose word was `old` before: next word,
// counters, levels. Returns whether v entered the next frontier (its next word was zero).
__device__ __forceinline__ bool ld_multi_took(u64* next, i64* __restrict__ levels, int width, i64 depth,
                                              u64 full, const i64* __restrict__ out_degree, i64 v, u64 old,
                                              u64 fresh, ld_multi_tally& t) {
    const bool entered = atomicOr(next + v, fresh) == 0;
    t.bits += __popcll(fresh);
    t.live |= fresh;
    if (out_degree) {
        if (entered) t.pushed += (u64)out_degree[v];
        if ((old | fresh) == full) t.completed += (u64)out_degree[v];
    }
    if (levels)
        for (u64 b = fresh; b; b &= b - 1) levels[v * width + ld_lowest_bit(b)] = depth;
    return entered;
}

// Claim `bits` of v: returns the bits that were not in words[v] (and sets them), 0 if none.
__device__ __forceinline__ u64 ld_multi_claim(u64* words, i64 v, u64 bits, u64& old) {
    bits &= ~*(volatile u64*)(words + v);       // cheap read first: most offers are stale
    if (!bits) return 0;
    old = atomicOr(words + v, bits);
    return bits & ~old;
}

// The last k in [0, nf) with scan[k] <= edge (scan increasing, scan[0] = 0 <= edge).
__device__ __forceinline__ int ld_multi_edge_owner(const i64* __restrict__ scan, int nf, i64 edge) {
    int lo = 0, hi = nf;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (scan[mid] <= edge) lo = mid; else hi = mid;
    }
    return lo;
}

// Top-down: frontier vertex u = frontier[k] (input-space id; its searches frontier_words[u])
// offers its bits to every out-neighbour v, with parent u's global id. One thread an edge, found
// by a binary search over `scan` (the exclusive scan of the frontier's degrees, scan[nf] the
// total); a block takes blockDim consecutive edges at a time, and the vertices entering the
// next frontier go to the queue through the block's shared-memory stage (common.cuh).
template <bool PARENTS>
__global__ void ld_multi_push(const i64* __restrict__ indptr, const int* __restrict__ indices,
                              const int* __restrict__ frontier, int nf, const u64* __restrict__ frontier_words,
                              const i64* __restrict__ scan, i64 block_len, i64 stride, i64 offset,
                              u64* words, u64* next, int* __restrict__ queue, i64* __restrict__ parents,
                              i64* __restrict__ levels, int width, i64 depth, u64 full,
                              const i64* __restrict__ out_degree, u64* __restrict__ counters) {
    __shared__ ld_stage entering;
    ld_stage_init(entering);
    const i64 total = scan[nf];
    ld_multi_tally tally;
    if (blockIdx.x == 0 && threadIdx.x == 0) tally.examined = (u64)total;
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < total; first += (i64)gridDim.x * blockDim.x) {
        const i64 edge = first + threadIdx.x;
        bool entered = false;
        int v = 0;
        if (edge < total) {
            const int k = ld_multi_edge_owner(scan, nf, edge);
            const int u = frontier[k];
            v = __ldg(indices + indptr[u] + (edge - scan[k]));
            u64 old = 0;
            const u64 fresh = ld_multi_claim(words, v, frontier_words[u], old);
            if (fresh) {
                if constexpr (PARENTS) {
                    const i64 parent = ld_to_global(u, block_len, stride, offset);
                    for (u64 b = fresh; b; b &= b - 1) parents[(i64)v * width + ld_lowest_bit(b)] = parent;
                }
                entered = ld_multi_took(next, levels, width, depth, full, out_degree, v, old, fresh, tally);
            }
        }
        ld_stage_add(entering, entered, v);
        ld_stage_flush(entering, queue, counters + LD_M_FOUND, blockDim.x, false);    // also a barrier
    }
    ld_stage_flush(entering, queue, counters + LD_M_FOUND, 0, true);
    ld_multi_flush(counters, tally);
}

// Bottom-up: a warp takes 32 consecutive output rows; each row r with live searches that have not
// reached it (want = live & ~words[r]) is scanned by the whole warp, 32 inputs a step, until it
// has all of them or no input is left. Bit i's parent is the first input holding it (the lowest
// lane of the first step that finds it). The warp owns its rows, so their words are written
// without atomics, each by the lane of its row. A block takes blockDim consecutive rows at a
// time; the rows found go to the queue through the block's stage.
template <bool PARENTS>
__global__ void ld_multi_pull(const i64* __restrict__ indptr, const int* __restrict__ indices, i64 nrows,
                              const u64* __restrict__ frontier_words, u64 live,
                              i64 block_len, i64 stride, i64 offset,
                              u64* words, u64* next, int* __restrict__ queue, i64* __restrict__ parents,
                              i64* __restrict__ levels, int width, i64 depth, u64 full,
                              const i64* __restrict__ out_degree, u64* __restrict__ counters) {
    __shared__ ld_stage entering;
    ld_stage_init(entering);
    const int lane = threadIdx.x & 31;
    ld_multi_tally tally;
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < nrows; first += (i64)gridDim.x * blockDim.x) {
        const i64 group = first + (threadIdx.x - lane);            // the warp's first row
        const i64 r = group + lane;
        const u64 want = r < nrows ? live & ~words[r] : 0;
        u64 mine = 0;                                    // the bits found for row r
        for (u32 rows = __ballot_sync(LD_FULL_WARP, want != 0); rows; rows &= rows - 1) {
            const int b = __ffs(rows) - 1;
            const i64 row = group + b;
            const u64 wanted = __shfl_sync(LD_FULL_WARP, want, b);
            const i64 start = indptr[row], end = indptr[row + 1];
            u64 got = 0;
            for (i64 chunk = start; chunk < end && got != wanted; chunk += 32) {
                const i64 e = chunk + lane;
                int c = 0;
                u64 hit = 0;
                if (e < end) {
                    c = __ldg(indices + e);
                    hit = frontier_words[c] & wanted & ~got;
                }
                if (lane == 0) tally.examined += (u64)(end - chunk < 32 ? end - chunk : 32);
                const u64 found = ld_warp_or64(hit);
                if (!found) continue;
                if constexpr (PARENTS) {
                    for (u64 f = found; f; f &= f - 1) {
                        const int i = ld_lowest_bit(f);
                        const int from = __ffs(__ballot_sync(LD_FULL_WARP, (hit >> i) & 1ull)) - 1;
                        const int parent = __shfl_sync(LD_FULL_WARP, c, from);
                        if (lane == 0) parents[row * width + i] = ld_to_global(parent, block_len, stride, offset);
                    }
                }
                got |= found;
            }
            if (lane == b) mine = got;
        }
        bool entered = false;
        if (mine) {
            const u64 old = words[r];
            words[r] = old | mine;
            entered = ld_multi_took(next, levels, width, depth, full, out_degree, r, old, mine, tally);
        }
        ld_stage_add(entering, entered, (int)r);
        ld_stage_flush(entering, queue, counters + LD_M_FOUND, blockDim.x, false);    // also a barrier
    }
    ld_stage_flush(entering, queue, counters + LD_M_FOUND, 0, true);
    ld_multi_flush(counters, tally);
}

// The owner's claims of received (id, word) pairs: bit i of entry e has parent
// in_parents[offsets[e] + (bits of in_words[e] below i)].
template <bool PARENTS>
__global__ void ld_multi_merge(const int* __restrict__ ids, const u64* __restrict__ in_words,
                               const i64* __restrict__ offsets, const i64* __restrict__ in_parents, i64 count,
                               u64* words, u64* next, int* __restrict__ queue, i64* __restrict__ parents,
                               i64* __restrict__ levels, int width, i64 depth, u64 full,
                               const i64* __restrict__ out_degree, u64* __restrict__ counters) {
    __shared__ ld_stage entering;
    ld_stage_init(entering);
    ld_multi_tally tally;
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < count; first += (i64)gridDim.x * blockDim.x) {
        const i64 e = first + threadIdx.x;
        bool entered = false;
        int v = 0;
        if (e < count) {
            v = ids[e];
            const u64 offered = in_words[e];
            u64 old = 0;
            const u64 fresh = ld_multi_claim(words, v, offered, old);
            if (fresh) {
                if constexpr (PARENTS) {
                    for (u64 b = fresh; b; b &= b - 1) {
                        const int i = ld_lowest_bit(b);
                        const i64 below = __popcll(offered & ((1ull << i) - 1ull));
                        parents[(i64)v * width + i] = in_parents[offsets[e] + below];
                    }
                }
                entered = ld_multi_took(next, levels, width, depth, full, out_degree, v, old, fresh, tally);
            }
        }
        ld_stage_add(entering, entered, v);
        ld_stage_flush(entering, queue, counters + LD_M_FOUND, blockDim.x, false);    // also a barrier
    }
    ld_stage_flush(entering, queue, counters + LD_M_FOUND, 0, true);
    ld_multi_flush(counters, tally);
}

// -- the fold's helpers -----------------------------------------------------------------------
extern "C" __global__ void ld_multi_popcounts(const u64* __restrict__ words, i64 count, i64* __restrict__ out) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (i64)gridDim.x * blockDim.x)
        out[i] = __popcll(words[i]);
}

// [vertices per owner, bits per owner] of the first counters[LD_M_FOUND] queue entries, owner =
// id / block_len (nowners <= LD_MAX_OWNERS), counted in shared memory first.
extern "C" __global__ void ld_multi_fold_count(const int* __restrict__ queue, const u64* __restrict__ counters,
                                               const u64* __restrict__ words, i64 block_len, int nowners,
                                               u64* __restrict__ out) {
    __shared__ u64 s_counts[2 * LD_MAX_OWNERS];
    for (int i = threadIdx.x; i < 2 * nowners; i += blockDim.x) s_counts[i] = 0;
    __syncthreads();
    const i64 count = (i64)counters[LD_M_FOUND];
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (i64)gridDim.x * blockDim.x) {
        const int v = queue[e];
        const int owner = (int)(v / block_len);
        atomicAdd(s_counts + owner, 1ull);
        atomicAdd(s_counts + nowners + owner, (u64)__popcll(words[v]));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 2 * nowners; i += blockDim.x)
        if (s_counts[i]) atomicAdd(out + i, s_counts[i]);
}

// The parents of every set bit of words[e], in increasing bit order, from offsets[e] on:
// cand_parents[sources[e], i].
extern "C" __global__ void ld_multi_pack_parents(const int* __restrict__ sources, const u64* __restrict__ words,
                                                 const i64* __restrict__ offsets, i64 count,
                                                 const i64* __restrict__ cand_parents, int width,
                                                 i64* __restrict__ out) {
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (i64)gridDim.x * blockDim.x) {
        const i64 row = (i64)sources[e] * width;
        i64 at = offsets[e];
        for (u64 b = words[e]; b; b &= b - 1) out[at++] = cand_parents[row + ld_lowest_bit(b)];
    }
}

// occupancy bit w*32+l: words[w*32+l] != 0 (nwords a multiple of 32), the input of a list of the
// nonzero words (ld_list_from_bitmap in bitmap.cu).
extern "C" __global__ void ld_multi_occupancy(const u64* __restrict__ words, i64 nwords, u32* __restrict__ occupancy) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 32 < nwords; w += nwarps) {
        const i64 i = w * 32 + lane;
        const u32 set = __ballot_sync(LD_FULL_WARP, i < nwords && words[i] != 0);
        if (lane == 0) occupancy[w] = set;
    }
}

#ifdef LD_NVCC_CHECK   // explicit instances, so that a plain nvcc compile checks every body
#define LD_MULTI_INSTANCES(P) \
    template __global__ void ld_multi_push<P>(const i64*, const int*, const int*, int, const u64*, const i64*, \
        i64, i64, i64, u64*, u64*, int*, i64*, i64*, int, i64, u64, const i64*, u64*); \
    template __global__ void ld_multi_pull<P>(const i64*, const int*, i64, const u64*, u64, i64, i64, i64, \
        u64*, u64*, int*, i64*, i64*, int, i64, u64, const i64*, u64*); \
    template __global__ void ld_multi_merge<P>(const int*, const u64*, const i64*, const i64*, i64, \
        u64*, u64*, int*, i64*, i64*, int, i64, u64, const i64*, u64*);
LD_MULTI_INSTANCES(false)
LD_MULTI_INSTANCES(true)
#endif
