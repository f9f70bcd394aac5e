"""Graph500 BFS on one or several GPUs, one MPI rank a GPU: one JSON record per run, and the
tables of a folder of them (``multigpu/``, ``multigpu-4gpu/``) that results_report.py writes.

    python3 benchmarks/multigpu_bench.py --scale 26 --grid 1x1 --out DIR
    mpirun --allow-run-as-root -n 2 python3 -m mpi4py benchmarks/multigpu_bench.py \\
        --scale 26 --grid 1x2 --transport nccl --out DIR

Per run: ``tools.bench.run_bench`` on the Kronecker graph built on the devices (the protocol of
``lagraph-dist bench``, no peers), then the first root once more with stage timers that wait for
the device, for the per-level compute / expand / fold split and its bytes beside ``tools.model``'s.
"""
import argparse
import sys
from pathlib import Path

import lagraph_dist as ld
from lagraph_dist.core.settings import settings
from lagraph_dist.semirings import any_secondi
from lagraph_dist.tools import model
from lagraph_dist.tools.bench import BenchConfig, run_bench

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (build_timed, count, graph_info, grid_text, md_table, megabytes, missing, ms,  # noqa: E402
                     parse_spec, rate, records, sig, times, write_record)

SMALL = 100        # a level of under this many frontier vertices is "small" (issue 7's target)
SCALING_NOTE = (f"GTEPS: harmonic means. small levels vs 1 GPU: mean seconds of the first root's levels of "
                f"under {SMALL} frontier vertices against the same on one GPU. bytes measured / "
                f"model: the stage-synced first search's bytes (all ranks) against `lagraph_dist.tools.model`'s "
                f"estimate (its upper estimate in brackets).")
LEVELS_NOTE = ("compute = mask + local product + merge. 1 GPU ms: the same level of the same root on one GPU, "
               "not stage-synced (`-` where it ran fused).")


# -- the run --------------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--grid", default="1x1", help="RxC (default 1x1)")
    parser.add_argument("--transport", default=None, help="nccl, mpi-cuda or mpi-host (default: the grid's)")
    parser.add_argument("--roots", type=int, default=16)
    parser.add_argument("--directions", default="push,auto")
    parser.add_argument("--tag", default="", help="a word for the file name (strong, weak, ...)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    rows, cols = (int(x) for x in args.grid.lower().split("x"))
    grid = ld.Grid(rows, cols, transport=args.transport)
    A, build = build_timed(lambda: ld.kronecker(args.scale, grid=grid, backend="gpu"))
    graph = graph_info(parse_spec(f"kron:{args.scale}")) | {"build_seconds": build}
    config = BenchConfig(roots=args.roots, directions=tuple(d for d in args.directions.split(",") if d), peers=(),
                         check_levels=False, progress=False)
    record = run_bench(A, graph, config)             # the Graph500 protocol of `lagraph-dist bench`, no peers
    for direction, run in record["lagraph_dist"].items():
        with settings.changed(sync_stage_timers=True):     # device-complete stage seconds, for the split only
            run["levels_first_root_stage_synced"] = ld.bfs(A, record["roots"][0], direction=direction).stats
    record.update(gpus=grid.size, grid=[rows, cols], transport=grid.transport.name,
                  peak_device_bytes=int(grid.allreduce(record["peak_device_bytes"], "MAX")))   # the ranks' most
    if grid.rank == 0:
        tag = f"-{args.tag}" if args.tag else ""
        name = f"gpu{grid.size}-{args.grid}-{grid.transport.name}-scale{args.scale}{tag}.json"
        write_record(record, args.out / name)
        for direction, run in record["lagraph_dist"].items():
            print(f"{name}: {direction} {run['harmonic_mean_teps'] / 1e9:.2f} GTEPS hmean, median "
                  f"{run['median_ms']:.2f} ms, build {build:.1f} s", flush=True)


# -- a folder's records against one GPU -----------------------------------------------------------
def folder_records(results, folder):
    """{name: record} of the folder's records (not its subfolders)."""
    return records(Path(results) / folder, ("gpu*-*.json",))


def level_split(level):
    """A stage-synced level's seconds: compute (mask + local + merge), expand, fold, level."""
    stages = level.get("stage_seconds") or {}
    return {"compute": stages.get("mask", 0) + stages.get("local", 0) + stages.get("merge", 0),
            "expand": stages.get("expand", 0), "fold": stages.get("fold", 0), "level": level["seconds"]}


def stage_split(levels):
    """:func:`level_split` summed over a search's levels."""
    totals = dict.fromkeys(("compute", "expand", "fold", "level"), 0.0)
    for level in levels:
        for part, seconds in level_split(level).items():
            totals[part] += seconds
    return totals


def measured_bytes(levels):
    return sum(level["bytes"]["expand"] + level["bytes"]["fold"] + level["bytes"]["mask"] for level in levels)


def predicted(grid, n, levels, backend="gpu"):
    """lagraph_dist.tools.model's bytes, on ``grid``, of a symmetric BFS with parents whose levels
    are ``levels`` (level records or model.LevelSizes)."""
    sizes = levels if levels and isinstance(levels[0], model.LevelSizes) else model.level_sizes_from_records(levels)
    return model.search_bytes(tuple(grid), n, sizes, semiring=any_secondi, symmetric=True, backend=backend)


def small_level_ratio(levels, baseline_levels):
    """Mean seconds of small levels here over the same on one GPU (first root, same levels)."""
    mine = [level["seconds"] for level in levels if level["frontier"] < SMALL]
    base = [level["seconds"] for level in baseline_levels if level["frontier"] < SMALL]
    return (sum(mine) / len(mine)) / (sum(base) / len(base)) if mine and base else None


def gteps(record, direction):
    run = record["lagraph_dist"].get(direction)
    return None if run is None else run["harmonic_mean_teps"] / 1e9


def run_summary(name, record, baseline):
    """One run's figures (an entry of scaling-summary.json), against the one-GPU ``baseline``."""
    scale, gpus, several = record["graph"]["scale"], record["gpus"], record["gpus"] > 1
    auto = gteps(record, "auto")
    speed = auto / gteps(baseline, "auto") if baseline and auto else None
    run = record["lagraph_dist"].get("auto") or next(iter(record["lagraph_dist"].values()))
    synced = run["levels_first_root_stage_synced"]
    split = stage_split(synced)
    prediction = predicted(record["grid"], record["n"], synced)["total"] if several else {"all": 0, "all_upper": 0}
    return {"run": Path(name).stem, "scale": scale, "grid": grid_text(record["grid"]), "transport": record["transport"],
            "gpus": gpus, "roots": run["roots"], "auto_gteps": auto, "push_gteps": gteps(record, "push"),
            "speedup_vs_one_gpu": speed, "efficiency": None if speed is None else speed / gpus,
            "weak": baseline is not None and scale > baseline["graph"]["scale"],
            "build_seconds": record["graph"]["build_seconds"],
            "small_level_ratio": (small_level_ratio(run["levels_first_root"],
                                                    baseline["lagraph_dist"]["auto"]["levels_first_root"])
                                  if baseline and several else None),
            "expand_fold_share": ((split["expand"] + split["fold"]) / split["level"]
                                  if split["level"] and several else None),
            "stage_seconds_first_root": split, "bytes_measured": measured_bytes(synced),
            "bytes_model": prediction["all"], "bytes_model_upper": prediction["all_upper"]}


def summary(chosen):
    """[:func:`run_summary`] of the records ({name: record}) by scale, grid and transport."""
    by_key = {(r["graph"]["scale"], grid_text(r["grid"]), r["transport"]): (name, r) for name, r in chosen.items()}
    baseline = next((r for (_, grid, _), (_, r) in by_key.items() if grid == "1x1"), None)
    return [run_summary(name, record, baseline) for _, (name, record) in sorted(by_key.items())]


def cell(value, text):
    """A cell of the scaling table; '-' where the run has none (mpi-host ran auto alone)."""
    return "-" if missing(value) else text.format(value)


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
    """GTEPS of each run, and where its first search's time goes."""
    from lagraph_dist.tools.plot import pyplot
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{s['grid']}\n{s['transport']}\nscale {s['scale']}" for s in runs]
    x = range(len(runs))
    left.bar([i - 0.2 for i in x], [s["auto_gteps"] or 0 for s in runs], width=0.4, label="auto")
    left.bar([i + 0.2 for i in x], [s["push_gteps"] or 0 for s in runs], width=0.4, label="push")
    left.set(ylabel="GTEPS (harmonic mean)", title="Kronecker BFS on H200 GPUs, one rank a GPU")
    bottom = [0.0] * len(runs)
    for part in ("compute", "expand", "fold"):
        values = [1e3 * s["stage_seconds_first_root"][part] for s in runs]
        right.bar(list(x), values, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, values)]
    right.set(ylabel="ms, first root, stage-synced (auto)", title="Where a search's time goes")
    for axis in (left, right):
        axis.set_xticks(list(x), labels, fontsize=7)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
