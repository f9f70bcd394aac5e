"""Where does a fused multi-source batch's time go: its levels, the rest of its kernel, the host?

    python3 benchmarks/probes/multi_batch.py kron:22 --sources 64 512 --json out.json [--label new]

For each graph and number of sources, ``--repeats`` timed ``ld.bfs_multi`` calls (levels
only, or parents too with ``--parents``; ``--rounds`` rounds, each with every ``--alpha`` in
turn): the call's wall time to its device work's end, the backend's fused run by CUDA events
around it (from before the host prepares the launch to after it reads the report), the sum of
its levels' device seconds, and the kernel's set-up and end pass (the rows written), all three
by the kernel's own stamps. Each level's direction, counts and seconds come from the first timed
call. Two trees are compared by running this once with each, alternated, in one device call;
every run's levels are checked against the separate ``ld.bfs`` of its first 4 sources. The
sources are ``harness.batch_sources``' of ``--seed`` (1; benchmarks/multi_source.py draws with 3).
``--hubs-first`` runs the same searches on the graph renumbered by decreasing degree
(``ld.sort_by_degree``, ``Matrix.permuted``; the sources mapped to their new ids), so that the
frontier words most in-edges read lie together at the head of each array.
"""
import argparse
import itertools
import statistics
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/, for harness
from harness import batch_sources, graph_name, matrix, parse_spec, timed  # noqa: E402


class KernelClock:
    """CUDA events around each call of the backend's fused multi-source run."""

    def __init__(self, kernels):
        import cupy as cp
        self.cp, self.kernels, self.spans, self.ends = cp, kernels, [], []
        self.inner = kernels.multi_bfs_fused

        def timed(*args, **kwargs):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            run = self.inner(*args, **kwargs)
            stop.record()
            self.spans.append((start, stop))
            self.ends.append((run.setup_seconds, run.finish_seconds))
            return run

        kernels.multi_bfs_fused = timed

    def take(self):
        ms = [self.cp.cuda.get_elapsed_time(a, b) for a, b in self.spans]
        ends = self.ends
        self.spans, self.ends = [], []
        return ms, ends


def one_setting(A, sources, repeats, clock, alpha, parents):
    options = {"parents": parents}
    if alpha is not None:                      # (else bfs_multi's own default)
        options["alpha"] = alpha
    ld.bfs_multi(A, sources, **options)
    A.backend.sync()
    clock.take()
    walls, first = [], None
    for _ in range(repeats):
        result, seconds = timed(A, ld.bfs_multi, A, sources, **options)
        walls.append(seconds * 1e3)
        if first is None:
            first = result
        result = None
    return walls, clock.take(), first


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--sources", type=int, nargs="+", default=[64, 512])
    parser.add_argument("--label", default="", help="names the tree in the printed lines")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--alpha", type=float, nargs="+", default=[None],
                        help="the direction rule's alpha (several: each in turn; none: bfs_multi's default, "
                             "so that an older tree runs too)")
    parser.add_argument("--parents", action="store_true", help="parents too (else levels only)")
    parser.add_argument("--seed", type=int, default=1,
                        help="the sources' seed (harness.batch_sources; benchmarks/multi_source.py draws with 3)")
    parser.add_argument("--hubs-first", action="store_true",
                        help="the graph renumbered by decreasing degree (the same searches, in the new ids)")
    parser.add_argument("--json")
    args = parser.parse_args()
    runs = []
    for text in args.graphs:
        spec = parse_spec(text)
        A = matrix(spec, "gpu")
        drawn = {k: batch_sources(A, k, args.seed) for k in args.sources}     # in the graph's own ids
        if args.hubs_first:
            order = ld.sort_by_degree(A)
            renumbered = np.empty_like(order)
            renumbered[order] = np.arange(order.size)
            A = A.permuted(order)
            drawn = {k: [int(renumbered[s]) for s in sources] for k, sources in drawn.items()}
        clock = KernelClock(A.backend.kernels)
        for k in args.sources:
            sources = drawn[k]
            expected = np.stack([ld.bfs(A, s).levels.to_numpy() for s in sources[:4]])
            for round_, alpha in itertools.product(range(args.rounds), args.alpha):
                walls, (kernel, ends), result = one_setting(A, sources, args.repeats, clock, alpha, args.parents)
                setup_ms = statistics.median(1e3 * e[0] for e in ends)
                finish_ms = statistics.median(1e3 * e[1] for e in ends)
                if not np.array_equal(result.levels.to_numpy()[:4], expected):
                    raise AssertionError(f"{text}, {k} sources: levels differ from ld.bfs's")
                records = [{key: s.get(key) for key in ("level", "direction", "frontier", "discovered",
                                                         "edges_examined", "seconds")}
                           for s in result.stats if s.get("batch") == 0]
                level_ms = 1e3 * sum(r["seconds"] for r in records)
                run = {"graph": graph_name(spec), "hubs_first": args.hubs_first, "sources": k, "seed": args.seed, "label": args.label, "round": round_,
                       "alpha": alpha, "parents": args.parents,
                       "wall_ms": walls, "kernel_ms": kernel, "median_wall_ms": statistics.median(walls),
                       "median_kernel_ms": statistics.median(kernel), "levels_ms": level_ms,
                       "setup_ms": setup_ms, "finish_ms": finish_ms,
                       "levels": records}
                runs.append(run)
                steps = " ".join(f"{r['level']}:{r['direction'][:2]}:{1e3 * r['seconds']:.3f}" for r in records)
                print(f"{args.label} {graph_name(spec)} k={k} alpha {alpha or 'default'} round {round_}: "
                      f"wall {run['median_wall_ms']:.3f} "
                      f"kernel {run['median_kernel_ms']:.3f} levels {level_ms:.3f} set-up {setup_ms:.3f} "
                      f"end pass {finish_ms:.3f} ms | {steps}", flush=True)
                result = None
    if args.json:
        write_json({"probe": "multi_batch", "environment": environment(A), "runs": runs}, args.json)


if __name__ == "__main__":
    main()
