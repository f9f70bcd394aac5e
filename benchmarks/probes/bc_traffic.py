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

And it counts the batch order's sectors under two renumberings of the searches, one for the
whole batch (free to make: betweenness sums over the searches in any order), each meant to put
alike searches in one sector: by their mean depth over a sample of vertices, and in greedy
groups of four by how often their DAGs share an edge of a sample of edges.
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


def _by_mean_depth(levels, rng, sample=4096):
    """The searches ordered by their mean depth over a sample of vertices (unreached: 1 deeper
    than any level)."""
    rows = levels[rng.choice(levels.shape[0], min(sample, levels.shape[0]), replace=False)].astype(np.float64)
    rows[rows < 0] = levels.max() + 1
    return np.argsort(rows.mean(axis=0), kind="stable")


def _by_shared_edges(indptr, indices, levels, rng, sample=300_000):
    """The searches in greedy groups of :data:`SECTOR_VALUES`: each group started by the search
    on most DAG edges of a sample of edges, then filled by the search whose DAG shares most of
    them with the group's (Jaccard)."""
    picked = rng.integers(0, indices.shape[0], sample)
    tails = np.searchsorted(indptr, picked, side="right") - 1
    at_tail, at_head = levels[tails].astype(np.int16), levels[indices[picked]].astype(np.int16)
    on_dag = (((at_tail >= 0) & (at_head == at_tail + 1)) | ((at_head >= 0) & (at_tail == at_head + 1))).astype(float)
    shared = on_dag.T @ on_dag
    alone = np.diag(shared)
    jaccard = shared / np.maximum(alone[:, None] + alone[None, :] - shared, 1)
    left, order = list(np.argsort(-alone, kind="stable")), []
    while left:
        group = [left.pop(0)]
        while len(group) < SECTOR_VALUES and left:
            best = max(left, key=lambda j: jaccard[group, j].sum())
            left.remove(best)
            group.append(best)
        order += group
    return np.array(order)


def main():
    args, A, sources, levels = modelled_batch(__doc__.splitlines()[0])
    csr = A.to_scipy().tocsr()
    if levels.max() > np.iinfo(np.int8).max:
        raise SystemExit(f"levels up to {levels.max()}: this count keeps them as int8")
    indptr, indices = csr.indptr.astype(np.int64), csr.indices.astype(np.int64)
    narrow = np.ascontiguousarray(levels.T.astype(np.int8))        # (n, k): a vertex's row
    dag_edges, pairs, sectors = _dag_reads(indptr, indices, narrow)
    gigabytes = 32 * int(sectors) / 1e9
    forward, backward = _dag_reads_grouped(indptr, indices, narrow)
    rng = np.random.default_rng(0)
    orders = {"by_mean_depth": _by_mean_depth(narrow, rng),
              "by_shared_dag_edges": _by_shared_edges(indptr, indices, narrow, rng)}
    renumbered = {name: int(_dag_reads(indptr, indices, np.ascontiguousarray(narrow[:, order]))[2])
                  for name, order in orders.items()}
    print(f"{graph_name(parse_spec(args.graph))}, {args.sources} sources: {csr.nnz:,} stored edges, "
          f"{dag_edges:,} on some search's DAG, {pairs:,} (edge, search) pairs, {sectors:,} sectors: "
          f"{gigabytes:.1f} GB a sweep; rows ordered by depth: {forward:,} sectors forward "
          f"({32 * forward / 1e9:.1f} GB), {backward:,} backward ({32 * backward / 1e9:.1f} GB); searches "
          f"renumbered: " + ", ".join(f"{name} {count:,} sectors ({count / sectors:.3f})"
                                      for name, count in renumbered.items()))
    if args.json:
        write_json({"probe": "bc_traffic", "graph": graph_name(parse_spec(args.graph)), "n": A.n,
                    "nvals": A.nvals, "sources": [int(s) for s in sources], "dag_edges": int(dag_edges),
                    "edge_search_pairs": int(pairs), "sectors": int(sectors), "sweep_gigabytes": gigabytes,
                    "rows_by_depth": {"forward_sectors": int(forward), "backward_sectors": int(backward),
                                      "forward_gigabytes": 32 * int(forward) / 1e9,
                                      "backward_gigabytes": 32 * int(backward) / 1e9},
                    "searches_renumbered_sectors": renumbered,
                    "environment": environment(A)}, args.json)


if __name__ == "__main__":
    main()
