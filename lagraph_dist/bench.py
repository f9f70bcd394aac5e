"""The Graph500-style harness behind ``lagraph-dist bench`` (see BENCHMARKING.md).

Seeded roots among vertices with out-degree > 0; one untimed warm-up; each timed search from
the call of ``bfs`` to its result being complete on every rank; every timed search validated
with the Graph500 parent rules (validation is not timed); TEPS = undirected input edges in the
searched component / seconds, harmonic mean over roots. The peers (python-graphblas push and
push/pull, scipy csgraph) run on rank 0 over the same graph and roots in the same run.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from dataclasses import dataclass

import numpy as np

from lagraph_dist.algorithms import bfs
from lagraph_dist.ops import ewise_mult, reduce
from lagraph_dist.semirings import binary, plus

__all__ = ["BenchConfig", "pick_roots", "run_bench", "teps_summary", "environment"]


@dataclass
class BenchConfig:
    roots: int = 64
    root_seed: int = 2
    directions: tuple = ("push", "auto")
    peers: tuple = ("graphblas-push", "graphblas-pushpull", "scipy")
    peer_roots: int = 8
    check_levels: bool = True        # compare levels with python-graphblas (small graphs)
    progress: bool = True


def pick_roots(A, count, seed):
    """Collective: ``count`` distinct roots drawn with a fixed seed among vertices of degree > 0."""
    candidates = A.out_degree().indices()
    rng = np.random.default_rng(seed)
    count = min(count, candidates.shape[0])
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


def _run_direction(A, roots, direction, config, reference_levels):
    from lagraph_dist.validation import validate
    for warm_up in ("push", "pull", direction):   # every kernel compiled, every cache built
        _timed_bfs(A, roots[0], warm_up)
    seconds, edges, first_levels = [], [], None
    iterator = roots
    if config.progress and A.grid.rank == 0:
        from tqdm import tqdm
        iterator = tqdm(roots, desc=f"bfs {direction}", unit="root", leave=False)
    for k, root in enumerate(iterator):
        result, elapsed = _timed_bfs(A, root, direction)
        levels = result.levels.to_numpy()
        validate(A, root, levels, result.parents.to_numpy())
        if reference_levels is not None and root in reference_levels and \
                not np.array_equal(levels, reference_levels[root]):
            from lagraph_dist.errors import ValidationError
            raise ValidationError(f"levels from root {root} differ from python-graphblas")
        seconds.append(elapsed)
        edges.append(_component_edges(A, result))
        if k == 0:
            first_levels = result.stats
    summary = teps_summary(edges, seconds)
    summary.update(direction=direction, roots=len(roots), edges_per_root=edges,
                   seconds_per_root=seconds, levels_first_root=first_levels)
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


def _device_csr_for_naive(A):
    """cupyx CSR whose rows are destinations (A.T), from our own block when it is the whole
    graph on one GPU (no trip through the host); else None."""
    if A is None or A.backend.name != "gpu" or A.grid.size != 1:
        return None
    import cupy as cp
    import cupyx.scipy.sparse as csp
    csr = A.block.by_row if not A.transposed else A.block.by_col
    if csr.nnz >= 2**31:
        return None
    data = cp.ones(csr.nnz, dtype=cp.float32)
    return csp.csr_matrix((data, csr.indices, csr.indptr.astype(cp.int32)), shape=(A.n, A.n))


def _peer_searchers(S, peers, A=None):
    """{peer: search(root) -> reached vertex ids (host)}, each with its graph built once."""
    searchers = {}
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
            import cupy as cp
            import cupyx.scipy.sparse as csp
            AT = _device_csr_for_naive(A)
            if AT is None:
                AT = csp.csr_matrix(S.T.tocsr().astype(np.float32))

            def search(root, AT=AT):
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
    return searchers


def _peer_runs(S, roots, peers, symmetric, A=None, degrees=None):
    """Each peer on this rank over the same graph and roots, with the same TEPS rule; graph
    conversion happens before the timing, and one warm-up search is not timed."""
    out = {}
    degrees = np.diff(S.indptr) if degrees is None else degrees
    for peer, search in _peer_searchers(S, peers, A).items():
        search(roots[0])
        seconds, edges = [], []
        for root in roots:
            started = time.perf_counter()
            reached = search(root)
            seconds.append(time.perf_counter() - started)
            total = int(degrees[reached].sum())
            edges.append(total // 2 if symmetric else total)
        out[peer] = teps_summary(edges, seconds) | {"roots": len(roots)}
    return out


def _git_commit():
    if os.environ.get("LAGRAPH_DIST_COMMIT"):      # set where the checkout has no .git (device runs)
        return os.environ["LAGRAPH_DIST_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def environment(A):
    """Device, grid, versions and commit, for the JSON record."""
    import mpi4py
    import scipy
    env = {
        "backend": A.backend.name, "grid": list(A.grid.shape), "ranks": A.grid.size,
        "host": platform.node(), "cpu_count": os.cpu_count(),
        "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
        "mpi4py": mpi4py.__version__, "commit": _git_commit(),
    }
    if A.backend.name == "gpu":
        env.update(A.backend.kernels.device_info())
    else:
        env["device"] = platform.processor() or platform.machine()
    try:
        import graphblas
        env["python-graphblas"] = graphblas.__version__
    except ImportError:
        pass
    return env


def run_bench(A, graph_info, config: BenchConfig):
    """Collective. Runs every direction and (on rank 0) the peers; returns the JSON record."""
    roots = pick_roots(A, config.roots, config.root_seed)
    peers, reference_levels = {}, None
    # the host gather is needed only by host peers and the level check; big graphs skip both
    needs_host = config.check_levels or any(p in HOST_PEERS for p in config.peers)
    S = A.to_scipy(root=0) if needs_host else None
    peer_roots = roots[:config.peer_roots]
    if not needs_host and config.peers:
        degrees = A.out_degree().to_numpy(fill=0)      # collective
        if A.grid.rank == 0:
            peers = _peer_runs(None, peer_roots, config.peers, A.symmetric, A, degrees)
    elif A.grid.rank == 0 and S is not None:
        from lagraph_dist import reference
        peers = _peer_runs(S, peer_roots, config.peers, A.symmetric, A)
        if config.check_levels:
            reference_levels = {r: reference.bfs(S, r)[0] for r in peer_roots}
    if A.grid.size > 1:
        reference_levels = A.grid.comm.bcast(reference_levels, root=0)
    A.backend.reset_memory_peak()
    runs = {d: _run_direction(A, roots, d, config, reference_levels) for d in config.directions}
    record = {
        "graph": graph_info, "n": A.n, "nvals": A.nvals, "environment": environment(A),
        "protocol": "graph500: seeded roots with degree > 0, warm-up excluded, every search validated; "
                    "TEPS = undirected input edges in the searched component / seconds",
        "lagraph_dist": runs, "peers": peers,
        "peak_device_bytes": A.backend.memory_pool_peak(),
        "graph_bytes_per_edge": A.grid.allreduce(A.block.nbytes) / max(A.nvals, 1),
    }
    best = max(runs.values(), key=lambda r: r["harmonic_mean_teps"])["harmonic_mean_teps"]
    record["ratios"] = {f"lagraph_dist/{peer}": best / p["harmonic_mean_teps"] for peer, p in peers.items()}
    return record


def write_json(record, path):
    with open(path, "w") as handle:
        json.dump(record, handle, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))


def format_table(record):
    """A short markdown table of the record."""
    lines = ["| run | hmean GTEPS | median ms | roots |", "|---|---|---|---|"]
    for name, run in record["lagraph_dist"].items():
        lines.append(f"| lagraph_dist {record['environment']['backend']} {name} | "
                     f"{run['harmonic_mean_teps'] / 1e9:.4f} | {run['median_ms']:.2f} | {run['roots']} |")
    for name, run in record["peers"].items():
        lines.append(f"| {name} | {run['harmonic_mean_teps'] / 1e9:.4f} | {run['median_ms']:.2f} | {run['roots']} |")
    return "\n".join(lines)


