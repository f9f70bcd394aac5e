"""What reducing a batch's level planes without their table saves: ``DenseRows.reduce_rows``
(closeness's sums and counts, eccentricity's maxima) on planes in host memory, through the CPU
set's ``level_planes_reduced`` (``table: no``) against the rows made from the planes a slice at
a time and reduced by numpy (``table: yes``, the path of a kernel set without that member), in
one process, alternating; then ``ld.closeness_centrality`` from the same sources both ways.

    python3 benchmarks/probes/planes_reduction.py kron:18 [--sources 4096] [--rounds 3] [--json out.json]

The sources are the multi-source benchmarks' batch sources (seed 3). Each round times each way
once, the reductions over one batch's levels made beforehand and closeness from the start;
every reduction is checked against the other way's before anything is written.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.algebra import multi
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import batch_sources, build  # noqa: E402

WAYS = ("table", "planes")
LABELS = {"table": "table yes", "planes": "table no"}       # (whether a table is made)
MONOIDS = ("plus", "max")


def way(name):
    """The reduction path of ``name``: the planes' own (the package's), or the table's."""
    planes_reduction = multi._planes_reduction
    return planes_reduction if name == "planes" else (lambda block: None)


def timed(call):
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--sources", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    A, _ = build(args.graph, "cpu")
    sources = np.asarray(batch_sources(A, args.sources, 3), dtype=np.int64)
    levels = ld.bfs_multi(A, sources, parents=False).levels
    kinds = sorted({type(block).__name__ for block in levels.blocks})
    ld.closeness_centrality(A, sources=sources[:64])             # (compiled before the clock)
    paths = {name: way(name) for name in WAYS}
    seconds = {f"{what}, {LABELS[name]}": [] for what in ("reduce_rows", "closeness") for name in WAYS}
    answers = {}
    try:
        for _ in range(args.rounds):
            for name in WAYS:
                multi._planes_reduction = paths[name]
                took, reduced = timed(lambda: levels.reduce_rows(*MONOIDS, nvals=True))
                seconds[f"reduce_rows, {LABELS[name]}"].append(took)
                answers.setdefault(name, reduced)
                took, _ = timed(lambda: ld.closeness_centrality(A, sources=sources))
                seconds[f"closeness, {LABELS[name]}"].append(took)
    finally:
        multi._planes_reduction = paths["planes"]
    for got, want in zip(answers["planes"], answers["table"]):
        np.testing.assert_array_equal(got, want)
    for key, values in seconds.items():
        print(f"{key}: {', '.join(f'{s:.3f}' for s in values)} s")
    record = {"benchmark": "planes reduction (benchmarks/probes/planes_reduction.py)", "graph": args.graph,
              "n": A.n, "stored_edges": int(A.nvals), "sources": args.sources, "blocks": kinds,
              "monoids": list(MONOIDS), "rounds": args.rounds, "seconds": seconds,
              "medians": {key: float(np.median(values)) for key, values in seconds.items()},
              "environment": environment(A)}
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
