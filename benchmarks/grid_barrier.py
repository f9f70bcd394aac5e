"""What one grid-wide barrier costs on this GPU: a cooperative kernel of B blocks x T threads
runs R barriers (cooperative_groups grid.sync) and nothing else; the cost of one is the kernel's
time over R (events around the launch, best of several). Also one block's barrier
(__syncthreads) for comparison. Prints a table and, with --json, writes it.

    python3 benchmarks/grid_barrier.py [--rounds 20000] [--json out.json]
"""
import argparse
import json
import os

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
    for row in rows:
        print(f"{row['barrier']:5s} {row['blocks']:4d} x {row['threads']:4d}: {row['us']:.3f} us a barrier")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"commit": os.environ.get("LAGRAPH_DIST_COMMIT"),
                       "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "barriers": rows},
                      handle, indent=1)


if __name__ == "__main__":
    main()
