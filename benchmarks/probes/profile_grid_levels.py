"""Where a small level's time goes on a grid of GPUs (one MPI rank a GPU): searches whose every
level is small (a mesh's), per-level seconds, launches and host reads from the records, the
stage-synced split of one search, and cProfile of rank 0 over the searches (host time by
function), so that the fixed price of a distributed level can be read call by call.

    mpirun -n 2 python3 -m mpi4py benchmarks/probes/profile_grid_levels.py --grid 1x2 [--mesh 200]
        [--transport nccl] [--backend gpu] [--searches 3] [--lines 40] [--json out.json]

On a 1x1 grid the levels run unfused (the fused kernel would hide them), for the one-GPU
price of the same levels.
"""
import argparse
import cProfile
import io
import pstats
import time

import numpy as np

import lagraph_dist as ld
from lagraph_dist.algebra.levels import separate_levels
from lagraph_dist.core.settings import settings
from lagraph_dist.io.generators import grid2d_edges
from lagraph_dist.tools.bench import environment, write_json


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grid", default="1x2", help="RxC (default 1x2)")
    parser.add_argument("--transport", default=None)
    parser.add_argument("--mesh", type=int, default=200, help="side of the square mesh (default 200)")
    parser.add_argument("--backend", default="gpu", help="gpu (default) or cpu (the same levels' host path)")
    parser.add_argument("--searches", type=int, default=3)
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--json", help="rank 0 writes the record here")
    return parser.parse_args()


def per_level(levels, name):
    values = [level[name] for level in levels]
    return float(np.mean(values)) if values else float("nan")


def timed_searches(A, searches):
    """Wall seconds of each search (all ranks done) and the last one's level records."""
    walls, stats = [], None
    for _ in range(searches):
        A.grid.comm.Barrier()
        started = time.perf_counter()
        result = ld.bfs(A, 0)
        A.backend.sync()
        A.grid.comm.Barrier()
        walls.append(time.perf_counter() - started)
        stats = result.stats
    return walls, stats


def main():
    args = arguments()
    rows, cols = (int(x) for x in args.grid.lower().split("x"))
    grid = ld.Grid(rows, cols, transport=args.transport)
    src, dst = grid2d_edges(args.mesh, args.mesh, part=grid.rank, nparts=grid.size)
    A = ld.Matrix.from_edges(src, dst, args.mesh * args.mesh, symmetrize=True, grid=grid, backend=args.backend)
    with separate_levels():          # (a 1x1 grid: the levels one by one, as a grid runs them)
        ld.bfs(A, 0)                  # compiles and warms every path
        walls, stats = timed_searches(A, args.searches)
        with settings.changed(sync_stage_timers=True):
            _, synced = timed_searches(A, 1)
        profile = cProfile.Profile()
        profile.enable()
        timed_searches(A, args.searches)
        profile.disable()
    stages = {}
    for level in synced:
        for name, seconds in (level.get("stage_seconds") or {}).items():
            stages[name] = stages.get(name, 0.0) + seconds / len(synced)
    record = {"benchmark": "profile_grid_levels", "grid": [rows, cols], "transport": grid.transport.name,
              "graph": f"mesh:{args.mesh}x{args.mesh}", "n": A.n, "levels": len(stats),
              "search_seconds": walls, "level_us": 1e6 * float(np.median(walls)) / len(stats),
              "launches_per_level": per_level(stats, "launches"), "host_reads_per_level": per_level(stats, "host_reads"),
              "synced_stage_us_per_level": {k: 1e6 * v for k, v in stages.items()},
              "environment": environment(A)}
    if grid.rank == 0:
        print(f"{args.grid} {grid.transport.name} mesh {args.mesh}: {len(stats)} levels, "
              f"{record['level_us']:.1f} us a level, {record['launches_per_level']:.1f} launches and "
              f"{record['host_reads_per_level']:.1f} host reads a level", flush=True)
        print("  stage-synced us a level: " + ", ".join(f"{k} {v:.1f}" for k, v in
                                                       record["synced_stage_us_per_level"].items()), flush=True)
        calls = len(stats) * args.searches
        for order in ("tottime", "cumtime"):
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats(order).print_stats(args.lines)
            print(f"  cProfile of rank 0 by {order} ({calls} levels):\n{text.getvalue()}", flush=True)
        if args.json:
            write_json(record, args.json)


if __name__ == "__main__":
    main()
