"""What a fused grid level's time is made of on one GPU: kernels/fused.cu built with
-DLD_WARP_CLOCKS, whose every warp writes six clock64 readings of its SM a grid level (the
exit of the barrier before it, the counters known, the level set up, the end of its work, the
end of its block's count, the exit of the level's barrier) and two %globaltimer readings (one clock for the grid, 32 ns steps on an
H100). Per level, from each block's release: the level, the head (where warps without work
end theirs), the median and the last work end, the last count, the barrier's latency after the
last block's count, and which warp was slowest. Block and warp levels (block 0 alone) write
no clocks; a level run by push.cu between two fused runs (over ``FUSED_MAX_PUSH_EDGES``) has none
either. The rows are the search's levels (before 1907580 a run after such a hand-over wrote over
the first run's rows, so ``h100-warp-clocks-kron20-kron22-auto-96d1ead.json``'s Kronecker 20
levels 1-3 are its levels 4-6). A search of at most 12 grid levels (a Kronecker graph's) also
has each level's figures printed and recorded (``levels_figures``). A reading right after a
barrier is a warp's arrival there, not the release (the barrier instruction defers its wait),
so a block's release is its master warp's reading.

    python3 benchmarks/probes/warp_clocks.py mesh:1000x1000 road:1000000 kron:20 [--direction push] [--json out.json]
        [--sample-rows | --all-rows]

The clocks build reads two clocks and writes a row per warp a level: read it for where a
level's time goes, and take level times from gpu_quick.py or fused_blocks.py."""
import argparse
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.core.version import code_identity
from lagraph_dist.local.gpu_kernels import base
from lagraph_dist.local.layout import FUSED_THREADS
from lagraph_dist.tools.bench import write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
from harness import build  # noqa: E402

#: a warp's readings a level, in kernels/fused.cu's order: six clock64 of its SM (the release
#: before the level, the counters known, the level set up, its work's end, its block count's
#: end, the next release), then %globaltimer (ns, one clock for the grid) at its start and at
#: its work's end
CLOCKS = ("start", "known", "set", "work", "count", "exit", "start_ns", "work_ns")


#: the percentiles of a level's warps' work ends and set-ups kept beside the medians: where between
#: the first and the last warp the level's time goes (a tail of a few warps, or a slope)
LEVEL_PERCENTILES = (1, 10, 50, 90, 99, 100)


def level_figures(rows, warps_a_block):
    """One grid level's figures from its (warps, 8) readings, in cycles of each block's SM
    from that block's release (the exit of the barrier before the level): the level (release
    to release), the median warp's moments the counters are known (the barrier's wait and the
    counters' read behind it) and the level is set up (the record, the rule, the checks), the
    work's end of the first warps (the 10th percentile: a level's idle warps
    end there, after the level's head), of the median warp and of the last, the last count,
    the barrier's latency after the last block's count, and where the slowest warp was; then
    the spread of the release over the blocks (%globaltimer, ns); last the work ends' and the
    set-ups' :data:`LEVEL_PERCENTILES`, and the median work end of each warp place in a block.

    A reading right after a barrier is the warp's arrival there, not the barrier's release:
    the barrier instruction defers its wait to a later instruction. The warp that arrives last
    is the block's master (warp 0, which waits for the grid), so its readings are the block's
    release; the other warps' readings after the barrier are not used."""
    start, known, set_up, work, count, exit_, start_ns, _ = (rows[:, k].astype(np.int64) for k in range(len(CLOCKS)))
    masters = np.arange(0, rows.shape[0], warps_a_block)
    release, next_release = start[masters], exit_[masters]
    from_release = np.repeat(release, warps_a_block)
    worked, counted = work - from_release, count - from_release
    last_count = counted.reshape(-1, warps_a_block).max(axis=1)
    slowest = int(np.argmax(worked))     # (not by count: the master counts last in every block)
    return {"level": int(np.median(next_release - release)),
            "counters_known": int(np.median(known - from_release)), "set_up": int(np.median(set_up - from_release)),
            "first_work_end": int(np.percentile(worked, 10)), "median_work_end": int(np.median(worked)),
            "last_work_end": int(worked.max()), "last_count": int(last_count.max()),
            "barrier_after_last": int(((next_release - release) - last_count).min()),
            "slowest_block": slowest // warps_a_block, "slowest_warp_in_block": slowest % warps_a_block,
            "release_spread_ns": int(start_ns[masters].max() - start_ns[masters].min()),
            "work_end_percentiles": {str(q): int(np.percentile(worked, q)) for q in LEVEL_PERCENTILES},
            "set_up_percentiles": {str(q): int(np.percentile(set_up - from_release, q)) for q in LEVEL_PERCENTILES},
            "work_end_by_warp_in_block": [int(x) for x in np.median(worked.reshape(-1, warps_a_block), axis=0)]}


FIGURES = ("level", "counters_known", "set_up", "first_work_end", "median_work_end", "last_work_end", "last_count",
           "barrier_after_last")


def summarize(levels, clock_hz):
    """Medians over the grid levels of each figure (cycles and us at the nominal clock), of
    the release's spread (ns), and how often the slowest warp was block 0's and which warps
    of a block were slowest."""
    figures = {name: float(np.median([level[name] for level in levels])) for name in FIGURES}
    blocks = np.array([level["slowest_block"] for level in levels])
    in_block = np.array([level["slowest_warp_in_block"] for level in levels])
    return {"grid_levels": len(levels), "median_cycles": figures,
            "median_us": {name: 1e6 * value / clock_hz for name, value in figures.items()},
            "release_spread_ns": float(np.median([level["release_spread_ns"] for level in levels])),
            "slowest_is_block_0": float(np.mean(blocks == 0)),
            "slowest_block_counts": {int(b): int(c) for b, c in zip(*np.unique(blocks, return_counts=True))},
            "slowest_warp_in_block_counts": {int(w): int(c) for w, c in zip(*np.unique(in_block, return_counts=True))}}


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--direction", default="push")
    parser.add_argument("--json")
    rows = parser.add_mutually_exclusive_group()
    rows.add_argument("--sample-rows", action="store_true",
                      help="keep the middle grid level's rows, warp by warp, in the record (large)")
    rows.add_argument("--all-rows", action="store_true",
                      help="keep every grid level's rows, warp by warp, in the record (larger: a shallow search's)")
    args = parser.parse_args()
    settings.extra_cuda_defines = ("-DLD_WARP_CLOCKS",)      # before the first build of the modules
    props = cp.cuda.runtime.getDeviceProperties(0)
    clock_hz = 1e3 * (props.get("clockRate") or cp.cuda.runtime.deviceGetAttribute(13, 0))   # cudaDevAttrClockRate
    record = {"benchmark": "warp_clocks", "commit": code_identity()["commit"], "device": props["name"].decode(),
              "clock_hz_nominal": clock_hz, "direction": args.direction, "runs": []}
    warps_a_block = FUSED_THREADS // 32
    for spec in args.graphs:
        A, roots = build(spec)
        root = (roots or [int(v) for v in A.out_degree().indices()[:1]])[0]
        first = ld.bfs(A, root, direction=args.direction)             # builds (once) and warms up
        levels = len(first.stats)
        blocks = next(iter(A._cache["fused_workspace"]["plans"].values()))[1]     # (function, blocks, ...)
        nwarps = blocks * warps_a_block
        modules = base.modules_ahead(cp.cuda.Device().id, "fused")      # (one an instance: each set)
        clocks = cp.zeros((levels, nwarps, len(CLOCKS)), dtype=cp.uint64)
        for module in modules:
            cp.ndarray((1,), cp.uint64, memptr=module.get_global("ld_warp_clocks"))[0] = clocks.data.ptr
            cp.ndarray((1,), cp.int64, memptr=module.get_global("ld_warp_clock_levels"))[0] = levels
        result = ld.bfs(A, root, direction=args.direction)
        cp.cuda.Device().synchronize()
        for module in modules:
            cp.ndarray((1,), cp.int64, memptr=module.get_global("ld_warp_clock_levels"))[0] = 0
        if len(result.stats) != levels or any(s["fused"] is False for s in result.stats):
            raise SystemExit(f"{spec}: the clocked search ran {len(result.stats)} levels, not all in one fused run")
        held = cp.asnumpy(clocks)
        clocked = [k for k in range(levels) if held[k, :, 3].any()]
        grid = [level_figures(held[k], warps_a_block) for k in clocked]
        own_us = 1e6 * sum(s["seconds"] for s in result.stats)
        run = {"graph": spec, "blocks": int(blocks), "warps": int(nwarps), "levels": levels, "levels_own_us": own_us,
               **(summarize(grid, clock_hz) if grid else {"grid_levels": 0})}
        if clocked and args.sample_rows:     # the middle grid level's rows as read, warp by warp
            middle = clocked[len(clocked) // 2]
            run["sample_level"] = {"level": middle, "frontier": result.stats[middle]["frontier"],
                                   "rows": held[middle].astype(np.int64).tolist()}
        if clocked and args.all_rows:        # every grid level's rows as read, warp by warp
            run["level_rows"] = [{"level": k, "frontier": result.stats[k]["frontier"],
                                  "rows": held[k].astype(np.int64).tolist()} for k in clocked]
        record["runs"].append(run)
        print(f"{spec} ({args.direction}): {levels} levels, {run['grid_levels']} grid levels, levels' own "
              f"{own_us:.1f} us, {blocks} blocks of {warps_a_block} warps")
        if grid:
            for name, cycles in run["median_cycles"].items():
                print(f"    {name:20s} median {cycles:8.0f} cycles {run['median_us'][name]:7.3f} us from the release")
            print(f"    release spread over the blocks median {run['release_spread_ns']:.0f} ns (%globaltimer)")
            if len(grid) <= 12:     # a shallow search: each grid level on its own (us from the release)
                for k, level in zip(clocked, grid):
                    stat = result.stats[k]
                    print(f"    level {stat['level']} {stat['direction']} frontier {stat['frontier']} "
                          f"edges {stat['edges_examined']}: " + ", ".join(
                              f"{name} {1e6 * level[name] / clock_hz:.2f}" for name in FIGURES))
                    print("        work end percentiles " + " ".join(
                        f"p{q} {1e6 * v / clock_hz:.2f}" for q, v in level["work_end_percentiles"].items())
                        + "; set up " + " ".join(f"p{q} {1e6 * v / clock_hz:.2f}"
                                                 for q, v in level["set_up_percentiles"].items()))
                    print("        work end by warp in block (median over blocks) " + " ".join(
                        f"{1e6 * v / clock_hz:.1f}" for v in level["work_end_by_warp_in_block"]))
                run["levels_figures"] = [{"level": result.stats[k]["level"], **level} for k, level in zip(clocked, grid)]
            top = sorted(run["slowest_block_counts"].items(), key=lambda item: -item[1])[:6]
            print(f"    slowest warp in block 0 in {100 * run['slowest_is_block_0']:.0f}% of grid levels; "
                  f"most often blocks {top}; warps within a block {run['slowest_warp_in_block_counts']}")
    if args.json:
        write_json(record, args.json)


if __name__ == "__main__":
    main()
