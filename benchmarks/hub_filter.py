"""A search's big push levels with and without the hub filter (push.cu's ld_push_hubbed: the
hubs' visited bits in each block's shared memory) on one GPU, alternating the two in one
process over the same roots: ms per search (median), the levels' own ms, and the last search's
levels one by one (direction, frontier, found, edges, seconds, launches, host reads). The last
search of each run is checked: its depths equal to the other setting's from the same root and
its result valid by the Graph500 rules (``ld.validate``, on the device).

    python3 benchmarks/hub_filter.py kron:22 kron:26 [--directions push,auto] [--rounds 2] [--json out.json]
"""
import argparse
import json
import os
import time

import numpy as np

import lagraph_dist as ld
from gpu_quick import build
from lagraph_dist.local.gpu_kernels.fused import FUSED_MAX_PUSH_EDGES

SETTINGS = tuple((f"off-{k}", dict(push_hub_filter=False, push_blocks_per_sm=k)) for k in (8, 16, 32, 64, 128)) + \
    tuple((f"on-{k}", dict(push_hub_filter=True, push_hub_waves=k)) for k in (4, 8, 16))
RESET = dict(push_hub_filter=True, push_hub_waves=1, push_hub_empty=False, push_blocks_per_sm=8)
LEVEL_FIELDS = ("level", "direction", "fused", "frontier", "discovered", "edges_examined", "bytes", "seconds", "launches",
                "host_reads")


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--directions", default="push,auto")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--json")
    args = parser.parse_args()
    kernels = ld.get_backend("gpu").kernels
    default = kernels.push_hub_filter
    record = {"benchmark": "hub_filter", "commit": os.environ.get("LAGRAPH_DIST_COMMIT"),
              "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "runs": []}
    for spec in args.graphs:
        A, roots = build(spec)
        roots = roots or [int(v) for v in A.out_degree().indices()[:args.roots]]
        for direction in args.directions.split(","):
            depths_seen = {}
            for round_ in range(args.rounds):
                for label, setting in SETTINGS:
                    for name, value in {**RESET, **setting}.items():
                        setattr(kernels, name, value)
                    ld.bfs(A, roots[0], direction=direction, parents=True)       # warm-up (and the hub table)
                    times = []
                    for root in roots:
                        cp.cuda.Device().synchronize()
                        started = time.perf_counter()
                        result = ld.bfs(A, root, direction=direction, parents=True)
                        cp.cuda.Device().synchronize()
                        times.append(1e3 * (time.perf_counter() - started))
                    depths = result.levels.to_numpy()
                    checked = bool(np.array_equal(depths_seen.setdefault(roots[-1], depths), depths))
                    ld.validate(A, roots[-1], depths, result.parents)     # raises on a broken rule
                    stats = result.stats
                    run = {"graph": spec, "direction": direction, "round": round_, "hub_filter": label,
                           "ms": times, "median_ms": float(np.median(times)),
                           "level_ms_last": 1e3 * sum(s["seconds"] for s in stats),
                           "levels_last": [{k: s.get(k) for k in LEVEL_FIELDS} for s in stats],
                           "depths_equal_and_valid": checked}
                    record["runs"].append(run)
                    big = [f"{s['level']}:{1e3 * s['seconds']:.2f}" for s in stats
                           if s["direction"] == "push" and s["edges_examined"] > FUSED_MAX_PUSH_EDGES]
                    print(f"{spec} {direction} hub filter {label} (round {round_}): median {run['median_ms']:.3f} ms, "
                          f"levels' own {run['level_ms_last']:.3f} ms; push.cu's levels (ms) {' '.join(big) or '-'}; "
                          f"{'checked' if checked else 'MISMATCH'}", flush=True)
                    if not checked:
                        raise SystemExit(f"{spec} {direction}: the depths from root {roots[-1]} differ between the settings")
        del A
        cp.get_default_memory_pool().free_all_blocks()
    for name, value in {**RESET, "push_hub_filter": default}.items():
        setattr(kernels, name, value)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(record, handle, indent=1)


if __name__ == "__main__":
    main()
