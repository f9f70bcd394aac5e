"""What making a search's outputs ahead saves one ``ld.bfs`` call on one GPU: the same graph,
the same roots, in one process, blocks of calls with the outputs made while the last search's
kernel ran (``on``: the GPU backend's default) against made in the call (``off``:
settings.results_ahead_bytes set to 0), alternating, so that both modes see the same host load.

    python3 benchmarks/probes/results_ahead.py kron:12 [--blocks 40] [--calls 50] [--json out.json]

Each call's wall time (the call and a device synchronize) is taken; the record holds, a mode,
the median and 10th/90th percentiles over all its calls, each block's median, and the ratio of
the modes' medians (a record of every call's time does not come back from a device call).
A block's first two calls are not timed: the mode takes effect from the search after the switch.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build  # noqa: E402

MODES = ("off", "on")


def timed_blocks(A, roots, blocks, calls):
    """{mode: [each block's per-call microseconds]} over ``blocks`` alternating blocks of
    ``calls`` searches."""
    cap = settings.results_ahead_bytes
    times = {mode: [] for mode in MODES}
    for block in range(blocks):
        mode = MODES[block % 2]
        with settings.changed(results_ahead_bytes=cap if mode == "on" else 0):
            for root in roots[:2]:                 # the mode's first searches: not timed
                ld.bfs(A, root)
            times[mode].append([])
            for k in range(calls):
                A.backend.sync()
                started = time.perf_counter()
                ld.bfs(A, roots[k % len(roots)])
                A.backend.sync()
                times[mode][-1].append(1e6 * (time.perf_counter() - started))
    return times


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--blocks", type=int, default=40)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    A, roots = build(args.graph, "gpu")
    roots = roots or [int(v) for v in A.out_degree().indices()[:8]]
    for root in roots:
        ld.bfs(A, root)
    times = timed_blocks(A, roots, args.blocks, args.calls)
    summary = {}
    for mode, blocks in times.items():
        every = np.concatenate(blocks)
        summary[mode] = {"median_us": float(np.median(every)), "p10_us": float(np.percentile(every, 10)),
                         "p90_us": float(np.percentile(every, 90)), "calls": int(every.size),
                         "block_medians_us": [round(float(np.median(block)), 2) for block in blocks]}
    ratio = summary["on"]["median_us"] / summary["off"]["median_us"]
    for mode in MODES:
        s = summary[mode]
        print(f"{args.graph} outputs made ahead {mode}: median {s['median_us']:.1f} us "
              f"(p10 {s['p10_us']:.1f}, p90 {s['p90_us']:.1f}, {s['calls']} calls)")
    print(f"on / off: {ratio:.3f}")
    if args.json:
        record = {"benchmark": "results_ahead", "graph": args.graph, "environment": environment(A),
                  "blocks": args.blocks, "calls_a_block": args.calls, "summary": summary, "on_over_off": ratio}
        write_json(record, args.json)


if __name__ == "__main__":
    main()
