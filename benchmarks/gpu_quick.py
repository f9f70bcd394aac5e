"""Quick GPU timing (no peers, no validation): graph build and BFS ms per direction, with each
level's direction, sizes, seconds, host reads and whether it ran fused; with ``--json PATH``
also a record of it (e.g. to compare two commits in one device call).

    python3 benchmarks/gpu_quick.py kron:20 kron:22 mesh:1000x1000 path:1000000 road:1000000 [--json out.json]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

from lagraph_dist.core.settings import settings
from lagraph_dist.core.stats import level_ms_text, measured_seconds
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import host_processor, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import build_timed, matrix, parse_spec, timed_searches  # noqa: E402


settings.host_search_edges = 0      # the device's calls are what this times, however small the graph


def main(graphs, json_path=None):
    """Each graph (a harness Spec) built on the GPU, then searched push and auto from its roots."""
    import cupy as cp
    record = {"commit": code_identity()["commit"], "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
              "host_cpu": host_processor(), "graphs": {}}      # (a call's host part runs on it)
    for graph in graphs:
        A, built = build_timed(lambda: matrix(graph, "gpu"))
        print(f"{graph.text}: built in {built:.2f} s, {A}", flush=True)
        runs = record["graphs"][graph.text] = {"build_seconds": built}
        roots = [int(v) for v in A.out_degree().indices()[:7]] if graph.drawn_roots else [0]
        for direction in ("push", "auto"):
            times, result = timed_searches(A, roots, direction)
            fused = sum(1 for s in result.stats if s["fused"])
            level_ms = 1e3 * sum(map(measured_seconds, result.stats))     # the levels' own (last search)
            runs[direction] = {"ms": times, "median_ms": float(np.median(times)), "levels": len(result.stats),
                               "fused_levels": fused, "level_ms_last": level_ms}
            print(f"  {direction}: ms {[round(t, 3) for t in times]}, {len(result.stats)} levels "
                  f"({fused} fused), {1e3 * np.median(times) / max(len(result.stats), 1):.1f} us/level, "
                  f"levels' own ms (last search) {level_ms:.3f}", flush=True)
            for s in result.stats[:40]:
                if not s["fused"] or s["level"] < 4 or len(result.stats) <= 12:     # a deep search: its first
                    print(f"    {s['level']} {s['direction']} fused={s['fused']} frontier={s['frontier']} "
                          f"found={s['discovered']} edges={s['edges_examined']} ms={level_ms_text(s)} "
                          f"reads={s['host_reads']}", flush=True)
    if json_path:
        write_json(record, json_path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", type=parse_spec, metavar="KIND:SIZE", help="harness graph specs")
    parser.add_argument("--json", help="also write a record here")
    options = parser.parse_args()
    main(options.specs, options.json)
