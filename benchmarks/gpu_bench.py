"""Graph500 BFS on one GPU with its peers side by side, one JSON record per scale.

    python3 benchmarks/gpu_bench.py --scales 20 22 --out DIR
    python3 benchmarks/gpu_bench.py --scales 27 --build-only     # does it fit? how long?

Per scale: lagraph_dist push and auto over 64 seeded roots (every search validated on the
device; levels also compared with python-graphblas on the peers' roots), then the peers on
the same graph and roots: python-graphblas push and push/pull on the host's cores, scipy
csgraph (scale <= 22), the naive cupyx SpMV BFS, and our CPU backend (scale <= 20).
"""
import argparse
import time
from pathlib import Path

import lagraph_dist as ld
from lagraph_dist.tools.bench import BenchConfig, format_table, run_bench, write_json


def peers_for(scale):
    if scale >= 26:     # gathering 2 billion edges to the host for these peers overflows its RAM
        return ("cupyx-naive",)
    peers = ["graphblas-push", "graphblas-pushpull", "cupyx-naive"]
    if scale <= 22:
        peers.append("scipy")
    if scale <= 20:
        peers.append("lagraph-cpu")
    return tuple(peers)


def build(scale):
    import cupy as cp
    backend = ld.get_backend("gpu")
    backend.reset_memory_peak()
    started = time.perf_counter()
    A = ld.kronecker(scale, backend="gpu")
    cp.cuda.Device().synchronize()
    info = {"kind": "kronecker", "scale": scale, "edgefactor": 16, "seed": 0,
            "build_seconds": time.perf_counter() - started,
            "build_peak_device_bytes": backend.memory_pool_peak(),
            "graph_device_bytes": A.block.nbytes}
    return A, info


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", type=int, nargs="+", required=True)
    parser.add_argument("--roots", type=int, default=64)
    parser.add_argument("--peer-roots", type=int, default=8)
    parser.add_argument("--out", default="benchmarks/results")
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for scale in args.scales:
        A, info = build(scale)
        print(f"scale {scale}: {A}, built in {info['build_seconds']:.2f} s, "
              f"build peak {info['build_peak_device_bytes'] / 2**30:.1f} GiB, "
              f"graph {info['graph_device_bytes'] / 2**30:.1f} GiB", flush=True)
        if args.build_only:
            write_json(info | {"nvals": A.nvals}, out / f"gpu-build-scale{scale}.json")
            continue
        config = BenchConfig(roots=args.roots, peers=peers_for(scale), peer_roots=args.peer_roots,
                             check_levels=scale < 26, progress=False)
        record = run_bench(A, info, config)
        name = f"gpu-scale{scale}"
        write_json(record, out / f"{name}.json")
        table = format_table(record)
        (out / f"{name}.md").write_text(table + "\n")
        print(table, flush=True)
        for direction, run in record["lagraph_dist"].items():
            print(f"  {direction} levels (first root):", flush=True)
            for s in run["levels_first_root"]:
                print(f"    {s['level']:2d} {s['direction']:4s} frontier={s['frontier']:>9d} "
                      f"found={s['discovered']:>9d} edges={s['edges_examined']:>11d} "
                      f"ms={1e3 * s['seconds']:.3f}", flush=True)
        del A


if __name__ == "__main__":
    main()
