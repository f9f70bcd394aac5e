"""Is a compile-time variant of the fused kernel faster than the plain build? Each build (the
plain one, then each ``--variant``: a comma-separated set of -D defines) runs in a process of
its own, the builds taken in turn for ``--rounds`` rounds over the same graphs and roots, so
that both see the same machine. A build's first process checks its searches from three roots,
auto and push-only: their parents by the Graph500 rules and, on graphs of at most 2^28 stored
edges, their levels against scipy's distances (a variant that fails stops the probe); every process times ``--repeats`` calls from each root
(direction auto) and records each call's time, its levels' own time and, per root, each
level's own time (medians over the repeats).

    python3 benchmarks/probes/fused_variants.py kron:20 kron:22 --variant=-DLD_ROW_GROUP=16 \\
        --variant=-DLD_ROW_GROUP=32 [--rounds 2] [--repeats 5] [--json out.json]

(``--variant=``, with the equals sign: a value that starts with a dash is no option's.)

The variants are the ``#ifdef`` builds of ``kernels/`` that no search uses until measured (each
named where it is defined); tests/test_cuda_sources.py compiles those that change code. Those
measured and lost are removed, their records in ``probes/results`` naming the commit that had
them (``h100-fused-variants-621ac34.json``: the flat level's K edges a lane and the pull's
preloaded groups; ``-0f96c78.json``: the probed and the flat eager claims; ``-bdcb959.json``: the
flat level's finds staged in shared memory; ``-fc7a3b9.json``: each block's address translations
made before the first level; ``-8707808.json``: every grid push level's finds staged a warp at a
time, and the grid push levels compiled apart (noinline); the flat level's staging alone was kept;
``-seeded-prefetch-caef535.json``: a search from a source set up before one grid barrier, and the
rows of a block or warp level's finds asked of L2; ``-pull-108678d.json`` and
``-long-rows-108678d.json``: the fused pull's split between a lane's rows and a warp's, whose
measure made every row a lane's, and a word's row offsets loaded a word ahead, lost).
``-DLD_FUSED_LANE_EDGES=4096`` builds the pull of 5e40305, every row a lane's, beside today's lane
share (``-lane-edges-199215e.json``; on two disjoint Kronecker copies, whose unreached hubs the share
bounds, ``-lane-edges-kron2-0b6860c.json``). (``-group-closed-ac51f7f.json``: the pull before ac51f7f, each word's closed bits read at
its turn, built as ``-DLD_PULL_GROUP_CLOSED=0``, lost to the group's one load, and ``-DLD_ROW_GROUP=16``.)
(``-fixed-share-7f9bafa.json``: the first half of each pull warp's groups fixed, lost.)
(``-four-probes-1cb6d27.json``: the next word's open rows' offsets ahead, 8 in-edges a pull step, a flat
push's next step's loads ahead, and a pull's groups fetched two an atomic, all lost or level.)
(``-packed-20035e1.json``: a pull group's open rows packed into the lanes, kept at 9ed9d96, and 16-word groups.)
(``-empty-run-183de5f.json``: four pull groups an atomic after a group with no open row, plain since 3393534;
``-DLD_PULL_EMPTY_RUN=1`` builds the one-group fetch beside it.)
(``-push-frontier-bits-69668e0.json``: a grid push level setting its finds' frontier bits as it claimed them,
built as ``-DLD_PUSH_FRONTIER_BITS=1`` at 159c592, level or lost; removed.) ``rows=hub`` (a variant option beside the defines, alone or with them) stores each row's entries hub
first (``hub_first_rows``; ``-hub-rows-3393534.json``); ``ids=degree`` renumbers the vertices by
decreasing degree (``degree_numbered``). ``--backend cpu`` runs
the probe itself where there is no GPU (the defines then change nothing).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))     # benchmarks/, for harness


#: a variant's options beside its -D defines that change the graph, not the build: rows=hub orders
#: each row's stored entries hub first (hub_first_rows); ids=degree renumbers the vertices by
#: decreasing degree (degree_numbered)
GRAPH_OPTIONS = ("rows=hub", "ids=degree")


def defines_of(text):
    """The options of one build, from its comma-separated text ('' for the plain build): -D
    defines and GRAPH_OPTIONS."""
    options = tuple(d.strip() for d in text.split(",") if d.strip())
    bad = [d for d in options if not d.startswith("-D") and d not in GRAPH_OPTIONS]
    if bad:
        raise SystemExit(f"a variant is -D defines and {', '.join(GRAPH_OPTIONS)} only, got {bad}")
    return options


def hub_first_rows(A):
    """Orders each row's stored entries of A (symmetric, one process) hub first, in place: by the
    entry's degree, largest first, ties by id. A pull level stops at a row's first in-neighbour in
    the frontier, and a level's frontier is mostly hubs: on the host, Kronecker 22's big pull
    level reads 1.7x fewer in-edges so (pull_lanes.py --order hub). The same edges, stored in
    another order; searches from the same roots reach the same levels."""
    import lagraph_dist as ld
    from harness import hub_first_indices
    if not A.symmetric or A.grid.size != 1:
        raise SystemExit("rows=hub orders a symmetric graph's rows on one process")
    csr = A.block.by_col             # (a symmetric graph's by-row block is this one)
    csr.indices[...] = hub_first_indices(csr.indptr, csr.indices, ld.sort_by_degree(A), A.backend.xp)
    A.backend.sync()


def degree_numbered(A, roots):
    """(A's degree-ordered twin, the one the multi-source batches run on (``degree_twin``: A
    renumbered by ``ld.sort_by_degree``); the roots' ids there). Sorted rows then read the hubs'
    in-edges first, as rows=hub does, and the hubs' frontier words lie together at the head of each
    bitmap. The searches from the roots' new ids reach the same levels; mapping the parents back to
    A's ids (a gather a call) is not timed here."""
    import lagraph_dist as ld
    from lagraph_dist.algorithms.degree_twin import degree_twin
    with ld.settings.changed(multi_degree_order="always"):
        twin = degree_twin(A, len(roots), parents=True)
    return twin.matrix, [int(v) for v in twin.sources(np.asarray(roots))]


#: graphs of more stored edges than this are checked by the Graph500 rules alone (a scipy copy
#: of Kronecker 26 would take tens of GB of host memory)
SCIPY_CHECK_EDGES = 1 << 28


def checked(A, roots, spec):
    """Stops the probe unless this build's parents pass the Graph500 checks (``ld.validate``
    raises) and, on a graph of at most SCIPY_CHECK_EDGES, its levels equal scipy's distances
    from the roots."""
    import scipy.sparse.csgraph as csgraph
    import lagraph_dist as ld
    S = A.to_scipy() if A.nvals <= SCIPY_CHECK_EDGES else None
    for root in roots[:3]:
        distance = None if S is None else csgraph.shortest_path(S, indices=root, unweighted=True)
        for direction in ("auto", "push"):
            result = ld.bfs(A, root, direction=direction)
            ld.validate(A, root, result.levels.to_numpy(), result.parents.to_numpy())
            if distance is None:
                continue
            ids, levels = result.levels.to_coo()
            reached = np.flatnonzero(np.isfinite(distance))
            if not (np.array_equal(ids, reached) and np.array_equal(levels, distance[reached].astype(levels.dtype))):
                raise SystemExit(f"{spec} from {root} ({direction}): this build's levels differ from scipy's")


def child(specs, backend, options, repeats, path, check):
    """One build's process: its record written to ``path``; its results checked first where
    ``check`` (each build's first round)."""
    import lagraph_dist as ld
    from harness import build, timed
    from lagraph_dist.core.stats import measured_seconds
    from lagraph_dist.tools.bench import device_name
    ld.settings.host_search_edges = 0         # the device's kernels, however small the graph
    defines = tuple(d for d in options if d.startswith("-D"))       # (the rest: GRAPH_OPTIONS)
    ld.settings.extra_cuda_defines = defines  # before the first build of the modules
    record = {"defines": list(options), "graphs": {}}
    for spec in specs:
        A, roots = build(spec, backend)
        roots = roots or [int(v) for v in A.out_degree().indices()[:7]]
        if "ids=degree" in options:
            A, roots = degree_numbered(A, roots)
        if "rows=hub" in options:
            hub_first_rows(A)
        if check:
            checked(A, roots, spec)
        record["device"] = device_name(A.backend)
        calls, levels_ms, per_root = [], [], {}
        for _ in range(repeats):
            for root in roots:
                result, seconds = timed(A, ld.bfs, A, root)       # (the benchmarks' clock)
                calls.append(1e3 * seconds)
                seconds = [measured_seconds(s) for s in result.stats]      # (a run timed whole: on its last level)
                levels_ms.append(1e3 * sum(seconds))
                per_root.setdefault(root, []).append(seconds)
        record["graphs"][spec] = {
            "median_ms": float(np.median(calls)), "levels_median_ms": float(np.median(levels_ms)),
            "ms": calls, "levels_us_by_root": {str(root): [round(1e6 * float(np.median(level)), 2) for level in
                                                           zip(*runs)] for root, runs in per_root.items()
                                               if len({len(r) for r in runs}) == 1}}
    Path(path).write_text(json.dumps(record))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--variant", action="append", default=[], help="comma-separated -D defines of one build")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--json")
    parser.add_argument("--child", help=argparse.SUPPRESS)         # one build's defines (internal)
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    parser.add_argument("--child-check", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.graphs, args.backend, defines_of(args.child), args.repeats, args.child_json, args.child_check)
    from lagraph_dist.core.version import code_identity
    from lagraph_dist.tools.bench import write_json
    builds = [""] + [",".join(defines_of(v)) for v in args.variant]
    record = {"benchmark": "fused_variants", "commit": code_identity()["commit"], "device": None,
              "graphs": args.graphs, "repeats": args.repeats, "runs": []}
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            for k, defines in enumerate(builds):
                path = os.path.join(scratch, f"{round_}-{k}.json")
                done = subprocess.run([sys.executable, __file__, *args.graphs, f"--child={defines}", "--child-json", path,
                                       "--repeats", str(args.repeats), "--backend", args.backend] + (["--child-check"] if round_ == 0 else []),
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(f"build {defines or 'plain'} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
                run = json.loads(Path(path).read_text()) | {"round": round_}
                record["runs"].append(run)
                record["device"] = record["device"] or run["device"]
                for spec, figures in run["graphs"].items():
                    first = next(iter(figures["levels_us_by_root"].values()), [])[:12]     # (a deep one's first)
                    print(f"round {round_} {defines or 'plain':24s} {spec}: call median {figures['median_ms']:.4f} ms, "
                          f"levels {figures['levels_median_ms']:.4f} ms; first root's levels us {first}", flush=True)
                if args.json:          # after every process: a call's time limit keeps what ran
                    write_json(record, args.json)


if __name__ == "__main__":
    main()
