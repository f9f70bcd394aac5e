"""Graph500 BFS on one or several GPUs, one MPI rank a GPU: one JSON record per run.

    python3 benchmarks/multigpu_bench.py --scale 26 --grid 1x1 --out DIR
    mpirun --allow-run-as-root -n 2 python3 -m mpi4py benchmarks/multigpu_bench.py \\
        --scale 26 --grid 1x2 --transport nccl --out DIR

Per run: the Kronecker graph built on the devices (seconds), then push and auto over seeded
roots of nonzero degree, each timed from the call of bfs to the result being complete on every
rank, and each validated by the Graph500 rules (not timed). TEPS = undirected input edges in the
searched component / seconds, harmonic mean. The first root is searched once more with stage
timers that wait for the device, for the per-level compute / expand / fold seconds; every level
record carries its bytes and encodings, so lagraph_dist.tools.model can be set beside them.
"""
import argparse
import sys
import time
from pathlib import Path

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.tools.bench import _component_edges, environment, pick_roots, teps_summary, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import timed  # noqa: E402


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--grid", default="1x1", help="RxC (default 1x1)")
    parser.add_argument("--transport", default=None, help="nccl, mpi-cuda or mpi-host (default: the grid's)")
    parser.add_argument("--roots", type=int, default=16)
    parser.add_argument("--directions", default="push,auto")
    parser.add_argument("--tag", default="", help="a word for the file name (strong, weak, ...)")
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args()


def run_direction(A, roots, direction):
    for warm_up in ("push", "pull", direction):
        timed(A, ld.bfs, A, roots[0], direction=warm_up)
    seconds, edges, first_levels = [], [], None
    for k, root in enumerate(roots):
        result, elapsed = timed(A, ld.bfs, A, root, direction=direction)
        ld.validate(A, root, result.levels, result.parents)
        seconds.append(elapsed)
        edges.append(int(_component_edges(A, result)))
        if k == 0:
            first_levels = result.stats
    with settings.changed(sync_stage_timers=True):     # device-complete stage seconds, for the breakdown only
        profiled = ld.bfs(A, roots[0], direction=direction).stats
    summary = teps_summary(edges, seconds)
    summary.update(direction=direction, roots=len(roots), validated=len(roots), edges_per_root=edges,
                   seconds_per_root=seconds, levels_first_root=first_levels,
                   levels_first_root_stage_synced=profiled)
    return summary


def main():
    args = arguments()
    rows, cols = (int(x) for x in args.grid.lower().split("x"))
    grid = ld.Grid(rows, cols, transport=args.transport)
    started = time.perf_counter()
    A = ld.kronecker(args.scale, grid=grid, backend="gpu")
    A.backend.sync()
    grid.comm.Barrier()
    build = time.perf_counter() - started
    roots = pick_roots(A, args.roots, seed=2)
    runs = {d: run_direction(A, roots, d) for d in args.directions.split(",") if d}
    record = {"graph": {"kind": "kronecker", "scale": args.scale, "edgefactor": 16, "seed": 0,
                        "build_seconds": build},
              "n": A.n, "nvals": A.nvals, "environment": environment(A),
              "gpus": grid.size, "grid": [rows, cols], "transport": grid.transport.name, "lagraph_dist": runs,
              "peak_device_bytes": int(grid.allreduce(A.backend.memory_pool_peak(), "MAX")),
              "protocol": "graph500: seeded roots with degree > 0, warm-up excluded, every search validated; "
                          "TEPS = undirected input edges in the searched component / seconds"}
    if grid.rank == 0:
        args.out.mkdir(parents=True, exist_ok=True)
        name = f"gpu{grid.size}-{args.grid}-{grid.transport.name}-scale{args.scale}{'-' + args.tag if args.tag else ''}.json"
        write_json(record, args.out / name)
        for direction, run in runs.items():
            print(f"{name}: {direction} {run['harmonic_mean_teps'] / 1e9:.2f} GTEPS hmean, median "
                  f"{run['median_ms']:.2f} ms, build {build:.1f} s", flush=True)


if __name__ == "__main__":
    main()
