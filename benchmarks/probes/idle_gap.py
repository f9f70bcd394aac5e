"""Whether what the Graph500 bench does between two timed searches changes the second one: the
bench's roots searched (auto) back to back, after a host pause of ``--pause`` ms with the GPU idle,
and after the bench's own check of the previous search (levels to an array, ``validate``), in
rounds that take the three ways in turn. Per search: the call's wall time (to the device's work
done), its levels' own time (the kernel's stamps) and the rest, the call less its levels.

    python3 benchmarks/probes/idle_gap.py kron:26 [--roots 8] [--rounds 2] [--pause 50] [--backend gpu] [--json out.json]

The bench (lagraph_dist/tools/bench.py) checks each search between the timed ones; a gap that
grows after a pause or a check, not back to back, is the device's state after idling (clocks,
caches), not the search's work."""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.stats import measured_seconds
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import device_name, pick_roots, validate, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build, timed  # noqa: E402

WAYS = ("back to back", "after a pause", "after the check")


def searches(A, roots, way, pause):
    """[(call ms, levels' ms)] of a search from each root, ``way`` between them."""
    rows, previous = [], None
    for root in roots:
        if way == "after a pause":
            time.sleep(pause)
        elif way == "after the check" and previous is not None:
            prev_root, prev = previous
            validate(A, prev_root, prev.levels.to_array(), prev.parents)
        result, seconds = timed(A, ld.bfs, A, root)
        rows.append((1e3 * seconds, 1e3 * sum(map(measured_seconds, result.stats))))
        previous = (root, result)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pause", type=float, default=50.0, help="ms of host pause before each search")
    parser.add_argument("--backend", default="gpu", help="cpu: the probe itself where there is no GPU")
    parser.add_argument("--json")
    args = parser.parse_args()
    A, _ = build(args.graph, args.backend)
    roots = pick_roots(A, args.roots, seed=2)
    searches(A, roots[:2], "back to back", 0)       # (built and warmed)
    record = {"benchmark": "idle_gap", "graph": args.graph, "device": device_name(A.backend), "roots": roots,
              "pause_ms": args.pause, "code": code_identity(), "rounds": []}
    for k in range(args.rounds):
        round_rows = {}
        for way in WAYS:
            rows = searches(A, roots, way, args.pause / 1e3)
            round_rows[way] = rows
            call, levels = np.array(rows).T
            print(f"round {k} {way:16s}: call median {np.median(call):.3f} ms, levels {np.median(levels):.3f}, "
                  f"rest {np.median(call - levels):.3f} (each {' '.join(f'{c - l:.3f}' for c, l in rows)})")
        record["rounds"].append(round_rows)
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
