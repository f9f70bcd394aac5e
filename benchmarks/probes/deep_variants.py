"""Where one search of a deep graph stands on this host's cores, beside simpler loops: ``ld.bfs``
(the CPU backend) marked by the policy, always and never, and marked with levels only; ``ld.bfs``
by the host's queue search (``settings.queue_search_edges`` raised to the graph's edges: one
thread, a loop like scipy's); two plain compiled queue searches written here (a parent of -1 as
the visited test, the depth written beside it: int64 values and offsets as ours, int32 ones as
scipy's); two level-at-a-time loops testing their depths, as a marked search does (int64, and
int32 widened to int64 outputs after the search); ``ld.bfs`` marked by the policy with parents
only (the output scipy's search gives); and scipy's ``breadth_first_order`` as the benchmarks
call it (``harness.peers``: on the float64 CSR that csgraph would otherwise convert the graph to
in every call). A question for the machines where the search of a 1000 x 1000 mesh loses to
scipy (issue 54, item 4: the Xeon host of the device kinds) and wins on another (the 2-core
EPYC): is it our search's work, its values' width, or the machine?

    NUMBA_NUM_THREADS=2 taskset -c 0,1 python3 benchmarks/probes/deep_variants.py mesh:1000x1000 path:100000 \
        [--rounds 5] [--calls 3] [--json out.json]

Each round runs every variant ``--calls`` times in turn (blocks, so that no variant always
follows another), from vertex 0 (a mesh's corner, a path's end); the medians over all rounds are
printed in ms. Every variant's depths are checked once against the first plain loop's, and the
vertices scipy reaches against them.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build, graph_name, parse_spec, peers  # noqa: E402


@numba.njit(cache=True)
def _queue_search(indptr, indices, source, depths, parents, queue):
    """A plain top-down search: each vertex taken off the queue offers its out-edges; a
    neighbour whose parent is still -1 is found (its parent, its depth, the queue's tail)."""
    depths[:] = -1
    parents[:] = -1
    queue[0], depths[source], parents[source] = source, 0, source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        below = depths[u] + 1
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if parents[v] < 0:
                parents[v], depths[v] = u, below
                queue[tail] = v
                tail += 1
    return tail


@numba.njit(cache=True)
def _level_search(indptr, indices, source, depths, parents, queue):
    """A level at a time, the depths as the visited test (-1 until found, the level's depth a
    constant), as ``ld.bfs``'s marked levels are; the parents of unreached vertices left as
    they were."""
    depths[:] = -1
    queue[0], depths[source], parents[source] = source, 0, source
    first, stop, depth = 0, 1, 0
    while first < stop:
        depth += 1
        tail = stop
        for k in range(first, stop):
            u = queue[k]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if depths[v] < 0:
                    depths[v], parents[v] = depth, u
                    queue[tail] = v
                    tail += 1
        first, stop = stop, tail
    return stop


@numba.njit(cache=True)
def _widened(depths, parents, wide_depths, wide_parents):
    """int64 outputs of narrower values: -1 for the parent of an unreached vertex."""
    for v in range(depths.shape[0]):
        d = depths[v]
        wide_depths[v] = d
        wide_parents[v] = parents[v] if d >= 0 else -1


def levels_loop(indptr, indices, n, dtype):
    """:func:`_level_search` with ``dtype`` values and offsets, widened to int64 outputs (what
    ``ld.bfs`` returns) in one pass when narrower: the question is whether narrow values pay
    for that pass."""
    indptr, indices = indptr.astype(dtype), indices.astype(dtype)

    def call(source):
        depths, parents = np.empty(n, dtype), np.empty(n, dtype)
        _level_search(indptr, indices, dtype(source), depths, parents, np.empty(n, dtype))
        if dtype is np.int64:
            return depths
        wide_depths, wide_parents = np.empty(n, np.int64), np.empty(n, np.int64)
        _widened(depths, parents, wide_depths, wide_parents)
        return wide_depths
    return call


def plain(indptr, indices, n, dtype):
    """A plain search whose values (depths, parents, the queue) and offsets are ``dtype``,
    its outputs made in the call, as scipy's are."""
    indptr, indices = indptr.astype(dtype), indices.astype(dtype)

    def call(source):
        depths, parents = np.empty(n, dtype), np.empty(n, dtype)
        _queue_search(indptr, indices, dtype(source), depths, parents, np.empty(n, dtype))
        return depths
    return call


def ours(A, marked, parents=True, levels=True, **changed):
    """``ld.bfs`` marked as ``marked`` says, with these outputs and settings ``changed``; its
    depths (taken from the parents of a parents-only search, the check's way, outside the clock
    where the caller checks)."""
    def call(source):
        with ld.settings.changed(marked_searches=marked, **changed):
            result = ld.bfs(A, source, parents=parents, levels=levels)
        return result.levels.to_numpy() if levels else result.parents
    return call


def _tree_fits(parents, depths):
    """Whether ``parents`` (a Vector, the source its own parent) is a breadth-first tree of the
    ``depths`` given: the same vertices reached, each but the source one deeper than its parent."""
    tree = parents.to_numpy()
    reached = depths >= 0
    if not np.array_equal(tree >= 0, reached):
        return False
    ids = np.flatnonzero(reached & (depths > 0))
    return bool(np.all(depths[tree[ids]] == depths[ids] - 1))


def variants(A):
    csr = A.block.by_col
    indptr, indices = csr.indptr[:A.n + 1], csr.indices
    (scipy_peer,), _ = peers(A.to_scipy(), ["scipy"])
    return {"ld.bfs marked by the policy": ours(A, "auto"), "ld.bfs marked": ours(A, "always"),
            "ld.bfs not marked": ours(A, "never"), "ld.bfs marked, levels only": ours(A, "always", parents=False),
            "ld.bfs marked by the policy, parents only (scipy's output)": ours(A, "auto", levels=False),
            "ld.bfs by the queue search (one thread)": ours(A, "auto", queue_search_edges=A.nvals),
            "plain loop, int64": plain(indptr, indices, A.n, np.int64),
            "plain loop, int32": plain(indptr, indices, A.n, np.int32),
            "levels loop, int64": levels_loop(indptr, indices, A.n, np.int64),
            "levels loop, int32, widened": levels_loop(indptr, indices, A.n, np.int32), "scipy": scipy_peer.search}


def check(calls, source):
    expected = None
    for name, call in calls.items():
        got = call(source)
        if name == "scipy":
            reached = np.zeros(expected.shape[0], dtype=bool)
            reached[got[0]] = True
            if not np.array_equal(reached, expected >= 0):
                raise AssertionError("scipy reaches other vertices than the plain loop")
        elif not isinstance(got, np.ndarray):       # a parents-only search: its tree's depths
            if not _tree_fits(got, expected):
                raise AssertionError(f"{name}: its parents' depths differ from the plain loop's")
        elif expected is None:
            expected = np.asarray(got, dtype=np.int64)
        elif not np.array_equal(np.asarray(got, dtype=np.int64), expected):
            raise AssertionError(f"{name}: depths differ from the plain loop's")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    runs, A = [], None
    for text in args.graphs:
        spec = parse_spec(text)
        A, _ = build(text, "cpu")
        calls = variants(A)
        check(calls, 0)
        seconds = {name: [] for name in calls}
        for round_ in range(args.rounds):
            names = list(calls)[round_ % len(calls):] + list(calls)[:round_ % len(calls)]
            for name in names:
                for _ in range(args.calls):
                    started = time.perf_counter()
                    calls[name](0)
                    seconds[name].append(time.perf_counter() - started)
        medians = {name: 1e3 * statistics.median(values) for name, values in seconds.items()}
        print(f"{graph_name(spec)} (n {A.n:,}, {A.nvals:,} stored edges), ms, medians of "
              f"{args.rounds * args.calls}:", flush=True)
        for name, value in medians.items():
            print(f"  {name:58s} {value:9.3f}  ({value / medians['scipy']:.2f}x scipy's)", flush=True)
        runs.append({"graph": graph_name(spec), "n": A.n, "nvals": A.nvals, "median_ms": medians,
                     "seconds": seconds, "threads": numba.get_num_threads()})
    if args.json:
        write_json({"probe": "deep_variants", "environment": environment(A), "runs": runs}, args.json)


if __name__ == "__main__":
    main()
