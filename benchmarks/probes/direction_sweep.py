"""Which direction rule suits the GPU's single search? ``ld.bfs`` from the same roots at each
``--alpha`` (and ``--beta``), the settings taken in turn for ``--rounds`` rounds so that each
sees the same machine. Every search's levels are checked against the first setting's from the
same root (a rule changes the order of the work, never the answer). A record holds, per graph,
setting and root, the whole call's and the levels' own median over ``--repeats`` calls and the
direction of each level.

    python3 benchmarks/probes/direction_sweep.py kron:20 kron:22 --alpha 8 16 32 64 [--beta 24]
        [--roots 8] [--repeats 5] [--rounds 2] [--json out.json]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))     # benchmarks/, for harness

import lagraph_dist as ld  # noqa: E402
from lagraph_dist.core.settings import settings  # noqa: E402
from lagraph_dist.core.stats import measured_seconds  # noqa: E402
from lagraph_dist.core.version import code_identity  # noqa: E402
from lagraph_dist.tools.bench import host_processor, pick_roots, write_json  # noqa: E402
from harness import build_timed, matrix, parse_spec, timed  # noqa: E402

settings.host_search_edges = 0          # every search on the device, however small the graph


def one_setting(A, root, alpha, beta, repeats):
    """(whole-call ms, levels' own ms, directions, levels array) of ``repeats`` searches from
    ``root``: the medians, and the last search's directions and levels."""
    calls, own = [], []
    for _ in range(repeats):
        result, seconds = timed(A, ld.bfs, A, root, parents=True, alpha=alpha, beta=beta)
        calls.append(1e3 * seconds)
        own.append(1e3 * sum(map(measured_seconds, result.stats)))
    directions = "".join("p" if s["direction"] == "push" else "P" for s in result.stats)
    return float(np.median(calls)), float(np.median(own)), directions, result.levels.to_numpy()


def sweep(spec, settings_list, nroots, repeats, rounds, backend):
    """One graph's runs: {setting name: {root: [per round {call_ms, levels_ms, directions}]}}."""
    A, built = build_timed(lambda: matrix(spec, backend))
    roots = [int(r) for r in pick_roots(A, nroots, seed=1)] if spec.drawn_roots else [0]
    print(f"{spec.text}: built in {built:.2f} s, {A}, roots {roots}", flush=True)
    expected = {}
    runs = {name: {str(r): [] for r in roots} for name, _, _ in settings_list}
    for round_ in range(rounds):
        for name, alpha, beta in settings_list:
            for root in roots:
                ld.bfs(A, root, alpha=alpha, beta=beta)          # untimed: the plan and the caches
                call_ms, levels_ms, directions, levels = one_setting(A, root, alpha, beta, repeats)
                known = expected.setdefault(root, levels)
                if not np.array_equal(known, levels):
                    raise SystemExit(f"{spec.text} root {root}: {name} changed the levels")
                runs[name][str(root)].append({"call_ms": call_ms, "levels_ms": levels_ms,
                                              "directions": directions})
            totals = [runs[name][str(r)][-1] for r in roots]
            print(f"  round {round_} {name}: call median {np.median([t['call_ms'] for t in totals]):.4f} ms, "
                  f"levels median {np.median([t['levels_ms'] for t in totals]):.4f} ms, "
                  f"levels sum {sum(t['levels_ms'] for t in totals):.4f} ms, "
                  f"directions {' '.join(t['directions'] for t in totals)}", flush=True)
    return {"n": A.n, "nvals": A.nvals, "roots": roots, "runs": runs}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", type=parse_spec, metavar="KIND:SIZE")
    parser.add_argument("--alpha", nargs="+", type=float, default=[8.0, 16.0, 32.0])
    parser.add_argument("--beta", nargs="+", type=float, default=[24.0])
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backend", default="gpu", help="gpu (the question's); cpu to try the probe itself")
    parser.add_argument("--json")
    args = parser.parse_args()
    settings_list = [(f"alpha={a:g},beta={b:g}", a, b) for a in args.alpha for b in args.beta]
    if args.backend == "gpu":
        import cupy as cp
        device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    else:
        device = "host"
    record = {"probe": "direction_sweep", "commit": code_identity()["commit"], "backend": args.backend,
              "device": device, "host_cpu": host_processor(),
              "repeats": args.repeats, "rounds": args.rounds, "graphs": {}}
    for spec in args.specs:
        record["graphs"][spec.text] = sweep(spec, settings_list, args.roots, args.repeats, args.rounds,
                                                   args.backend)
        if args.json:
            write_json(record, args.json)


if __name__ == "__main__":
    main()
