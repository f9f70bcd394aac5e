"""What one grid-wide barrier costs on this GPU: a cooperative kernel of B blocks x T threads
runs R barriers (cooperative_groups grid.sync) and nothing else; the cost of one is the kernel's
time over R (events around the launch, best of several). Also one block's barrier
(__syncthreads) and, on a GPU with thread block clusters (compute capability 9.0), one cluster's
barrier (cluster.sync, clusters of 2, 4 and 8 blocks, one block an SM) for comparison, and
whether a cooperative launch takes a kernel built with clusters (grid.sync and cluster.sync in
one kernel: what levels run by a cluster between grid levels would need). Prints a table and,
with --json, writes it.

    python3 benchmarks/probes/grid_barrier.py [--rounds 20000] [--json out.json]
"""
import argparse

from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import write_json

SOURCE = r"""
#include <cooperative_groups.h>
extern "C" __global__ void grid_barriers(int rounds, int* sink) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int r = 0; r < rounds; ++r) grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] = rounds;
}
extern "C" __global__ void block_barriers(int rounds, int* sink) {
    for (int r = 0; r < rounds; ++r) __syncthreads();
    if (threadIdx.x == 0) sink[0] = rounds;
}
"""

CLUSTER_SIZES = (2, 4, 8)
CLUSTER_SOURCE = r"""
#include <cooperative_groups.h>
#define CLUSTER_BARRIERS(C) \
extern "C" __global__ void __cluster_dims__(C, 1, 1) cluster_barriers_##C(int rounds, int* sink) { \
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster(); \
    for (int r = 0; r < rounds; ++r) cluster.sync(); \
    if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] = rounds; \
}
CLUSTER_BARRIERS(2)
CLUSTER_BARRIERS(4)
CLUSTER_BARRIERS(8)
"""
GRID_AND_CLUSTER_SOURCE = r"""
#include <cooperative_groups.h>
extern "C" __global__ void __cluster_dims__(2, 1, 1) grid_and_cluster(int rounds, int* sink) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    for (int r = 0; r < rounds; ++r) { cluster.sync(); grid.sync(); }
    if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] = rounds;
}
"""


def time_kernel(cp, function, blocks, threads, rounds, sink, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        function((blocks,), (threads,), (rounds, sink))
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) * 1e3)     # us
    return best / rounds


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--json")
    args = parser.parse_args()
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",), enable_cooperative_groups=True)
    grid_fn, block_fn = module.get_function("grid_barriers"), module.get_function("block_barriers")
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    sink = cp.zeros(1, cp.int32)
    rows = []
    for threads in (256, 512, 1024):
        for per_sm in (1, 2):
            if threads * per_sm > 2048:
                continue
            us = time_kernel(cp, grid_fn, sms * per_sm, threads, args.rounds, sink)
            rows.append({"barrier": "grid", "blocks": sms * per_sm, "threads": threads, "us": us})
        rows.append({"barrier": "block", "blocks": 1, "threads": threads,
                     "us": time_kernel(cp, block_fn, 1, threads, args.rounds, sink)})
    cooperative_clusters = None
    if int(cp.cuda.Device().compute_capability) >= 90:
        clusters = cp.RawModule(code=CLUSTER_SOURCE, options=("-std=c++17",))
        for size in CLUSTER_SIZES:
            function = clusters.get_function(f"cluster_barriers_{size}")
            for threads in (512, 1024):
                rows.append({"barrier": f"cluster of {size}", "blocks": size, "threads": threads,
                             "us": time_kernel(cp, function, size, threads, args.rounds, sink)})
        cooperative_clusters = cooperative_cluster_launch(cp, sms, args.rounds, sink, rows)
    for row in rows:
        print(f"{row['barrier']:12s} {row['blocks']:4d} x {row['threads']:4d}: {row['us']:.3f} us a barrier")
    if cooperative_clusters is not None:
        print(f"a cooperative launch of a kernel built with clusters: {cooperative_clusters}")
    if args.json:
        write_json({"commit": code_identity()["commit"],
                    "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "barriers": rows,
                    "cooperative_launch_with_clusters": cooperative_clusters}, args.json)


def cooperative_cluster_launch(cp, sms, rounds, sink, rows):
    """Whether a kernel built with clusters of 2 compiles and launches cooperatively (a cluster
    barrier and a grid barrier each round, one block an SM, 512 threads): "yes" (its round's cost
    joins ``rows``) or the compiler's or the driver's error."""
    blocks = sms - sms % 2
    try:
        module = cp.RawModule(code=GRID_AND_CLUSTER_SOURCE, options=("-std=c++17",), enable_cooperative_groups=True)
        us = time_kernel(cp, module.get_function("grid_and_cluster"), blocks, 512, rounds, sink)
    except (cp.cuda.compiler.CompileException, cp.cuda.driver.CUDADriverError,
            cp.cuda.runtime.CUDARuntimeError) as error:
        return f"no ({type(error).__name__}: {str(error).splitlines()[0][:200]})"
    rows.append({"barrier": "grid + cluster of 2", "blocks": blocks, "threads": 512, "us": us})
    return "yes"


if __name__ == "__main__":
    main()
