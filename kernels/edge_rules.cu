// The Graph500 edge rules in one pass over a block's stored edges (lagraph_dist.tools.validate),
// the CUDA twin of lagraph_dist/local/cpu_kernels/edge_rules.py, whose docstring says the rules.
//
// Each thread takes a run of `run` consecutive entries (layout.py's RULE_EDGES): one search of
// indptr finds the run's first row, then the row steps forward with the entries. A tail that was not reached has
// nothing to check, so its edges' heads are never read. The first broken edge of each rule is the
// smallest key head * n + tail, kept by atomicMin (a correct result writes none).
#include "common.cuh"

// The row holding entry e: the last r with indptr[r] <= e (empty rows share their start).
__device__ __forceinline__ i64 ld_row_of(const i64* __restrict__ indptr, i64 nrows, i64 e) {
    i64 low = 0, high = nrows;          // indptr[low] <= e < indptr[high]
    while (high - low > 1) {
        const i64 mid = low + (high - low) / 2;
        if (__ldg(indptr + mid) <= e) low = mid; else high = mid;
    }
    return low;
}

// found[0]: smallest key of an edge from a reached tail to an unreached head; found[1]: of an
// edge more than one level down; found[2]: of an endpoint outside [0, n) (a broken block).
// marks[head] = 1 where the edge vouches for its head: it is the head's tree edge (parents
// given) or it comes from one level up (levels only).
extern "C" __global__ void ld_check_edges(const i64* __restrict__ indptr, const int* __restrict__ indices,
                                          i64 nrows, i64 row_len, i64 row_stride, i64 row_offset, i64 col_len,
                                          i64 col_stride, i64 col_offset, int rows_are_heads,
                                          const i64* __restrict__ depth, const i64* __restrict__ parents, i64 n,
                                          unsigned char* __restrict__ marks, u64* __restrict__ found, i64 run) {
    const i64 nnz = __ldg(indptr + nrows);
    const i64 step = (i64)gridDim.x * blockDim.x * run;
    for (i64 first = ((i64)blockIdx.x * blockDim.x + threadIdx.x) * run; first < nnz; first += step) {
        const i64 last = first + run < nnz ? first + run : nnz;
        i64 row = ld_row_of(indptr, nrows, first);
        i64 row_end = __ldg(indptr + row + 1);
        i64 row_id = ld_to_global(row, row_len, row_stride, row_offset);
        for (i64 e = first; e < last; ++e) {
            while (e >= row_end) {
                ++row;
                row_end = __ldg(indptr + row + 1);
                row_id = ld_to_global(row, row_len, row_stride, row_offset);
            }
            const i64 col_id = ld_to_global(__ldg(indices + e), col_len, col_stride, col_offset);
            const i64 tail = rows_are_heads ? col_id : row_id, head = rows_are_heads ? row_id : col_id;
            if (tail < 0 || tail >= n || head < 0 || head >= n) {
                atomicMin(found + 2, 0ull);
                continue;
            }
            const i64 tail_depth = __ldg(depth + tail);
            if (tail_depth < 0) continue;
            const i64 head_depth = __ldg(depth + head);
            const u64 key = (u64)head * (u64)n + (u64)tail;
            if (head_depth < 0) atomicMin(found, key);
            else if (head_depth > tail_depth + 1) atomicMin(found + 1, key);
            // a tree edge leads one level down (the rules before these checked it): only then
            // are the head's parent and its mark touched
            if (head_depth == tail_depth + 1 && (parents == nullptr || __ldg(parents + head) == tail)) marks[head] = 1;
        }
    }
}
