"""What a betweenness sweep must read, counted from one batch's levels on the host:

    python3 benchmarks/probes/bc_traffic.py kron:22 --sources 64 [--json out.json]

Brandes's sweeps run over the shortest-path DAG of each search: an edge u -> v with
level(v) = level(u) + 1 adds u's path count to v's (forward) and v's dependency to u's
(backward). The GPU sweeps keep each quantity as one float64 row a vertex, a column a search,
so an edge reads the other end's values for the searches whose DAG holds it. This counts the
stored edges that lie on some search's DAG, the (edge, search) pairs, and the 32-byte sectors
of the other ends' rows those pairs touch (four searches a sector): the bytes a sweep reads
with no cache reuse, the floor under its time where the rows miss the cache.
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


def main():
    args, A, sources, levels = modelled_batch(__doc__.splitlines()[0])
    csr = A.to_scipy().tocsr()
    if levels.max() > np.iinfo(np.int8).max:
        raise SystemExit(f"levels up to {levels.max()}: this count keeps them as int8")
    dag_edges, pairs, sectors = _dag_reads(csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                                           np.ascontiguousarray(levels.T.astype(np.int8)))
    gigabytes = 32 * int(sectors) / 1e9
    print(f"{graph_name(parse_spec(args.graph))}, {args.sources} sources: {csr.nnz:,} stored edges, "
          f"{dag_edges:,} on some search's DAG, {pairs:,} (edge, search) pairs, {sectors:,} sectors: "
          f"{gigabytes:.1f} GB a sweep")
    if args.json:
        write_json({"probe": "bc_traffic", "graph": graph_name(parse_spec(args.graph)), "n": A.n,
                    "nvals": A.nvals, "sources": [int(s) for s in sources], "dag_edges": int(dag_edges),
                    "edge_search_pairs": int(pairs), "sectors": int(sectors), "sweep_gigabytes": gigabytes,
                    "environment": environment(A)}, args.json)


if __name__ == "__main__":
    main()
