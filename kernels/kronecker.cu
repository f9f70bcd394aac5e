// Graph500 Kronecker edges on the device, one thread an edge (the arithmetic is kronecker.cuh's,
// shared with the host build that the tests compare with the numpy generator): edges
// first .. first + count - 1 into src and dst. A chunk of 2^23 edges was about 30 launches of
// array operations a level pair; it is one launch.
#include "common.cuh"
#include "kronecker.cuh"

extern "C" __global__ void ld_kronecker_edges(i64 first, i64 count, int scale, const u64* __restrict__ level_keys,
                                              const u64* __restrict__ thresholds,
                                              const u64* __restrict__ permute_keys, int rounds,
                                              i64* __restrict__ src, i64* __restrict__ dst) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (i64)gridDim.x * blockDim.x)
        ld_kronecker_edge((u64)(first + i), scale, level_keys, thresholds, permute_keys, rounds, src + i, dst + i);
}
