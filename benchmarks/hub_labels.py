"""Would hub-first vertex ids speed up the searches? A measurement for issue 20's push-only target.

    python3 benchmarks/hub_labels.py --scale 25 --roots 8 --json out.json [--backend cpu]

Nsight Compute puts push-only Kronecker 26's big push level at 81.7% of the L2's throughput with
1-3% L1 hits (``results/ncu/``): each examined edge probes the visited bit of its out-neighbour,
a 32-byte sector for one bit, scattered over the whole bitmap (the Graph500 generator permutes
the labels). A Kronecker graph's hubs hold most edge endpoints; numbered first, their bits would
be a few hundred KiB at the bitmap's head, which a multiprocessor's L1 can keep.

This script measures that before any library change: the Kronecker graph as generated, and the
same graph with its vertices renumbered by decreasing degree (built again from its own edges,
each undirected edge once, symmetrized), searched from the same roots (renumbered), push-only
and auto, in one process. It checks that the renumbered search's levels are the original's,
renumbered, and reports each search's milliseconds and the ratio.
"""
import argparse
import json
import os
import statistics
import time

import numpy as np

import lagraph_dist as ld


def hub_first_ids(A, xp):
    """new_id[v] of every vertex: the vertices by decreasing out-degree (ties by id)."""
    degrees = xp.asarray(A.out_degree().to_numpy(fill=0))
    order = xp.argsort(-degrees, kind="stable")
    new_id = xp.empty_like(order)
    new_id[order] = xp.arange(A.n, dtype=order.dtype)
    return new_id


def renumbered(A, new_id, backend):
    """The graph of A's edges u -> v as new_id[u] -> new_id[v], symmetric (each undirected edge
    taken once, then symmetrized, as the generator builds A)."""
    src, dst = A.local_edges(on_device=backend == "gpu")
    once = src <= dst
    src, dst = new_id[src[once]], new_id[dst[once]]
    return ld.Matrix.from_edges(src, dst, A.n, symmetrize=True, backend=backend)


def host_cpu():
    """'CPU <model>, <n> cores' of this host (the model from /proc/cpuinfo where there is one)."""
    model = "unknown model"
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    return f"CPU {model}, {os.cpu_count()} cores"


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
    xp = backend.xp
    sync = backend.sync

    A = ld.kronecker(args.scale, backend=args.backend)
    degrees = A.out_degree().to_numpy(fill=0)
    rng = np.random.default_rng(args.scale)
    roots = [int(r) for r in rng.choice(np.flatnonzero(degrees), size=args.roots, replace=False)]
    directions = ("push", "auto")
    generated = {d: timed_searches(A, roots, d, sync) for d in directions}
    levels = ld.bfs(A, roots[0]).levels.to_numpy()
    edges = A.nvals // 2

    new_id = hub_first_ids(A, xp)
    started = time.perf_counter()
    B = renumbered(A, new_id, args.backend)
    sync()
    renumber_seconds = time.perf_counter() - started
    del A
    new_roots = [int(new_id[r]) for r in roots]
    hub_first = {d: timed_searches(B, new_roots, d, sync) for d in directions}
    moved = ld.bfs(B, new_roots[0]).levels.to_numpy()
    host_new_id = new_id.get() if hasattr(new_id, "get") else new_id
    same_levels = bool(np.array_equal(moved[host_new_id], levels))
    if not same_levels:
        raise SystemExit("the renumbered graph's levels are not the original's, renumbered")

    record = {"benchmark": "hub_labels", "commit": os.environ.get("LAGRAPH_DIST_COMMIT"),
              "device": backend.kernels.device_info()["device"] if args.backend == "gpu" else host_cpu(),
              "scale": args.scale, "undirected_edges": edges, "roots": roots, "levels_equal": same_levels,
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
        with open(args.json, "w") as out:
            json.dump(record, out, indent=1)


if __name__ == "__main__":
    main()
