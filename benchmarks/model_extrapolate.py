"""Extrapolate the communication model (lagraph_dist.tools.model) to grids of up to 64 x 64 ranks.

    python3 benchmarks/model_extrapolate.py [--record benchmarks/results/gpu-scale26.json]

Weak scaling, Graph500 style: a grid of P ranks searches a Kronecker graph of scale
``base + log2(P)`` (default base 26: 2^26 vertices a rank). The BFS's shape comes from one
measured search, its *profile*: per level the frontier and the discovered vertices as
fractions of n, the frontier's out-edges as a fraction of the stored edges m, and the
direction. It is read from a benchmark record (``levels_first_root`` of one run), or measured
here on a small Kronecker graph on the CPU when no record is given. At the target scale every
count is the profile's fraction of the target n (or m), except the source's level, whose
frontier stays one vertex; stored edges per vertex stay the profile graph's. That treats the
level profile of Kronecker graphs as scale-free, which holds roughly, not exactly (the level
count and the source's degree drift with scale).

Grid families, P = 1, 2, 4, ... 4096: square-ish R x C (C = R or 2R), and the extremes 1 x P
and P x 1 up to P = 64: the fold packs at most 64 pieces a rank, and on a symmetric graph a
pull folds along the grid column (a push along the row), so neither side may pass 64. A grid whose local spaces exceed int32 ids
is refused by the code today (``Layout.check_local_ids``); it is still predicted, as if ids
stayed 32-bit, and flagged ``local_ids_fit: false`` (hollow markers in the plot).

Seconds a search = bytes a rank / bandwidth + latency x collective calls (the rank average:
the busiest rank sends more). The fold is given as the model's estimate (each discovered
vertex travels once) and its upper estimate (every producing rank of a row finds it).

Writes a JSON of predicted bytes per rank per level and per search for each grid, and a PNG.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lagraph_dist.tools import model
from lagraph_dist.core.errors import InvalidValue
from lagraph_dist.comm.grid import Layout
from lagraph_dist.tools.bench import write_json
from lagraph_dist.tools.plot import load_record, pyplot

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import count, md_table, megabytes, ms, sig, span  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
FAMILIES = ("square", "1xP", "Px1")
RANKS_SHOWN = (2, 4, 16, 64, 256, 4096)      # the grids of these many ranks in the tables
STAGES = ("expand", "fold", "mask", "fold_upper")


@dataclass(frozen=True)
class Profile:
    """One measured search: its graph's n and stored edges m, and its levels' sizes."""

    source: str
    n: int
    m: int
    levels: tuple

    def fractions(self):
        return [{"frontier": s.frontier / self.n,
                 "frontier_edges": None if s.frontier_edges is None else s.frontier_edges / self.m,
                 "discovered": s.discovered / self.n, "direction": s.direction} for s in self.levels]

    def at_scale(self, scale):
        """(n, levels) of the same search shape on a graph of 2^scale vertices."""
        n = 1 << scale
        grow = n / self.n          # m grows as n does: edges a vertex stay the profile's
        levels = []
        for k, s in enumerate(self.levels):
            levels.append(model.LevelSizes(
                1 if k == 0 else round(s.frontier * grow),
                None if s.frontier_edges is None else round(s.frontier_edges * grow),
                round(s.discovered * grow), s.direction))
        return n, levels


# -- profiles ---------------------------------------------------------------------------------
def profile_from_record(path, run):
    record = load_record(path)
    runs = record["lagraph_dist"]
    if run not in runs or not runs[run].get("levels_first_root"):
        raise InvalidValue(f"{path} has no levels_first_root for run {run!r} (runs: {', '.join(runs)})")
    levels = model.level_sizes_from_records(runs[run]["levels_first_root"])
    return Profile(f"{path} ({run}, first root)", int(record["n"]), int(record["nvals"]), tuple(levels))


def measured_profile(scale, direction, seed=0):
    """One search on a scale-``scale`` Kronecker graph on the CPU, from a seeded root of
    nonzero degree."""
    import lagraph_dist as ld
    from lagraph_dist.tools.bench import pick_roots
    grid = ld.Grid(1, 1, comm=_self_comm())
    A = ld.kronecker(scale, grid=grid, backend="cpu")
    root = pick_roots(A, 1, seed)[0]
    result = ld.bfs(A, root, direction=direction)
    levels = model.level_sizes_from_records(result.stats)
    return Profile(f"measured here: CPU, Kronecker scale {scale}, {direction}, root {root}",
                   A.n, A.nvals, tuple(levels))


def _self_comm():
    from mpi4py import MPI
    return MPI.COMM_SELF


# -- grids and predictions --------------------------------------------------------------------
def grid_families(max_side):
    """{family: [(R, C), ...]} for P = 1, 2, 4, ... max_side^2."""
    most = int(math.log2(max_side)) * 2
    grids = {family: [] for family in FAMILIES}
    for k in range(most + 1):
        P = 1 << k
        grids["square"].append((1 << (k // 2), 1 << (k - k // 2)))
        if P <= model.MAX_FOLD_MEMBERS:
            grids["1xP"].append((1, P))
            grids["Px1"].append((P, 1))
    return grids


def local_ids_fit(n, shape):
    try:
        Layout(n, *shape).check_local_ids()
    except InvalidValue:
        return False
    return True


def predict(profile, shape, base_scale, semiring, bandwidths, latency):
    rows, cols = shape
    P = rows * cols
    scale = base_scale + int(math.log2(P))
    n, levels = profile.at_scale(scale)
    search = model.search_bytes(shape, n, levels, semiring=semiring, symmetric=True)
    per_rank = {key: value / P for key, value in search["total"].items()}
    seconds = {f"{bw:g}": per_rank["all"] / bw + latency * search["collectives"] for bw in bandwidths}
    seconds_upper = {f"{bw:g}": per_rank["all_upper"] / bw + latency * search["collectives"]
                     for bw in bandwidths}
    return {
        "grid": [rows, cols], "ranks": P, "scale": scale, "n": n,
        "block_len": Layout(n, rows, cols).block_len, "local_ids_fit": local_ids_fit(n, shape),
        "levels": [{"level": k + 1, "direction": s.direction, "frontier": s.frontier,
                    "frontier_edges": s.frontier_edges, "discovered": s.discovered,
                    "bytes_per_rank": {stage: p[stage] / P for stage in STAGES},
                    "encoding": p["encoding"], "fold_layout": p["fold_layout"],
                    "collectives": p["collectives"]}
                   for k, (s, p) in enumerate(zip(levels, search["levels"]))],
        "search": {"bytes_per_rank": per_rank, "collectives": search["collectives"],
                   "seconds": seconds, "seconds_upper": seconds_upper},
    }


# -- outputs ----------------------------------------------------------------------------------
def shown_points(result):
    """The grids of RANKS_SHOWN ranks, each once, by ranks then family."""
    seen, points = set(), []
    for family_points in result["families"].values():
        for point in family_points:
            shape = tuple(point["grid"])
            if point["ranks"] in RANKS_SHOWN and shape not in seen:
                seen.add(shape)
                points.append(point)
    return sorted(points, key=lambda p: (p["ranks"], p["grid"]))


def table(result):
    """A rank's bytes, collective calls and seconds a search on each shown grid (here and in results/README.md)."""
    bandwidths = result["options"]["bandwidths"]
    rows = []
    for point in shown_points(result):
        search = point["search"]
        per_rank = search["bytes_per_rank"]
        rows.append([" x ".join(map(str, point["grid"])), point["scale"],
                     span(per_rank["all"], per_rank["all_upper"], megabytes), search["collectives"],
                     *[span(search["seconds"][f"{bw:g}"], search["seconds_upper"][f"{bw:g}"], ms) for bw in bandwidths],
                     "yes" if point["local_ids_fit"] else "no"])
    header = ["grid", "scale", "MB a rank a search (estimate .. upper)", "collective calls",
              *[f"ms at {bw / 1e9:g} GB/s" for bw in bandwidths], "local ids fit int32"]
    return md_table(header, rows)


def note(result):
    return (f"Seconds a search = bytes a rank / bandwidth + {sig(1e6 * result['options']['latency'])} us a collective "
            f"call; scale = {result['options']['base_scale']} + log2 P.")


def levels_tables(result):
    """Per level of each shown two-rank grid: its bytes a rank by part, under a heading."""
    header = ["level", "direction", "frontier", "discovered", "expand MB a rank", "fold MB a rank (estimate .. upper)",
              "mask MB a rank"]
    made = []
    for point in (p for p in shown_points(result) if p["ranks"] == 2):
        rows = [[level["level"], level["direction"], count(level["frontier"]), count(level["discovered"]),
                 f"{megabytes(level['bytes_per_rank']['expand'])} ({level['encoding']['expand']})",
                 f"{span(level['bytes_per_rank']['fold'], level['bytes_per_rank']['fold_upper'], megabytes)} "
                 f"({level['fold_layout']})",
                 f"{megabytes(level['bytes_per_rank']['mask'])} ({level['encoding']['mask']})"]
                for level in point["levels"]]
        made.append(f"{' x '.join(map(str, point['grid']))}, scale {point['scale']}:\n\n{md_table(header, rows)}")
    return made


def plot(result, path):
    """Bytes a rank a search (the band: the fold's estimate to its upper estimate) and seconds
    a search at each bandwidth, against P; one rank sends nothing, so P = 1 is left out."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    colors = dict(zip(FAMILIES, ("tab:blue", "tab:orange", "tab:green")))
    styles = ("-", "--", ":", "-.")
    for family, points in result["families"].items():
        points = [p for p in points if p["ranks"] > 1]
        ranks = np.array([p["ranks"] for p in points])
        fits = np.array([p["local_ids_fit"] for p in points], dtype=bool)
        low = np.array([p["search"]["bytes_per_rank"]["all"] for p in points])
        high = np.array([p["search"]["bytes_per_rank"]["all_upper"] for p in points])
        color = colors[family]
        left.plot(ranks, low, color=color, label=family)
        left.fill_between(ranks, low, high, color=color, alpha=0.15)
        _markers(left, ranks, low, fits, color)
        for style, bw in zip(styles, result["options"]["bandwidths"]):
            secs = np.array([p["search"]["seconds"][f"{bw:g}"] for p in points])
            right.plot(ranks, secs, color=color, linestyle=style, label=f"{family}, {bw / 1e9:g} GB/s")
            _markers(right, ranks, secs, fits, color)
    for axis in (left, right):
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("ranks P (scale = %d + log2 P)" % result["options"]["base_scale"])
        axis.grid(True, which="both", alpha=0.3)
    left.set_ylabel("bytes a rank sends a search")
    left.set_title("line: fold estimate; band up to the fold's upper estimate", fontsize=9)
    right.set_ylabel("communication seconds a search")
    right.set_title("bytes / bandwidth + %g us a collective call" % (1e6 * result["options"]["latency"]),
                    fontsize=9)
    left.legend(fontsize=8)
    right.legend(fontsize=7)
    fig.suptitle("lagraph_dist communication model, weak scaling (hollow markers: local ids past "
                 "int32, refused by the code today)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _markers(axis, x, y, fits, color):
    axis.scatter(x[fits], y[fits], color=color, s=16)
    axis.scatter(x[~fits], y[~fits], facecolors="white", edgecolors=color, s=16, zorder=3)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", help="benchmark JSON to take the level profile from")
    parser.add_argument("--run", default="auto", help="the record's run (default auto)")
    parser.add_argument("--profile-scale", type=int, default=14,
                        help="Kronecker scale of the CPU profile when no record is given")
    parser.add_argument("--direction", default="auto", help="direction of the CPU profile's search")
    parser.add_argument("--base-scale", type=int, default=26, help="scale on one rank")
    parser.add_argument("--max-side", type=int, default=64, help="largest grid side (power of 2)")
    parser.add_argument("--semiring", default="any_secondi",
                        help="any_secondi (BFS with parents, Graph500) or any_pair (levels only)")
    parser.add_argument("--bandwidth", type=float, nargs="+", default=[300e9, 25e9],
                        help="bytes a second a rank sends (default NVLink-like and network-like)")
    parser.add_argument("--latency", type=float, default=10e-6, help="seconds a collective call")
    parser.add_argument("--json", default=str(RESULTS / "model-extrapolation.json"))
    parser.add_argument("--png", default=str(RESULTS / "model-extrapolation.png"))
    args = parser.parse_args(argv)
    if args.max_side < 1 or args.max_side & (args.max_side - 1) or args.max_side > 64:
        parser.error("--max-side must be a power of 2 from 1 to 64")

    profile = (profile_from_record(args.record, args.run) if args.record
               else measured_profile(args.profile_scale, args.direction))
    families = {family: [predict(profile, shape, args.base_scale, args.semiring, args.bandwidth,
                                 args.latency) for shape in shapes]
                for family, shapes in grid_families(args.max_side).items()}
    result = {
        "model": "lagraph_dist.tools.model (bytes summed over ranks, divided by P here)",
        "profile": {"source": profile.source, "n": profile.n, "m": profile.m,
                    "levels": profile.fractions()},
        "options": {"base_scale": args.base_scale, "max_side": args.max_side,
                    "semiring": args.semiring, "bandwidths": args.bandwidth, "latency": args.latency,
                    "symmetric": True},
        "families": families,
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    write_json(result, args.json)
    plot(result, args.png)
    print(f"{table(result)}\n\n{note(result)}")
    print(f"wrote {args.json} and {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
