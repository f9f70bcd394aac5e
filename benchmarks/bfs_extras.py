"""The BFS extras against the searches they replace, on Kronecker graphs, every result checked.

* multi-source: ``ld.bfs_multi`` from k roots (default 64, Kronecker scale 22) against k
  separate ``ld.bfs`` calls from the same roots: searches per second of each, and their ratio
  (issue 10's target: at least 5x on one H100). Every row's levels equal the single search's,
  and every row's and every single search's parents pass ``ld.validate``.
* depth limit: ``ld.bfs(A, r, depth_limit=2)`` against the full search from the same roots
  (default 8, scale 26): the ratio of times (target: at most 20%). The limited levels equal the
  full search's truncated at the limit; its parents are checked as a BFS tree of them (the
  parent one level up, the tree edge an edge of the graph, looked up in the ranks' blocks).

Timing follows BENCHMARKING.md: from the call to the result being complete on the device
(synchronised, all ranks), warm-up calls excluded, median of ``--repeats``; the checks are not
timed. The JSON record has the device, commit, versions, grid and every run's seconds.

    python3 benchmarks/bfs_extras.py --json $OUT/bfs_extras.json                # GPU defaults
    python3 benchmarks/bfs_extras.py --backend cpu --multi-scale 10 --depth-scale 10
    mpirun -n 4 python3 benchmarks/bfs_extras.py --multi-scale 24 --depth-scale 27

Every rank runs it (every call below is collective); rank 0 prints and writes the record.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.tools.bench import device_name, environment, pick_roots, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import backend_option, build_timed, check_batch, timed  # noqa: E402


def say(A, text):
    if A.grid.rank == 0:
        print(text, flush=True)


def build(scale, args):
    grid = ld.Grid(*args.grid) if args.grid else ld.Grid()
    A, seconds = build_timed(lambda: ld.kronecker(scale, args.edgefactor, seed=args.seed, grid=grid,
                                                  backend=args.backend))
    say(A, f"scale {scale}: {A} built in {seconds:.1f} s")
    return A, {"kind": "kronecker", "scale": scale, "edgefactor": args.edgefactor, "seed": args.seed,
               "n": A.n, "nvals": A.nvals, "build_seconds": seconds}


# -- multi-source against separate searches ---------------------------------------------------
def run_multi(args):
    A, graph = build(args.multi_scale, args)
    roots = pick_roots(A, args.sources, seed=args.root_seed)
    ld.bfs_multi(A, roots[:2], direction=args.direction)          # warm-up: every kernel compiled
    for root in roots[:2]:
        ld.bfs(A, root, direction=args.direction)
    multi_seconds, single_seconds, validated = [], [], 0
    for repeat in range(args.repeats):
        result, seconds = timed(A, ld.bfs_multi, A, roots, direction=args.direction)
        multi_seconds.append(seconds)
        per_root, single_levels = [], []
        for root in roots:
            single, seconds = timed(A, ld.bfs, A, root, direction=args.direction)
            per_root.append(seconds)
            single_levels.append(single.levels.to_numpy())
            if repeat == 0:                       # each single search's parents, once
                ld.validate(A, root, single_levels[-1], single.parents.to_numpy())
                validated += 1
        single_seconds.append(per_root)
        validated += check_batch(A, roots, result, single_levels)
        say(A, f"  repeat {repeat}: bfs_multi {1e3 * multi_seconds[-1]:.1f} ms, "
               f"{len(roots)} x bfs {1e3 * sum(per_root):.1f} ms")
    multi_median = float(np.median(multi_seconds))
    singles_median = float(np.median([sum(s) for s in single_seconds]))
    record = {
        "graph": graph, "sources": len(roots), "roots": roots, "direction": args.direction,
        "batches": result.widths,
        "bfs_multi_seconds": multi_seconds, "single_seconds": single_seconds,
        "bfs_multi_searches_per_second": len(roots) / multi_median,
        "single_searches_per_second": len(roots) / singles_median,
        "speedup": singles_median / multi_median,
        "validated": validated, "levels_equal_single": True,
        "level_stats": result.stats,          # the last bfs_multi run, per batch and level
    }
    say(A, f"multi-source, {len(roots)} roots: bfs_multi {record['bfs_multi_searches_per_second']:.1f} "
           f"searches/s, separate bfs {record['single_searches_per_second']:.1f} searches/s: "
           f"{record['speedup']:.2f}x")
    return A, record


# -- depth limit against the full search ------------------------------------------------------
def tree_edges_exist(A, heads, tails):
    """Collective: is every heads[k] -> tails[k] an edge of A? Each rank looks up the pairs its
    block stores, by a binary search within the block's sorted rows."""
    xp, layout, grid = A.backend.xp, A.layout, A.grid
    mine = layout.edge_owner_rank(heads, tails) == grid.rank
    heads, tails = heads[mine], tails[mine]
    csr = A.block.by_col
    if heads.shape[0] == 0 or csr.nnz == 0:
        return grid.allreduce(int(heads.shape[0])) == 0
    rows = xp.asarray(layout.col_space(grid.col).to_local(heads))
    wanted = xp.asarray(layout.row_space(grid.row).to_local(tails))
    low, high = csr.indptr[rows], csr.indptr[rows + 1]           # search [low, high) of each row
    while True:
        open_ = low < high
        if not bool(open_.any()):
            break
        middle = (low + high) // 2
        below = open_ & (csr.indices[xp.minimum(middle, csr.nnz - 1)] < wanted)
        low = xp.where(below, middle + 1, low)
        high = xp.where(open_ & ~below, middle, high)
    found = (low < csr.indptr[rows + 1]) & (csr.indices[xp.minimum(low, csr.nnz - 1)] == wanted)
    return grid.allreduce(int(found.shape[0]) - int(found.sum())) == 0


def check_limited(A, root, full_levels, limited, depth):
    """The limited levels are the full ones cut at the limit; its parents form a BFS tree of them."""
    levels, parents = limited.levels.to_numpy(), limited.parents.to_numpy()
    expected = np.where((full_levels >= 0) & (full_levels <= depth), full_levels, -1)
    if not np.array_equal(levels, expected):
        raise AssertionError(f"depth_limit={depth} from {root}: levels differ from the truncated full search")
    if parents[root] != root or not np.array_equal(parents >= 0, levels >= 0):
        raise AssertionError(f"depth_limit={depth} from {root}: parents reach another set than the levels")
    children = np.flatnonzero(levels > 0)
    if not np.array_equal(levels[parents[children]], levels[children] - 1):
        raise AssertionError(f"depth_limit={depth} from {root}: a parent is not one level up")
    if not tree_edges_exist(A, parents[children], children):
        raise AssertionError(f"depth_limit={depth} from {root}: a tree edge is not an edge of the graph")


def run_depth(args, A=None, graph=None):
    if A is None:
        A, graph = build(args.depth_scale, args)
    roots = pick_roots(A, args.roots, seed=args.root_seed)
    ld.bfs(A, roots[0], direction=args.direction)                                  # warm-up
    ld.bfs(A, roots[0], direction=args.direction, depth_limit=args.depth)
    full_seconds, limited_seconds, checked = [], [], 0
    for root in roots:
        full_runs, limited_runs = [], []
        for _ in range(args.repeats):
            full, seconds = timed(A, ld.bfs, A, root, direction=args.direction)
            full_runs.append(seconds)
            limited, seconds = timed(A, ld.bfs, A, root, direction=args.direction, depth_limit=args.depth)
            limited_runs.append(seconds)
        full_levels = full.levels.to_numpy()
        ld.validate(A, root, full_levels, full.parents.to_numpy())
        check_limited(A, root, full_levels, limited, args.depth)
        checked += 1
        full_seconds.append(full_runs)
        limited_seconds.append(limited_runs)
    full_median = [float(np.median(r)) for r in full_seconds]
    limited_median = [float(np.median(r)) for r in limited_seconds]
    record = {
        "graph": graph, "roots": roots, "depth_limit": args.depth, "direction": args.direction,
        "full_seconds": full_seconds, "limited_seconds": limited_seconds,
        "time_ratio": sum(limited_median) / sum(full_median),
        "time_ratio_per_root": [lim / full for lim, full in zip(limited_median, full_median)],
        "checked": checked,
        "level_stats": {"full": full.stats, "limited": limited.stats},     # the last root's
    }
    say(A, f"depth_limit={args.depth}, {len(roots)} roots: {1e3 * np.median(limited_median):.2f} ms "
           f"against {1e3 * np.median(full_median):.2f} ms full: {100 * record['time_ratio']:.1f}% of the time")
    return A, record


def arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--multi-scale", type=int, default=22, help="Kronecker scale of the multi-source runs")
    parser.add_argument("--depth-scale", type=int, default=26, help="Kronecker scale of the depth-limit runs")
    parser.add_argument("--sources", type=int, default=64, help="roots of bfs_multi (and of the separate searches)")
    parser.add_argument("--roots", type=int, default=8, help="roots of the depth-limit comparison")
    parser.add_argument("--depth", type=int, default=2, help="the depth limit")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each search (median)")
    parser.add_argument("--direction", choices=("push", "pull", "auto"), default="auto")
    parser.add_argument("--edgefactor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0, help="Kronecker seed")
    parser.add_argument("--root-seed", type=int, default=2, help="seed picking the roots")
    backend_option(parser, "where the graphs live and the searches run (auto: the GPU if CuPy sees one)")
    parser.add_argument("--grid", type=lambda t: tuple(int(x) for x in t.split("x")), default=None,
                        metavar="RxC", help="process grid (default: the most square over all ranks)")
    parser.add_argument("--only", choices=("multi", "depth"), default=None, help="run one part only")
    parser.add_argument("--json", metavar="PATH", default=None, help="write the record here")
    return parser.parse_args(argv)


def main(argv=None):
    args = arguments(argv)
    record = {"benchmark": "bfs_extras", "issue": 10}
    A = None
    if args.only in (None, "multi"):
        A, record["multi_source"] = run_multi(args)
    if args.only in (None, "depth"):
        same = A is not None and args.depth_scale == args.multi_scale
        A, record["depth_limit"] = run_depth(args, *((A, record["multi_source"]["graph"]) if same else ()))
    record["device"] = device_name(A.backend)
    record["environment"] = environment(A)
    record["peak_device_bytes"] = A.backend.memory_pool_peak()
    if A.grid.rank == 0 and args.json:
        write_json(record, args.json)
        print(f"wrote {args.json}", flush=True)
    return record


if __name__ == "__main__":
    main(sys.argv[1:])
