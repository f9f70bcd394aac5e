"""Where a fused level's time goes on one GPU: kernels/fused.cu built with -DLD_FUSED_TRACE,
whose block 0 thread 0 adds the clock64 cycles between named marks of every level (block
levels: edge search, claim, append, barrier, record; grid levels: head, clearing, work, count,
barrier, record; cluster levels (--clusters on): entry, loads, claim, place, sum, barrier,
totals, record; hand-overs) to a device array read after each search. Thread 0 always holds
edge 0 of a block level and warp 0's first item of a grid level, so its marks are one latency
chain of the level; the rest of the grid shows up as its wait at the barrier mark.

    python3 benchmarks/probes/fused_trace.py path:200000 mesh:1000x1000 kron:20 [--block-edges 0,2048] [--clusters on]
                                      [--json out.json]

The traced build has a few more register spills than the shipped one: read it for shares, and
take level times from fused_blocks.py."""
import argparse
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.core.version import code_identity
from lagraph_dist.local.gpu_kernels import base
from lagraph_dist.tools.bench import policy_label, policy_settings, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build  # noqa: E402

MARKS = 32       # LD_TRACE_MARKS in kernels/fused.cu
NAMES = {0: "block: edge search + neighbour load", 1: "block: degree loads + claim atomic", 2: "block: found + append",
         3: "block: barrier", 4: "block: record + rule", 5: "warp levels (a run)", 8: "grid: head (counts, rule)", 9: "grid: clearing",
         10: "grid: level work (own chain)", 11: "grid: block count", 12: "grid: barrier", 13: "grid: record + checks",
         19: "warp: edge's source + neighbour load", 20: "warp: degree loads + claim atomic",
         21: "warp: found + ballots", 22: "warp: scan", 23: "warp: record + entries to lanes",
         16: "hand-over: block levels (block 0) / wait", 17: "hand-over: barrier",
         24: "cluster: entry (inbox or queue)", 25: "cluster: neighbour loads", 26: "cluster: degree loads + claim atomic",
         27: "cluster: found + place", 28: "cluster: sum + clears", 29: "cluster: barrier",
         30: "cluster: totals (own shared memory)", 31: "cluster: record + rule"}


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--block-edges", default=None,
                        help="one-block thresholds, comma separated (policy: ours, by the launch)")
    parser.add_argument("--searches", type=int, default=3)
    parser.add_argument("--clusters", choices=("on", "off"), default=None,
                        help="cluster levels (KernelsBase.fused_cluster_levels); default: the package's")
    parser.add_argument("--json")
    args = parser.parse_args()
    settings.extra_cuda_defines = ("-DLD_FUSED_TRACE",)      # before the first build of the modules
    kernels = ld.get_backend("gpu").kernels
    if args.clusters:
        kernels.fused_cluster_levels = args.clusters == "on"
    sweeps = policy_settings(args.block_edges) if args.block_edges else [kernels.fused_block_edges]
    props = cp.cuda.runtime.getDeviceProperties(0)
    clock_khz = props.get("clockRate") or cp.cuda.runtime.deviceGetAttribute(13, 0)   # cudaDevAttrClockRate
    clock_hz = 1e3 * clock_khz
    record = {"commit": code_identity()["commit"], "device": props["name"].decode(),
              "clock_hz_nominal": clock_hz, "runs": []}
    for spec in args.graphs:
        A, roots = build(spec)
        root = (roots or [int(v) for v in A.out_degree().indices()[:1]])[0]
        for edges in sweeps:
            kernels.fused_block_edges = edges
            ld.bfs(A, root)                                    # builds (once) and warms up
            traces = [cp.ndarray((2 * MARKS + 1,), cp.uint64, memptr=module.get_global("ld_trace"))
                      for module in base.modules_ahead(cp.cuda.Device().id, "fused")]   # one an instance
            for trace in traces:
                trace.fill(0)
            for _ in range(args.searches):
                result = ld.bfs(A, root)
            words = sum(cp.asnumpy(trace).astype(np.float64) for trace in traces)
            levels = len(result.stats)
            own_us = 1e6 * sum(s["seconds"] for s in result.stats)
            cycles, counts = words[:MARKS] / args.searches, words[MARKS:2 * MARKS] / args.searches
            marks = {NAMES.get(k, str(k)): {"cycles_a_search": cycles[k], "marks_a_search": counts[k],
                                            "us_a_level": 1e6 * cycles[k] / clock_hz / max(levels, 1)}
                     for k in range(MARKS) if counts[k]}
            run = {"graph": spec, "block_edges": policy_label(edges), "levels": levels,
                   "levels_own_us": own_us, "marks": marks}
            record["runs"].append(run)
            print(f"{spec} block_edges={run['block_edges']}: {levels} levels, levels' own {own_us:.1f} us "
                  f"({own_us / max(levels, 1):.2f} us a level)")
            for name, m in marks.items():
                print(f"    {name:42s} {m['marks_a_search']:10.0f} marks {m['cycles_a_search'] / max(m['marks_a_search'], 1):9.0f} "
                      f"cycles each  {m['us_a_level']:7.3f} us a level")
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
