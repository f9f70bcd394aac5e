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
import json
import os
import platform
import subprocess
import time
from dataclasses import dataclass

import numpy as np

from lagraph_dist.algorithms import bfs
from lagraph_dist.errors import InvalidValue
from lagraph_dist.ops import ewise_mult, reduce
from lagraph_dist.semirings import binary, plus

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
    peer_roots: int | None = None    # the peers run the first ``peer_roots`` of ours (None: all)
    check_levels: bool = True        # compare levels with python-graphblas (small graphs)
    progress: bool = True
    requested_backend: str | None = None   # what the user asked for ("auto" ...), for the record


class Progress:
    """Rank 0's progress on stderr: one bar over the phases of a run (building the graph, the
    peers, each direction) and, inside a phase, one over its roots. Silent when disabled."""

    def __init__(self, enabled, phases):
        self.enabled = enabled
        self._bar = None
        if enabled:
            from tqdm import tqdm
            self._bar = tqdm(total=phases, desc="benchmark", unit="phase", leave=False)

    @contextlib.contextmanager
    def phase(self, name):
        if self._bar is not None:
            self._bar.set_description(name)
        yield
        if self._bar is not None:
            self._bar.update(1)

    def over(self, items, what):
        if not self.enabled:
            return items
        from tqdm import tqdm
        return tqdm(items, desc=what, unit="root", leave=False)

    def close(self):
        if self._bar is not None:
            self._bar.close()


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


def _timed_bfs(A, root, direction):
    A.grid.comm.Barrier()
    started = time.perf_counter()
    result = bfs(A, root, direction=direction)
    A.backend.sync()
    return result, time.perf_counter() - started


def _run_direction(A, roots, direction, reference_levels, progress):
    from lagraph_dist.validation import validate
    for warm_up in ("push", "pull", direction):   # every kernel compiled, every cache built
        _timed_bfs(A, roots[0], warm_up)
    seconds, edges, first_levels, checked = [], [], None, 0
    for k, root in enumerate(progress.over(roots, f"bfs {direction}")):
        result, elapsed = _timed_bfs(A, root, direction)
        levels = result.levels.to_numpy()
        validate(A, root, levels, result.parents.to_numpy())
        if reference_levels is not None and root in reference_levels:
            if not np.array_equal(levels, reference_levels[root]):
                from lagraph_dist.errors import ValidationError
                raise ValidationError(f"levels from root {root} differ from python-graphblas")
            checked += 1
        seconds.append(elapsed)
        edges.append(_component_edges(A, result))
        if k == 0:
            first_levels = result.stats
    summary = teps_summary(edges, seconds)
    # reaching this line means every search passed (a failure raises ValidationError)
    summary.update(direction=direction, roots=len(roots), validated=len(roots),
                   levels_checked=checked, edges_per_root=edges, seconds_per_root=seconds,
                   levels_first_root=first_levels)
    return summary


PEERS = ("graphblas-push", "graphblas-pushpull", "scipy", "cupyx-naive", "lagraph-cpu")


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


HOST_PEERS = ("graphblas-push", "graphblas-pushpull", "scipy", "lagraph-cpu")


def _naive_cupyx_graph(A, S):
    """(cupyx CSR whose rows are destinations, None) for the naive peer, or (None, the reason
    it cannot run here). Our own block serves when it is the whole graph on one GPU (no trip
    through the host); else the host gather ``S``."""
    from lagraph_dist.backend import gpu_status
    usable, reason = gpu_status()
    if not usable:
        return None, f"needs CuPy and a CUDA device: {reason}"
    if A.nvals > CUPYX_MAX_NNZ:
        return None, (f"cupyx.scipy.sparse indexes with int32, and this graph stores {A.nvals} "
                      f"edges (more than 2**31 - 1)")
    import cupy as cp
    import cupyx.scipy.sparse as csp
    if A.backend.name == "gpu" and A.grid.size == 1:
        csr = A.block.by_row if not A.transposed else A.block.by_col
        data = cp.ones(csr.nnz, dtype=cp.float32)
        return csp.csr_matrix((data, csr.indices, csr.indptr.astype(cp.int32)), shape=(A.n, A.n)), None
    if S is None:
        return None, ("the graph is neither on one GPU nor gathered to the host (a host peer or "
                      "the level check gathers it)")
    return csp.csr_matrix(S.T.tocsr().astype(np.float32)), None


def _peer_searchers(S, peers, A):
    """({peer: search(root) -> reached vertex ids (host)}, {peer: why it was skipped}), each
    searcher with its graph built once."""
    searchers, skipped = {}, {}
    for peer in peers:
        if peer.startswith("graphblas"):
            from lagraph_dist import reference
            prepared = searchers.get("_graphblas") or reference.prepare(S)
            searchers["_graphblas"] = prepared
            direction = "push" if peer == "graphblas-push" else "pushpull"
            searchers[peer] = (lambda root, d=direction, g=prepared:
                               np.flatnonzero(reference.bfs(g, root, direction=d)[0] >= 0))
        elif peer == "scipy":
            import scipy.sparse.csgraph as csgraph
            searchers[peer] = lambda root: csgraph.breadth_first_order(
                S, root, directed=True, return_predecessors=False)
        elif peer == "cupyx-naive":
            AT, reason = _naive_cupyx_graph(A, S)
            if AT is None:
                skipped[peer] = reason
                continue

            def search(root, AT=AT):
                import cupy as cp
                levels = naive_cupyx_bfs(AT, root)
                cp.cuda.Device().synchronize()
                return cp.asnumpy(cp.flatnonzero(levels >= 0))
            searchers[peer] = search
        elif peer == "lagraph-cpu":
            from lagraph_dist.grid import Grid
            from lagraph_dist.matrix import Matrix
            from mpi4py import MPI
            A_cpu = Matrix.from_scipy(S, grid=Grid(comm=MPI.COMM_SELF), backend="cpu")
            A_cpu.symmetric = (S != S.T).nnz == 0
            searchers[peer] = lambda root, A=A_cpu: np.flatnonzero(
                bfs(A, root, parents=False).levels.to_numpy() >= 0)
    searchers.pop("_graphblas", None)
    return searchers, skipped


def _peer_runs(S, roots, peers, A, progress, degrees=None):
    """Each peer on this rank over the same graph and roots, with the same TEPS rule; graph
    conversion happens before the timing, and one warm-up search is not timed. A peer that
    cannot run here is recorded with the reason."""
    degrees = np.diff(S.indptr) if degrees is None else degrees
    searchers, skipped = _peer_searchers(S, peers, A)
    out = {peer: {"skipped": reason} for peer, reason in skipped.items()}
    for peer, search in searchers.items():
        search(roots[0])
        seconds, edges = [], []
        for root in progress.over(roots, peer):
            started = time.perf_counter()
            reached = search(root)
            seconds.append(time.perf_counter() - started)
            total = int(degrees[reached].sum())
            edges.append(total // 2 if A.symmetric else total)
        out[peer] = teps_summary(edges, seconds) | {"roots": len(roots), "edges_per_root": edges}
    return out


def _agreement(peers, runs):
    """Mark each peer that ran with whether it reached as many edges as we did from every
    root it shared with us (its own check that it searched the same components)."""
    ours = next(iter(runs.values()))["edges_per_root"] if runs else None
    for result in peers.values():
        if "edges_per_root" in result and ours is not None:
            theirs = result["edges_per_root"]
            result["agrees_with_ours"] = list(theirs) == list(ours[:len(theirs)])


def _git_commit():
    if os.environ.get("LAGRAPH_DIST_COMMIT"):      # set where the checkout has no .git (device runs)
        return os.environ["LAGRAPH_DIST_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def device_name(backend):
    """What computes: the GPU's name on the GPU backend, the processor's model on the CPU."""
    if backend.name == "gpu":
        return backend.kernels.device_info()["device"]
    return _cpu_name()


def _cpu_name():
    """The processor's model name (Linux /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(A):
    """Device, grid, versions and commit, for the JSON record."""
    import mpi4py
    import scipy
    env = {
        "backend": A.backend.name, "grid": list(A.grid.shape), "ranks": A.grid.size,
        "host": platform.node(), "cpu_count": os.cpu_count(),
        "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
        "mpi4py": mpi4py.__version__, "commit": _git_commit(),
        "transport": A.grid.transport.describe(),
    }
    if A.backend.name == "gpu":
        env.update(A.backend.kernels.device_info())
    else:
        env["device"] = device_name(A.backend)
    try:
        import graphblas
        env["python-graphblas"] = graphblas.__version__
    except ImportError:
        pass
    return env


def run_bench(A, graph_info, config: BenchConfig, progress=None):
    """Collective. Runs every direction and (on rank 0) the peers; returns the JSON record.

    ``progress``: a :class:`Progress` to advance (the command line's, which has already shown
    the graph being built); by default one is made here when ``config.progress`` is set.
    """
    if config.peer_roots is not None and config.peer_roots < 1:
        raise InvalidValue(f"peer_roots must be None (all our roots) or >= 1, got {config.peer_roots}")
    roots = pick_roots(A, config.roots, config.root_seed)
    own_progress = progress is None
    if own_progress:
        progress = Progress(config.progress and A.grid.rank == 0, len(config.directions) + 1)
    peers, reference_levels = {}, None
    # the host gather is needed only by host peers and the level check; big graphs skip both
    needs_host = config.check_levels or any(p in HOST_PEERS for p in config.peers)
    peer_roots = roots[:config.peer_roots] if config.peer_roots is not None else roots
    with progress.phase("peers"):
        S = A.to_scipy(root=0) if needs_host else None
        if not needs_host and config.peers:
            degrees = A.out_degree().to_numpy(fill=0)      # collective
            if A.grid.rank == 0:
                peers = _peer_runs(None, peer_roots, config.peers, A, progress, degrees)
        elif A.grid.rank == 0 and S is not None:
            from lagraph_dist import reference
            peers = _peer_runs(S, peer_roots, config.peers, A, progress)
            if config.check_levels:
                reference_levels = {r: reference.bfs(S, r)[0] for r in peer_roots}
    if A.grid.size > 1:
        reference_levels = A.grid.comm.bcast(reference_levels, root=0)
    A.backend.reset_memory_peak()
    runs = {}
    for d in config.directions:
        with progress.phase(f"bfs {d}"):
            runs[d] = _run_direction(A, roots, d, reference_levels, progress)
    if own_progress:
        progress.close()
    _agreement(peers, runs)
    record = {
        "graph": graph_info, "n": A.n, "nvals": A.nvals,
        "backend": A.backend.name, "backend_requested": config.requested_backend,
        "environment": environment(A),
        "protocol": "graph500: seeded roots with degree > 0, warm-up excluded, every search validated; "
                    "TEPS = undirected input edges in the searched component / seconds",
        "roots": roots, "lagraph_dist": runs, "peers": peers,
        "peak_device_bytes": A.backend.memory_pool_peak(),
        "graph_bytes_per_edge": A.grid.allreduce(A.block.nbytes) / max(A.nvals, 1),
    }
    ran = {peer: p for peer, p in peers.items() if "skipped" not in p}
    best = max(r["harmonic_mean_teps"] for r in runs.values()) if runs else None
    record["ratios"] = {f"lagraph_dist/{peer}": best / p["harmonic_mean_teps"] for peer, p in ran.items()} \
        if best is not None else {}
    return record


def write_json(record, path):
    with open(path, "w") as handle:
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
        + f"; grid {env['grid'][0]}x{env['grid'][1]} ({env['ranks']} rank{'s' if env['ranks'] > 1 else ''})",
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
    fewer = sorted({run["roots"] for run in record["peers"].values()
                    if "skipped" not in run and run["roots"] < our_roots})
    if fewer:
        lines.append(f"\nThe peers ran the first {', '.join(map(str, fewer))} of our {our_roots} roots.")
    return "\n".join(lines)
