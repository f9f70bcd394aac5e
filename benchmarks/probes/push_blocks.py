"""push.cu's launch shape on one GPU: a search's big push levels (those the fused kernel hands
to push.cu, in place) at each blocks-a-multiprocessor setting (``KernelsBase.push_blocks_per_sm``;
policy: push.py's PUSH_BLOCKS_PER_SM), the settings alternated ``--rounds`` times in one
process over the same roots (the first root's search untimed): ms per search (median), the
levels' own ms, and the last search's levels one by one (direction, frontier, found, edges,
bytes, seconds, launches, host reads).
The last search of each run is checked: its depths equal to the first setting's from the same
root, and its result valid by the Graph500 rules (``ld.validate``, on the device).

    python3 benchmarks/probes/push_blocks.py kron:22 kron:26 [--blocks 8,16,64,policy] [--directions push,auto] \
        [--rounds 2] [--json out.json]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.version import code_identity
from lagraph_dist.local.gpu_kernels.fused import FUSED_MAX_PUSH_EDGES
from lagraph_dist.tools.bench import policy_label, policy_settings, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build, timed_searches  # noqa: E402

LEVEL_FIELDS = ("level", "direction", "fused", "frontier", "discovered", "edges_examined", "bytes", "seconds",
                "launches", "host_reads")


def handed_levels(stats):
    """The levels the fused kernel handed to push.cu: push levels of more out-edges than
    fused.py's FUSED_MAX_PUSH_EDGES."""
    return [s for s in stats if s["direction"] == "push" and s["edges_examined"] > FUSED_MAX_PUSH_EDGES]


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--blocks", default="8,16,64,policy",
                        help="blocks a multiprocessor, comma separated (policy: push.py's PUSH_BLOCKS_PER_SM)")
    parser.add_argument("--directions", default="push,auto")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--roots", type=int, default=8, help="a Kronecker graph's roots (its first vertices with edges)")
    parser.add_argument("--json")
    args = parser.parse_args()
    kernels = ld.get_backend("gpu").kernels
    default, settings = kernels.push_blocks_per_sm, policy_settings(args.blocks)
    record = {"benchmark": "push_blocks", "commit": code_identity()["commit"],
              "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "runs": []}
    for spec in args.graphs:
        A, roots = build(spec)
        roots = roots or [int(v) for v in A.out_degree().indices()[:args.roots]]
        for direction in args.directions.split(","):
            first_depths = None
            for round_ in range(args.rounds):
                for setting in settings:
                    kernels.push_blocks_per_sm = setting
                    times, result = timed_searches(A, roots, direction)
                    depths = result.levels.to_numpy()
                    first_depths = depths if first_depths is None else first_depths
                    if not np.array_equal(first_depths, depths):
                        raise SystemExit(f"{spec} {direction}: the depths from root {roots[-1]} differ between "
                                         f"the settings")
                    ld.validate(A, roots[-1], depths, result.parents)     # raises on a broken rule
                    stats = result.stats
                    run = {"graph": spec, "direction": direction, "round": round_,
                           "push_blocks_per_sm": policy_label(setting), "ms": times,
                           "median_ms": float(np.median(times)),
                           "level_ms_last": 1e3 * sum(s["seconds"] for s in stats),
                           "levels_last": [{k: s.get(k) for k in LEVEL_FIELDS} for s in stats]}
                    record["runs"].append(run)
                    handed = " ".join(f"{s['level']}:{1e3 * s['seconds']:.2f}" for s in handed_levels(stats))
                    print(f"{spec} {direction} push blocks/SM {run['push_blocks_per_sm']} (round {round_}): "
                          f"median {run['median_ms']:.3f} ms, levels' own {run['level_ms_last']:.3f} ms; "
                          f"push.cu's levels (ms) {handed or '-'}; checked", flush=True)
        del A
        cp.get_default_memory_pool().free_all_blocks()
    kernels.push_blocks_per_sm = default
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
