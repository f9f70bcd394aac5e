"""What a betweenness sweep must read, counted from one batch's levels on the host:

    python3 benchmarks/probes/bc_traffic.py kron:22 --sources 64 [--json out.json]

Brandes's sweeps run over the shortest-path DAG of each search: an edge u -> v with
level(v) = level(u) + 1 adds u's path count to v's (forward) and v's dependency to u's
(backward). The GPU sweeps keep each quantity as one float64 row a vertex, a column a search,
so an edge reads the other end's values for the searches whose DAG holds it. This counts the
stored edges that lie on some search's DAG, the (edge, search) pairs, and the 32-byte sectors
of the other ends' rows those pairs touch (four searches a sector): the bytes a sweep reads
with no cache reuse, the floor under its time where the rows miss the cache.

It counts the same pairs' sectors again for another layout, not built: each vertex's row
ordered by the depths the searches give it (its searches of one depth side by side, in search
order within a depth), so that an edge's searches, which all give its ends consecutive depths,
tend to share sectors. Forward reads the edge's tail's row, backward its head's: each is
counted by the positions in that end's own ordering.
"""
import sys
from pathlib import Path

import numba
import numpy as np

from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/, for harness
from harness import graph_name, modelled_batch, parse_spec  # noqa: E402

SECTOR_VALUES = 4          # float64 values in a 32-byte sector


@numba.njit(cache=True, parallel=True)
def _dag_reads(indptr, indices, levels):
    """(DAG edges, edge-search pairs, sectors) over the rows of ``levels`` (n, k) int8."""
    n, k = levels.shape
    edges, pairs, sectors = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    for u in numba.prange(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            count, touched, last = 0, 0, -1
            for i in range(k):
                if levels[u, i] >= 0 and levels[v, i] == levels[u, i] + 1:
                    count += 1
                    if i // SECTOR_VALUES != last:
                        touched += 1
                        last = i // SECTOR_VALUES
            edges[u] += count > 0
            pairs[u] += count
            sectors[u] += touched
    return edges.sum(), pairs.sum(), sectors.sum()


@numba.njit(cache=True, inline="always")
def _depth_order(levels, u, place):
    """``place[i]``: where search i sits in vertex u's row ordered by (depth, search)."""
    k = levels.shape[1]
    at = 0
    for depth in range(-1, 128):
        for i in range(k):
            if levels[u, i] == depth:
                place[i] = at
                at += 1
        if at == k:
            break


@numba.njit(cache=True, parallel=True)
def _dag_reads_grouped(indptr, indices, levels):
    """(forward sectors, backward sectors) of the DAG's (edge, search) pairs where each row is
    ordered by its vertex's depths (:func:`_depth_order`)."""
    n, k = levels.shape
    forward, backward = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for u in numba.prange(n):
        mine, theirs = np.empty(k, np.int64), np.empty(k, np.int64)
        _depth_order(levels, u, mine)
        on_dag = np.empty(k, np.int64)                  # the searches whose DAG holds the edge
        tail_sectors = np.empty(k, np.int64)
        head_sectors = np.empty(k, np.int64)
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            used = 0
            for i in range(k):
                if levels[u, i] >= 0 and levels[v, i] == levels[u, i] + 1:
                    on_dag[used] = i
                    used += 1
            if used == 0:
                continue
            _depth_order(levels, v, theirs)
            for j in range(used):
                tail_sectors[j] = mine[on_dag[j]] // SECTOR_VALUES
                head_sectors[j] = theirs[on_dag[j]] // SECTOR_VALUES
            forward[u] += _distinct(tail_sectors[:used])
            backward[u] += _distinct(head_sectors[:used])
    return forward.sum(), backward.sum()


@numba.njit(cache=True, inline="always")
def _distinct(values):
    values.sort()
    count = 0
    for j in range(values.shape[0]):
        count += j == 0 or values[j] != values[j - 1]
    return count


def main():
    args, A, sources, levels = modelled_batch(__doc__.splitlines()[0])
    csr = A.to_scipy().tocsr()
    if levels.max() > np.iinfo(np.int8).max:
        raise SystemExit(f"levels up to {levels.max()}: this count keeps them as int8")
    dag_edges, pairs, sectors = _dag_reads(csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                                           np.ascontiguousarray(levels.T.astype(np.int8)))
    gigabytes = 32 * int(sectors) / 1e9
    forward, backward = _dag_reads_grouped(csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                                           np.ascontiguousarray(levels.T.astype(np.int8)))
    print(f"{graph_name(parse_spec(args.graph))}, {args.sources} sources: {csr.nnz:,} stored edges, "
          f"{dag_edges:,} on some search's DAG, {pairs:,} (edge, search) pairs, {sectors:,} sectors: "
          f"{gigabytes:.1f} GB a sweep; rows ordered by depth: {forward:,} sectors forward "
          f"({32 * forward / 1e9:.1f} GB), {backward:,} backward ({32 * backward / 1e9:.1f} GB)")
    if args.json:
        write_json({"probe": "bc_traffic", "graph": graph_name(parse_spec(args.graph)), "n": A.n,
                    "nvals": A.nvals, "sources": [int(s) for s in sources], "dag_edges": int(dag_edges),
                    "edge_search_pairs": int(pairs), "sectors": int(sectors), "sweep_gigabytes": gigabytes,
                    "rows_by_depth": {"forward_sectors": int(forward), "backward_sectors": int(backward),
                                      "forward_gigabytes": 32 * int(forward) / 1e9,
                                      "backward_gigabytes": 32 * int(backward) / 1e9},
                    "environment": environment(A)}, args.json)


if __name__ == "__main__":
    main()
