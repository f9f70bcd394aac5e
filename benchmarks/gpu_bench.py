"""Graph500 BFS on one GPU with its peers side by side, one JSON record per scale.

    python3 benchmarks/gpu_bench.py --scales 20 22 --out DIR
    lagraph-dist bfs --scale 27 --roots 1 --backend gpu          # does it fit? how long is the build?

Per scale: lagraph_dist push and auto over 64 seeded roots (every search validated on the
device; levels also compared with python-graphblas on the peers' roots), then each peer up to
its largest scale (PEER_SCALES) on the same graph and roots.
"""
import argparse
import math
import sys
from pathlib import Path

import lagraph_dist as ld
from lagraph_dist.tools.bench import BenchConfig, run_bench

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (build_timed, commit_of, count, device_of, gib, graph_info, grid_of, md_table, ms,  # noqa: E402
                     paragraphs, parse_spec, plural, rate, span, write_record)


# each peer's largest scale: from 26 on, the 2 billion edges gathered for a host peer overflow the host's RAM
PEER_SCALES = {"graphblas-push": 25, "graphblas-pushpull": 25, "cupyx-naive": math.inf, "scipy": 22, "lagraph-cpu": 20}


# -- the record's tables (here and in benchmarks/results/) ----------------------------------------
def describe_graph(record):
    graph = record["graph"]
    text = f"Kronecker scale {graph['scale']}" if graph.get("kind") == "kronecker" else graph.get("kind", "graph")
    if "edgefactor" in graph:
        text += f", edge factor {graph['edgefactor']}, seed {graph.get('seed', 0)}"
    return f"{text}: n = {count(record['n'])} vertices, {count(record['nvals'])} stored edges"


def validated_text(run):
    return f"{run['validated']}/{run['roots']} Graph500 rules" if "validated" in run else "not recorded"


def peer_verdict(result):
    if "skipped" in result:
        return "skipped: " + result["skipped"]
    agrees = result.get("agrees_with_ours")
    return {True: "reached the same edges as ours", False: "reached other edges than ours"}.get(agrees, "-")


def run_cells(run):
    """A run's hmean and median GTEPS, median ms, and its fastest .. slowest root."""
    seconds = run.get("seconds_per_root")
    return [rate(run["harmonic_mean_teps"]), rate(run.get("median_teps")), ms(run["median_ms"] / 1e3),
            span(min(seconds), max(seconds), ms) if seconds else "-"]


def summary(record, name):
    """The record's summary (gpu-scaleS.md, and the summaries results_report.py writes): its runs and peers."""
    env = record["environment"]
    rows = [[f"lagraph_dist {record.get('backend') or env['backend']} {direction}", *run_cells(run), run["roots"],
             validated_text(run)] for direction, run in record["lagraph_dist"].items()]
    rows += [[peer, *run_cells(result), result["roots"], peer_verdict(result)] if "skipped" not in result
             else [peer, "-", "-", "-", "-", 0, peer_verdict(result)] for peer, result in record["peers"].items()]
    header = ["run", "hmean GTEPS", "median GTEPS", "median ms", "ms, fastest .. slowest root", "roots", "checked"]
    peak = f", peak device memory {gib(record['peak_device_bytes'])} GiB" if record.get("peak_device_bytes") else ""
    return paragraphs(f"## {describe_graph(record)}, commit `{commit_of(env)}`",
                      f"`{name}`: commit `{commit_of(env)}`, {device_of(env)}, backend {env['backend']}, "
                      f"grid {grid_of(record)} ({plural(env['ranks'], 'rank')}){peak}.", md_table(header, rows))


def levels_table(levels):
    """Per level of one search: direction, sizes, and the level's own time where it has one."""
    rows = [[level["level"], level["direction"], "yes" if level.get("fused") else "no", count(level["frontier"]),
             count(level["discovered"]), count(level["edges_examined"]),
             ms(level["seconds"]) if "clock" in level or not level.get("fused") else "-", level.get("clock", "-")]
            for level in levels]
    return md_table(["level", "direction", "fused", "frontier", "discovered", "edges examined", "ms", "clock"], rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", type=int, nargs="+", required=True)
    parser.add_argument("--roots", type=int, default=64)
    parser.add_argument("--peer-roots", type=int, default=8)
    parser.add_argument("--out", type=Path, default="benchmarks/results")
    args = parser.parse_args()
    for scale in args.scales:
        ld.get_backend("gpu").reset_memory_peak()
        A, seconds = build_timed(lambda: ld.kronecker(scale, backend="gpu"))
        info = graph_info(parse_spec(f"kron:{scale}")) | {
            "build_seconds": seconds, "build_peak_device_bytes": A.backend.memory_pool_peak(),
            "graph_device_bytes": A.block.nbytes}
        print(f"scale {scale}: {A}, built in {seconds:.2f} s", flush=True)
        peers = tuple(peer for peer, top in PEER_SCALES.items() if scale <= top)
        record = run_bench(A, info, BenchConfig(roots=args.roots, peers=peers, peer_roots=args.peer_roots,
                                                check_levels=scale < 26, progress=False))
        name = f"gpu-scale{scale}.json"         # its gpu-scaleS.md: results_report.py's, from this record
        write_record(record, args.out / name)
        print(summary(record, name), flush=True)
        for direction, run in record["lagraph_dist"].items():
            print(f"\n{direction}, first root:\n\n{levels_table(run['levels_first_root'])}", flush=True)
        del A


if __name__ == "__main__":
    main()
