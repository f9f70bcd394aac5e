// Bottom-up (pull) masked SpMV: w = u' M over a bitmap frontier, one output row at a time,
// reading M compressed by output row. ld_pull_rows gives each warp 32 consecutive rows (one
// output word): lane b scans row 32w+b's inputs in increasing order and stops at the first
// one in the frontier when the semiring allows; the warp's results become the word through one
// ballot. Rows longer than `long_threshold` are queued (one atomic a warp) for
// ld_pull_long_rows, a warp a row, 32 inputs a step (coalesced), stopping at the first step with
// a hit. Both kernels append the rows they find to the output queue (one atomic a warp) and sum
// the found rows' out-degrees for the direction rule.
#include "common.cuh"

template <int MULT, int ADD, typename V>
__global__ void ld_pull_rows(const i64* __restrict__ indptr, const int* __restrict__ indices, i64 nrows,
                             const u32* __restrict__ frontier_words, const V* __restrict__ frontier_values,
                             const u32* __restrict__ mask, int mask_mode,
                             u32* __restrict__ out_words, V* __restrict__ out_values, int* __restrict__ queue,
                             int* __restrict__ long_rows, i64 long_threshold,
                             u64* __restrict__ counters, const i64* __restrict__ out_degree,
                             i64 block_len, i64 stride, i64 offset) {
    constexpr bool stop_at_first = ld_first_hit_final<MULT, ADD>::value;
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    const i64 nwords = (nrows + 31) >> 5;
    u64 examined = 0, pushed_edges = 0;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < nwords; w += nwarps) {
        const i64 r = w * 32 + lane;
        bool found = false, queue_it = false;
        V value = V();
        if (r < nrows && ld_allowed(mask, mask_mode, r)) {
            const i64 start = indptr[r], end = indptr[r + 1];
            if (end - start > long_threshold) {
                queue_it = true;
            } else {
                for (i64 e = start; e < end; ++e) {
                    const int c = __ldg(indices + e);
                    ++examined;
                    if (!ld_bit(frontier_words, c)) continue;
                    const V left = MULT == LD_MULT_LAND ? frontier_values[c] : V();
                    const V x = ld_multiply<MULT, V>(c, left, block_len, stride, offset);
                    value = found ? ld_combine<ADD, V>(value, x) : x;
                    found = true;
                    if (stop_at_first || (ADD == LD_ADD_LOR && value)) break;
                }
            }
        }
        ld_warp_append(queue_it, (int)r, long_rows, counters + LD_LONG_ROWS);
        ld_warp_append(found, (int)r, queue, counters + LD_FOUND);
        const u32 word = __ballot_sync(0xffffffffu, found);
        if (found) {
            out_values[r] = value;
            if (out_degree) pushed_edges += (u64)out_degree[r];
        }
        if (lane == 0 && word) out_words[w] = word;     // the warp owns this word
    }
    ld_add_block_count(counters + LD_EXAMINED, examined);
    ld_add_block_count(counters + LD_PUSH_EDGES, pushed_edges);
}

template <int MULT, int ADD, typename V>
__global__ void ld_pull_long_rows(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                  const int* __restrict__ long_rows,
                                  const u32* __restrict__ frontier_words, const V* __restrict__ frontier_values,
                                  u32* __restrict__ out_words, V* __restrict__ out_values, int* __restrict__ queue,
                                  u64* __restrict__ counters, const i64* __restrict__ out_degree,
                                  i64 block_len, i64 stride, i64 offset) {
    constexpr bool stop_at_first = ld_first_hit_final<MULT, ADD>::value;
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    const i64 queued = (i64)counters[LD_LONG_ROWS];
    u64 examined = 0, pushed_edges = 0;
    // lane b remembers the b-th row of the warp's current batch of 32, so that found rows are
    // appended to the output queue with one atomic a batch, not one a row
    int batch_row = 0, slot = 0;
    bool batch_found = false;
    for (i64 q = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; q < queued; q += nwarps) {
        const int r = long_rows[q];
        const i64 start = indptr[r], end = indptr[r + 1];
        bool found = false;
        V value = V();
        for (i64 base = start; base < end; base += 32) {
            const i64 e = base + lane;
            bool hit = false;
            V x = V();
            if (e < end) {
                const int c = __ldg(indices + e);
                hit = ld_bit(frontier_words, c);
                if (hit) x = ld_multiply<MULT, V>(c, MULT == LD_MULT_LAND ? frontier_values[c] : V(),
                                                  block_len, stride, offset);
            }
            if (lane == 0) examined += (end - base < 32) ? (end - base) : 32;
            const u32 hits = __ballot_sync(0xffffffffu, hit);
            if (!hits) continue;
            if constexpr (stop_at_first) {       // the lowest lane holds the smallest input id
                value = (V)__shfl_sync(0xffffffffu, (long long)x, __ffs(hits) - 1);
                found = true;
                break;
            } else {                             // lor: true as soon as any hit is true
                const bool any_true = __ballot_sync(0xffffffffu, hit && x) != 0;
                value = found ? ld_combine<ADD, V>(value, (V)any_true) : (V)any_true;
                found = true;
                if (value) break;
            }
        }
        if (lane == 0 && found) {
            atomicOr(out_words + (r >> 5), 1u << (r & 31));
            out_values[r] = value;
            if (out_degree) pushed_edges += (u64)out_degree[r];
        }
        if (lane == slot) { batch_row = r; batch_found = found; }
        if (++slot == 32) {
            ld_warp_append(batch_found, batch_row, queue, counters + LD_FOUND);
            slot = 0;
            batch_found = false;
        }
    }
    ld_warp_append(batch_found, batch_row, queue, counters + LD_FOUND);
    ld_add_block_count(counters + LD_EXAMINED, examined);
    ld_add_block_count(counters + LD_PUSH_EDGES, pushed_edges);
}

#ifdef LD_NVCC_CHECK   // explicit instances, so that a plain nvcc compile checks every body
#define LD_PULL_INSTANCES(M, A, V) \
    template __global__ void ld_pull_rows<M, A, V>(const i64*, const int*, i64, const u32*, const V*, const u32*, \
        int, u32*, V*, int*, int*, i64, u64*, const i64*, i64, i64, i64); \
    template __global__ void ld_pull_long_rows<M, A, V>(const i64*, const int*, const int*, \
        const u32*, const V*, u32*, V*, int*, u64*, const i64*, i64, i64, i64);
LD_PULL_INSTANCES(LD_MULT_PAIR, LD_ADD_ANY, bool)
LD_PULL_INSTANCES(LD_MULT_LAND, LD_ADD_LOR, bool)
LD_PULL_INSTANCES(LD_MULT_SECONDI, LD_ADD_ANY, long long)
LD_PULL_INSTANCES(LD_MULT_SECONDI, LD_ADD_MIN, long long)
#endif
