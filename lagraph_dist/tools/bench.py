"""The Graph500-style harness behind ``lagraph-dist bench`` (see docs/benchmarking.md).

Seeded roots among vertices with out-degree > 0; one untimed warm-up; each timed search from
the call of ``bfs`` to its result being complete on every rank; every timed search validated
with the Graph500 parent rules (validation is not timed); TEPS = undirected input edges in the
searched component / seconds, harmonic mean over roots. The peers (python-graphblas push and
push/pull, scipy csgraph, a naive cupyx BFS, our CPU backend) run on rank 0 over the same graph
and, unless told otherwise, the same roots in the same run.
"""
from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import platform
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lagraph_dist.algorithms import bfs
from lagraph_dist.tools import reference
from lagraph_dist.comm.grid import Grid
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.tools.validate import validate
from lagraph_dist.local.backend import get_backend, gpu_status
from lagraph_dist.core.errors import InvalidValue, OutOfDeviceMemory, OutOfHostMemory, ValidationError, open_file
from lagraph_dist.algebra.memory import estimate_memory, format_bytes, host_memory
from lagraph_dist.algebra.elementwise import ewise_mult, reduce
from lagraph_dist.algebra.levels import separate_levels
from lagraph_dist.semirings import binary, plus
from lagraph_dist.core.stats import measured_seconds
from lagraph_dist.core.text import plural
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.peers import HOST_PEERS, PEER_SECONDS, PEERS, SCIPY_PEERS

__all__ = ["BenchConfig", "Progress", "pick_roots", "run_bench", "teps_summary", "environment",
           "device_name", "format_table", "write_json", "PEERS"]

#: cupyx.scipy.sparse indexes its CSR with int32: the naive peer holds fewer stored edges.
CUPYX_MAX_NNZ = 2**31 - 1


@dataclass
class BenchConfig:
    roots: int = 64
    root_seed: int = 2
    directions: tuple = ("push", "auto")
    peers: tuple = ("graphblas-push", "graphblas-pushpull", "scipy")
    peer_roots: int | None = None    # the peers run the first ``peer_roots`` of ours (None: all)...
    peer_seconds: float = PEER_SECONDS   # ... until a peer has spent this long (at least one root)
    check_levels: bool = True        # compare levels with python-graphblas on the peers' roots
    progress: bool = True
    requested_backend: str | None = None   # what the user asked for ("auto" ...), for the record


class Progress:
    """Rank 0's progress on stderr. On a terminal: one bar over the phases of a run (building
    the graph, each direction, the peers) and, inside a phase, one over its roots. Elsewhere (a
    log, a pipe) no bars: one line as each phase starts. Messages go through :meth:`say`, which
    never writes into a half-drawn bar. Silent when disabled."""

    def __init__(self, enabled, phases, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.started = time.perf_counter()
        self.seconds = {}            # phase -> seconds it took
        self.bars = enabled and _is_terminal(self.stream)
        self._bar = None
        if self.bars:
            from tqdm import tqdm
            self._bar = tqdm(total=phases, desc="benchmark", unit="phase", leave=False, file=self.stream)

    @contextlib.contextmanager
    def phase(self, name):
        if self._bar is not None:
            self._bar.set_description(name)
        elif self.enabled:
            print(f"bench: {name} (at {time.perf_counter() - self.started:.1f} s)", file=self.stream, flush=True)
        began = time.perf_counter()
        yield
        self.seconds[name] = time.perf_counter() - began
        if self._bar is not None:
            self._bar.update(1)

    def over(self, items, what):
        if not self.bars:
            return items
        from tqdm import tqdm
        return tqdm(items, desc=what, unit="root", leave=False, file=self.stream)

    def say(self, message):
        """One line on the progress stream, above the bars when there are any."""
        if not self.enabled:
            return
        if self._bar is not None:
            from tqdm import tqdm
            tqdm.write(message, file=self.stream)
        else:
            print(message, file=self.stream, flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def pick_roots(A, count, seed):
    """Collective: ``count`` distinct roots drawn with a fixed seed among vertices of degree > 0
    (all of them when there are fewer)."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise InvalidValue(f"the number of roots must be a positive integer, got {count!r}")
    candidates = A.out_degree().indices()
    if candidates.shape[0] == 0:
        raise InvalidValue("no vertex of this graph has an out-edge, so there is no root to search from")
    rng = np.random.default_rng(seed)
    count = min(int(count), candidates.shape[0])
    return [int(v) for v in rng.choice(candidates, size=count, replace=False)]


def _component_edges(A, result):
    """Input edges inside the searched component: out-degrees of reached vertices (halved for
    a symmetric graph, whose every undirected edge is stored both ways)."""
    reached = result.parents if result.parents is not None else result.levels
    total = reduce(ewise_mult(reached, A.out_degree(), binary.second), plus)
    return total // 2 if A.symmetric else total


def teps_summary(edges, seconds):
    teps = np.asarray(edges, dtype=float) / np.asarray(seconds, dtype=float)
    return {
        "harmonic_mean_teps": float(len(teps) / np.sum(1.0 / teps)),
        "min_teps": float(teps.min()), "median_teps": float(np.median(teps)),
        "max_teps": float(teps.max()),
        "mean_ms": float(1e3 * np.mean(seconds)), "median_ms": float(1e3 * np.median(seconds)),
    }


#: frontier sizes that bound the bands of :func:`frontier_bands` (a band holds the levels of
#: more entries than the bound before it, up to its own; the last band is open)
FRONTIER_BANDS = (64, 256, 512, 1024, 2048)


def policy_settings(text):
    """A benchmark's comma-separated settings of a kernel knob whose None is the package's own
    policy: "1,2,policy" -> [1, 2, None]."""
    return [None if x == "policy" else int(x) for x in text.split(",")]


def policy_label(setting):
    """A setting from :func:`policy_settings` as a record names it: "policy" for None."""
    return "policy" if setting is None else setting


def frontier_bands(stats, bounds=FRONTIER_BANDS):
    """One search's levels grouped by frontier size (``res.stats``): for each band that holds
    a level, its bounds, its levels, their own seconds' mean and median in microseconds, and
    the launches and host reads counted on its levels (each level's measured figures, none a
    share of a total). Shows where a deep search's time goes: its small levels run in one
    block, its middle ones in a cluster or the grid (docs/notes/gpu-cluster-levels.md). Levels
    timed only as part of a run (the CPU's one-vertex levels: ``seconds`` None) are left out:
    they have no seconds of their own."""
    stats = [s for s in stats if s["seconds"] is not None]
    return banded_levels([s["frontier"] for s in stats], [s["seconds"] for s in stats], bounds,
                         launches=[s["launches"] for s in stats], host_reads=[s["host_reads"] for s in stats])


def banded_levels(frontiers, seconds, bounds=FRONTIER_BANDS, *, launches=None, host_reads=None):
    """Levels (or rounds) grouped by frontier size: ``frontiers[i]`` and ``seconds[i]`` are
    level i's; each band that holds one gives ``frontier_from``, ``frontier_to`` (None: open),
    ``levels``, ``us_mean``, ``us_median`` and, where given, the sums of ``launches`` and
    ``host_reads``."""
    frontier = np.asarray(frontiers, dtype=np.int64)
    us = 1e6 * np.asarray(seconds, dtype=float)
    bands, low = [], 1
    for high in (*bounds, None):
        inside = (frontier >= low) & (frontier <= high if high is not None else True)
        if inside.any():
            band = {"frontier_from": low, "frontier_to": high, "levels": int(inside.sum()),
                    "us_mean": float(us[inside].mean()), "us_median": float(np.median(us[inside]))}
            for name, values in (("launches", launches), ("host_reads", host_reads)):
                if values is not None:
                    band[name] = int(np.asarray(values, dtype=np.int64)[inside].sum())
            bands.append(band)
        low = high + 1 if high is not None else low
    return bands


#: a timed root is named an outlier when it takes more than this many times the median
OUTLIER_FACTOR = 3.0


def outliers(roots, seconds, level_stats):
    """The roots whose search took more than OUTLIER_FACTOR x the median, each with its time,
    its ratio to the median and its level records (so that a one-off cost cannot hide in a
    mean)."""
    median = float(np.median(seconds))
    return [{"root": root, "seconds": t, "times_median": t / median, "levels": stats}
            for root, t, stats in zip(roots, seconds, level_stats) if t > OUTLIER_FACTOR * median]


def levels_digest(levels):
    """A digest of a dense host levels array (-1 unreached): equal arrays, equal digests, so
    levels can be compared with the reference's later without keeping n values a root
    (:func:`narrowed_levels`, then :func:`digest_of`)."""
    return digest_of(narrowed_levels(levels))


def narrowed_levels(levels, to_host=np.asarray):
    """The levels in the narrowest integer type that holds them (an eighth of the bytes on
    graphs of fewer than 128 levels), narrowed where they live and brought over by ``to_host``
    (at scale 27 the int64 array's trip took 0.3 s a root)."""
    deepest = int(levels.max()) if levels.size else 0
    narrow = next(t for t in (np.int8, np.int16, np.int32, np.int64) if deepest <= np.iinfo(t).max)
    return np.ascontiguousarray(to_host(levels.astype(narrow, copy=False)))


def digest_of(narrowed):
    """The digest of host levels from :func:`narrowed_levels`, their type in it."""
    digest = hashlib.sha256(narrowed.dtype.str.encode())
    digest.update(narrowed.data)
    return digest.hexdigest()


@contextlib.contextmanager
def _no_collector():
    """Python's cyclic garbage collector off inside the clock (as timeit does): a collection
    is a one-off pause that lands on whichever search allocates past its threshold. It runs
    after the clock stops instead, when the next allocation finds the threshold passed (a full
    collection before each search cost about 0.2 s with CuPy, numba and python-graphblas
    loaded: 13 s of the bench's 64 roots at scale 27 on an H200)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _timed_bfs(A, root, direction):
    with _no_collector():
        A.grid.comm.Barrier()
        started = time.perf_counter()
        result = bfs(A, root, direction=direction)
        A.backend.sync()
        elapsed = time.perf_counter() - started
    return result, elapsed


def warm_up(A, root, directions):
    """Collective. Untimed searches from ``root`` that walk every path a timed search can
    take, so that nothing is built and no memory pool grows inside the clock. Our CUDA modules
    are built whole on their first use (every template of every source); CuPy builds its own
    kernels (the glue between ours) on their first call, so each direction runs both as the
    backend's fused composite and as separate products (:func:`lagraph_dist.algebra.levels.separate_levels`),
    which is the path of the levels a fused run hands back."""
    walked = ("push", "pull", *directions) if "auto" in directions else directions
    for direction in dict.fromkeys(walked):
        _timed_bfs(A, root, direction)
        with separate_levels():
            _timed_bfs(A, root, direction)


def _run_direction(A, roots, direction, check_roots, progress):
    """Times ``direction`` from every root (each search validated outside the clock); keeps
    per-root seconds and level records, names the outliers, and the digests of the levels
    from ``check_roots`` for the later comparison with python-graphblas."""
    seconds, edges, level_stats, digests, pool_growth = [], [], [], {}, []
    checking = 0.0

    def to_host(array):      # (into a host array of its own: a big one takes the staged read)
        return A.backend.to_host(array, out=np.empty(array.shape, array.dtype))

    # a digest is hashed while the next searches run (a scale-27 root's took 0.16 s, its
    # trip to the host included, and every root is digested: which ones the reference
    # reaches within its budget is known only later)
    with ThreadPoolExecutor(max_workers=1) as hashing:
        for root in progress.over(roots, f"bfs {direction}"):
            pool_before = A.backend.memory_pool_peak()
            result, elapsed = _timed_bfs(A, root, direction)
            pool_growth.append(A.backend.memory_pool_peak() - pool_before)
            began = time.perf_counter()
            levels = result.levels.to_array()          # (where the search ran: no trip to the host)
            validate(A, root, levels, result.parents)
            checking += time.perf_counter() - began
            if root in check_roots:
                digests[root] = hashing.submit(digest_of, narrowed_levels(levels, to_host))
            seconds.append(elapsed)
            edges.append(_component_edges(A, result))
            level_stats.append(result.stats)
        digests = {root: digest.result() for root, digest in digests.items()}
    summary = teps_summary(edges, seconds)
    # reaching this line means every search passed (a failure raises ValidationError)
    summary.update(direction=direction, roots=len(roots), validated=len(roots),
                   edges_per_root=edges, seconds_per_root=seconds,
                   level_seconds_per_root=[sum(map(measured_seconds, stats)) for stats in level_stats],
                   pool_growth_bytes_per_root=pool_growth, validation_seconds=checking,
                   outliers=outliers(roots, seconds, level_stats),
                   levels_first_root=level_stats[0])
    return summary, digests


def naive_cupyx_bfs(AT, root):
    """The BFS a CuPy user writes first: one cupyx.scipy.sparse SpMV a level over the whole
    graph, a dense frontier, and a host check for termination. Returns the levels (device)."""
    import cupy as cp
    n = AT.shape[0]
    levels = cp.full(n, -1, dtype=cp.int64)
    levels[root] = 0
    frontier = cp.zeros(n, dtype=cp.float32)
    frontier[root] = 1
    depth = 0
    while True:
        depth += 1
        fresh = (AT @ frontier > 0) & (levels < 0)
        if not bool(fresh.any()):
            return levels
        levels[fresh] = depth
        frontier = fresh.astype(cp.float32)


# -- what each part of a run needs, checked before it allocates -----------------------------
def part_bytes(part, A):
    """(host bytes, device bytes) that ``part`` of a run takes beyond what is already held,
    from the graph's n and stored edges: upper estimates of each library's own copies."""
    n, nnz = A.n, A.nvals
    if part == "host graph":          # scipy CSR with bool data on rank 0 (pieces gathered there)
        gathered = 0 if A.grid.size == 1 else 16 * nnz
        return 13 * nnz + 8 * n + gathered, 0       # int64 indices where nnz passes 2**31
    if part == "host pattern":        # one GPU's rows as uint64 arrays (Matrix.host_csr)
        return 8 * nnz + 8 * n, 0
    if part == "graphblas":           # A with int64 indices (the rows' import, or COO's pairs and
        # the matrix made of them) and A.T, unless A is symmetric: then A alone, its own transpose
        return 8 * nnz * (1 if A.symmetric else 3) + 32 * n, 0
    if part == "graphblas from its arrays":     # a host pattern taken over: A.T unless symmetric
        return 16 * nnz * (0 if A.symmetric else 1) + 32 * n, 0
    if part == "scipy":               # csgraph copies the data as float64 and checks the indices
        return 12 * nnz + 24 * n, 0
    if part == "cupyx-naive":         # float32 data and int32 indices and pointers, dense vectors
        return 0, 8 * nnz + 28 * n
    if part == "lagraph-cpu":
        return estimate_memory(n, nnz, backend="cpu", symmetric=A.symmetric).total, 0
    if part == "level check":         # the reference's levels and parents, dense
        return 16 * n, 0
    raise ValueError(f"no estimate for {part!r}")


#: a part runs only when its estimate is at most this share of the memory free for it
FIT_SHARE = 0.9


def why_not_fits(part, A):
    """None when ``part`` fits in this rank's free host and device memory now, else the reason
    (what it needs against what is free), for the record."""
    host, device = part_bytes(part, A)
    wants = [("host", host, host_memory()[0])]
    if device:
        usable, why = gpu_status()
        if not usable:
            return f"needs CuPy and a CUDA device: {why}"
        wants.append(("device", device, get_backend("gpu").free_device_bytes()[0]))
    for where, need, free in wants:
        if need > FIT_SHARE * free:
            return (f"needs about {format_bytes(need)} of {where} memory and {format_bytes(free)} "
                    f"are free (checked before allocating)")
    return None


_MEMORY_ERRORS = (MemoryError, OutOfDeviceMemory, OutOfHostMemory)


def _ran_out(error):
    """Is ``error`` an allocation failure (ours, numpy's, or CuPy's)?"""
    return isinstance(error, _MEMORY_ERRORS) or type(error).__name__ == "OutOfMemoryError"


def _cannot_run(peer, A, S):
    """Why ``peer`` cannot run here whatever the memory (None when it can): the host peers
    need the graph gathered to this rank; the naive cupyx peer needs a device and fewer than
    2**31 stored edges, and the graph on one GPU or on the host."""
    if peer in HOST_PEERS:
        return None if S is not None else "the graph was not gathered to the host"
    usable, reason = gpu_status()
    if not usable:
        return f"needs CuPy and a CUDA device: {reason}"
    if A.nvals > CUPYX_MAX_NNZ:
        return (f"cupyx.scipy.sparse indexes with int32, and this graph stores {A.nvals} "
                f"edges (more than 2**31 - 1)")
    if S is None and not (A.backend.name == "gpu" and A.grid.size == 1):
        return "the graph is neither on one GPU nor gathered to the host (a host peer or the level check gathers it)"
    return None


def _naive_cupyx_graph(A, S):
    """The cupyx CSR whose rows are destinations, for the naive peer: our own block when it is
    the whole graph on one GPU (no trip through the host), else from the host gather ``S``."""
    import cupy as cp
    import cupyx.scipy.sparse as csp
    if A.backend.name == "gpu" and A.grid.size == 1:
        csr = A.block.by_row if not A.transposed else A.block.by_col
        data = cp.ones(csr.nnz, dtype=cp.float32)
        return csp.csr_matrix((data, csr.indices, csr.indptr.astype(cp.int32)), shape=(A.n, A.n))
    return csp.csr_matrix(S.T.tocsr().astype(np.float32))


def _graphblas_searcher(prepared, direction):
    """search(root) -> (reached ids, levels) with python-graphblas."""

    def search(root):
        levels = reference.bfs(prepared, root, direction=direction)[0]
        return np.flatnonzero(levels >= 0), levels
    return search


def _peer_searcher(peer, S, A, shared):
    """search(root) -> (reached vertex ids on the host, dense levels or None) for ``peer``,
    its graph built now (``shared`` keeps python-graphblas's between its two peers)."""
    if peer.startswith("graphblas"):
        if "graphblas" not in shared:
            shared["graphblas"] = reference.prepare(S, symmetric=A.symmetric)
        return _graphblas_searcher(shared["graphblas"], "push" if peer == "graphblas-push" else "pushpull")
    if peer == "scipy":
        import scipy.sparse.csgraph as csgraph
        return lambda root: (csgraph.breadth_first_order(S, root, directed=True, return_predecessors=False), None)
    if peer == "cupyx-naive":
        AT = _naive_cupyx_graph(A, S)

        def search(root):
            import cupy as cp
            levels = naive_cupyx_bfs(AT, root)
            cp.cuda.Device().synchronize()
            return cp.asnumpy(cp.flatnonzero(levels >= 0)), None
        return search
    if peer == "lagraph-cpu":
        from mpi4py import MPI
        A_cpu = Matrix.from_scipy(S, grid=Grid(comm=MPI.COMM_SELF), backend="cpu")
        A_cpu.symmetric = A.symmetric
        return lambda root: (np.flatnonzero(bfs(A_cpu, root, parents=False).levels.to_numpy() >= 0), None)
    raise InvalidValue(f"unknown peer {peer!r}; choose from {', '.join(PEERS)}")


def _memory_part(peer, S):
    """The part of :func:`part_bytes` that ``peer``'s graph takes, made from the host copy ``S``."""
    if peer.startswith("graphblas"):
        return "graphblas from its arrays" if isinstance(S, reference.HostPattern) else "graphblas"
    return peer


def _time_peer(search, roots, degrees, symmetric, budget, progress, name, reference_digests):
    """One peer over ``roots`` in order, after an untimed warm-up, until it has spent
    ``budget`` seconds (at least one root); the same TEPS rule as ours. Digests of the levels
    it returns go to ``reference_digests`` (outside the clock)."""
    search(roots[0])
    seconds, edges = [], []
    for root in progress.over(roots, name):
        if seconds and sum(seconds) >= budget:
            break
        started = time.perf_counter()
        reached, levels = search(root)
        seconds.append(time.perf_counter() - started)
        total = int(degrees[reached].sum())
        edges.append(total // 2 if symmetric else total)
        if levels is not None:
            reference_digests.setdefault(root, levels_digest(levels))
    stopped = f"its {budget:g} s budget was spent" if len(seconds) < len(roots) else None
    return teps_summary(edges, seconds) | {"roots": len(seconds), "edges_per_root": edges,
                                            "seconds_per_root": seconds, "stopped_early": stopped}


def _peer_runs(S, roots, config, A, progress, degrees, reference_digests):
    """Each peer on this rank over the same graph and roots: its graph built outside the
    timing once its memory is checked, then timed by :func:`_time_peer`. A peer that cannot
    run here, or runs out of memory all the same, is recorded with the reason and the others
    go on."""
    out, shared = {}, {}
    for peer in config.peers:
        part = _memory_part(peer, S)
        made = peer.startswith("graphblas") and "graphblas" in shared      # (its two peers share one graph)
        reason = _cannot_run(peer, A, S) or (why_not_fits(part, A) if not made else None)
        if reason is not None:
            out[peer] = {"skipped": reason}
            progress.say(f"{peer} skipped: {reason}")
            continue
        try:
            search = _peer_searcher(peer, S, A, shared)
            out[peer] = _time_peer(search, roots, degrees, A.symmetric, config.peer_seconds, progress, peer,
                                   reference_digests)
        except Exception as error:     # noqa: BLE001 - only allocation failures are recorded
            if not _ran_out(error):
                raise
            out[peer] = {"skipped": f"ran out of memory: {error}"}
            progress.say(f"{peer} stopped: ran out of memory ({error})")
        finally:
            search = None
    return out, shared.get("graphblas")


def _reference_digests(S, prepared, roots, budget, progress, digests, symmetric):
    """The python-graphblas levels' digests of ``roots`` that its peers did not already give,
    within ``budget`` seconds (at least one root); ``symmetric``: S is its own transpose."""
    graph = prepared if prepared is not None else reference.prepare(S, symmetric=symmetric)
    started = time.perf_counter()
    for root in progress.over([r for r in roots if r not in digests], "python-graphblas levels"):
        if time.perf_counter() - started >= budget and digests:
            break
        digests[root] = levels_digest(reference.bfs(graph, root, direction="pushpull")[0])
    return digests


def _check_levels(runs, reference_digests, digests_by_direction):
    """Marks each of our runs with the roots whose levels were compared with python-graphblas's
    and those that differ."""
    for direction, run in runs.items():
        ours = digests_by_direction.get(direction, {})
        compared = [r for r in ours if r in reference_digests]
        run["levels_checked"] = len(compared)
        run["levels_differ"] = [r for r in compared if ours[r] != reference_digests[r]]


def _agreement(peers, runs):
    """Mark each peer that ran with whether it reached as many edges as we did from every
    root it shared with us (its own check that it searched the same components)."""
    ours = next(iter(runs.values()))["edges_per_root"] if runs else None
    for result in peers.values():
        if "edges_per_root" in result and ours is not None:
            theirs = result["edges_per_root"]
            result["agrees_with_ours"] = list(theirs) == list(ours[:len(theirs)])


def device_name(backend):
    """What computes: the GPU's name on the GPU backend, the processor's model on the CPU."""
    if backend.name == "gpu":
        return backend.device_info()["device"]
    return host_processor()


def host_processor():
    """The host's processor model (Linux /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(A):
    """Device, grid, versions, the host's processor (``host_cpu``: the GPU machines' hosts differ,
    and a host-side peer's time, scipy's, with them) and the code that ran (the imported package's
    commit, whether it had uncommitted changes, and where that was read:
    :func:`~lagraph_dist.core.version.code_identity`), for the JSON record."""
    import mpi4py
    import scipy
    env = {
        "backend": A.backend.name, "grid": list(A.grid.shape), "ranks": A.grid.size,
        "host": platform.node(), "host_cpu": host_processor(), "cpu_count": os.cpu_count(), "affinity": cpu_affinity(),
        "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
        "mpi4py": mpi4py.__version__,
        "transport": A.grid.transport.describe(),
    }
    code = code_identity()
    env.update({"lagraph_dist": code["version"], "commit": code["commit"], "dirty": code["dirty"],
                "commit_from": code["commit_from"]})
    if A.backend.name == "gpu":
        env.update(A.backend.device_info())
    else:
        env["device"] = device_name(A.backend)
    try:
        import graphblas
        env["python-graphblas"] = graphblas.__version__
    except ImportError:
        pass
    return env


class OversubscribedWarning(RuntimeWarning):
    """More MPI ranks on a host than it has usable cores: they take turns on the cores, so
    every time measured (ours, and the peers' on rank 0 while the others wait) is too slow."""


def oversubscription(ranks_on_host: int, usable_cores: int) -> dict:
    """The record's account of a host: its ranks, its usable cores, whether the ranks
    outnumber the cores."""
    return {"oversubscribed": int(ranks_on_host) > int(usable_cores), "ranks_on_host": int(ranks_on_host),
            "usable_cores": int(usable_cores)}


def cpu_affinity() -> dict:
    """The CPUs this process may run on and how many physical cores they lie on (Linux's
    topology files; None where they are absent): two CPUs of one core share its caches and
    issue slots, so "2 cores" by ``taskset -c 0,1`` may be one core's two hardware threads."""
    cpus = sorted(_usable_cores())
    cores = set()
    for cpu in cpus:
        topology = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            cores.add(tuple(int((topology / name).read_text()) for name in ("physical_package_id", "core_id")))
        except (OSError, ValueError):
            return {"cpus": cpus, "physical_cores": None}
    return {"cpus": cpus, "physical_cores": len(cores)}


def _usable_cores() -> set:
    """The cores this process may run on (its affinity, which a launcher's binding narrows)."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


def host_load(comm) -> dict:
    """Collective: :func:`oversubscription` of the most loaded host among ``comm``'s ranks. A
    host's ranks are those sharing its memory (an MPI shared-memory split); its usable cores
    the union of their affinities, so ranks bound one to a core are not counted as crowded."""
    if comm.Get_size() == 1:
        return oversubscription(1, len(_usable_cores()))
    from mpi4py import MPI
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    cores = set().union(*node.allgather(sorted(_usable_cores())))
    here = oversubscription(node.Get_size(), len(cores))
    node.Free()
    return max(comm.allgather(here), key=lambda host: host["ranks_on_host"] / max(host["usable_cores"], 1))


def _warn_if_oversubscribed(load, rank):
    """Once a run, on rank 0: the ranks outnumber a host's cores (the record says so too)."""
    if load["oversubscribed"] and rank == 0:
        warnings.warn(OversubscribedWarning(
            f"{load['ranks_on_host']} MPI ranks share the {plural(load['usable_cores'], 'usable core')} "
            f"of a host: they take turns on the cores, so every time in this benchmark (ours, and the "
            f"peers' on rank 0) is slower than with a core a rank; run at most "
            f"{plural(load['usable_cores'], 'rank')} a host"), stacklevel=3)


def _host_graph(A, needed, progress, as_scipy):
    """Collective: the whole graph on rank 0 (None elsewhere), or (None, why) on every rank
    when it is not needed or cannot fit. A scipy CSR where ``as_scipy`` (a peer reads one) or
    the graph is on several ranks; else python-graphblas's arrays
    (:class:`~lagraph_dist.tools.reference.HostPattern`), which it takes without a copy (at
    scale 27 the scipy matrix and python-graphblas's copy of it took 40 s)."""
    if not needed:
        return None, "no host peer or level check asked for it"
    as_scipy = as_scipy or A.grid.size > 1 or A.transposed
    part = "host graph" if as_scipy else "host pattern"
    reason = A.grid.comm.bcast(why_not_fits(part, A) if A.grid.rank == 0 else None, root=0)
    if reason is not None:
        progress.say(f"host copy of the graph skipped: {reason}")
        return None, reason
    if as_scipy:
        return A.to_scipy(root=0), None
    return reference.HostPattern(A.n, *A.host_csr(np.uint64)), None


def run_bench(A, graph_info, config: BenchConfig, progress=None, on_part=None):
    """Collective. Times every direction, then (on rank 0) the peers and the level check;
    returns the JSON record. ``on_part(record)`` is called on rank 0 as each part finishes
    (the command line writes the JSON then), so that what is measured survives a later part's
    failure. A level that differs from python-graphblas raises ValidationError after the
    record is handed over.

    ``progress``: a :class:`Progress` to advance (the command line's, which has already shown
    the graph being built); by default one is made here when ``config.progress`` is set.
    """
    if config.peer_roots is not None and config.peer_roots < 1:
        raise InvalidValue(f"peer_roots must be None (all our roots) or >= 1, got {config.peer_roots}")
    if not config.peer_seconds > 0:
        raise InvalidValue(f"peer_seconds must be a positive number of seconds, got {config.peer_seconds!r}")
    roots = pick_roots(A, config.roots, config.root_seed)
    peer_roots = roots[:config.peer_roots] if config.peer_roots is not None else roots
    own_progress = progress is None
    if own_progress:
        progress = Progress(config.progress and A.grid.rank == 0, len(config.directions) + 2)
    load = host_load(A.grid.comm)
    _warn_if_oversubscribed(load, A.grid.rank)
    record = {
        "graph": graph_info, "n": A.n, "nvals": A.nvals,
        "backend": A.backend.name, "backend_requested": config.requested_backend,
        "environment": environment(A),
        "protocol": "graph500: seeded roots with degree > 0, warm-up excluded (it walks every path: "
                    "each direction fused and as separate products), every search validated outside "
                    "the clock; TEPS = undirected input edges in the searched component / seconds; "
                    f"outliers: roots above {OUTLIER_FACTOR:g}x the median",
        "roots": roots, "lagraph_dist": {}, "peers": {},
        "graph_bytes_per_edge": A.grid.allreduce(A.block.nbytes) / max(A.nvals, 1),
        **load,
    }

    def publish():
        if on_part is not None and A.grid.rank == 0:
            on_part(record)

    check_roots = set(peer_roots) if config.check_levels else set()
    digests = {}
    with progress.phase("warm-up"):
        A.backend.reset_memory_peak()
        warm_up(A, roots[0], config.directions)
    for d in config.directions:
        with progress.phase(f"bfs {d}"):
            record["lagraph_dist"][d], digests[d] = _run_direction(A, roots, d, check_roots, progress)
        record["peak_device_bytes"] = A.backend.memory_pool_peak()
        record["phase_seconds"] = dict(progress.seconds)
        publish()
    runs = record["lagraph_dist"]
    with progress.phase("peers"):
        needs_host = config.check_levels or any(p in HOST_PEERS for p in config.peers)
        S, no_host = _host_graph(A, needs_host, progress, as_scipy=any(p in SCIPY_PEERS for p in config.peers))
        degrees = A.out_degree().to_numpy(fill=0) if no_host else None     # collective, like no_host
        if A.grid.rank == 0:
            degrees = np.diff(S.indptr).astype(np.int64) if S is not None else degrees
            reference_digests = {}
            record["peers"], prepared = _peer_runs(S, peer_roots, config, A, progress, degrees, reference_digests)
            if config.check_levels:
                reason = no_host or why_not_fits("level check", A)
                if reason is None and prepared is None:
                    reason = why_not_fits(_memory_part("graphblas", S), A)
                if reason is None:
                    _reference_digests(S, prepared, peer_roots, config.peer_seconds, progress, reference_digests,
                                       A.symmetric)
                    _check_levels(runs, reference_digests, digests)
                else:
                    record["level_check_skipped"] = reason
            prepared = S = None
            _agreement(record["peers"], runs)
            ran = {peer: p for peer, p in record["peers"].items() if "skipped" not in p}
            best = max(r["harmonic_mean_teps"] for r in runs.values())
            record["ratios"] = {f"lagraph_dist/{peer}": best / p["harmonic_mean_teps"] for peer, p in ran.items()}
    record["phase_seconds"] = dict(progress.seconds)
    publish()
    if own_progress:
        progress.close()
    differ = A.grid.comm.bcast({d: r.get("levels_differ", []) for d, r in runs.items()}, root=0)
    wrong = {d: roots_ for d, roots_ in differ.items() if roots_}
    if wrong:
        raise ValidationError(f"levels differ from python-graphblas: {wrong} (direction: roots)")
    return record


def write_json(record, path):
    """Write a benchmark record, stamped with the code that made it (``record["code"]``: the
    package's version, commit, dirty flag and where the commit was read) unless it has one."""
    record.setdefault("code", code_identity())
    with open_file(path, "w", doing=f"write the benchmark record {path}") as handle:
        json.dump(record, handle, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))


def _graph_title(record):
    graph = record.get("graph", {})
    if graph.get("kind") == "kronecker":
        return f"Kronecker scale {graph['scale']}, edge factor {graph['edgefactor']}, seed {graph['seed']}"
    if graph.get("kind") == "mtx":
        return f"Matrix Market file {graph['path']}"
    return "graph"


def format_table(record):
    """The record as a heading (graph, device, backend) and a markdown table."""
    env = record["environment"]
    backend = record.get("backend", env.get("backend"))
    asked = record.get("backend_requested")
    ours = record["lagraph_dist"]
    our_roots = max((run["roots"] for run in ours.values()), default=0)
    lines = [
        f"graph: {_graph_title(record)}: n = {record['n']:,} vertices, {record['nvals']:,} stored edges",
        f"device: {env.get('device', '?')}; backend: {backend}"
        + (f" (asked for {asked})" if asked and asked != backend else "")
        + f"; grid {env['grid'][0]}x{env['grid'][1]} ({plural(env['ranks'], 'rank')})",
        "",
        "| run | hmean GTEPS | median ms | roots | validated |",
        "|---|---|---|---|---|",
    ]
    for name, run in ours.items():
        checks = f"{run['validated']}/{run['roots']} Graph500 rules"
        if run.get("levels_checked"):
            checks += f", levels = python-graphblas on {run['levels_checked']}"
        lines.append(f"| lagraph_dist {backend} {name} | {run['harmonic_mean_teps'] / 1e9:.4f} | "
                     f"{run['median_ms']:.2f} | {run['roots']} | {checks} |")
    for name, run in record["peers"].items():
        if "skipped" in run:
            lines.append(f"| {name} | - | - | 0 | skipped: {run['skipped']} |")
            continue
        agrees = {True: "reached the same edges as ours", False: "REACHED OTHER EDGES THAN OURS",
                  None: "not compared"}[run.get("agrees_with_ours")]
        lines.append(f"| {name} | {run['harmonic_mean_teps'] / 1e9:.4f} | {run['median_ms']:.2f} | "
                     f"{run['roots']} | {agrees} |")
    notes = []
    for name, run in record["peers"].items():
        if "skipped" not in run and run["roots"] < our_roots:
            why = f" ({run['stopped_early']})" if run.get("stopped_early") else ""
            notes.append(f"{name} ran the first {plural(run['roots'], 'root')} of our {our_roots}{why}.")
    if record.get("level_check_skipped"):
        notes.append(f"Levels not compared with python-graphblas: {record['level_check_skipped']}.")
    if record.get("oversubscribed"):
        notes.append(f"Oversubscribed: {record['ranks_on_host']} ranks on a host of "
                     f"{plural(record['usable_cores'], 'usable core')}; every time above is slower than "
                     f"with a core a rank.")
    for name, run in ours.items():
        for outlier in run.get("outliers", []):
            notes.append(f"Outlier, {name} from root {outlier['root']}: {1e3 * outlier['seconds']:.2f} ms, "
                         f"{outlier['times_median']:.1f}x the median (its level records are in the JSON).")
    return "\n".join(lines + ([""] + notes if notes else []))

