"""Figures of a benchmark record (``lagraph-dist plot``, ``lagraph-dist bench --plot``).

One PNG. A search's record: the harmonic-mean GTEPS of our runs and the peers side by side,
then, for the first root of each of our runs, the time of every level split by stage (expand,
mask, local, fold, merge, as far as the record has them) with push and pull levels told apart.
A record of the BFS family (``bench --algorithm``): our rate and each peer's in the record's
unit, then the seconds of each of its per-level records (a search level, a product, a batch's
sweeps), coloured by what it was. Needs matplotlib (the ``plot`` extra); it draws with the Agg
backend, so no display is needed.
"""
from __future__ import annotations

import json
import os

from lagraph_dist.core.errors import InvalidValue, MissingDependency, open_file

__all__ = ["load_record", "plot_record", "draw_record", "record_title", "pyplot"]

STAGES = ("expand", "mask", "local", "fold", "merge")
HATCH = {"push": "", "pull": "///"}


def pyplot():
    """matplotlib.pyplot drawing with Agg (no display needed), or MissingDependency."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependency("plotting needs matplotlib: pip install 'lagraph-dist[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def load_record(path):
    """The benchmark record written by ``lagraph-dist bench --json``."""
    with open_file(path, doing=f"read the benchmark record {path}") as handle:
        try:
            record = json.load(handle)
        except json.JSONDecodeError as exc:
            raise InvalidValue(f"{path} is not JSON: {exc}") from None
    if not isinstance(record, dict) or not (isinstance(record.get("lagraph_dist"), dict) or _is_family(record)):
        raise InvalidValue(f"{path} is not a benchmark record (no 'lagraph_dist' runs in it)")
    return record


def _throughput_bars(ax, record):
    """Harmonic-mean GTEPS per run, ours first; skipped peers named at zero height."""
    backend = record.get("backend", record.get("environment", {}).get("backend", ""))
    names, values, colors = [], [], []
    for name, run in record["lagraph_dist"].items():
        names.append(f"lagraph_dist\n{backend} {name}")
        values.append(run["harmonic_mean_teps"] / 1e9)
        colors.append("tab:blue")
    for name, run in record.get("peers", {}).items():
        names.append(name.replace("-", "-\n", 1) + ("\n(skipped)" if "skipped" in run else ""))
        values.append(0.0 if "skipped" in run else run["harmonic_mean_teps"] / 1e9)
        colors.append("tab:gray")
    bars = ax.bar(range(len(names)), values, color=colors)
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylabel("GTEPS (harmonic mean)")
    shown = [v for v in values if v > 0]
    if shown and min(shown) < max(shown) / 50:
        ax.set_yscale("log")       # the peers can be hundreds of times slower
    for bar, value in zip(bars, values):
        if value > 0:
            ax.annotate(f"{value:.3g}", (bar.get_x() + bar.get_width() / 2, value),
                        ha="center", va="bottom", fontsize=7)
    ax.set_title(f"{record.get('n', '?'):,} vertices, {record.get('nvals', '?'):,} stored edges", fontsize=9)


def _level_bars(ax, name, levels):
    """Stacked milliseconds per level: each stage the record has, and the rest of the level."""
    stages = [s for s in STAGES if any(s in lv.get("stage_seconds", {}) for lv in levels)]
    x = [lv["level"] for lv in levels]
    hatches = [HATCH.get(lv["direction"], "..") for lv in levels]
    bottom = [0.0] * len(levels)
    colors = dict(zip(STAGES + ("rest",), ("tab:blue", "tab:purple", "tab:orange", "tab:green",
                                             "tab:red", "tab:gray")))
    for stage in stages + ["rest"]:
        if stage == "rest":
            # (a level timed only within a run of levels has no seconds, and no bar, of its own)
            heights = [max(0.0, 1e3 * (lv["seconds"] or 0.0) - b) for lv, b in zip(levels, bottom)]
        else:
            heights = [1e3 * lv.get("stage_seconds", {}).get(stage, 0.0) for lv in levels]
        bars = ax.bar(x, heights, bottom=bottom, color=colors[stage], edgecolor="black", linewidth=0.3,
                      label=stage if stage != "rest" else ("rest of the level" if stages else "level"))
        for bar, hatch in zip(bars, hatches):
            bar.set_hatch(hatch)
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_xlabel("level (hatched: pull, plain: push)")
    ax.set_ylabel("ms")
    ax.set_title(f"lagraph_dist {name}: first root, per level", fontsize=9)
    ax.legend(fontsize=7)


def record_title(record):
    """What was measured, where: the graph (its scale), the grid and its ranks, the backend and
    the device, so that the figures of a 1x1 and a 2x2 run cannot be taken for each other."""
    graph = record.get("graph", {})
    if graph.get("kind") == "kronecker":
        what = f"Kronecker scale {graph.get('scale', '?')}, edge factor {graph.get('edgefactor', '?')}"
    elif graph.get("kind") == "mtx":
        what = f"Matrix Market file {os.path.basename(str(graph.get('path', '?')))}"
    else:
        what = "graph"
    env = record.get("environment", {})
    rows, cols = (env.get("grid") or ("?", "?"))[:2]
    ranks = env.get("ranks", "?")
    backend = record.get("backend", env.get("backend", "?"))
    device = f", {env['device']}" if env.get("device") else ""
    return (f"{what}; grid {rows}x{cols} ({ranks} rank{'' if ranks == 1 else 's'}); "
            f"{backend} backend{device}")


def _is_family(record):
    return record.get("benchmark") == "family" and isinstance(record.get("peers"), dict)


def _family_rates(ax, record):
    """Our rate and each peer's, in the record's unit a second (log scale when far apart)."""
    unit = record["unit"]
    names = ["lagraph_dist"] + list(record["peers"])
    values = [record["rate"]] + [peer["rate"] for peer in record["peers"].values()]
    bars = ax.bar(range(len(names)), values, color=["tab:blue"] + ["tab:gray"] * len(record["peers"]))
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylabel(f"{unit} a second")
    if min(values) < max(values) / 50:
        ax.set_yscale("log")
    for bar, value, name in zip(bars, values, names):
        label = f"{value:.3g}" if name == "lagraph_dist" else f"{value:.3g} (ours {record['rate'] / value:.3g}x)"
        ax.annotate(label, (bar.get_x() + bar.get_width() / 2, value), ha="center", va="bottom", fontsize=7)
    what = record["summary"].split(" (")[0]          # (the call it names is in the record)
    ax.set_title(f"{what}: {record['n']:,} vertices, {record['nvals']:,} stored edges", fontsize=9)


def _family_levels(ax, levels):
    """Milliseconds of each per-level record in order, coloured by what it was (``op``, or the
    search's direction)."""
    kinds = [lv.get("op") or lv.get("direction", "level") for lv in levels]
    palette = {}
    for kind in kinds:
        palette.setdefault(kind, f"C{len(palette) % 10}")
    ax.bar(range(1, len(levels) + 1), [1e3 * (lv["seconds"] or 0.0) for lv in levels],
           color=[palette[k] for k in kinds])
    swatch = pyplot().Rectangle
    ax.legend(handles=[swatch((0, 0), 1, 1, color=color, label=kind) for kind, color in palette.items()], fontsize=7)
    ax.set_xlabel("record, in the order it ran")
    ax.set_ylabel("ms")
    ax.set_title("lagraph_dist, per level (its own seconds each)", fontsize=9)


def _draw_family(record):
    plt = pyplot()
    levels = record.get("levels") or []
    fig, axes = plt.subplots(2 if levels else 1, 1, figsize=(8, 6.4 if levels else 3.2), squeeze=False)
    fig.suptitle(record_title(record), fontsize=10)
    _family_rates(axes[0][0], record)
    if levels:
        _family_levels(axes[1][0], levels)
    fig.tight_layout()
    return fig


def draw_record(record):
    """The matplotlib figure of ``record`` (a dict, or the path of its JSON); close it after use."""
    if not isinstance(record, dict):
        record = load_record(record)
    if _is_family(record):
        return _draw_family(record)
    plt = pyplot()
    runs = [(name, run["levels_first_root"]) for name, run in record["lagraph_dist"].items()
            if run.get("levels_first_root")]
    fig, axes = plt.subplots(1 + len(runs), 1, figsize=(8, 3.2 * (1 + len(runs))), squeeze=False)
    fig.suptitle(record_title(record), fontsize=10)
    _throughput_bars(axes[0][0], record)
    for ax, (name, levels) in zip(axes[1:, 0], runs):
        _level_bars(ax, name, levels)
    fig.tight_layout()
    return fig


def plot_record(record, path):
    """Write the figure of ``record`` (a dict, or the path of its JSON) to ``path`` (PNG)."""
    fig = draw_record(record)
    try:
        with _open_to_write(path) as handle:
            fig.savefig(handle, format="png", dpi=110)
    finally:
        pyplot().close(fig)
    return path


def _open_to_write(path):
    """``path`` opened for writing, or a FileError that names a missing folder as such."""
    folder = os.path.dirname(os.fspath(path))
    missing = f" (the folder {folder} does not exist)" if folder and not os.path.isdir(folder) else ""
    return open_file(path, "wb", doing=f"write the plot {path}{missing}")
