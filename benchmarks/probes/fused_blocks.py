"""The fused search's shape on one GPU: ms per search (median over roots, warm-up excluded)
and the levels' own device time (the last search's also by frontier size, from
lagraph_dist.tools.bench.frontier_bands, with the levels it ran in a thread block cluster),
for each blocks-per-multiprocessor setting and each one-block threshold (frontier edges up to
which a push level runs inside one block; 0: never), with block 0's shared copy of the visited
words on or off (on: where it fits) and with the cluster levels on or off (on: thin graphs on a
GPU with thread block clusters), the settings alternated `--rounds` times in one process.

    python3 benchmarks/probes/fused_blocks.py kron:22 mesh:1000x1000 path:200000 \
        [--blocks 1,2,policy] [--block-edges 0,1024,policy] [--cache-visited on,off] \
        [--clusters on,off] [--rounds 2] [--json out.json]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import frontier_bands, policy_label, policy_settings, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build, timed_searches  # noqa: E402


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--blocks", default="policy", help="blocks a multiprocessor, comma separated (policy: ours)")
    parser.add_argument("--block-edges", default=None,
                        help="one-block thresholds, comma separated (policy: ours, by the launch)")
    parser.add_argument("--cache-visited", default="on", help="block 0's shared visited copy: on, off or on,off")
    parser.add_argument("--clusters", default=None, help="the cluster levels: on, off or on,off (default: the package's)")
    parser.add_argument("--rounds", type=int, default=1, help="passes over the settings, alternating them")
    parser.add_argument("--json")
    args = parser.parse_args()
    kernels = ld.get_backend("gpu").kernels
    default_edges, default_clusters = kernels.fused_block_edges, kernels.fused_cluster_levels
    sweeps = policy_settings(args.block_edges) if args.block_edges else [default_edges]
    blockings = policy_settings(args.blocks)
    caches = [{"on": True, "off": False}[c] for c in args.cache_visited.split(",")]
    clusters = ([{"on": True, "off": False}[c] for c in args.clusters.split(",")] if args.clusters
                else [default_clusters])
    record = {"commit": code_identity()["commit"],
              "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "runs": []}
    for spec in args.graphs:
        A, roots = build(spec)
        roots = roots or [int(v) for v in A.out_degree().indices()[:7]]
        settings = [(b, e, c, k) for b in blockings for e in sweeps for c in caches for k in clusters]
        for round_, (blocks, edges, cache, cluster) in ((r, s) for r in range(args.rounds) for s in settings):
            kernels.fused_blocks_per_sm, kernels.fused_block_edges = blocks, edges
            kernels.fused_cache_visited, kernels.fused_cluster_levels = cache, cluster
            times, result = timed_searches(A, roots)
            level_ms = 1e3 * sum(s["seconds"] for s in result.stats)
            run = {"graph": spec, "round": round_, "blocks_per_sm": policy_label(blocks),
                   "block_edges": policy_label(edges),
                   "cache_visited": cache, "cluster_levels": cluster, "ms": times, "median_ms": float(np.median(times)),
                   "levels": len(result.stats), "level_ms_last": level_ms,
                   "frontier_bands_last": frontier_bands(result.stats),
                   "cluster_counts_last": dict(kernels.fused_cluster_counts)}
            record["runs"].append(run)
            print(f"{spec} blocks/SM={run['blocks_per_sm']} block_edges={run['block_edges']} "
                  f"cache={'on' if cache else 'off'} clusters={'on' if cluster else 'off'}: "
                  f"median {run['median_ms']:.3f} ms, "
                  f"levels' own {level_ms:.3f} ms, {len(result.stats)} levels, "
                  f"{1e3 * run['median_ms'] / max(len(result.stats), 1):.2f} us/level", flush=True)
            print("    by frontier: " + "; ".join(
                f"{b['frontier_from']}-{b['frontier_to'] or ''}: {b['levels']} x {b['us_mean']:.2f} us"
                for b in run["frontier_bands_last"]) +
                f" | cluster levels {run['cluster_counts_last']['levels']}, spills {run['cluster_counts_last']['spills']}",
                flush=True)
    kernels.fused_blocks_per_sm, kernels.fused_block_edges, kernels.fused_cache_visited = None, default_edges, True
    kernels.fused_cluster_levels = default_clusters
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
