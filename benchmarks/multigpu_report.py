"""The scaling table of multigpu_bench.py records: GTEPS, speedup and efficiency, per-level
compute / expand / fold seconds, small-level cost against one GPU, and measured bytes beside
lagraph_dist.tools.model; and its PNG.

benchmarks/results_report.py is the one entry point: it writes multigpu/scaling.md and
scaling-summary.json from these functions (and scaling.png with --plots).
"""
import json
import math
from pathlib import Path

from lagraph_dist.tools import model
from lagraph_dist.semirings import any_secondi

SMALL = 100        # a level of under this many frontier vertices is "small" (issue 7's target)


def load(folder):
    records = {}
    for path in sorted(Path(folder).glob("gpu*-*.json")):
        record = json.loads(path.read_text())
        records[path.stem] = record
    return records


def key(record):
    return (record["graph"]["scale"], "x".join(map(str, record["grid"])), record["transport"])


def gteps(record, direction):
    run = record["lagraph_dist"].get(direction)
    return None if run is None else run["harmonic_mean_teps"] / 1e9


def one_decimal(value):
    """A figure of the table; '-' where the run has none (mpi-host ran auto alone)."""
    return "-" if value is None or math.isnan(value) else f"{value:.1f}"


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


def report(records):
    by_key = {key(r): (name, r) for name, r in records.items()}
    baseline = next((r for (scale, grid, _), (_, r) in by_key.items() if grid == "1x1"), None)
    base_scale = baseline["graph"]["scale"] if baseline else None
    lines = ["| run | GPUs | auto GTEPS | push GTEPS | vs 1 GPU (auto) | efficiency (auto) | build s | "
             "small levels vs 1 GPU | expand+fold share | bytes measured / model (upper) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    summary = []
    for (scale, grid, transport), (name, record) in sorted(by_key.items()):
        auto, push = gteps(record, "auto"), gteps(record, "push")
        gpus = record["gpus"]
        speed = eff = None
        if baseline and auto:
            base_auto = gteps(baseline, "auto")
            speed = auto / base_auto
            eff = speed / gpus
        run = record["lagraph_dist"].get("auto") or next(iter(record["lagraph_dist"].values()))
        synced = run["levels_first_root_stage_synced"]
        split = stage_split(synced)
        share = ((split["expand"] + split["fold"]) / split["level"]) if split["level"] and gpus > 1 else None
        ratio = (small_level_ratio(run["levels_first_root"], baseline["lagraph_dist"]["auto"]["levels_first_root"])
                 if baseline and gpus > 1 else None)
        measured = measured_bytes(synced)
        prediction = predicted(record["grid"], record["n"], synced)["total"] if gpus > 1 else {"all": 0, "all_upper": 0}
        model_text = (f"{measured / 1e6:.1f} MB / {prediction['all'] / 1e6:.1f} MB "
                      f"({prediction['all_upper'] / 1e6:.1f} MB)" if gpus > 1 else "-")
        lines.append(f"| {grid} {transport} scale {scale} | {gpus} | {one_decimal(auto)} | {one_decimal(push)} | "
                     f"{'-' if speed is None else f'{speed:.2f}x'} | {'-' if eff is None else f'{100 * eff:.0f}%'} | "
                     f"{record['graph']['build_seconds']:.1f} | {'-' if ratio is None else f'{ratio:.1f}x'} | "
                     f"{'-' if share is None else f'{100 * share:.0f}%'} | {model_text} |")
        summary.append({"run": name, "scale": scale, "grid": grid, "transport": transport, "gpus": gpus,
                        "roots": run["roots"],
                        "auto_gteps": auto, "push_gteps": push, "speedup_vs_one_gpu": speed,
                        "efficiency": eff, "weak": baseline is not None and scale > base_scale,
                        "build_seconds": record["graph"]["build_seconds"], "small_level_ratio": ratio,
                        "expand_fold_share": share, "stage_seconds_first_root": split,
                        "bytes_measured": measured, "bytes_model": prediction["all"],
                        "bytes_model_upper": prediction["all_upper"]})
    return "\n".join(lines), summary


def plot(summary, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{s['grid']}\n{s['transport']}\nscale {s['scale']}" for s in summary]
    x = range(len(summary))
    left.bar([i - 0.2 for i in x], [s["auto_gteps"] or 0 for s in summary], width=0.4, label="auto")
    left.bar([i + 0.2 for i in x], [s["push_gteps"] or 0 for s in summary], width=0.4, label="push")
    left.set_xticks(list(x), labels, fontsize=7)
    left.set_ylabel("GTEPS (harmonic mean)")
    left.set_title("Kronecker BFS on H200 GPUs, one rank a GPU")
    left.legend()
    parts = ("compute", "expand", "fold")
    bottom = [0.0] * len(summary)
    for part in parts:
        values = [1e3 * s["stage_seconds_first_root"][part] for s in summary]
        right.bar(list(x), values, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, values)]
    right.set_xticks(list(x), labels, fontsize=7)
    right.set_ylabel("ms, first root, stage-synced (auto)")
    right.set_title("Where a search's time goes")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
