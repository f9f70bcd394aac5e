"""Kernel launches and per-kernel time and DRAM bytes of one BFS, for Nsight Compute:

    ncu --profile-from-start off --clock-control none --metrics \\
        gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv \\
        python3 benchmarks/probes/ncu_level.py kron:22 auto [K [parents]]

With K, the profiled call is one ``ld.bfs_multi`` of K sources (levels only) instead; a fourth
argument ``parents`` asks it for parents too.

The graph is built and searched once untimed (kernels compiled, caches made); then exactly one
search runs between cudaProfilerStart and cudaProfilerStop, and its per-level records (levels,
fused levels, host reads) are printed so that launches per level can be counted from the
profile.
"""
import sys
from pathlib import Path

import cupy

import lagraph_dist as ld

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import batch_sources, build  # noqa: E402


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main(spec, direction, sources=0, parents=False):
    A, roots = build(spec)
    roots = roots or [int(v) for v in A.out_degree().indices()[:2]]
    if sources:
        batch = batch_sources(A, sources, 1)

        def search(root):
            return ld.bfs_multi(A, batch, parents=parents, direction=direction)
    else:
        def search(root):
            return ld.bfs(A, root, direction=direction)
    search(roots[-1])
    cupy.cuda.Device().synchronize()
    cupy.cuda.profiler.start()
    result = search(roots[0])
    cupy.cuda.Device().synchronize()
    cupy.cuda.profiler.stop()
    fused = sum(1 for s in result.stats if s["fused"])
    reads = sum(s["host_reads"] for s in result.stats)
    print(f"PROFILED {spec} {direction}: {len(result.stats)} levels ({fused} fused), {reads:.0f} host reads")
    for s in result.stats:
        print(f"LEVEL {s['level']} {s['direction']} fused={s['fused']} frontier={s['frontier']} "
              f"found={s['discovered']} edges={s['edges_examined']} reads={s['host_reads']}")


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[4] != "parents":
        sys.exit(f"the fourth argument can only be 'parents', got {sys.argv[4]!r}")
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "auto", int(sys.argv[3]) if len(sys.argv) > 3 else 0,
         len(sys.argv) > 4)
