"""Would a multi-source level read fewer edges if only its big searches pulled and the small ones
pushed?

    python3 benchmarks/probes/split_pull.py kron:20 --sources 64 [--json out.json]

A model on the host, as ``pull_order.py`` is: the levels of one levels-only ``ld.bfs_multi``
batch give each depth's frontier and seen words. A pulled row reads its in-neighbours until it
holds every bit its live searches still lack that the level offers, or its in-edges end, so one
live search whose wave has not reached the row's part of the graph makes the row read all its
in-edges. Here each level's searches are split by their frontier's out-edges: those with at least
``share`` of the largest search's are pulled (the rows want their bits alone), the rest push
(their frontier vertices' out-edges, each read once for all of them, as a bit-parallel push reads
them). For each share: the in-edges the pull reads, the out-edges the push reads and their sum,
beside the level pulled for every live search (share 0).
"""
import sys
from pathlib import Path

import numpy as np

from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/, for harness
sys.path.insert(0, str(Path(__file__).resolve().parent))          # pull_order's model
from harness import graph_name, modelled_batch, parse_spec  # noqa: E402
from pull_order import _reads, depth_words  # noqa: E402

SHARES = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5)


def searches_mask(searches, width):
    """The words of a set of searches (bit s % 64 of word s // 64)."""
    words = np.zeros(width, np.uint64)
    for s in searches:
        words[s // 64] |= np.uint64(1) << np.uint64(s % 64)
    return words


def level_split(levels, depth, indptr, indices, out_degree, share):
    """(in-edges the pull of the searches holding ``share`` of the largest frontier's out-edges
    reads, out-edges the push of the others reads) at ``depth``."""
    k = levels.shape[0]
    here = levels == depth                                            # (k, n)
    edges = here.astype(np.int64) @ out_degree                        # each search's frontier out-edges
    live = np.flatnonzero(here.any(axis=1))
    big = [int(s) for s in live if edges[s] >= share * edges.max()]
    small = [int(s) for s in live if edges[s] < share * edges.max()]
    width = -(-k // 64)
    frontier, seen = depth_words(levels, depth, False), depth_words(levels, depth, True)
    pulled = _reads(indptr, indices, frontier, seen, searches_mask(big, width))[1] if big else 0
    pushed = int(out_degree[here[small].any(axis=0)].sum()) if small else 0
    return int(pulled), pushed, len(big)


def main():
    args, A, sources, levels = modelled_batch(__doc__.splitlines()[0])
    in_csr = A.T.to_scipy().tocsr()
    in_csr.sort_indices()
    indptr, indices = in_csr.indptr.astype(np.int64), in_csr.indices.astype(np.int32)
    out_degree = np.diff(A.to_scipy().tocsr().indptr).astype(np.int64)
    rows = []
    for depth in range(int(levels.max())):
        row = {"level": depth + 1, "shares": {}}
        for share in SHARES:
            pulled, pushed, big = level_split(levels, depth, indptr, indices, out_degree, share)
            row["shares"][str(share)] = {"pulled_searches": big, "in_edges_pulled": pulled,
                                         "out_edges_pushed": pushed, "edges": pulled + pushed}
        rows.append(row)
        every = row["shares"]["0.0"]["edges"]
        print(f"level {depth + 1}: all pulled {every:>13,} edges; "
              + "; ".join(f"share {share}: {row['shares'][str(share)]['pulled_searches']} pulled, "
                          f"{row['shares'][str(share)]['in_edges_pulled']:,} + "
                          f"{row['shares'][str(share)]['out_edges_pushed']:,}"
                          for share in SHARES[1:]), flush=True)
    if args.json:
        write_json({"probe": "split_pull", "graph": graph_name(parse_spec(args.graph)), "n": A.n, "nvals": A.nvals,
                    "sources": [int(s) for s in sources], "levels": rows, "environment": environment(A)}, args.json)


if __name__ == "__main__":
    main()
