"""Predict weak scaling to more GPUs from measured multi-GPU records, level by level.

    python3 benchmarks/predict_scaling.py                      # 8 GPUs from the 4-GPU records
    python3 benchmarks/predict_scaling.py --validate --json benchmarks/results/multigpu-4gpu/prediction-8gpu.json

Each prediction starts from one measured search (a benchmark record's first root, auto, its
levels stage-synced) on P GPUs at scale s, and carries it to a grid of P' GPUs at scale
s + log2(P'/P), where every GPU holds as many edges as before:

* a level's compute (mask + local product + merge) stays the measured one: the work a rank
  does is the same share of a graph twice as large;
* a level's exchange (expand + fold) is priced ``a + b * bytes a rank sends``, with ``a`` and
  ``b`` fitted by least squares over every level of every multi-GPU record measured on the
  same machine (``a``: the fixed price of a level's collectives, ``b``: seconds a byte), on
  the bytes :mod:`lagraph_dist.tools.model` predicts for the level on each grid (its sizes
  grown with n, the source's level keeping one vertex), as its estimate and its upper
  estimate (each discovered vertex sent once; every producing rank of a fold channel finding
  it). The measured exchange is scaled by the ratio of the two grids' prices, so what the fit
  or the model miss on the base carries over; a level that exchanged nothing on the base
  takes the price alone.

TEPS: the level seconds' sum against the search's undirected edges (P'/P times the base's), set
beside the base search's; the harmonic mean over roots is the base's scaled by the same ratio.
The first level's mask gather (once a search) is booked with the compute, as the records book it.
``--validate`` runs the same arithmetic from the two-GPU records (scale 27) to the four-GPU ones
(scale 28) and sets the predictions beside what was measured.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from lagraph_dist.tools import model
from lagraph_dist.tools.bench import write_json

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
sys.path.insert(0, str(BENCHMARKS))

import multigpu_report  # noqa: E402  (sibling scripts, not a package)
from harness import commit_of, grid_text, md_table, paragraphs  # noqa: E402
from model_extrapolate import Profile  # noqa: E402
TARGETS = {"2x4": "2x2", "4x2": "2x2", "1x8": "1x4", "8x1": "4x1"}      # new grid: the 4-GPU base
VALIDATION = {"1x4": "1x2", "2x2": "1x2", "4x1": "2x1"}                 # 4-GPU grid: the 2-GPU base


def grid_of(text):
    rows, cols = (int(x) for x in text.lower().split("x"))
    return rows, cols


def first_search(record):
    return record["lagraph_dist"]["auto"]["levels_first_root_stage_synced"]


def compute_seconds(level):
    return multigpu_report.level_split(level)["compute"]


def exchange_seconds(level):
    split = multigpu_report.level_split(level)
    return split["expand"] + split["fold"]


def sent_per_rank(level, ranks):
    return sum(level["bytes"][stage] for stage in ("expand", "fold")) / ranks


def weak_records(folder, scale=None):
    """{grid text: record} of the nccl runs of ``folder`` with several GPUs (at ``scale`` when
    given: the weak-scaling runs), and every multi-GPU nccl record for the fit."""
    chosen, every = {}, []
    for record in multigpu_report.folder_records(folder, ".").values():
        if record["transport"] != "nccl" or record["gpus"] < 2 or "auto" not in record["lagraph_dist"]:
            continue
        every.append(record)
        if scale is None or record["graph"]["scale"] == scale:
            chosen[grid_text(record["grid"])] = record
    return chosen, every


def fit_exchange(records):
    """(a seconds, b seconds a byte, rms residual seconds) of exchange = a + b * bytes a rank,
    least squares over every level of ``records`` that exchanged anything."""
    xs, ys = [], []
    for record in records:
        for level in first_search(record):
            if exchange_seconds(level) > 0:
                xs.append(sent_per_rank(level, record["gpus"]))
                ys.append(exchange_seconds(level))
    design = np.column_stack([np.ones(len(xs)), xs])
    (a, b), *_ = np.linalg.lstsq(design, np.array(ys), rcond=None)
    residual = np.array(ys) - design @ np.array([a, b])
    return float(a), float(b), float(np.sqrt(np.mean(residual ** 2)))


def grown_sizes(record, factor):
    """The base search's level sizes on a graph ``factor`` times larger (the source stays one):
    model_extrapolate's profile of the search, at the larger scale."""
    sizes = model.level_sizes_from_records(record["lagraph_dist"]["auto"]["levels_first_root"])
    profile = Profile("base", record["n"], record.get("nvals", 0), tuple(sizes))
    return profile.at_scale(int(round(math.log2(record["n"] * factor))))[1]


def predict(base, shape, fit):
    """The base record's search carried to ``shape`` (weak scaling)."""
    a, b, _ = fit
    ranks = shape[0] * shape[1]
    factor = ranks / base["gpus"]
    scale = base["graph"]["scale"] + int(round(math.log2(factor)))
    n = base["n"] * factor
    predicted = multigpu_report.predicted(shape, int(n), grown_sizes(base, factor))
    on_base = multigpu_report.predicted(base["grid"], base["n"], grown_sizes(base, 1))

    def price(nbytes):
        return a + b * nbytes if nbytes > 0 else 0.0

    levels, seconds = [], {"model": 0.0, "upper": 0.0}
    for level, here, there in zip(first_search(base), on_base["levels"], predicted["levels"]):
        compute, measured = compute_seconds(level), exchange_seconds(level)
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
    first_root_teps = {bound: edges / s for bound, s in seconds.items()}
    # the base's harmonic mean carried by the first root's ratio
    scale_hmean = base_run["harmonic_mean_teps"] / (base_run["edges_per_root"][0] / base_seconds)
    return {"grid": list(shape), "gpus": ranks, "scale": scale, "base": grid_text(base["grid"]),
            "base_scale": base["graph"]["scale"], "base_auto_gteps": base_run["harmonic_mean_teps"] / 1e9,
            "predicted_auto_gteps": {bound: scale_hmean * t / 1e9 for bound, t in first_root_teps.items()},
            "search_seconds": seconds, "base_search_seconds": base_seconds, "levels": levels}


def predictions(base_folder, base_scale, targets):
    bases, every = weak_records(base_folder, base_scale)
    fit = fit_exchange(every)
    out = []
    for target, base_grid in targets.items():
        if base_grid in bases:
            out.append(predict(bases[base_grid], grid_of(target), fit))
    return fit, out


def commit_of_records(folder):
    """The commits of the records the predictions start from, as one text."""
    return ", ".join(sorted({commit_of(record["environment"])
                             for record in multigpu_report.folder_records(folder, ".").values()}))


def predicted_range(row):
    """(lowest, highest) predicted GTEPS of a row: the model's estimate and its upper estimate
    move the base and the new grid alike, so either may give the lower figure."""
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


def table(rows, measured=None):
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


def report(record, name):
    """The record's text in results/README.md: its validation against the measured four-GPU runs,
    then the eight-GPU predictions."""
    fit = record["fit"]
    missed = ", ".join(f"{grid} {'inside the range' if miss == 0 else f'{100 * miss:+.0f}% past it'}"
                       for grid, miss in record["validation_misses"].items())
    return paragraphs(
        "From the two-GPU records (scale 27, `multigpu/`, another machine of the same H200s) to the four-GPU "
        f"grids (scale 28), beside what was measured there (measured: {missed}):",
        table(record["validation"], record["measured_auto_gteps"]),
        f"From the four-GPU records (scale 28) to eight GPUs (scale 29); exchange fitted on the four-GPU "
        f"machine's levels as {1e3 * fit['a_seconds']:.2f} ms a level + a byte at "
        f"{1e-9 / fit['seconds_per_byte']:.0f} GB/s (rms residual {1e3 * fit['rms_seconds']:.2f} ms a level):",
        table(record["predictions"]),
        f"JSON: `{name}` (records at {record['commit']}); the method is in its `method` field.")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=RESULTS / "multigpu-4gpu", help="the measured base records")
    parser.add_argument("--scale", type=int, default=28, help="the base records' scale")
    parser.add_argument("--validate", action="store_true",
                        help="predict the 4-GPU records from the two-GPU ones (results/multigpu, scale 27)")
    parser.add_argument("--json", type=Path, help="write the predictions here")
    args = parser.parse_args(argv)
    result = {"benchmark": "predict_scaling", "commit": commit_of_records(args.folder),
              "device": "none: arithmetic on the records", "method": __doc__.split("\n\n")[2].strip()}
    if args.validate:
        fit, rows = predictions(RESULTS / "multigpu", 27, VALIDATION)
        measured_records, _ = weak_records(args.folder, args.scale)
        measured = {grid: r["lagraph_dist"]["auto"]["harmonic_mean_teps"] / 1e9 for grid, r in measured_records.items()}
        print(f"fit on the 2-GPU records: a = {1e3 * fit[0]:.3f} ms, {1e-9 / fit[1]:.1f} GB/s, rms {1e3 * fit[2]:.3f} ms")
        print(table(rows, measured))
        result.update(validation=rows, measured_auto_gteps=measured, validation_misses=misses(rows, measured))
    fit, rows = predictions(args.folder, args.scale, TARGETS)
    print(f"fit on {args.folder.name}: a = {1e3 * fit[0]:.3f} ms, {1e-9 / fit[1]:.1f} GB/s, rms {1e3 * fit[2]:.3f} ms")
    print(table(rows))
    result.update(fit={"a_seconds": fit[0], "seconds_per_byte": fit[1], "rms_seconds": fit[2]}, predictions=rows)
    if args.json:
        write_json(result, args.json)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
