"""Multi-GPU scaling past what was measured, from lagraph_dist.tools.model: ``extrapolate`` the
model's bytes and seconds to grids of up to 64 x 64 ranks, or ``predict`` weak scaling to more
GPUs from measured multigpu_bench.py records.

    python3 benchmarks/probes/multigpu_model.py extrapolate [--record benchmarks/results/gpu-scale26.json]
    python3 benchmarks/probes/multigpu_model.py predict         # 8 GPUs from the 4-GPU records
    python3 benchmarks/probes/multigpu_model.py predict --validate --json benchmarks/probes/results/prediction-8gpu.json

Both are weak scaling: P ranks search a Kronecker graph of scale base + log2(P). A search's
shape is one measured search's *profile*: each level's frontier and discovered vertices as
fractions of n, its frontier's edges as a fraction of the stored edges, its direction; at a
larger scale each count is that fraction of the larger graph, the source's level keeping one
vertex. Kronecker level profiles are roughly, not exactly, scale-free (the level count and the
source's degree drift).

extrapolate: grid families square-ish R x C (C = R or 2R), 1 x P and P x 1 (up to P = 64: a
fold packs at most 64 pieces a rank). Seconds a search = bytes a rank / bandwidth + latency x
collective calls, the fold as the model's estimate and its upper estimate. A grid whose local
ids pass int32 (refused by the code today) is predicted as if they did, flagged
``local_ids_fit: false``. Writes the JSON and a PNG.

predict: see METHOD; ``--validate`` runs it from the two-GPU records (scale 27) to the four-GPU
ones (scale 28) and sets the predictions beside what was measured.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lagraph_dist.comm.grid import Layout
from lagraph_dist.core.errors import InvalidValue
from lagraph_dist.tools import model
from lagraph_dist.tools.bench import write_json
from lagraph_dist.tools.plot import load_record, pyplot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # benchmarks/, for harness
import multigpu_bench  # noqa: E402  (a script of benchmarks/, not a package)
from harness import RESULTS, commit_of, grid_text, md_table, megabytes, ms, sig, span  # noqa: E402

OUTPUTS = Path(__file__).resolve().parent / "results"           # this probe's records

FAMILIES = ("square", "1xP", "Px1")
RANKS_SHOWN = (2, 4, 16, 64, 256, 4096)      # the grids of these many ranks in the tables
STAGES = ("expand", "fold", "mask", "fold_upper")
TARGETS = {"2x4": "2x2", "4x2": "2x2", "1x8": "1x4", "8x1": "4x1"}      # new grid: the 4-GPU base
VALIDATION = {"1x4": "1x2", "2x2": "1x2", "4x1": "2x1"}                 # 4-GPU grid: the 2-GPU base
METHOD = ("Each prediction starts from one measured search (a record's first root, auto, its levels "
          "stage-synced) on P GPUs at scale s and carries it to P' GPUs at scale s + log2(P'/P). A level's "
          "compute (mask + local + merge) stays the measured one; its exchange (expand + fold) is priced "
          "a + b * bytes a rank sends, a and b fitted by least squares over every level of every multi-GPU "
          "record of the machine, on the bytes lagraph_dist.tools.model predicts for the level on each grid "
          "(estimate and upper estimate); the measured exchange is scaled by the ratio of the two grids' "
          "prices, and a level that exchanged nothing on the base takes the price alone. GTEPS: the base's "
          "harmonic mean scaled by the first root's ratio of edges over level seconds.")


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
        """(n, levels) of the same search shape on a graph of 2^scale vertices (edges a vertex kept)."""
        n = 1 << scale
        grow = n / self.n
        return n, [model.LevelSizes(1 if k == 0 else round(s.frontier * grow),
                                    None if s.frontier_edges is None else round(s.frontier_edges * grow),
                                    round(s.discovered * grow), s.direction) for k, s in enumerate(self.levels)]


# -- extrapolate: the model to large grids -------------------------------------------------------
def profile_from_record(path, run):
    record = load_record(path)
    runs = record["lagraph_dist"]
    if run not in runs or not runs[run].get("levels_first_root"):
        raise InvalidValue(f"{path} has no levels_first_root for run {run!r} (runs: {', '.join(runs)})")
    levels = model.level_sizes_from_records(runs[run]["levels_first_root"])
    return Profile(f"{path} ({run}, first root)", int(record["n"]), int(record["nvals"]), tuple(levels))


def measured_profile(scale, direction, seed=0):
    """One search on a scale-``scale`` Kronecker graph on one CPU rank, from a seeded root of nonzero degree."""
    import lagraph_dist as ld
    from mpi4py import MPI
    from lagraph_dist.tools.bench import pick_roots
    A = ld.kronecker(scale, grid=ld.Grid(1, 1, comm=MPI.COMM_SELF), backend="cpu")
    root = pick_roots(A, 1, seed)[0]
    levels = model.level_sizes_from_records(ld.bfs(A, root, direction=direction).stats)
    return Profile(f"measured here: CPU, Kronecker scale {scale}, {direction}, root {root}",
                   A.n, A.nvals, tuple(levels))


def grid_families(max_side):
    """{family: [(R, C), ...]} for P = 1, 2, 4, ... max_side^2."""
    grids = {family: [] for family in FAMILIES}
    for k in range(2 * int(math.log2(max_side)) + 1):
        grids["square"].append((1 << (k // 2), 1 << (k - k // 2)))
        if 1 << k <= model.MAX_FOLD_MEMBERS:
            grids["1xP"].append((1, 1 << k))
            grids["Px1"].append((1 << k, 1))
    return grids


def local_ids_fit(n, shape):
    try:
        Layout(n, *shape).check_local_ids()
    except InvalidValue:
        return False
    return True


def extrapolated(profile, shape, base_scale, semiring, bandwidths, latency):
    """The model's bytes a rank, level by level, and seconds a search on ``shape``."""
    P = shape[0] * shape[1]
    scale = base_scale + int(math.log2(P))
    n, levels = profile.at_scale(scale)
    search = model.search_bytes(shape, n, levels, semiring=semiring, symmetric=True)
    per_rank = {key: value / P for key, value in search["total"].items()}

    def seconds(part):
        return {f"{bw:g}": per_rank[part] / bw + latency * search["collectives"] for bw in bandwidths}
    return {
        "grid": list(shape), "ranks": P, "scale": scale, "n": n,
        "block_len": Layout(n, *shape).block_len, "local_ids_fit": local_ids_fit(n, shape),
        "levels": [{"level": k + 1, "direction": s.direction, "frontier": s.frontier,
                    "frontier_edges": s.frontier_edges, "discovered": s.discovered,
                    "bytes_per_rank": {stage: p[stage] / P for stage in STAGES},
                    "encoding": p["encoding"], "fold_layout": p["fold_layout"], "collectives": p["collectives"]}
                   for k, (s, p) in enumerate(zip(levels, search["levels"]))],
        "search": {"bytes_per_rank": per_rank, "collectives": search["collectives"],
                   "seconds": seconds("all"), "seconds_upper": seconds("all_upper")},
    }


def shown_points(result):
    """The grids of RANKS_SHOWN ranks, each once, by ranks then family."""
    points = {tuple(p["grid"]): p for family in result["families"].values() for p in family
              if p["ranks"] in RANKS_SHOWN}      # a grid in two families is the same prediction
    return sorted(points.values(), key=lambda p: (p["ranks"], p["grid"]))


def table(result):
    """A rank's bytes, collective calls and seconds a search on each shown grid."""
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


def plot(result, path):
    """Bytes a rank a search (a band from the fold's estimate to its upper estimate) and seconds a
    search at each bandwidth, against P > 1; hollow markers: local ids past int32."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    colors = dict(zip(FAMILIES, ("tab:blue", "tab:orange", "tab:green")))
    options = result["options"]

    def markers(axis, x, y, fits, color):
        axis.scatter(x[fits], y[fits], color=color, s=16)
        axis.scatter(x[~fits], y[~fits], facecolors="white", edgecolors=color, s=16, zorder=3)
    for family, points in result["families"].items():
        points = [p for p in points if p["ranks"] > 1]
        ranks = np.array([p["ranks"] for p in points])
        fits = np.array([p["local_ids_fit"] for p in points], dtype=bool)
        low, high = (np.array([p["search"]["bytes_per_rank"][part] for p in points]) for part in ("all", "all_upper"))
        color = colors[family]
        left.plot(ranks, low, color=color, label=family)
        left.fill_between(ranks, low, high, color=color, alpha=0.15)
        markers(left, ranks, low, fits, color)
        for style, bw in zip(("-", "--", ":", "-."), options["bandwidths"]):
            secs = np.array([p["search"]["seconds"][f"{bw:g}"] for p in points])
            right.plot(ranks, secs, color=color, linestyle=style, label=f"{family}, {bw / 1e9:g} GB/s")
            markers(right, ranks, secs, fits, color)
    for axis in (left, right):
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("ranks P (scale = %d + log2 P)" % options["base_scale"])
        axis.grid(True, which="both", alpha=0.3)
    left.set_ylabel("bytes a rank sends a search")
    left.set_title("line: fold estimate; band up to the fold's upper estimate", fontsize=9)
    right.set_ylabel("communication seconds a search")
    right.set_title("bytes / bandwidth + %g us a collective call" % (1e6 * options["latency"]), fontsize=9)
    left.legend(fontsize=8)
    right.legend(fontsize=7)
    fig.suptitle("lagraph_dist communication model, weak scaling (hollow markers: local ids past "
                 "int32, refused by the code today)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def extrapolate(args):
    if args.max_side < 1 or args.max_side & (args.max_side - 1) or args.max_side > 64:
        sys.exit("--max-side must be a power of 2 from 1 to 64")
    profile = (profile_from_record(args.record, args.run) if args.record
               else measured_profile(args.profile_scale, args.direction))
    families = {family: [extrapolated(profile, shape, args.base_scale, args.semiring, args.bandwidth, args.latency)
                         for shape in shapes] for family, shapes in grid_families(args.max_side).items()}
    result = {
        "model": "lagraph_dist.tools.model (bytes summed over ranks, divided by P here)",
        "profile": {"source": profile.source, "n": profile.n, "m": profile.m, "levels": profile.fractions()},
        "options": {"base_scale": args.base_scale, "max_side": args.max_side, "semiring": args.semiring,
                    "bandwidths": args.bandwidth, "latency": args.latency, "symmetric": True},
        "families": families,
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    write_json(result, args.json)
    plot(result, args.png)
    print(f"{table(result)}\n\n{note(result)}")
    print(f"wrote {args.json} and {args.png}")


# -- predict: measured records to more GPUs -------------------------------------------------------
def first_search(record):
    return record["lagraph_dist"]["auto"]["levels_first_root_stage_synced"]


def exchange_seconds(level):
    split = multigpu_bench.level_split(level)
    return split["expand"] + split["fold"]


def weak_records(folder, scale=None):
    """({grid text: record} of the multi-GPU nccl runs of ``folder`` at ``scale`` (any when None),
    every multi-GPU nccl record, for the fit)."""
    chosen, every = {}, []
    for record in multigpu_bench.folder_records(folder, ".").values():
        if record["transport"] != "nccl" or record["gpus"] < 2 or "auto" not in record["lagraph_dist"]:
            continue
        every.append(record)
        if scale is None or record["graph"]["scale"] == scale:
            chosen[grid_text(record["grid"])] = record
    return chosen, every


def fit_exchange(records):
    """(a seconds, b seconds a byte, rms residual seconds) of exchange = a + b * bytes a rank,
    least squares over every level of ``records`` that exchanged anything."""
    points = [(sum(level["bytes"][stage] for stage in ("expand", "fold")) / record["gpus"], exchange_seconds(level))
              for record in records for level in first_search(record) if exchange_seconds(level) > 0]
    xs, ys = np.array(points).T
    design = np.column_stack([np.ones(len(xs)), xs])
    (a, b), *_ = np.linalg.lstsq(design, ys, rcond=None)
    residual = ys - design @ np.array([a, b])
    return float(a), float(b), float(np.sqrt(np.mean(residual ** 2)))


def grown_sizes(record, factor):
    """The base search's level sizes on a graph ``factor`` times larger (its profile at the larger scale)."""
    sizes = model.level_sizes_from_records(record["lagraph_dist"]["auto"]["levels_first_root"])
    profile = Profile("base", record["n"], record.get("nvals", 0), tuple(sizes))
    return profile.at_scale(int(round(math.log2(record["n"] * factor))))[1]


def predict(base, shape, fit):
    """The base record's search carried to ``shape`` (weak scaling), by METHOD."""
    a, b, _ = fit
    ranks = shape[0] * shape[1]
    factor = ranks / base["gpus"]
    there_bytes = multigpu_bench.predicted(shape, int(base["n"] * factor), grown_sizes(base, factor))
    here_bytes = multigpu_bench.predicted(base["grid"], base["n"], grown_sizes(base, 1))

    def price(nbytes):
        return a + b * nbytes if nbytes > 0 else 0.0

    levels, seconds = [], {"model": 0.0, "upper": 0.0}
    for level, here, there in zip(first_search(base), here_bytes["levels"], there_bytes["levels"]):
        compute, measured = multigpu_bench.level_split(level)["compute"], exchange_seconds(level)
        row = {"level": level["level"], "direction": level["direction"], "compute_s": compute,
               "base_exchange_s": measured, "base_seconds": level["seconds"]}
        for bound, fold in (("model", "fold"), ("upper", "fold_upper")):
            sent_here = (here["expand"] + here[fold]) / base["gpus"]
            sent_there = (there["expand"] + there[fold]) / ranks
            exchange = (measured * price(sent_there) / price(sent_here) if measured > 0 and sent_here > 0
                        else price(sent_there))
            row[f"bytes_per_rank_{bound}"] = sent_there
            row[f"seconds_{bound}"] = compute + exchange
            seconds[bound] += compute + exchange
        levels.append(row)
    base_run = base["lagraph_dist"]["auto"]
    base_seconds = sum(level["seconds"] for level in first_search(base))
    edges = base_run["edges_per_root"][0] * factor
    # the base's harmonic mean carried by the first root's ratio
    scale_hmean = base_run["harmonic_mean_teps"] / (base_run["edges_per_root"][0] / base_seconds)
    return {"grid": list(shape), "gpus": ranks, "scale": base["graph"]["scale"] + int(round(math.log2(factor))),
            "base": grid_text(base["grid"]), "base_scale": base["graph"]["scale"],
            "base_auto_gteps": base_run["harmonic_mean_teps"] / 1e9,
            "predicted_auto_gteps": {bound: scale_hmean * (edges / s) / 1e9 for bound, s in seconds.items()},
            "search_seconds": seconds, "base_search_seconds": base_seconds, "levels": levels}


def predictions(base_folder, base_scale, targets):
    bases, every = weak_records(base_folder, base_scale)
    fit = fit_exchange(every)
    return fit, [predict(bases[base], tuple(int(x) for x in target.split("x")), fit)
                 for target, base in targets.items() if base in bases]


def predicted_range(row):
    """(lowest, highest) predicted GTEPS of a row: either estimate may give the lower figure."""
    values = row["predicted_auto_gteps"].values()
    return min(values), max(values)


def misses(rows, measured):
    """{grid: measured / predicted - 1 against the nearer end of the predicted range, 0 inside}."""
    out = {}
    for row in rows:
        grid = grid_text(row["grid"])
        if grid in measured:
            low, high = predicted_range(row)
            value = measured[grid]
            out[grid] = 0.0 if low <= value <= high else value / (high if value > high else low) - 1
    return out


def prediction_table(rows, measured=None):
    header = ["grid", "GPUs", "scale", "from", "base GTEPS", "predicted GTEPS (from the model's two estimates)"]
    cells = []
    for row in rows:
        low, high = predicted_range(row)
        grid = grid_text(row["grid"])
        cells.append([grid, f"{row['gpus']}", f"{row['scale']}", f"{row['base']} scale {row['base_scale']}",
                      f"{row['base_auto_gteps']:.1f}", f"{low:.0f} .. {high:.0f}"])
        if measured is not None:
            found = measured.get(grid)
            cells[-1].append(f"{found:.1f}" if found is not None else "-")
    return md_table(header + (["measured GTEPS"] if measured is not None else []), cells)


def say_fit(where, fit):
    print(f"fit on {where}: a = {1e3 * fit[0]:.3f} ms, {1e-9 / fit[1]:.1f} GB/s, rms {1e3 * fit[2]:.3f} ms")


def predict_command(args):
    commits = {commit_of(r["environment"]) for r in multigpu_bench.folder_records(args.folder, ".").values()}
    result = {"benchmark": "predict_scaling", "commit": ", ".join(sorted(commits)),
              "device": "none: arithmetic on the records", "method": METHOD}
    if args.validate:
        fit, rows = predictions(RESULTS / "multigpu", 27, VALIDATION)
        measured = {grid: r["lagraph_dist"]["auto"]["harmonic_mean_teps"] / 1e9
                    for grid, r in weak_records(args.folder, args.scale)[0].items()}
        say_fit("the 2-GPU records", fit)
        print(prediction_table(rows, measured))
        result.update(validation=rows, measured_auto_gteps=measured, validation_misses=misses(rows, measured))
    fit, rows = predictions(args.folder, args.scale, TARGETS)
    say_fit(args.folder.name, fit)
    print(prediction_table(rows))
    result.update(fit={"a_seconds": fit[0], "seconds_per_byte": fit[1], "rms_seconds": fit[2]}, predictions=rows)
    if args.json:
        write_json(result, args.json)
        print(f"wrote {args.json}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ex = commands.add_parser("extrapolate", help="the model's bytes and seconds on grids of up to 64 x 64 ranks")
    ex.add_argument("--record", help="benchmark JSON to take the level profile from")
    ex.add_argument("--run", default="auto", help="the record's run (default auto)")
    ex.add_argument("--profile-scale", type=int, default=14, help="Kronecker scale of the CPU profile without --record")
    ex.add_argument("--direction", default="auto", help="direction of the CPU profile's search")
    ex.add_argument("--base-scale", type=int, default=26, help="scale on one rank")
    ex.add_argument("--max-side", type=int, default=64, help="largest grid side (power of 2)")
    ex.add_argument("--semiring", default="any_secondi", help="any_secondi (BFS with parents) or any_pair (levels)")
    ex.add_argument("--bandwidth", type=float, nargs="+", default=[300e9, 25e9],
                    help="bytes a second a rank sends (default NVLink-like and network-like)")
    ex.add_argument("--latency", type=float, default=10e-6, help="seconds a collective call")
    ex.add_argument("--json", default=str(OUTPUTS / "model-extrapolation.json"))
    ex.add_argument("--png", default=str(OUTPUTS / "model-extrapolation.png"))
    pr = commands.add_parser("predict", help="weak scaling to 8 GPUs from the measured 4-GPU records")
    pr.add_argument("--folder", type=Path, default=RESULTS / "multigpu-4gpu", help="the measured base records")
    pr.add_argument("--scale", type=int, default=28, help="the base records' scale")
    pr.add_argument("--validate", action="store_true",
                    help="predict the 4-GPU records from the two-GPU ones (results/multigpu, scale 27)")
    pr.add_argument("--json", type=Path, help="write the predictions here")
    args = parser.parse_args(argv)
    (extrapolate if args.command == "extrapolate" else predict_command)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
