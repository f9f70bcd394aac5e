"""What the kernel pays to write a deep search's level records into the host's page-locked
mirror: the fused kernel's time (CUDA events around its launch) with the mirror taking
settings.fused_records_read records as shipped, against 64 (the records then copied after the kernel,
a copy that these events do not time), blocks of calls alternating in one process.

    python3 benchmarks/probes/mirror_records.py mesh:1000x1000 mesh:2000x2000 [--rounds 6] [--calls 15]
        [--json out.json]
"""
import argparse
import statistics
import sys
from pathlib import Path

import cupy as cp

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import device_name, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build  # noqa: E402

FEW = 64          # the mirror's records before 83218ba


def timed_fused_launches(kernels, start, end):
    """Events ``start`` and ``end`` around each fused launch of ``kernels`` (an instance
    attribute over the class's method, removed again by :func:`untimed`)."""
    launch = kernels.launch_cooperative

    def timed(*args):
        start.record()
        launch(*args)
        end.record()
    kernels.launch_cooperative = timed


def untimed(kernels):
    del kernels.launch_cooperative          # the class's method again


def measure(spec, mirrors, rounds, calls):
    """The fused kernel's time a call on graph ``spec`` with each mirror size of ``mirrors``."""
    A, roots = build(spec)
    source = (roots or [0])[0]
    levels = len(ld.bfs(A, source).stats)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    kernels = A.backend.kernels
    times = {m: [] for m in mirrors}
    timed_fused_launches(kernels, start, end)
    try:
        for _ in range(rounds):
            for mirror in mirrors:
                with settings.changed(fused_records_read=mirror):
                    for _ in range(calls):
                        result = ld.bfs(A, source)
                        end.synchronize()
                        times[mirror].append(1e3 * cp.cuda.get_elapsed_time(start, end))     # ms -> us
                        del result
    finally:
        untimed(kernels)
    return {"graph": spec, "levels": levels, "device": device_name(A.backend),
            "kernel_us": {str(m): {"median": statistics.median(t), "min": min(t), "calls": len(t)}
                          for m, t in times.items()}}


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    shipped = settings.fused_records_read
    mirrors = (FEW, shipped)
    graphs = []
    for spec in args.graphs:
        row = measure(spec, mirrors, args.rounds, args.calls)
        few, full = (row["kernel_us"][str(m)]["median"] for m in mirrors)
        row["extra_us"] = full - few
        graphs.append(row)
        print(f"{spec}: {row['levels']} levels; fused kernel median {few:.1f} us with {FEW} records mirrored, "
              f"{full:.1f} with {shipped} ({full - few:+.1f} us)")
    record = {"benchmark": "mirror-records", "device": graphs[0]["device"], "commit": code_identity()["commit"],
              "mirrors": list(mirrors), "rounds": args.rounds, "calls": args.calls,
              "protocol": "one process; blocks of calls alternating between the two mirror sizes; CUDA events "
                          "around each fused launch; medians over all calls of a size", "graphs": graphs}
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
