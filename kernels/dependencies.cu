// Brandes's sweeps of betweenness for a batch of searches from their levels: the CUDA twin of
// lagraph_dist/local/cpu_kernels/dependencies.py, whose docstring says the method (path counts
// forward over each search's shortest-path DAG, dependencies backward, 64 searches a word and one
// AND an edge for all of them).
//
// The driver (lagraph_dist/local/gpu_kernels/dependencies.py) takes the searches a group of words
// at a time. A slot is one vertex's word of a group: s = v * words + g. The depth planes
// planes[d * slots + s] hold the searches of slot s at depth d (ld_sweep_planes, once a group);
// then one launch a depth, forward from depth 0 and backward from the deepest. One float64 a
// (vertex, search) holds sigma (the path count) until the backward sweep settles the pair, then
// the quotient q = (1 + delta) / sigma its DAG predecessors take: a predecessor u's sum
// acc = sum q[v] over its DAG successors gives delta[u] = sigma[u] * acc and q[u] = 1 / sigma[u]
// + acc, so no second array is needed (a launch writes only the pairs of its own depth and reads
// only those of the next or previous one). A light slot's searches are summed a lane each, a
// heavier slot's by one warp, a row longer than `heavy_edges` by one block (deferred to
// ld_sweep_heavy), each in a fixed order: the results do not depend on scheduling. The per-slot
// dependencies are summed over the words by the driver.
#include "common.cuh"

#define LD_SWEEP_ALL 0xffffffffu

// the 64 lanes' conditions of a warp's two halves (bit i: search i of the word)
__device__ __forceinline__ u64 ld_sweep_ballot(bool low, bool high) {
    return (u64)__ballot_sync(LD_SWEEP_ALL, low) | ((u64)__ballot_sync(LD_SWEEP_ALL, high) << 32);
}

// One depth launch's arguments, passed as one struct (the driver packs the few fields that change
// from launch to launch into a buffer it keeps: CuPy's conversion of a dozen arguments cost more
// than a mesh's depth itself). Its field order is gpu_kernels/dependencies.py's SWEEP_ARGUMENTS.
struct ld_sweep_args {
    const i64* indptr; const int* indices;     // in-edges forward, out-edges backward
    const u64* planes; double* values; double* per_slot;
    i64 n; i64 words; i64 thread_work; i64 heavy_edges;
    i64* heavy; unsigned long long* heavy_counts; unsigned long long* examined;
    i64 depth; i64 backward; i64 first;        // the planes of `depth` and of the depth before
};                                             // (forward) or after (backward) it

// Each slot's searches split by depth: planes[d * slots + s] = the bits of slot s whose level is d
// (planes zeroed by the driver), and each search's vertices reached besides its source added to
// reached[first + column] (zeroed by the driver; counted in shared memory first: CuPy's sum over
// the levels' first axis, a column at a time, took longer than both sweeps of Kronecker 22).
// With `reaching` (endpoints): each vertex's count of searches reaching it besides its source's own
// added there, and each search's source written to sources[first + column].
// A warp a slot, lane i reading searches i and i + 32 of the word; at most LD_SWEEP_GROUP_WORDS words a group.
extern "C" __global__ void ld_sweep_planes(const int* __restrict__ levels, i64 k, i64 first, i64 n, i64 words,
                                           u64* __restrict__ planes, unsigned long long* reached, double* reaching,
                                           i64* sources) {
    __shared__ unsigned counted[LD_SWEEP_GROUP_WORDS * 64];
    for (int c = threadIdx.x; c < LD_SWEEP_GROUP_WORDS * 64; c += blockDim.x) counted[c] = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const i64 slots = n * words;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 s = (((i64)blockIdx.x * blockDim.x) + threadIdx.x) >> 5; s < slots; s += warps) {
        const i64 g = s % words, v = s / words, column = first + g * 64 + lane;
        const int low = column < k ? levels[v * k + column] : -1;
        const int high = column + 32 < k ? levels[v * k + column + 32] : -1;
        if (low > 0) atomicAdd(&counted[g * 64 + lane], 1u);
        if (high > 0) atomicAdd(&counted[g * 64 + lane + 32], 1u);
        if (reaching) {
            const int searches = __popcll(ld_sweep_ballot(low > 0, high > 0));
            if (lane == 0 && searches) atomicAdd(reaching + v, (double)searches);
            if (low == 0) sources[column] = v;
            if (high == 0) sources[column + 32] = v;
        }
        for (u64 left = ld_sweep_ballot(low >= 0, high >= 0); left;) {
            const int j = __ffsll((long long)left) - 1;                 // the same j in every lane
            const int depth = __shfl_sync(LD_SWEEP_ALL, j < 32 ? low : high, j & 31);
            const u64 bits = ld_sweep_ballot(low == depth, high == depth);
            if (lane == 0) planes[(i64)depth * slots + s] = bits;
            left &= ~bits;
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < words * 64 && first + c < k; c += blockDim.x)
        if (counted[c]) atomicAdd(reached + first + c, (unsigned long long)counted[c]);
}

// Edges whose values a warp loads at once: the loads of a row's hits are independent, and one at a
// time each waited out its own latency (a Kronecker hub's row hits on most of its edges).
#define LD_SWEEP_HITS_AT_ONCE 4

// A warp's sums over the edges begin, begin + step, ... (< end) of a row, 32 at a time: for each
// edge to u, the bits of `mine` that u's slot has in `other` (the DAG's edges for these searches)
// add u's value to the lane's sum, lane i holding searches i (low) and i + 32 (high). The hits are
// added in edge order (a missing bit adds 0.0, which changes no sum).
__device__ __forceinline__ void ld_sweep_gather(const int* __restrict__ indices, i64 begin, i64 end, i64 step,
                                                u64 mine, const u64* __restrict__ other, i64 g, i64 words,
                                                const double* values, i64 width, double& low, double& high) {
    const int lane = threadIdx.x & 31;
    for (i64 base = begin; base < end; base += step) {
        const i64 e = base + lane;
        int u = 0;
        u64 common = 0;
        if (e < end) {
            u = indices[e];
            common = other[(i64)u * words + g] & mine;
        }
        for (unsigned hits = __ballot_sync(LD_SWEEP_ALL, common != 0); hits;) {
            double low_of[LD_SWEEP_HITS_AT_ONCE], high_of[LD_SWEEP_HITS_AT_ONCE];
#pragma unroll
            for (int t = 0; t < LD_SWEEP_HITS_AT_ONCE; ++t) {           // (hits is the same in every lane)
                const int j = hits ? __ffs(hits) - 1 : 0;
                const i64 from = __shfl_sync(LD_SWEEP_ALL, u, j);
                const u64 bits = hits ? __shfl_sync(LD_SWEEP_ALL, common, j) : 0;
                hits &= hits - 1;
                const double* row = values + from * width + g * 64 + lane;
                low_of[t] = (bits >> lane) & 1 ? row[0] : 0.0;
                high_of[t] = (bits >> (lane + 32)) & 1 ? row[32] : 0.0;
            }
#pragma unroll
            for (int t = 0; t < LD_SWEEP_HITS_AT_ONCE; ++t) {
                low += low_of[t];
                high += high_of[t];
            }
        }
    }
}

// One (vertex, search) pair's sum becomes its value: forward, the path count; backward, the
// quotient 1 / sigma + sum in place of sigma, and its dependency sigma * sum is returned.
__device__ __forceinline__ double ld_sweep_settle(double* value, double sum, bool backward) {
    if (!backward) {
        *value = sum;
        return 0.0;
    }
    const double sigma = *value;
    *value = 1.0 / sigma + sum;
    return sigma * sum;
}

// A slot's sums become its pairs' values (ld_sweep_settle), the dependencies' sum over the slot's
// searches added to per_slot[s].
__device__ __forceinline__ void ld_sweep_finish(bool backward, i64 v, i64 s, u64 mine, i64 g, double* values,
                                                i64 width, double* per_slot, double low, double high) {
    const int lane = threadIdx.x & 31;
    double* row = values + v * width + g * 64 + lane;
    double found = 0.0;
    if ((mine >> lane) & 1) found += ld_sweep_settle(row, low, backward);
    if ((mine >> (lane + 32)) & 1) found += ld_sweep_settle(row + 32, high, backward);
    if (!backward) return;
    for (int offset = 16; offset > 0; offset >>= 1) found += __shfl_down_sync(LD_SWEEP_ALL, found, offset);
    if (lane == 0) per_slot[s] += found;
}

// One search of a slot summed by one thread (few searches and a short row: a mesh's
// slots hold a search or two a depth, and a warp a slot would wait on its loads one slot after
// another): as ld_sweep_gather and ld_sweep_finish, for one search i of the slot. A sweep's first
// depth reads no edges (`start`: 1 forward, the sources' counts; 0 backward, no successors).
__device__ __forceinline__ double ld_sweep_one(const int* __restrict__ indices, i64 begin, i64 end, bool first,
                                               double start, bool backward, i64 v, i64 g, int i,
                                               const u64* __restrict__ other, i64 words, double* values,
                                               i64 width) {
    double sum = start;
    if (!first)
#pragma unroll 4
        for (i64 e = begin; e < end; ++e) {                  // (selects, not branches: the loads overlap)
            const int u = indices[e];
            const bool hit = (other[(i64)u * words + g] >> i) & 1;
            sum += hit ? values[(i64)u * width + g * 64 + i] : 0.0;
        }
    return ld_sweep_settle(values + v * width + g * 64 + i, sum, backward);
}

// The planes a depth reads: its own slots' and those of the depth its sums come from.
__device__ __forceinline__ void ld_sweep_planes_of(const ld_sweep_args& a, const u64*& own, const u64*& other) {
    const i64 slots = a.n * a.words;
    own = a.planes + a.depth * slots;
    other = a.first ? own : a.planes + (a.backward ? a.depth + 1 : a.depth - 1) * slots;
}

// The block of ld_sweep_depth holds at most this many threads (its shared sums: one a lane).
#define LD_SWEEP_DEPTH_MAX_THREADS 1024

// The light slots' pairs (a slot's searches, one each) of a warp's 32 slots, dealt out 32 at a
// time, one a lane: a mesh's light slots hold a search or two a depth and half the slots none, so
// a thread a slot left half the lanes idle while its neighbours summed their second search. The
// lane holding `bits` (0 when not light) owns pairs offset .. offset + popcount - 1, in the order
// of its bits; a pair's dependency (backward) is summed into its owner's `slot_sum` in that order,
// through the warp's shared row `found_of`, so the sums do not depend on scheduling.
__device__ __forceinline__ double ld_sweep_light_pairs(const int* __restrict__ indices, u64 bits, i64 v, i64 g,
                                                       i64 begin, i64 end, bool first, bool backward,
                                                       const u64* __restrict__ other, i64 words, double* values,
                                                       i64 width, double* found_of) {
    const int lane = threadIdx.x & 31;
    const int count = __popcll(bits);
    int offset = count;                                                // inclusive scan, then exclusive
    for (int d = 1; d < 32; d <<= 1) {
        const int below = __shfl_up_sync(LD_SWEEP_ALL, offset, d);
        if (lane >= d) offset += below;
    }
    const int total = __shfl_sync(LD_SWEEP_ALL, offset, 31);
    offset -= count;
    double slot_sum = 0.0;
    for (int round = 0; round < total; round += 32) {
        const int p = round + lane;
        int owner = 0;                                                 // the last lane whose offset <= p
        for (int step = 16; step > 0; step >>= 1) {
            const int probe = owner + step;
            if (__shfl_sync(LD_SWEEP_ALL, offset, probe & 31) <= p && probe < 32) owner = probe;
        }
        u64 left = __shfl_sync(LD_SWEEP_ALL, bits, owner);
        const int rank = p - __shfl_sync(LD_SWEEP_ALL, offset, owner);
        const i64 pv = __shfl_sync(LD_SWEEP_ALL, v, owner), pg = __shfl_sync(LD_SWEEP_ALL, g, owner);
        const i64 pbegin = __shfl_sync(LD_SWEEP_ALL, begin, owner), pend = __shfl_sync(LD_SWEEP_ALL, end, owner);
        double found = 0.0;
        if (p < total) {
            for (int t = 0; t < rank; ++t) left &= left - 1;
            found = ld_sweep_one(indices, pbegin, pend, first, first && !backward ? 1.0 : 0.0, backward, pv, pg,
                                 __ffsll((long long)left) - 1, other, words, values, width);
        }
        if (!backward) continue;
        found_of[lane] = found;
        __syncwarp();
        for (int q = max(offset, round); q < min(offset + count, round + 32); ++q) slot_sum += found_of[q - round];
        __syncwarp();
    }
    return slot_sum;
}

// One depth of a sweep over the slots whose bits at this depth are `own`: forward, each sums its
// in-edges' path counts from the previous depth (`other`); backward, its out-edges' quotients from
// the next depth. A sweep's first depth (`first`) reads no edges: forward, the sources' counts are
// 1; backward, the deepest pairs have no successors. A slot whose searches times its row's edges
// are at most `thread_work` is light: its searches are summed one a lane (ld_sweep_one), the warp's
// light pairs dealt out over its lanes (ld_sweep_light_pairs); a longer row by a warp; a
// row longer than `heavy_edges` is left to ld_sweep_heavy (its slot appended to `heavy`).
// `examined`: the rows' edges, summed.
extern "C" __global__ void ld_sweep_depth(const ld_sweep_args a) {
    __shared__ double found_of[LD_SWEEP_DEPTH_MAX_THREADS];
    const i64* __restrict__ indptr = a.indptr;
    const int* __restrict__ indices = a.indices;
    const u64 *own, *other;
    ld_sweep_planes_of(a, own, other);
    double* values = a.values;
    double* per_slot = a.per_slot;
    const i64 n = a.n, words = a.words;
    const bool backward = a.backward, first = a.first;
    unsigned long long* heavy_count = a.heavy_counts + 2 * a.depth + a.backward;
    const int lane = threadIdx.x & 31;
    const i64 slots = n * words, width = words * 64;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    double* warp_found = found_of + (threadIdx.x & ~31);
    for (i64 base = ((((i64)blockIdx.x * blockDim.x) + threadIdx.x) >> 5) * 32; base < slots; base += warps * 32) {
        const i64 mine_slot = base + lane;
        u64 mine = mine_slot < slots ? own[mine_slot] : 0;
        unsigned long long edges = 0;
        u64 light = 0;                                                 // the slot's bits, if light
        i64 row = 0, word = 0, row_begin = 0, row_end = 0;
        if (mine) {
            row = mine_slot / words, word = mine_slot % words;
            row_begin = indptr[row], row_end = indptr[row + 1];
            if (first || __popcll(mine) * (row_end - row_begin) <= a.thread_work) {
                light = mine;
                if (!first) edges += (unsigned long long)(row_end - row_begin);
                mine = 0;                                              // (not the warp path's)
            }
        }
        if (__any_sync(LD_SWEEP_ALL, light != 0)) {
            const double found = ld_sweep_light_pairs(indices, light, row, word, row_begin, row_end, first, backward,
                                                      other, words, values, width, warp_found);
            if (backward && light) per_slot[mine_slot] += found;
        }
        for (unsigned live = __ballot_sync(LD_SWEEP_ALL, mine != 0); live; live &= live - 1) {   // a warp a slot
            const int j = __ffs(live) - 1;
            const i64 s = base + j, v = s / words, g = s % words;
            const u64 bits = __shfl_sync(LD_SWEEP_ALL, mine, j);
            const i64 begin = indptr[v], end = indptr[v + 1];
            if (end - begin > a.heavy_edges) {
                if (lane == 0) a.heavy[atomicAdd(heavy_count, 1ull)] = s;
                continue;
            }
            if (lane == 0) edges += (unsigned long long)(end - begin);
            double low = 0.0, high = 0.0;
            ld_sweep_gather(indices, begin, end, 32, bits, other, g, words, values, width, low, high);
            ld_sweep_finish(backward, v, s, bits, g, values, width, per_slot, low, high);
        }
        for (int offset = 16; offset > 0; offset >>= 1) edges += __shfl_down_sync(LD_SWEEP_ALL, edges, offset);
        if (lane == 0 && edges) atomicAdd(a.examined, edges);
    }
}

// The slots ld_sweep_depth left for their long rows: a block a slot, its warps taking the row's
// edges in turn, their sums added in warp order.
extern "C" __global__ void ld_sweep_heavy(const ld_sweep_args a) {
    __shared__ double low_of[32][32], high_of[32][32];           // [warp][lane]
    const i64* __restrict__ indptr = a.indptr;
    const int* __restrict__ indices = a.indices;
    const u64 *own, *other;
    ld_sweep_planes_of(a, own, other);
    const i64 words = a.words;
    const bool backward = a.backward;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const i64 width = words * 64, count = (i64)a.heavy_counts[2 * a.depth + a.backward];
    for (i64 h = blockIdx.x; h < count; h += gridDim.x) {
        const i64 s = a.heavy[h], v = s / words, g = s % words;
        const u64 bits = own[s];
        const i64 begin = indptr[v], end = indptr[v + 1];
        double low = 0.0, high = 0.0;
        ld_sweep_gather(indices, begin + warp * 32, end, (i64)nwarps * 32, bits, other, g, words, a.values, width,
                        low, high);
        low_of[warp][lane] = low;
        high_of[warp][lane] = high;
        __syncthreads();
        if (warp == 0) {
            low = high = 0.0;
            for (int w = 0; w < nwarps; ++w) {
                low += low_of[w][lane];
                high += high_of[w][lane];
            }
            ld_sweep_finish(backward, v, s, bits, g, a.values, width, a.per_slot, low, high);
            if (lane == 0) atomicAdd(a.examined, (unsigned long long)(end - begin));
        }
        __syncthreads();
    }
}
