// Bottom-up (pull) masked SpMV: w = u' M over a bitmap frontier, one output row at a time,
// reading M compressed by output row. ld_pull_rows gives each warp 32 consecutive rows (one
// output word): lane b scans row 32w+b's inputs in increasing order, four loads in flight at
// a time, and stops at the first one in the frontier when the semiring allows; the warp's
// results become the word through one ballot. Rows longer than `long_threshold` are queued for
// ld_pull_long_rows, a warp a row, 64 inputs a step in two coalesced loads, stopping at the
// first step with a hit. Found rows go to the output queue and queued rows to the long-row
// queue through shared-memory stages (one global atomic a block flush), and the found rows'
// out-degrees are summed for the direction rule. Both kernels walk their work in rounds that
// are the same for every thread of a block, as the stages require.
//
// The row scans are pull_steps.cuh's, shared with fused.cu's pull: ld_pull_short_row (a lane a
// row) in ld_pull_rows, ld_pull_warp_row (a warp a row, two loads a step) in ld_pull_long_rows;
// this kernel reads the frontier bitmap through the read-only cache (COHERENT false).
#include "common.cuh"
#include "pull_steps.cuh"

template <int MULT, int ADD, typename V>
__global__ void ld_pull_rows(const i64* __restrict__ indptr, const int* __restrict__ indices, i64 nrows,
                             const u32* __restrict__ frontier_words, const V* __restrict__ frontier_values,
                             const u32* __restrict__ mask, int mask_mode,
                             u32* __restrict__ out_words, V* __restrict__ out_values, int* __restrict__ queue,
                             int* __restrict__ long_rows, i64 long_threshold,
                             u64* __restrict__ counters, const i64* __restrict__ out_degree,
                             i64 block_len, i64 stride, i64 offset) {
    __shared__ ld_stage found_stage, long_stage;
    ld_stage_init(found_stage);
    ld_stage_init(long_stage);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const i64 nwords = (nrows + 31) >> 5;
    u64 examined = 0, pushed_edges = 0;
    for (i64 round = (i64)blockIdx.x * warps; round < nwords; round += (i64)gridDim.x * warps) {
        const i64 w = round + warp;
        const i64 r = w * 32 + lane;
        bool found = false, queue_it = false;
        V value = V();
        if (w < nwords && r < nrows && ld_allowed(mask, mask_mode, r)) {
            const i64 start = indptr[r], end = indptr[r + 1];
            if (end - start > long_threshold) queue_it = true;
            else found = ld_pull_short_row<MULT, ADD, V, false>(indices, start, end, frontier_words, frontier_values,
                                                                 examined, value, block_len, stride, offset);
        }
        ld_stage_add(long_stage, queue_it, (int)r);
        ld_stage_add(found_stage, found, (int)r);
        const u32 word = __ballot_sync(0xffffffffu, found);
        if (found) {
            out_values[r] = value;
            if (out_degree) pushed_edges += (u64)out_degree[r];
        }
        if (lane == 0 && word) out_words[w] = word;     // the warp owns this word
        ld_stage_flush(long_stage, long_rows, counters + LD_LONG_ROWS, blockDim.x, false);
        ld_stage_flush(found_stage, queue, counters + LD_FOUND, blockDim.x, false);
    }
    ld_stage_flush(long_stage, long_rows, counters + LD_LONG_ROWS, 0, true);
    ld_stage_flush(found_stage, queue, counters + LD_FOUND, 0, true);
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
    __shared__ ld_stage found_stage;
    ld_stage_init(found_stage);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const i64 queued = (i64)counters[LD_LONG_ROWS];
    u64 examined = 0, pushed_edges = 0;
    for (i64 round = (i64)blockIdx.x * warps; round < queued; round += (i64)gridDim.x * warps) {
        const i64 q = round + warp;
        bool found = false;
        int r = 0;
        if (q < queued) {
            r = long_rows[q];
            const i64 start = indptr[r], end = indptr[r + 1];
            V value = V();
            found = ld_pull_warp_row<MULT, ADD, V, false, 2>(indices, start, end, frontier_words, frontier_values,
                                                              lane, examined, value, block_len, stride, offset);
            if (lane == 0 && found) {
                atomicOr(out_words + (r >> 5), 1u << (r & 31));
                out_values[r] = value;
                if (out_degree) pushed_edges += (u64)out_degree[r];
            }
        }
        ld_stage_add(found_stage, lane == 0 && found, r);
        ld_stage_flush(found_stage, queue, counters + LD_FOUND, warps, false);
    }
    ld_stage_flush(found_stage, queue, counters + LD_FOUND, 0, true);
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
LD_VALUED_CHECKS(LD_PULL_INSTANCES)
#endif
