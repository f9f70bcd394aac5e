"""How many in-edges a multi-source pull level reads, with each row's in-neighbours in the
block's order (increasing ids) or hub first (by out-degree, largest first; ties by id):

    python3 benchmarks/probes/pull_order.py kron:20 --sources 64 [--json out.json]

A model, run on the host, not a search: the levels of one ``ld.bfs_multi`` batch (levels only)
give each depth's frontier words and each vertex's seen words; then, for every depth d and
every row that still wants a live search's bit, the row's in-neighbours are read one by one
until it holds every wanted bit that depth offers it, or its in-edges end (the fused kernels'
early stop; a GPU group reads several in-edges a step and a long row in slices, so it reads
somewhat more). Every row is counted as if the level were pulled, whatever the direction rule
chose: the counts of the levels a batch pulls are what an order would change.
"""
import sys
from pathlib import Path

import numba
import numpy as np

from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/, for harness
from harness import graph_name, modelled_batch, parse_spec  # noqa: E402


@numba.njit(cache=True)
def _reads(indptr, indices, frontier, seen, live):
    """(rows wanting a bit, in-edges read, rows that stopped before their last in-edge)."""
    width = frontier.shape[1]
    want = np.empty(width, np.uint64)
    rows, reads, early = 0, 0, 0
    for v in range(indptr.shape[0] - 1):
        some = np.uint64(0)
        for w in range(width):
            want[w] = live[w] & ~seen[v, w]
            some |= want[w]
        if some == 0 or indptr[v + 1] == indptr[v]:
            continue
        rows += 1
        for e in range(indptr[v], indptr[v + 1]):
            reads += 1
            left = np.uint64(0)
            for w in range(width):
                want[w] &= ~frontier[indices[e], w]
                left |= want[w]
            if left == 0:
                early += e + 1 < indptr[v + 1]
                break
    return rows, reads, early


@numba.njit(cache=True, parallel=True)
def _hub_first(indptr, indices, rank, by_rank):
    """Each row's in-neighbours sorted by ``rank`` (a vertex's place in the hub order)."""
    out = np.empty_like(indices)
    for v in numba.prange(indptr.shape[0] - 1):
        row = out[indptr[v]:indptr[v + 1]]
        for i in range(row.shape[0]):
            row[i] = rank[indices[indptr[v] + i]]
        row.sort()
        for i in range(row.shape[0]):
            row[i] = by_rank[row[i]]
    return out


def hub_first(in_csr, out_degree):
    """``in_csr``'s indices with each row's in-neighbours by out-degree, largest first (ties by
    id): every vertex ranked once, then each row's ranks sorted."""
    by_rank = np.lexsort((np.arange(out_degree.shape[0]), -out_degree)).astype(np.int32)
    rank = np.empty_like(by_rank)
    rank[by_rank] = np.arange(by_rank.shape[0], dtype=np.int32)
    return _hub_first(in_csr.indptr, in_csr.indices, rank, by_rank)


def depth_words(levels, depth, at_most):
    """(n, words) bits of the searches whose level is ``depth`` (or at most it: ``at_most``)."""
    k, n = levels.shape
    words = np.zeros((n, -(-k // 64)), np.uint64)
    for s in range(k):
        hit = (levels[s] >= 0) & (levels[s] <= depth) if at_most else levels[s] == depth
        words[hit, s // 64] |= np.uint64(1) << np.uint64(s % 64)
    return words


def main():
    args, A, sources, levels = modelled_batch(__doc__.splitlines()[0])
    in_csr = A.T.to_scipy().tocsr()
    in_csr.sort_indices()
    out_degree = np.bincount(in_csr.indices, minlength=A.n).astype(np.int64)    # (u's in-list entries)
    orders = {"ids": in_csr.indices.astype(np.int32), "hub first": hub_first(in_csr, out_degree)}
    indptr = in_csr.indptr.astype(np.int64)
    rows = []
    for depth in range(int(levels.max())):
        frontier, seen = depth_words(levels, depth, False), depth_words(levels, depth, True)
        live = np.bitwise_or.reduce(depth_words(levels, depth + 1, False), axis=0)
        row = {"level": depth + 1}
        for name, indices in orders.items():
            wanting, reads, early = _reads(indptr, indices, frontier, seen, live)
            row[name] = {"rows": int(wanting), "in_edges_read": int(reads), "stopped_early": int(early)}
        rows.append(row)
        ids, hub = row["ids"]["in_edges_read"], row["hub first"]["in_edges_read"]
        print(f"level {depth + 1}: rows {row['ids']['rows']:>10,}  in-edges read: ids {ids:>13,}  "
              f"hub first {hub:>13,}  ({ids / max(hub, 1):.2f}x fewer)")
    if args.json:
        write_json({"probe": "pull_order", "graph": graph_name(parse_spec(args.graph)), "n": A.n,
                    "nvals": A.nvals, "sources": [int(s) for s in sources], "levels": rows,
                    "environment": environment(A)}, args.json)


if __name__ == "__main__":
    main()
