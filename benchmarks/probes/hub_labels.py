"""Would hub-first vertex ids speed up the searches? A measurement for issue 20's push-only target.

    python3 benchmarks/probes/hub_labels.py --scale 25 --roots 8 --json out.json [--backend cpu]

Nsight Compute puts push-only Kronecker 26's big push level at 81.7% of the L2's throughput with
1-3% L1 hits (``results/ncu/``): each examined edge probes the visited bit of its out-neighbour,
a 32-byte sector for one bit, scattered over the whole bitmap (the Graph500 generator permutes
the labels). A Kronecker graph's hubs hold most edge endpoints; numbered first, their bits would
be a few hundred KiB at the bitmap's head, which a multiprocessor's L1 can keep.

This script measures it: the Kronecker graph as generated, and the same graph renumbered by
decreasing degree (``A.permuted(ld.sort_by_degree(A))``), searched from the same roots
(renumbered), push-only and auto, in one process. It checks that the renumbered search's levels
are the original's, renumbered, and reports each search's milliseconds and the ratio.
"""
import argparse
import statistics
import time

import numpy as np

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, write_json


def timed_searches(A, roots, direction, sync):
    """Milliseconds of one ld.bfs per root (after one untimed search)."""
    ld.bfs(A, roots[0], direction=direction)
    sync()
    times = []
    for root in roots:
        started = time.perf_counter()
        ld.bfs(A, root, direction=direction)
        sync()
        times.append((time.perf_counter() - started) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=int, default=25)
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--json")
    args = parser.parse_args()
    backend = ld.get_backend(args.backend)
    sync = backend.sync

    A = ld.kronecker(args.scale, backend=args.backend)
    degrees = A.out_degree().to_numpy(fill=0)
    rng = np.random.default_rng(args.scale)
    roots = [int(r) for r in rng.choice(np.flatnonzero(degrees), size=args.roots, replace=False)]
    directions = ("push", "auto")
    generated = {d: timed_searches(A, roots, d, sync) for d in directions}
    levels = ld.bfs(A, roots[0]).levels.to_numpy()
    edges = A.nvals // 2

    started = time.perf_counter()
    order = ld.sort_by_degree(A)
    B = A.permuted(order)
    sync()
    renumber_seconds = time.perf_counter() - started
    del A
    new_id = np.argsort(order)
    new_roots = [int(new_id[r]) for r in roots]
    hub_first = {d: timed_searches(B, new_roots, d, sync) for d in directions}
    moved = ld.bfs(B, new_roots[0]).levels.to_numpy()
    same_levels = bool(np.array_equal(moved[new_id], levels))
    if not same_levels:
        raise SystemExit("the renumbered graph's levels are not the original's, renumbered")

    record = {"benchmark": "hub_labels", "environment": environment(B), "scale": args.scale, "undirected_edges": edges, "roots": roots, "levels_equal": same_levels,
              "renumber_seconds": renumber_seconds, "runs": {}}
    for d in directions:
        before, after = statistics.median(generated[d]), statistics.median(hub_first[d])
        record["runs"][d] = {"generated_ms": generated[d], "hub_first_ms": hub_first[d],
                             "generated_median_ms": before, "hub_first_median_ms": after,
                             "generated_gteps": edges / before / 1e6, "hub_first_gteps": edges / after / 1e6,
                             "speedup": before / after}
        print(f"scale {args.scale} {d}: generated {before:.2f} ms ({edges / before / 1e6:.1f} GTEPS), "
              f"hub-first {after:.2f} ms ({edges / after / 1e6:.1f} GTEPS), {before / after:.2f}x", flush=True)
    print(f"levels equal after renumbering: {same_levels}; renumbered graph built in {renumber_seconds:.1f} s")
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
