"""How a single search's pull levels keep the fused kernel's lanes in step, a model run on the host:

    python3 benchmarks/probes/pull_lanes.py kron:22 [--roots 3] [--unroll 4 8] [--order ids hub] [--json out.json]

The pull before 9ed9d96 took a word of 32 rows at a time, a lane a row, and scanned an open row's in-edges
(``ld_pull_short_row``) ``unroll`` at a time (LD_PULL_UNROLL: the in-edges, then their frontier
words, two dependent loads a step) until the first in-neighbour in the frontier; past
LD_FUSED_LANE_EDGES in-edges the warp scans the rest of a row that found none, 32 a step. The warp
moved to its next word when its slowest lane was done. For each pull level of the CPU backend's
search from each root (the same direction rule as the GPU's), this counts per word the steps of
its slowest lane (lock-step, the kernel's cost in steps) against the steps its lanes take in all
over 32 (a warp that shared its lanes' steps), the rows found and the in-edges read; and the same
for today's packed pull (the probe build LD_PULL_PACKED until 9ed9d96), whose warp packs a group's
(LD_ROW_GROUP words') open rows into its lanes, 32 a pass, each pass as long as its slowest lane (its
passes against the word-a-time pull's words: each is one chain of the row offsets' load before its
steps). ``--order hub`` counts the same
with each row's in-edges ordered hub first (by the in-neighbour's out-degree, largest first; ties
by id) beside the graph's own order (``ids``): a pull stops at its first frontier in-neighbour, and
a level's frontier is mostly hubs. Not a search
on the device: its levels' figures are where the device's time goes only as far as steps are.
"""
import argparse
import sys
from pathlib import Path

import numba
import numpy as np

import lagraph_dist as ld
from lagraph_dist.local.layout import FUSED_GIANT_DEGREE
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/, for harness
from harness import build, graph_name, hub_first_indices, parse_spec  # noqa: E402

#: the fused pull's lane share of a row (kernels/fused_grid_levels.cuh, LD_FUSED_LANE_EDGES)
LANE_EDGES = 128
#: words of a pull warp's group (kernels/fused_base.cuh, LD_ROW_GROUP)
ROW_GROUP = 8
#: the most steps a word's slowest lane is counted under in the histogram (longer ones there)
HISTOGRAM_STEPS = 16


@numba.njit(cache=True)
def _level_steps(indptr, indices, depths, level, unroll, lane_edges, giant):
    """(words with an open row, rows found, in-edges read, lock-step steps, shared steps, warp-row
    steps, histogram of the words' slowest-lane steps, packed passes, packed steps) of pull level
    ``level`` (1 the first: it reads the rows unreached before it, whose frontier is depth
    ``level - 1``)."""
    n = indptr.shape[0] - 1
    words, found, read, lockstep, shared, warp_steps = 0, 0, 0, 0, 0, 0
    passes, packed = 0, 0
    pass_rows, pass_slowest, pass_warp_steps = 0, 0, 0      # the packed build's pass being filled
    histogram = np.zeros(HISTOGRAM_STEPS + 1, np.int64)
    nwords = (n + 31) // 32
    for group in range(0, nwords, ROW_GROUP):
        for w in range(group, min(nwords, group + ROW_GROUP)):
            slowest, lane_steps, word_warp_steps, open_rows = 0, 0, 0, 0
            for r in range(w * 32, min(n, w * 32 + 32)):
                start, end = indptr[r], indptr[r + 1]
                if (0 <= depths[r] < level) or start == end or end - start > giant:
                    continue
                open_rows += 1
                scanned = end - start
                for e in range(start, end):
                    if depths[indices[e]] == level - 1:
                        scanned = e - start + 1
                        found += 1
                        break
                read += scanned
                steps = (min(scanned, lane_edges) + unroll - 1) // unroll
                slowest = max(slowest, steps)
                lane_steps += steps
                row_warp_steps = (scanned - lane_edges + 31) // 32 if scanned > lane_edges else 0
                word_warp_steps += row_warp_steps
                pass_rows += 1
                pass_slowest = max(pass_slowest, steps)
                pass_warp_steps += row_warp_steps
                if pass_rows == 32:                 # a full pass
                    passes += 1
                    packed += pass_slowest + pass_warp_steps
                    pass_rows, pass_slowest, pass_warp_steps = 0, 0, 0
            if open_rows:
                words += 1
                lockstep += slowest + word_warp_steps
                shared += (lane_steps + 31) // 32 + word_warp_steps
                warp_steps += word_warp_steps
                histogram[min(slowest, HISTOGRAM_STEPS)] += 1
        if pass_rows:                               # the group's last pass
            passes += 1
            packed += pass_slowest + pass_warp_steps
            pass_rows, pass_slowest, pass_warp_steps = 0, 0, 0
    return words, found, read, lockstep, shared, warp_steps, histogram, passes, packed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", type=parse_spec, help="a graph spec (benchmarks/harness.py)")
    parser.add_argument("--roots", type=int, default=3, help="the first ROOTS vertices with out-edges (gpu_quick's)")
    parser.add_argument("--unroll", type=int, nargs="+", default=[4], help="in-edges a lane reads a step (LD_PULL_UNROLL)")
    parser.add_argument("--order", nargs="+", choices=["ids", "hub"], default=["ids"],
                        help="each row's in-edges in id order, or hub first")
    parser.add_argument("--json", help="write the record here")
    args = parser.parse_args()
    A, _ = build(args.graph.text, backend="cpu")
    in_csr = A.T.to_scipy().tocsr()
    in_csr.sort_indices()
    indptr, indices = in_csr.indptr.astype(np.int64), in_csr.indices.astype(np.int64)
    orders = {"ids": indices}
    if "hub" in args.order:
        orders["hub"] = hub_first_indices(indptr, indices, ld.sort_by_degree(A))     # by out-degree
    searches = []
    for root in [int(v) for v in A.out_degree().indices()[:args.roots]]:
        res = ld.bfs(A, root, parents=False)
        depths = res.levels.to_numpy()
        directions = [record["direction"] for record in res.stats]
        search = {"root": root, "directions": directions, "levels": []}
        for level, direction in enumerate(directions, start=1):
            if direction != "pull":
                continue
            for order, unroll in [(order, unroll) for order in args.order for unroll in args.unroll]:
                words, found, read, lockstep, shared, warp_steps, histogram, passes, packed = _level_steps(
                    indptr, orders[order], depths, level, unroll, LANE_EDGES, FUSED_GIANT_DEGREE)
                row = {"level": level, "order": order, "unroll": unroll, "words": int(words), "found": int(found),
                       "in_edges_read": int(read), "lockstep_steps": int(lockstep), "shared_steps": int(shared),
                       "warp_row_steps": int(warp_steps), "packed_passes": int(passes),
                       "packed_steps": int(packed),
                       "slowest_lane_steps": {str(k): int(c) for k, c in enumerate(histogram) if c}}
                search["levels"].append(row)
                print(f"{graph_name(args.graph)} root {root} level {level} {order} order, unroll {unroll}: words {words:,}, found "
                      f"{found:,}, in-edges read {read:,}; steps lock-step {lockstep:,}, shared {shared:,} "
                      f"({lockstep / max(shared, 1):.2f}x), packed {packed:,} in {passes:,} passes; words by their slowest lane's steps "
                      f"{row['slowest_lane_steps']}")
        searches.append(search)
    if args.json:
        write_json({"probe": "pull_lanes", "graph": graph_name(args.graph), "n": A.n, "nvals": A.nvals,
                    "lane_edges": LANE_EDGES, "searches": searches, "environment": environment(A)}, args.json)


if __name__ == "__main__":
    main()
