"""What the kernel pays to write a deep search's level records into the host's page-locked
mirror: the fused kernel's time (CUDA events around its launch) with the mirror taking
FUSED_RECORDS_READ records as shipped, against 64 (the records then copied after the kernel,
a copy that these events do not time), blocks of calls alternating in one process.

    python3 benchmarks/mirror_records.py mesh:1000x1000 mesh:2000x2000 [--rounds 6] [--calls 15]
        [--json out.json]
"""
import argparse
import json
import os
import statistics

import cupy as cp

import lagraph_dist as ld
import lagraph_dist.local.gpu_kernels.fused as fused
from gpu_quick import build
from lagraph_dist.tools.bench import device_name

FEW = 64          # the mirror's records before 83218ba


def kernel_timer():
    """Events around every fused launch from here on: (start, end) of the latest."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    launch = fused.FusedKernels.launch_cooperative

    def timed(self, *args):
        start.record()
        launch(self, *args)
        end.record()
    fused.FusedKernels.launch_cooperative = timed
    return start, end


def measure(spec, mirrors, rounds, calls, start, end):
    A, roots = build(spec)
    source = (roots or [0])[0]
    levels = len(ld.bfs(A, source).stats)
    times = {m: [] for m in mirrors}
    for _ in range(rounds):
        for mirror in mirrors:
            fused.FUSED_RECORDS_READ = mirror
            for _ in range(calls):
                result = ld.bfs(A, source)
                end.synchronize()
                times[mirror].append(1e3 * cp.cuda.get_elapsed_time(start, end))     # ms -> us
                del result
    return {"graph": spec, "levels": levels, "device": device_name(A.backend),
            "kernel_us": {str(m): {"median": statistics.median(t), "min": min(t), "calls": len(t)}
                          for m, t in times.items()}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    shipped = fused.FUSED_RECORDS_READ
    mirrors = (FEW, shipped)
    start, end = kernel_timer()
    graphs = []
    for spec in args.graphs:
        row = measure(spec, mirrors, args.rounds, args.calls, start, end)
        few, full = (row["kernel_us"][str(m)]["median"] for m in mirrors)
        row["extra_us"] = full - few
        graphs.append(row)
        print(f"{spec}: {row['levels']} levels; fused kernel median {few:.1f} us with {FEW} records mirrored, "
              f"{full:.1f} with {shipped} ({full - few:+.1f} us)")
    fused.FUSED_RECORDS_READ = shipped
    record = {"benchmark": "mirror-records", "device": graphs[0]["device"], "commit": os.environ.get("LAGRAPH_DIST_COMMIT"),
              "mirrors": list(mirrors), "rounds": args.rounds, "calls": args.calls,
              "protocol": "one process; blocks of calls alternating between the two mirror sizes; CUDA events "
                          "around each fused launch; medians over all calls of a size", "graphs": graphs}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
