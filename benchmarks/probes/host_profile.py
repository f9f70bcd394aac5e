"""Where one ``ld.bfs`` call's host time goes on a 1x1 grid (or one ``ld.bfs_multi`` batch's, levels
only, with ``--sources K``: the benchmarks' seed-3 sources): the call's wall time against the
levels' own time; the call split at the backend's run (its one-call plan or fused run; the
engine's Python around it, and the backend call less its levels' own time); on the GPU then a
timeline of the call without a profiler (host time up to the fused kernel's launch, the launch
call itself, the wait for its report, the host time after it, and the kernel's own time
between two CUDA events around it);
on either backend each named stage's offsets (the engine's stages, and the driver's or the
compiled twin's); last cProfile over many calls (internal and cumulative time), so
that the Python set-up around the run can be read function by function.

    python3 benchmarks/probes/host_profile.py kron:20 [--backend gpu|cpu] [--calls 50] [--lines 35] [--json out.json]
    python3 benchmarks/probes/host_profile.py kron:22 --sources 64 [--degree-order always] [--calls 20] ...

The record (``--json``) holds the medians printed: the call, the levels' own time, the split at
the backend call, and on the GPU the parts of the timeline (the kernel's between two CUDA events)
and the host time beyond the kernel (the marked calls less their kernel, and the plain calls
between them less the kernel's median), each a median over the calls of its own pass. A call's
result is held until its clock is read: dropping it is the caller's, at a time of its choosing.
The engine's part is the same Python on either backend, so the CPU's figure (``--backend cpu``,
no GPU needed) follows changes to it where no device is at hand.
"""
import argparse
import cProfile
import functools
import pstats
import sys
import time
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import device_name, host_processor, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import batch_sources, build  # noqa: E402


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


class Subject:
    """The call measured: ``ld.bfs`` from the roots in turn, or one ``ld.bfs_multi`` batch from
    ``sources`` (levels only); ``run`` names the backend's fused run it makes (one a call)."""

    def __init__(self, A, roots, sources):
        self.A, self.roots, self.sources = A, roots, sources
        self.run = "bfs_fused" if sources is None else "multi_bfs_fused"

    def __call__(self, k):
        if self.sources is None:
            return ld.bfs(self.A, self.roots[k % len(self.roots)])
        return ld.bfs_multi(self.A, self.sources, parents=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--sources", type=int, help="a bfs_multi batch of this many sources instead of ld.bfs")
    parser.add_argument("--degree-order", choices=("never", "always"), default="never",
                        help="with --sources: the batch on the graph as given or on its degree twin "
                             "(ld.settings.multi_degree_order)")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--lines", type=int, default=35)
    parser.add_argument("--json", help="write the medians to this file")
    args = parser.parse_args()
    ld.settings.multi_degree_order = args.degree_order
    A, roots = build(args.graph, args.backend)
    roots = roots or [int(v) for v in A.out_degree().indices()[:8]]
    call = Subject(A, roots, None if args.sources is None else batch_sources(A, args.sources, 3))
    for k in range(len(roots)):
        call(k)
    walls, own = [], []
    for k in range(args.calls):
        result = None                # (the last result dropped before the clock starts, as below)
        A.backend.sync()
        started = time.perf_counter()
        result = call(k)
        A.backend.sync()
        walls.append(time.perf_counter() - started)
        own.append(sum(map(ld.measured_seconds, result.stats)))
    print(f"{args.graph}: call median {1e6 * np.median(walls):.1f} us, levels' own median {1e6 * np.median(own):.1f} us, "
          f"host beyond the levels {1e6 * (np.median(walls) - np.median(own)):.1f} us, {len(result.stats)} levels")
    split = backend_split(A, call, args.calls)
    parts, single_runs = {}, 0
    if args.backend == "gpu":
        parts, single_runs = timeline(A, call, args.calls)
    stages(A, call, args.calls)
    if args.json:
        write_record(args, A, walls, own, len(result.stats), split, parts, single_runs)
    profile = cProfile.Profile()
    profile.enable()
    for k in range(args.calls):
        call(k)
    A.backend.sync()
    profile.disable()
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(args.lines)
    stats.sort_stats("cumulative").print_stats(args.lines)


def _timed_calls(A, call, calls, before, repeats=1):
    """``calls`` calls (each root ``repeats`` times running), each
    from an idle device after ``before()``: yields each one's host clock at its start and its
    return. The result is held until the clock is read (dropping it, the user's choice of when,
    is not the call's cost)."""
    for k in range(calls):
        before()
        A.backend.sync()
        started = time.perf_counter()
        result = call(k // repeats)
        ended = time.perf_counter()
        yield started, ended
        del result


def _backend_run(kernels, run):
    """(owner, name) of the backend call a search makes: a kernel set whose ``search_plan`` is a
    plan class running the whole search in one compiled call (the CPU set's) is timed at that
    call (the class's ``__call__``), else at its fused run ``run`` (on one GPU the plan's runs are
    ``bfs_fused``'s, so that the split stays where it was before the GPU had a plan)."""
    plan = getattr(kernels, "search_plan", None)
    if run == "bfs_fused" and isinstance(plan, type):
        return plan, "__call__"
    return kernels, run


def backend_split(A, call, calls):
    """Median us of a call on each side of the backend's run (:func:`_backend_run`: the one-call
    plan or ``kernels.bfs_fused``, or ``multi_bfs_fused`` for a batch,
    wrapped: a host clock read each side): the engine's Python outside it, the time inside it,
    and inside it less its levels' own time (the backend's set-up, launch and read; on the CPU
    the compiled run's entry and exit). Each median is over the calls of this pass."""
    kernels = A.backend.kernels
    owner, name = _backend_run(kernels, call.run)
    fused = getattr(owner, name)
    inside = []

    @functools.wraps(fused)      # (keeps its attributes: the engine reads max_levels there)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fused(*args, **kwargs)
        finally:
            inside.append(time.perf_counter() - started)

    calls_us, engine, backend_call, backend_host = [], [], [], []
    own_attribute = name in vars(owner)       # the CPU's module function or plan class: put back as it was
    setattr(owner, name, timed)
    try:
        for k in range(calls):
            inside.clear()
            result = None
            A.backend.sync()
            started = time.perf_counter()
            result = call(k)
            ended = time.perf_counter()
            own, run = sum(map(ld.measured_seconds, result.stats)), sum(inside)
            calls_us.append(ended - started)
            engine.append(ended - started - run)
            backend_call.append(run)
            backend_host.append(run - own)
    finally:
        if own_attribute:
            setattr(owner, name, fused)
        else:
            delattr(owner, name)       # the class's method again
    split = {"call": calls_us, "engine (outside the backend call)": engine, "backend call": backend_call,
             "backend call less the levels' own": backend_host}
    medians = {name: 1e6 * float(np.median(values)) for name, values in split.items()}
    print(f"    split at the backend's run, {calls} calls:")
    for name, value in medians.items():
        print(f"    {name:36s} median {value:9.1f} us")
    return medians


def timeline(A, call, calls):
    """Median us of each part of a call, from marks taken inside it: the fused kernel's launch
    is wrapped (a host clock read each side of the launch call, and a CUDA event recorded
    before and after them, both made before the calls), and so is the wait for its report.
    Marked calls alternate with plain ones, so that "host beyond the kernel" can be read two
    ways: the marked calls less their kernel, and the plain calls' median less the kernel's
    (the marks' own cost left out; one pass, so both see the same state of the host). Only
    calls of one fused run count (a root whose search hands a level to the tile push launches
    more, which the parts would not separate)."""
    import cupy as cp
    kernels = A.backend.kernels
    marks, marking = {}, [False]
    # the wait for the report: read_mirrored, or read_into before the kernel wrote its report
    # (host_ab.py drives older commits' packages with this script)
    read_name = "read_mirrored" if hasattr(kernels, "read_mirrored") else "read_into"
    launch, read = kernels.launch_cooperative, getattr(kernels, read_name)
    before_kernel, after_kernel = cp.cuda.Event(), cp.cuda.Event()

    def traced_launch(*args):
        marks["launches"] = marks.get("launches", 0) + 1
        first = marking[0] and "launch" not in marks
        if first:
            before_kernel.record()
            marks["launch"] = time.perf_counter()
        launch(*args)
        if first:
            marks["launched"] = time.perf_counter()
            after_kernel.record()

    def traced_read(*args):
        out = read(*args)
        marks.setdefault("read", time.perf_counter())
        return out

    kernels.launch_cooperative = traced_launch
    setattr(kernels, read_name, traced_read)
    parts = {"before the launch": [], "the launch call": [], "waiting for the report": [],
             "after the report": [], "kernel (CUDA events)": [], "call": [], "host beyond the kernel": []}
    plain = []

    def before():
        marks.clear()
        marking[0] = not marking[0]

    try:
        for started, ended in _timed_calls(A, call, 2 * calls, before, repeats=2):    # each root both ways
            if marks.get("launches") != 1 or "read" not in marks:
                continue
            if not marking[0]:
                plain.append(ended - started)
                continue
            parts["before the launch"].append(marks["launch"] - started)
            parts["the launch call"].append(marks["launched"] - marks["launch"])
            parts["waiting for the report"].append(marks["read"] - marks["launched"])
            parts["after the report"].append(ended - marks["read"])
            kernel = 1e-3 * cp.cuda.get_elapsed_time(before_kernel, after_kernel)
            parts["kernel (CUDA events)"].append(kernel)
            parts["call"].append(ended - started)
            parts["host beyond the kernel"].append(ended - started - kernel)
    finally:
        del kernels.launch_cooperative          # the class's methods again
        delattr(kernels, read_name)
    medians = {name: 1e6 * float(np.median(values)) for name, values in parts.items() if values}
    if plain and parts["kernel (CUDA events)"]:
        medians["plain call"] = 1e6 * float(np.median(plain))
        medians["plain call less the kernel"] = medians["plain call"] - medians["kernel (CUDA events)"]
    print(f"    timeline over the {len(parts['call'])} marked calls of one fused run (of {calls}), "
          f"{len(plain)} plain calls between them:")
    for name, value in medians.items():
        print(f"    {name:28s} median {value:9.1f} us")
    return medians, len(parts["call"])


def write_record(args, A, walls, own, levels, split, parts, single_runs):
    """The medians as a JSON record, with the device and the code that ran (its commit; write_json
    stamps the rest)."""
    record = {"benchmark": "host_profile", "graph": args.graph, "backend": args.backend, "sources": args.sources,
              "degree_order": args.degree_order if args.sources else None, "n": A.n,
              "nvals": A.nvals, "calls": args.calls, "levels": levels,
              "commit": code_identity()["commit"] or "unknown", "device": device_name(A.backend),
              "host_cpu": host_processor(),
              "call_us": 1e6 * float(np.median(walls)), "levels_own_us": 1e6 * float(np.median(own)),
              "split_us": split, "timeline_us": parts, "timeline_calls": single_runs}
    write_json(record, args.json)


def stages(A, call, calls):
    """Median us from the call's start to the entry and the exit of each named stage of a
    call (wrapped for the measurement only: a host clock read each side), so that the set-up
    before the launch can be read stage by stage without a profiler's overhead."""
    import importlib

    from lagraph_dist.algebra import levels
    from lagraph_dist.algebra.vector import Vector
    bfs_module = importlib.import_module("lagraph_dist.algorithms.bfs")     # the package exports the function
    if call.sources is not None:
        return _batch_stages(A, call, calls)
    # the engine's stages, the same Python on both backends
    targets = [(bfs_module, "as_matrix"), (bfs_module, "_check_arguments"), (Vector, "_unset"),
               (bfs_module, "DirectionRule"), (bfs_module, "repeat_masked_vxm"), (levels, "_VectorLevels"),
               (levels, "_fused_levels"), (levels, "FusedRun"), (levels, "_frontier_left"),
               (levels.LocalPart, "gathered_list"), (levels.Vector, "_from_part"), (bfs_module, "BFSResult")]
    if A.backend.name == "gpu":      # the driver's stages: the fused run, its launch, reads and allocations
        import cupy
        from lagraph_dist.local.gpu_kernels import base, fused
        from lagraph_dist.local.gpu_kernels.bitmap import BitmapKernels
        from lagraph_dist.local.gpu_kernels.fused import FusedKernels
        targets += [(Vector, "singles"), (BitmapKernels, "single_entries"), (cupy, "empty"), (base._Counted, "__call__"),
                    (FusedKernels, "bfs_fused"), (FusedKernels, "_launch_plan"), (base.KernelsBase, "launch_cooperative"),
                    (base.KernelsBase, "read_mirrored"), (base.KernelsBase, "read_into"), (FusedKernels, "_fused_run"),
                    (base.KernelsBase, "read"), (fused, "_level_records")]
    else:                            # the compiled twin's run and the call into it
        from lagraph_dist.local.cpu_kernels import fused     # (its bfs_fused stays: the engine reads its attributes)
        targets += [(fused, "_run"), (fused, "_search")]
    _stage_offsets(A, call, calls, targets)


def _batch_stages(A, call, calls):
    """:func:`stages` of a bfs_multi batch: its checks, memory plan, batch and result, and on
    the GPU the driver's run, workspace, launch, reads and allocations."""
    import importlib

    from lagraph_dist.algebra import memory
    from lagraph_dist.local import fit
    batch_module = importlib.import_module("lagraph_dist.algorithms.bfs_multi")
    targets = [(batch_module, "as_matrix"), (batch_module, "_check_arguments"), (batch_module, "_plan"),
               (memory, "plan_multi_batches"), (fit, "available_bytes"), (batch_module, "DirectionRule"),
               (batch_module, "_search_batch"), (batch_module, "fused_multi_search"), (batch_module, "_stats_of"),
               (batch_module, "MultiBFSResult")]
    if A.backend.name == "gpu":
        import cupy
        from lagraph_dist.local.engine import LevelPlanes
        from lagraph_dist.local.gpu_kernels import base
        from lagraph_dist.local.gpu_kernels.multi_fused import MultiFusedKernels
        targets += [(MultiFusedKernels, "multi_bfs_fused"), (MultiFusedKernels, "_multi_fused_space"),
                    (MultiFusedKernels, "_multi_fused_launch"), (MultiFusedKernels, "_multi_fused_report"),
                    (base.KernelsBase, "free_device_bytes"), (base.KernelsBase, "launch_cooperative"),
                    (base.KernelsBase, "read_mirrored"), (base.KernelsBase, "read"), (cupy, "empty"),
                    (cupy, "asarray"), (LevelPlanes, "of_run"), (MultiFusedKernels, "_multi_fused_build"),
                    (base.KernelsBase, "_function"), (MultiFusedKernels, "_multi_fused_blocks"),
                    (MultiFusedKernels, "_multi_fused_sources"), (base.KernelArguments, "pack")]
    else:
        from lagraph_dist.local.cpu_kernels import multi_fused      # (the kernel set is a module: its own names)
        targets += [(A.backend.kernels, "multi_bfs_fused"), (multi_fused, "_search"), (fit, "host_memory")]
    _stage_offsets(A, call, calls, targets)


def _stage_offsets(A, call, calls, targets):
    """Each target (owner, name) wrapped with a host clock read each side, ``calls`` calls, the
    median offsets printed."""
    import inspect
    marks, saved = [], []

    def wrap(owner, name, label=None):
        static = inspect.getattr_static(owner, name)
        if inspect.isclass(static):      # a class is timed by its __init__: replaced by a function,
            return wrap(static, "__init__", name)     # its class attributes would be gone
        kind = type(static) if isinstance(static, (classmethod, staticmethod)) else None
        function = static.__func__ if kind else static
        label = label or name

        def timed(*args, **kwargs):
            marks.append((label, "in", time.perf_counter()))
            try:
                return function(*args, **kwargs)
            finally:
                marks.append((label, "out", time.perf_counter()))
        saved.append((owner, name, static))
        setattr(owner, name, kind(timed) if kind else timed)

    for owner, name in targets:
        if hasattr(owner, name):         # (an older commit's package, driven by host_ab.py, may lack one)
            wrap(owner, name)
    offsets = {}
    try:
        for started, ended in _timed_calls(A, call, calls, marks.clear):
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
