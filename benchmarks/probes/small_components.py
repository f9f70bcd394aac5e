"""Where should a small graph's connected components run? ``ld.connected_components`` of GPU-backend
graphs under the package's policy (``ld.settings.host_search_edges``: the host twin's union-find
below it), forced onto the device and forced onto the host, beside scipy's
``connected_components`` on the same CSR, in one process: ``--repeats`` timed calls a way after
``--warmups``, each of ours checked outside the clock (the same partition as scipy's).

    python3 benchmarks/probes/small_components.py kron:10 mesh:30x30 path:2000 mtx:PATH --json out.json
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lagraph_dist as ld  # noqa: E402
from scipy.sparse.csgraph import connected_components as scipy_components  # noqa: E402
from harness import graph_name, matrix, parse_spec, time_summary, timed_calls  # noqa: E402
from lagraph_dist.tools.bench import environment, write_json  # noqa: E402

#: where our calls run: the policy, the device, the host (the host_search_edges each sets)
WAYS = {"policy": None, "device": 0, "host": 1 << 62}


def same_partition(ours, theirs) -> bool:
    """Whether two labellings cut the vertices the same way: each label of one meets one of the other."""
    pairs = np.unique(np.stack([ours, theirs]), axis=1)
    return np.unique(pairs[0]).shape[0] == np.unique(pairs[1]).shape[0] == pairs.shape[1]


def run_graph(spec, backend, repeats, warmups):
    A = matrix(spec, backend)
    S = A.to_scipy().tocsr()
    directed = not A.symmetric
    scipy_calls = timed_calls(lambda: scipy_components(S, directed=directed, connection="weak")[1],
                              repeats, warmups=warmups)
    expected = scipy_calls.last
    row = {"graph": graph_name(spec), "n": A.n, "nvals": A.nvals, "scipy": time_summary(scipy_calls.seconds)}
    for way, threshold in WAYS.items():
        with ld.settings.changed(host_search_edges=ld.settings.host_search_edges if threshold is None else threshold):
            def check(labels):
                if not same_partition(labels.to_numpy(), expected):
                    raise SystemExit(f"{row['graph']}, {way}: the components differ from scipy's")
                return bool(getattr(labels, "held_on_host", False))
            calls = timed_calls(lambda: ld.connected_components(A), repeats, check=check, A=A, warmups=warmups)
        row[way] = {**time_summary(calls.seconds), "on_host": all(calls.kept)}
        row[way]["scipy_over_ours"] = row["scipy"]["median_ms"] / row[way]["median_ms"]
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+", help="graph specs (benchmarks/harness.py)")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--backend", default="gpu", help="the graphs' backend (gpu; cpu for a smoke run)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    print("| graph | stored edges | policy ms | device ms | host ms | scipy ms | scipy / policy |")
    print("|---|---|---|---|---|---|---|")
    for text in args.graphs:
        row = run_graph(parse_spec(text), args.backend, args.repeats, args.warmups)
        rows.append(row)
        print(f"| {row['graph']} | {row['nvals']:,} | {row['policy']['median_ms']:.4f} | "
              f"{row['device']['median_ms']:.4f} | {row['host']['median_ms']:.4f} | {row['scipy']['median_ms']:.4f} | "
              f"{row['policy']['scipy_over_ours']:.2f}x |")
    if args.json:
        record = {"benchmark": "small-components", "ways": dict(WAYS),
                  "host_search_edges": ld.settings.host_search_edges, "repeats": args.repeats, "warmups": args.warmups, "graphs": rows,
                  "environment": environment(matrix(parse_spec(args.graphs[0]), args.backend))}
        write_json(record, args.json)


if __name__ == "__main__":
    main()
