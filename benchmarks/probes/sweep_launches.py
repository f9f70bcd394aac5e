"""Where do betweenness's GPU sweeps spend their time? Each launch of kernels/dependencies.cu in one
call of the sweeps, timed by CUDA events around it, summed by kernel, direction and depth; then
the whole betweenness call beside the levels-only multi-source search of the same sources.

usage: sweep_launches.py GRAPH [GRAPH ...] [--sources K] [--json PATH]
GRAPH: kron:SCALE, mesh:RxC, path:N, road:N (harness.py's specs) or a Matrix Market path.
"""
import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
import harness  # noqa: E402

import lagraph_dist as ld  # noqa: E402
from lagraph_dist.algebra.multi import path_dependencies  # noqa: E402
from lagraph_dist.tools.bench import environment, pick_roots, write_json  # noqa: E402


def graph_of(spec):
    if spec.endswith(".mtx"):
        return ld.Matrix.from_mtx(spec, backend="gpu"), Path(spec).stem
    return harness.build(spec)[0], spec


def timed_launches(kernels, call):
    """(call()'s result, [(kernel name, depth, backward, ms)]) with an event pair around each launch."""
    import cupy as cp
    marks, launch = [], kernels.launch
    names = {kernels._function("dependencies", name).pointer: name for name in ("ld_sweep_depth", "ld_sweep_heavy")}

    def recorded(kernel, blocks, threads, shared, arguments):
        depth, backward = [int(x) for x in np.frombuffer(arguments._buffer, dtype=np.int64)[12:14]]
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch(kernel, blocks, threads, shared, arguments)
        stop.record()
        marks.append((names.get(kernel.pointer, "?"), depth, backward, start, stop))

    kernels.launch = recorded
    try:
        result = call()
    finally:
        del kernels.launch
    cp.cuda.Device().synchronize()
    return result, [(name, depth, backward, cp.cuda.get_elapsed_time(a, b)) for name, depth, backward, a, b in marks]


def median_ms(call, repeats=3):
    import cupy as cp
    times = []
    for _ in range(repeats):
        cp.cuda.Device().synchronize()
        started = time.perf_counter()
        call()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - started) * 1e3)
    return float(np.median(times))


def probe(spec, count):
    A, name = graph_of(spec)
    sources = pick_roots(A, count, 2)
    levels = ld.bfs_multi(A, sources, parents=False, batch_size=512).levels
    path_dependencies(A, levels)                                   # warm-up: built, pools sized
    _, launches = timed_launches(A.backend.kernels, lambda: path_dependencies(A, levels))
    by = collections.defaultdict(lambda: [0, 0.0])
    for kernel, depth, backward, ms in launches:
        key = (kernel, "backward" if backward else "forward", depth)
        by[key][0] += 1
        by[key][1] += ms
    search = median_ms(lambda: ld.bfs_multi(A, sources, parents=False, batch_size=512))
    sweeps = median_ms(lambda: path_dependencies(A, levels))
    bc = median_ms(lambda: ld.betweenness_centrality(A, sources=sources, normalized=False))
    print(f"== {name}: n={A.n:,}, {A.nvals:,} stored edges, {len(sources)} sources")
    print(f"  search {search:.2f} ms, sweeps {sweeps:.2f} ms (launches {sum(ms for *_, ms in launches):.2f} ms "
          f"in {len(launches)}), betweenness {bc:.2f} ms = {bc / search:.1f}x the search")
    for (kernel, way, depth), (calls, ms) in sorted(by.items(), key=lambda item: -item[1][1])[:16]:
        print(f"  {kernel:16s} {way:8s} depth {depth:4d}: {ms:8.3f} ms in {calls}")
    return A, {"graph": name, "n": A.n, "nvals": A.nvals, "sources": len(sources), "search_ms": search,
            "sweeps_ms": sweeps, "betweenness_ms": bc,
            "launches": [{"kernel": k, "depth": d, "backward": bool(b), "ms": ms} for k, d, b, ms in launches]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--sources", type=int, default=64)
    parser.add_argument("--json")
    options = parser.parse_args()
    found = [probe(spec, options.sources) for spec in options.graphs]
    if options.json:
        write_json({"benchmark": "sweep_launches", "graphs": [record for _, record in found],
                    "environment": environment(found[-1][0])}, options.json)


if __name__ == "__main__":
    main()
