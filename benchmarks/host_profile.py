"""Where one ``ld.bfs`` call's host time goes on a 1x1 grid: the call's wall time against the
levels' own device time; then a timeline of the call without a profiler (host time up to the
fused kernel's launch, the launch call itself, the wait for its report, the host time after it,
and the kernel's own time between two CUDA events around it); then cProfile over many calls
(internal and cumulative time), so that the Python set-up around the kernel can be read function
by function.

    python3 benchmarks/host_profile.py kron:20 [--calls 50] [--backend gpu] [--lines 35]
"""
import argparse
import cProfile
import pstats
import time

import numpy as np

import lagraph_dist as ld
from gpu_quick import build


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--lines", type=int, default=35)
    args = parser.parse_args()
    A, roots = build(args.graph)
    roots = roots or [int(v) for v in A.out_degree().indices()[:8]]
    for root in roots:
        ld.bfs(A, root)
    walls, own = [], []
    for k in range(args.calls):
        A.backend.sync()
        started = time.perf_counter()
        result = ld.bfs(A, roots[k % len(roots)])
        A.backend.sync()
        walls.append(time.perf_counter() - started)
        own.append(sum(s["seconds"] for s in result.stats))
    print(f"{args.graph}: call median {1e6 * np.median(walls):.1f} us, levels' own median {1e6 * np.median(own):.1f} us, "
          f"host beyond the levels {1e6 * (np.median(walls) - np.median(own)):.1f} us, {len(result.stats)} levels")
    timeline(A, roots, args.calls)
    stages(A, roots, args.calls)
    profile = cProfile.Profile()
    profile.enable()
    for k in range(args.calls):
        ld.bfs(A, roots[k % len(roots)])
    A.backend.sync()
    profile.disable()
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(args.lines)
    stats.sort_stats("cumulative").print_stats(args.lines)


def _timed_calls(A, roots, calls, before):
    """``calls`` searches from ``roots`` in turn, each from an idle device after ``before()``:
    yields each one's host clock at its start and its return."""
    for k in range(calls):
        before()
        A.backend.sync()
        started = time.perf_counter()
        ld.bfs(A, roots[k % len(roots)])
        yield started, time.perf_counter()


def timeline(A, roots, calls):
    """Median us of each part of a call, from marks taken inside it: the fused kernel's first
    launch is wrapped (host clock before and after, a CUDA event each side), and so is the
    first read that waits for its report."""
    import cupy as cp
    kernels = A.backend.kernels
    marks = {}
    launch, read_into = kernels.launch_cooperative, kernels.read_into

    def traced_launch(*args):
        first = "launch" not in marks
        if first:
            marks["launch"] = time.perf_counter()
            marks["event_before"] = cp.cuda.Event()
            marks["event_before"].record()
        launch(*args)
        if first:
            marks["event_after"] = cp.cuda.Event()
            marks["event_after"].record()
            marks["launched"] = time.perf_counter()

    def traced_read(*args):
        out = read_into(*args)
        marks.setdefault("read", time.perf_counter())
        return out

    kernels.launch_cooperative, kernels.read_into = traced_launch, traced_read
    parts = {"before the launch": [], "the launch call": [], "waiting for the report": [],
             "after the report": [], "kernel (CUDA events)": [], "call": []}
    try:
        for started, ended in _timed_calls(A, roots, calls, marks.clear):
            if "launch" not in marks or "read" not in marks:
                continue
            parts["before the launch"].append(marks["launch"] - started)
            parts["the launch call"].append(marks["launched"] - marks["launch"])
            parts["waiting for the report"].append(marks["read"] - marks["launched"])
            parts["after the report"].append(ended - marks["read"])
            parts["kernel (CUDA events)"].append(1e-3 * cp.cuda.get_elapsed_time(marks["event_before"], marks["event_after"]))
            parts["call"].append(ended - started)
    finally:
        del kernels.launch_cooperative, kernels.read_into      # the class's methods again
    for name, values in parts.items():
        if values:
            print(f"    {name:28s} median {1e6 * np.median(values):9.1f} us")


def stages(A, roots, calls):
    """Median us from the call's start to the entry and the exit of each named stage of a
    call (wrapped for the measurement only: a host clock read each side), so that the set-up
    before the launch can be read stage by stage without a profiler's overhead."""
    import importlib
    import inspect

    from lagraph_dist.algebra import ops
    from lagraph_dist.algebra.vector import Vector
    bfs_module = importlib.import_module("lagraph_dist.algorithms.bfs")     # the package exports the function
    from lagraph_dist.local.gpu_kernels.fused import FusedKernels
    import cupy
    from lagraph_dist.local.gpu_kernels import base, fused
    from lagraph_dist.local.gpu_kernels.bitmap import BitmapKernels
    targets = [(bfs_module, "as_matrix"), (bfs_module, "_check_arguments"), (Vector, "_unset"), (Vector, "singles"),
               (BitmapKernels, "single_entries"), (cupy, "empty"), (base._Counted, "__call__"),
               (bfs_module, "DirectionRule"), (bfs_module, "repeat_masked_vxm"), (ops, "_VectorLevels"),
               (ops, "_fused_levels"), (FusedKernels, "bfs_fused"), (FusedKernels, "_fused_launch"),
               (base.KernelsBase, "launch_cooperative"), (base.KernelsBase, "read_into"),
               (FusedKernels, "_fused_run"), (base.KernelsBase, "read"), (fused, "_level_records"),
               (ops, "_FusedRun"), (ops.LocalPart, "gathered_list"), (ops.Vector, "_from_part"),
               (bfs_module, "BFSResult")]
    marks, saved = [], []

    def wrap(owner, name):
        static = inspect.getattr_static(owner, name)
        function = static.__func__ if isinstance(static, classmethod) else static

        def timed(*args, **kwargs):
            marks.append((name, "in", time.perf_counter()))
            try:
                return function(*args, **kwargs)
            finally:
                marks.append((name, "out", time.perf_counter()))
        saved.append((owner, name, static))
        setattr(owner, name, classmethod(timed) if isinstance(static, classmethod) else timed)

    for owner, name in targets:
        wrap(owner, name)
    offsets = {}
    try:
        for started, ended in _timed_calls(A, roots, calls, marks.clear):
            seen = {}
            for name, side, at in marks:
                key = (name, side, seen.get((name, side), 0))
                seen[(name, side)] = key[2] + 1
                offsets.setdefault(key, []).append(at - started)
            offsets.setdefault(("call", "out", 0), []).append(ended - started)
    finally:
        for owner, name, static in saved:
            setattr(owner, name, static)
    print("    stage timeline (us from the call's start, median; #n: the n-th call of a stage):")
    for (name, side, nth), values in sorted(offsets.items(), key=lambda item: np.median(item[1])):
        print(f"      {np.median(values) * 1e6:8.1f}  {side:3s} {name}#{nth}")


if __name__ == "__main__":
    main()
