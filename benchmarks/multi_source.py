"""Many searches at once, and searches cut at a depth, against the searches they replace, in one
run, every timed result checked (never inside the clock).

    python3 benchmarks/multi_source.py --graph kron:22 --sources 64 512 --json $OUT/multi.json
    python3 benchmarks/multi_source.py --backend cpu --graph kron:18 --graph mtx:4elt.mtx:16 --sources 64
    python3 benchmarks/multi_source.py --graph kron:26 --sources --depth-limit 2 --roots 8
    mpirun -n 4 python3 -m mpi4py benchmarks/multi_source.py --graph kron:24 --depth-limit 2 --scipy-sources 0

Batches: for each graph, number of sources k and ``--degree-order`` (``settings.multi_degree_order``:
"always" runs the batches on the graph's degree-ordered twin, whose build the record gives),
``--host-batches`` (``settings.host_batches``: where the GPU backend runs a small graph's batch),
``ld.bfs_multi`` levels only and with parents against the k separate ``ld.bfs`` calls in the same form, and scipy's many-source
``shortest_path(unweighted=True)`` (one process only); rates are searches per second; ``--parents no``
runs the batches levels only. A batch on the twin leaves its rows' put-back to their first read: each
run's ``put_back_seconds`` is that read of its last batch, timed apart (next to nothing on the graph as given). Depth limit:
``ld.bfs(A, r, depth_limit=D)`` against the full search, the ratio of times. The checks:
:func:`harness.check_batch` and :func:`check_limited`.

Timing (docs/benchmarking.md): warm-up calls first, then ``--repeats`` timed calls, each to its
result being complete on every rank; medians. Every rank runs it; rank 0 prints and writes.
"""
import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.algebra import multi
from lagraph_dist.algorithms.degree_twin import DEGREE_ORDERS, kept_twin
from lagraph_dist.algorithms.small_graphs import HOST_BATCHES
from lagraph_dist.tools.bench import environment, pick_roots, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (backend_option, batch_sources, check_batch, graph_name, level_stats, matrix,  # noqa: E402
                     parse_spec, scipy_levels, timed)

LEVEL_KEYS = ("batch", "level", "direction", "fused", "frontier", "discovered", "vertices", "edges_examined",
              "seconds", "clock", "launches", "host_reads")
#: a batch of at most this many depths keeps each depth's record; a deeper one's record keeps
#: their summary (:func:`harness.level_stats`): 64 searches of a 100,000 path run apart have
#: 100,000 depths, 61 MB of JSON a record as a dict each
DEPTHS_KEPT = 4096
#: --parents: the batches' parents choices, run in this order
PARENTS_RUNS = {"both": (False, True), "no": (False,), "yes": (True,)}


def say(A, text):
    if A.grid.rank == 0:
        print(text, flush=True)


def one_call_each(A, sources, parents):
    """The searches one ld.bfs call each."""
    return [ld.bfs(A, s, parents=parents) for s in sources]


# -- a batch against separate searches ------------------------------------------------------------
def in_a_row(A, repeats, func, *args, warm=None, **kwargs):
    """An untimed call of ``func`` (its result given to ``warm`` when that is given), then
    ``repeats`` timed ones (:func:`timed`), one after another, each result dropped before the
    next call; returns (their seconds, the last result)."""
    first = func(*args, **kwargs)
    if warm is not None:
        warm(first)
    first = None
    seconds, result = [], None
    for _ in range(repeats):
        result = None
        result, took = timed(A, func, *args, **kwargs)
        seconds.append(took)
    return seconds, result


def put_back(batch):
    """The last batch's rows put in the graph's order where it ran on the degree twin: the work its
    call left to the first read of its rows (:class:`~lagraph_dist.algebra.multi.RowsElsewhere`),
    timed apart so that the record shows it (a reduction over each search's vertices never pays it)."""
    for table in (batch.levels, batch.parents):
        for block in [] if table is None else table.blocks:
            multi.in_graph_order(block)


def batch_run(A, graph, sources, parents, hops, args):
    """bfs_multi from ``sources`` against one ld.bfs call each, both timed, the batch checked.
    Each side's calls run one after another (:func:`in_a_row`), as a program running either way
    runs them; alternated, each batch found the caches full of the 64 searches' arrays."""
    # (the warm-up batch put back too: the put-back timed is one whose kernels were compiled)
    batch_seconds, batch = in_a_row(A, args.repeats, ld.bfs_multi, A, sources, parents=parents, warm=put_back)
    _, put_back_seconds = timed(A, put_back, batch)
    single_seconds, singles = in_a_row(A, args.repeats, one_call_each, A, sources, parents)
    validated = check_batch(A, sources, batch, [s.levels.to_numpy() for s in singles], args.validate)
    if hops is not None and not np.array_equal(scipy_levels(hops), batch.levels.to_numpy()[:len(hops)]):
        raise AssertionError(f"{graph_name(graph)}: scipy's hop counts differ from bfs_multi's levels")
    k, batch_median, single_median = len(sources), float(np.median(batch_seconds)), float(np.median(single_seconds))
    return {"graph": graph_name(graph), "spec": graph.text, "n": A.n, "nvals": A.nvals, "sources": k,
            "parents": parents, "widths": batch.widths, "batch_seconds": batch_seconds,
            "separate_seconds": single_seconds, "batch_searches_per_second": k / batch_median,
            "separate_searches_per_second": k / single_median, "ratio_to_separate": single_median / batch_median,
            "put_back_seconds": put_back_seconds,
            "levels_equal_separate": True, "parents_validated_rows": validated,
            "vertex_order": sorted({level.get("order") for level in batch.stats}),
            "engines": sorted({level["engine"] for level in batch.stats})} | batch_levels(batch.stats)


def batch_levels(stats):
    """A batch's per-level figures: each depth's record (``LEVEL_KEYS``), or, past
    :data:`DEPTHS_KEPT` depths, their summary."""
    if len(stats) <= DEPTHS_KEPT:
        return {"levels": [{key: level.get(key) for key in LEVEL_KEYS} for level in stats]}
    return {"levels": None, "level_summary": level_stats(stats)}


def batch_runs(A, graph, args, on_run):
    from scipy.sparse.csgraph import shortest_path
    for k in ([graph.sources] if graph.sources else args.sources):
        sources = batch_sources(A, k, args.root_seed)
        peer = sources[:args.scipy_sources] if A.grid.size == 1 else []
        # scipy's many-source unweighted shortest paths on the host (its graph made outside the clock)
        hops, scipy_seconds = (timed(None, shortest_path, A.to_scipy(), unweighted=True, directed=True, indices=peer)
                               if peer else (None, None))
        scipy_rate = len(peer) / scipy_seconds if peer else None
        for order, where, parents in itertools.product(args.degree_order, args.host_batches, PARENTS_RUNS[args.parents]):
            with ld.settings.changed(multi_degree_order=order, host_batches=where):
                run = batch_run(A, graph, sources, parents, hops, args)
            twin = kept_twin(A) if "by degree" in run["vertex_order"] else None
            run.update(scipy_sources=len(peer), scipy_seconds=scipy_seconds, scipy_searches_per_second=scipy_rate,
                       ratio_to_scipy=None if scipy_rate is None else run["batch_searches_per_second"] / scipy_rate,
                       degree_order=order, host_batches=where,
                       twin_build_seconds=None if twin is None else twin.build_seconds)
            on_run("runs", run)            # written as measured: a later failure or timeout keeps it
            say(A, f"  k={k} {order} host_batches={where} ({'/'.join(run['engines'])}) "
                   f"{'with parents' if parents else 'levels only'}: batch "
                   f"{1e3 * np.median(run['batch_seconds']):.2f} ms ({run['batch_searches_per_second']:,.0f}/s; "
                   f"rows put back when read {1e3 * run['put_back_seconds']:.2f} ms), "
                   f"separate {run['ratio_to_separate']:.1f}x slower"
                   + ("" if scipy_rate is None else f", scipy {scipy_rate:,.1f}/s"))


# -- a depth limit against the full search --------------------------------------------------------
def tree_edges_exist(A, heads, tails):
    """Collective: is every heads[k] -> tails[k] an edge of A? Each rank binary-searches the pairs
    its block stores within the block's sorted rows."""
    xp, layout, grid = A.backend.xp, A.layout, A.grid
    mine = layout.edge_owner_rank(heads, tails) == grid.rank
    heads, tails = heads[mine], tails[mine]
    csr = A.block.by_col
    if heads.shape[0] == 0 or csr.nnz == 0:
        return grid.allreduce(int(heads.shape[0])) == 0
    rows = xp.asarray(layout.col_space(grid.col).to_local(heads))
    wanted = xp.asarray(layout.row_space(grid.row).to_local(tails))
    low, high = csr.indptr[rows], csr.indptr[rows + 1]           # search [low, high) of each row
    while bool((open_ := low < high).any()):
        middle = (low + high) // 2
        below = open_ & (csr.indices[xp.minimum(middle, csr.nnz - 1)] < wanted)
        low = xp.where(below, middle + 1, low)
        high = xp.where(open_ & ~below, middle, high)
    found = (low < csr.indptr[rows + 1]) & (csr.indices[xp.minimum(low, csr.nnz - 1)] == wanted)
    return grid.allreduce(int(found.shape[0]) - int(found.sum())) == 0


def check_limited(A, root, full_levels, limited, depth):
    """The limited levels are the full ones cut at the limit; its parents form a BFS tree of them."""
    levels, parents = limited.levels.to_numpy(), limited.parents.to_numpy()
    where = f"depth_limit={depth} from {root}"
    if not np.array_equal(levels, np.where((full_levels >= 0) & (full_levels <= depth), full_levels, -1)):
        raise AssertionError(f"{where}: levels differ from the truncated full search")
    if parents[root] != root or not np.array_equal(parents >= 0, levels >= 0):
        raise AssertionError(f"{where}: parents reach another set than the levels")
    children = np.flatnonzero(levels > 0)
    if not np.array_equal(levels[parents[children]], levels[children] - 1):
        raise AssertionError(f"{where}: a parent is not one level up")
    if not tree_edges_exist(A, parents[children], children):
        raise AssertionError(f"{where}: a tree edge is not an edge of the graph")


def depth_run(A, graph, args):
    depth = args.depth_limit
    roots = pick_roots(A, args.roots, seed=args.root_seed)
    ld.bfs(A, roots[0])                                                          # warm-up
    ld.bfs(A, roots[0], depth_limit=depth)
    full_seconds, limited_seconds = [[] for _ in roots], [[] for _ in roots]
    for root, full_times, limited_times in zip(roots, full_seconds, limited_seconds):
        for _ in range(args.repeats):
            full, seconds = timed(A, ld.bfs, A, root)
            full_times.append(seconds)
            limited, seconds = timed(A, ld.bfs, A, root, depth_limit=depth)
            limited_times.append(seconds)
        full_levels = full.levels.to_numpy()
        ld.validate(A, root, full_levels, full.parents.to_numpy())
        check_limited(A, root, full_levels, limited, depth)
    full_median, limited_median = (np.median(seconds, axis=1) for seconds in (full_seconds, limited_seconds))
    run = {"graph": graph_name(graph), "spec": graph.text, "n": A.n, "nvals": A.nvals, "roots": roots,
           "depth_limit": depth, "full_seconds": full_seconds, "limited_seconds": limited_seconds,
           "time_ratio": float(limited_median.sum() / full_median.sum()),
           "time_ratio_per_root": (limited_median / full_median).tolist(), "checked": len(roots),
           "level_stats": {"full": full.stats, "limited": limited.stats}}          # the last root's
    say(A, f"  depth_limit={depth}, {len(roots)} roots: {1e3 * np.median(limited_median):.2f} ms against "
           f"{1e3 * np.median(full_median):.2f} ms full: {100 * run['time_ratio']:.1f}% of the time")
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="append", required=True, type=parse_spec,
                        help="kron:SCALE, mesh:RxC, path:N, road:N or mtx:PATH[:K] (K: its sources)")
    parser.add_argument("--sources", type=int, nargs="*", default=[64], help="batch sizes (none: no batches)")
    parser.add_argument("--depth-limit", type=int, help="also time searches cut at this depth against full ones")
    parser.add_argument("--roots", type=int, default=8, help="roots of the depth-limit comparison")
    backend_option(parser)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--validate", type=int, default=8, help="batch rows whose parents ld.validate checks")
    parser.add_argument("--root-seed", type=int, default=3)
    parser.add_argument("--scipy-sources", type=int, default=64,
                        help="scipy searches from the first this many sources (one process; 0: none)")
    parser.add_argument("--degree-order", nargs="+", choices=DEGREE_ORDERS, default=["auto"],
                        help="settings.multi_degree_order of the batches, each in turn (always / never: the "
                             "batches on the graph's degree-ordered twin, or not)")
    parser.add_argument("--host-batches", nargs="+", choices=HOST_BATCHES, default=["auto"],
                        help="settings.host_batches of each run (the GPU backend's small graphs: the batch on the host twin)")
    parser.add_argument("--parents", choices=tuple(PARENTS_RUNS), default="both",
                        help="the batches levels only (no), with parents (yes), or each in turn (both)")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    record = {"benchmark": "multi_source", "runs": []}

    def keep(A, part, run):
        record.setdefault(part, []).append(run)
        record["environment"] = environment(A)
        if args.json and A.grid.rank == 0:
            write_json(record, args.json)
    for graph in args.graph:
        A = matrix(graph, args.backend)
        say(A, f"{graph_name(graph)}: {A}")
        batch_runs(A, graph, args, lambda part, run: keep(A, part, run))
        if args.depth_limit is not None:
            keep(A, "depth_limit", depth_run(A, graph, args))
    return record


if __name__ == "__main__":
    main()
