"""The tables of a folder of multigpu_bench.py records (``multigpu/``, ``multigpu-4gpu/``): each
run's GTEPS, speedup and efficiency against one GPU, where its first search's time goes
(compute / expand / fold), small levels against one GPU, measured bytes beside
lagraph_dist.tools.model; the first root's levels on each grid against one GPU; and the PNG.

benchmarks/results_report.py is the one entry point: it writes the folder's scaling.md and
scaling-summary.json and the regions of results/README.md from these functions (and
scaling.png with --plots).
"""
import math
from pathlib import Path

from lagraph_dist.tools import model
from lagraph_dist.semirings import any_secondi

from harness import count, grid_text, md_table, megabytes, ms, rate, records, sig, times

SMALL = 100        # a level of under this many frontier vertices is "small" (issue 7's target)
SCALING_NOTE = (f"GTEPS: harmonic means. small levels vs 1 GPU: mean seconds of the first root's levels of "
                f"under {SMALL} frontier vertices against the same on one GPU. bytes measured / "
                f"model: the stage-synced first search's bytes (all ranks) against `lagraph_dist.tools.model`'s "
                f"estimate (its upper estimate in brackets).")
LEVELS_NOTE = ("compute = mask + local product + merge. 1 GPU ms: the same level of the same root on one GPU, "
               "not stage-synced (`-` where it ran fused).")


def folder_records(results, folder):
    """{name: record} of the folder's multigpu_bench.py records (not its subfolders)."""
    return records(Path(results) / folder, ("gpu*-*.json",))


# -- a level's and a search's parts ---------------------------------------------------------------
def level_split(level):
    """A stage-synced level's seconds: compute (mask + local + merge), expand, fold, level."""
    stages = level.get("stage_seconds") or {}
    return {"compute": stages.get("mask", 0) + stages.get("local", 0) + stages.get("merge", 0),
            "expand": stages.get("expand", 0), "fold": stages.get("fold", 0), "level": level["seconds"]}


def stage_split(levels):
    """Seconds of the stage-synced search: compute, expand, fold (:func:`level_split`), summed."""
    totals = {"compute": 0.0, "expand": 0.0, "fold": 0.0, "level": 0.0}
    for level in levels:
        for part, seconds in level_split(level).items():
            totals[part] += seconds
    return totals


def measured_bytes(levels):
    return sum(level["bytes"]["expand"] + level["bytes"]["fold"] + level["bytes"]["mask"] for level in levels)


def predicted(grid, n, levels, backend="gpu"):
    """lagraph_dist.tools.model's bytes of a symmetric BFS with parents whose level records are
    ``levels``, on ``grid``."""
    sizes = levels if levels and isinstance(levels[0], model.LevelSizes) else model.level_sizes_from_records(levels)
    return model.search_bytes(tuple(grid), n, sizes, semiring=any_secondi, symmetric=True, backend=backend)


def small_level_ratio(levels, baseline_levels):
    """Mean seconds of small levels here over the same on one GPU (first root, same levels)."""
    mine = [level["seconds"] for level in levels if level["frontier"] < SMALL]
    base = [level["seconds"] for level in baseline_levels if level["frontier"] < SMALL]
    if not mine or not base:
        return None
    return (sum(mine) / len(mine)) / (sum(base) / len(base))


# -- the runs against one GPU ---------------------------------------------------------------------
def gteps(record, direction):
    run = record["lagraph_dist"].get(direction)
    return None if run is None else run["harmonic_mean_teps"] / 1e9


def run_summary(name, record, baseline):
    """One run's figures (an entry of scaling-summary.json), against the one-GPU ``baseline``."""
    scale, gpus = record["graph"]["scale"], record["gpus"]
    auto = gteps(record, "auto")
    speed = auto / gteps(baseline, "auto") if baseline and auto else None
    run = record["lagraph_dist"].get("auto") or next(iter(record["lagraph_dist"].values()))
    synced = run["levels_first_root_stage_synced"]
    split = stage_split(synced)
    several = gpus > 1
    prediction = predicted(record["grid"], record["n"], synced)["total"] if several else {"all": 0, "all_upper": 0}
    return {"run": Path(name).stem, "scale": scale, "grid": grid_text(record["grid"]), "transport": record["transport"],
            "gpus": gpus, "roots": run["roots"], "auto_gteps": auto, "push_gteps": gteps(record, "push"),
            "speedup_vs_one_gpu": speed, "efficiency": None if speed is None else speed / gpus,
            "weak": baseline is not None and scale > baseline["graph"]["scale"],
            "build_seconds": record["graph"]["build_seconds"],
            "small_level_ratio": (small_level_ratio(run["levels_first_root"],
                                                    baseline["lagraph_dist"]["auto"]["levels_first_root"])
                                  if baseline and several else None),
            "expand_fold_share": (split["expand"] + split["fold"]) / split["level"] if split["level"] and several else None,
            "stage_seconds_first_root": split, "bytes_measured": measured_bytes(synced),
            "bytes_model": prediction["all"], "bytes_model_upper": prediction["all_upper"]}


def summary(chosen):
    """[:func:`run_summary`] of the records ({name: record}) by scale, grid and transport."""
    by_key = {(r["graph"]["scale"], grid_text(r["grid"]), r["transport"]): (name, r) for name, r in chosen.items()}
    baseline = next((r for (_, grid, _), (_, r) in by_key.items() if grid == "1x1"), None)
    return [run_summary(name, record, baseline) for _, (name, record) in sorted(by_key.items())]


def cell(value, text):
    """A cell of the scaling table; '-' where the run has none (mpi-host ran auto alone)."""
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else text.format(value)


def scaling_table(runs):
    """scaling.md's table of the :func:`summary` ``runs``."""
    header = ["run", "GPUs", "auto GTEPS", "push GTEPS", "vs 1 GPU (auto)", "efficiency (auto)", "build s",
              "small levels vs 1 GPU", "expand+fold share", "bytes measured / model (upper)"]
    rows = [[f"{run['grid']} {run['transport']} scale {run['scale']}", run["gpus"], cell(run["auto_gteps"], "{:.1f}"),
             cell(run["push_gteps"], "{:.1f}"), cell(run["speedup_vs_one_gpu"], "{:.2f}x"),
             cell(run["efficiency"] and 100 * run["efficiency"], "{:.0f}%"), f"{run['build_seconds']:.1f}",
             cell(run["small_level_ratio"], "{:.1f}x"),
             cell(run["expand_fold_share"] and 100 * run["expand_fold_share"], "{:.0f}%"),
             f"{run['bytes_measured'] / 1e6:.1f} MB / {run['bytes_model'] / 1e6:.1f} MB "
             f"({run['bytes_model_upper'] / 1e6:.1f} MB)" if run["gpus"] > 1 else "-"] for run in runs]
    return md_table(header, rows)


def readme_table(runs):
    """The short table of the :func:`summary` ``runs`` that results/README.md shows."""
    rows = []
    for run in runs:
        speed = times(run["speedup_vs_one_gpu"])
        if run["weak"] and run["efficiency"] is not None:
            speed += f" ({100 * run['efficiency']:.0f}% weak-scaling efficiency)"
        label = f"scale {run['scale']}, " + ("1 GPU" if run["gpus"] == 1 else f"{run['grid']}, {run['transport']}")
        rows.append([label, run["roots"], rate(run["auto_gteps"], 1), rate(run["push_gteps"], 1), speed,
                     sig(run["build_seconds"]) + " s"])
    return md_table(["run", "roots", "auto GTEPS", "push GTEPS", "vs one GPU (auto)", "build"], rows)


# -- the first root's levels against one GPU ------------------------------------------------------
def stage_levels_table(one_gpu, record):
    """Per level of the first root: the level on one GPU against the stage-synced level on the grid."""
    base = {level["level"]: level for level in one_gpu["lagraph_dist"]["auto"]["levels_first_root"]}
    rows = []
    for level in record["lagraph_dist"]["auto"]["levels_first_root_stage_synced"]:
        stages, mine = level.get("stage_seconds") or {}, base.get(level["level"])
        alone = "-" if mine is None or mine.get("fused") else ms(mine["seconds"])
        rows.append([level["level"], level["direction"], count(level["frontier"]), count(level["discovered"]),
                     alone, ms(level["seconds"]), ms(level_split(level)["compute"]), ms(stages.get("expand")),
                     ms(stages.get("fold")), megabytes(sum(level["bytes"].values()))])
    header = ["level", "direction", "frontier", "discovered", "1 GPU ms", "grid ms", "compute ms",
              "expand ms", "fold ms", "MB sent (all ranks)"]
    return md_table(header, rows)


def levels_tables(chosen):
    """:func:`stage_levels_table` of each nccl grid at the one-GPU record's scale, under its heading."""
    one_gpu = next(record for record in chosen.values() if record["gpus"] == 1)
    return [f"{grid_text(record['grid'])} nccl, scale {record['graph']['scale']}, auto, first root, "
            f"stage-synced (`{name}`), against one GPU:\n\n{stage_levels_table(one_gpu, record)}"
            for name, record in chosen.items()
            if record["gpus"] > 1 and record["transport"] == "nccl"
            and record["graph"]["scale"] == one_gpu["graph"]["scale"]]


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{s['grid']}\n{s['transport']}\nscale {s['scale']}" for s in runs]
    x = range(len(runs))
    left.bar([i - 0.2 for i in x], [s["auto_gteps"] or 0 for s in runs], width=0.4, label="auto")
    left.bar([i + 0.2 for i in x], [s["push_gteps"] or 0 for s in runs], width=0.4, label="push")
    left.set_xticks(list(x), labels, fontsize=7)
    left.set_ylabel("GTEPS (harmonic mean)")
    left.set_title("Kronecker BFS on H200 GPUs, one rank a GPU")
    left.legend()
    bottom = [0.0] * len(runs)
    for part in ("compute", "expand", "fold"):
        values = [1e3 * s["stage_seconds_first_root"][part] for s in runs]
        right.bar(list(x), values, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, values)]
    right.set_xticks(list(x), labels, fontsize=7)
    right.set_ylabel("ms, first root, stage-synced (auto)")
    right.set_title("Where a search's time goes")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
