"""CPU strong scaling on one many-core host (issue 21.7), the scaling run a user without GPUs can
make: one Kronecker graph on 1, 2x2 and 4x4 MPI ranks of the CPU backend, each configuration on
all the host's cores (threads per rank = cores / ranks), python-graphblas beside on all cores.

    python benchmarks/cpu_scaling.py                        # scale 22 on 1, 4, 16 ranks (about 5 minutes on 16 cores)
    python benchmarks/cpu_scaling.py --scales 22 24         # and scale 24 (estimated 10 minutes more)
    python benchmarks/cpu_scaling.py --small                # the smoke test: scale 10 on 1 and 4 ranks
    bash benchmarks/device.sh cpu-scaling                   # on a device machine's host (no GPU used)

Each configuration is its own ``mpiexec -n R python -m mpi4py cpu_scaling.py --worker`` (Open MPI
with ``--oversubscribe --bind-to none``, lest a rank's threads share one core), the GPU hidden, the
host transport; the record's ``protocol`` and ``efficiency_definition`` say what is timed and how it
is compared (docs/benchmarking.md has the method). The record: results/cpu-scaling-<host>-<commit>.json
(``--json``), its plot beside it (.png); the exit status is 1 when a search failed a check.
"""
import argparse
import gc
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numba
import numpy as np

import lagraph_dist as ld
from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import environment, levels_digest, pick_roots, teps_summary, warm_up

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (EDGEFACTOR, RESULTS, build_timed, level_stats, log, peers, plural, record_file,  # noqa: E402
                     short_commit, table as table_lines, timed, write_json, write_record)

STAGES = ("expand", "mask", "local", "fold", "merge")
FUSED = "fused"                 # the stage of a level run inside the compiled whole-search call
OUTSIDE = "outside levels"      # a search's seconds outside its levels' own (its start, the records)
BREAKDOWN = ("local", "expand", "fold", "merge", FUSED, OUTSIDE)
FULL = {"scales": [22], "ranks": [1, 4, 16], "roots": 16, "seconds": 40.0, "limit": 240.0, "total": 470.0}
SMALL = {"scales": [10], "ranks": [1, 4], "roots": 4, "seconds": 5.0, "limit": 150.0, "total": 400.0}
DIRECTION = "auto"              # every record so far: the direction a user's ld.bfs takes
PEER = "graphblas-pushpull"
ROOT_SEED = 2
SKIPPED = "skipped: --total spent"
HEADER = ["scale", "run", "ranks x threads", "median ms", "hmean GTEPS", "efficiency vs 1 rank",
          "local / expand / fold / merge / fused / outside levels ms (slowest rank)", "roots"]


# -- a worker: one configuration under mpiexec -------------------------------------------------
def _stage_sums(stats):
    """One search's level records summed: :func:`harness.level_stats`'s counts and seconds, the stage
    seconds (this rank's; a fused level's under FUSED) and the bytes by stage (all ranks')."""
    seconds = Counter(dict.fromkeys((*STAGES, FUSED), 0.0))
    traffic = Counter(dict.fromkeys(("expand", "mask", "fold"), 0))
    for level in stats:
        seconds.update(level.get("stage_seconds", {}))
        traffic.update(level.get("bytes", {}))
        seconds[FUSED] += ld.measured_seconds(level) if level.get("fused") else 0.0
    return level_stats(stats) | {"stage_seconds": dict(seconds), "bytes": dict(traffic)}


def _search_one(A, root, direction, degrees):
    """One timed search from ``root`` and its checks (outside the clock): (its summary, its level records)."""
    gc.collect()
    gc.disable()
    try:
        result, elapsed = timed(A, ld.bfs, A, root, direction=direction)
    finally:
        gc.enable()
    levels, parents = result.levels.to_numpy(), result.parents.to_numpy()
    ld.validate(A, root, levels, parents)          # raises on every rank if a rule is broken
    summary = _stage_sums(result.stats)
    mine = summary.pop("stage_seconds")
    ranks = A.grid.comm.allgather(mine)          # every rank's stage seconds: the slowest rank's and their mean
    summary["stage_seconds_max"] = {stage: max(rank[stage] for rank in ranks) for stage in mine}
    summary["stage_seconds_mean"] = {stage: statistics.fmean(rank[stage] for rank in ranks) for stage in mine}
    reached = levels >= 0
    # summary["seconds"]: the levels' own, until the whole timed call's replace them
    summary.update(root=root, outside_levels_seconds=elapsed - summary["seconds"], seconds=elapsed,
                   edges=int(degrees[reached].sum()) // 2, reached=int(reached.sum()),
                   levels_digest=levels_digest(levels))
    return summary, result.stats


def worker(args):
    """Collective over MPI.COMM_WORLD: one configuration; rank 0 writes its part to --part."""
    grid = ld.Grid()
    A, build = build_timed(lambda: ld.kronecker(args.scale, EDGEFACTOR, grid=grid, backend="cpu"))
    roots = pick_roots(A, args.roots, ROOT_SEED)
    degrees = A.out_degree().to_numpy(fill=0)
    _, warmed = timed(None, warm_up, A, roots[0], (DIRECTION,))
    part = {"ranks": grid.size, "grid": list(grid.shape), "threads_per_rank": numba.get_num_threads(),
            "build_seconds": build, "warm_up_seconds": warmed, "n": A.n, "nvals": A.nvals,
            "environment": environment(A)}
    searches, started = [], time.perf_counter()
    for root in roots:
        summary, stats = _search_one(A, root, DIRECTION, degrees)
        part.setdefault("levels_first_root", {DIRECTION: stats})
        searches.append(summary)
        if grid.comm.bcast(time.perf_counter() - started, root=0) >= args.seconds:   # rank 0's clock decides
            break
    part["runs"] = {DIRECTION: teps_summary([s["edges"] for s in searches], [s["seconds"] for s in searches]) | {
        "roots": len(searches), "validated": len(searches), "searches": searches,
        "stopped_early": f"its {args.seconds:g} s budget was spent" if len(searches) < len(roots) else None}}
    if grid.rank == 0:
        write_json(part, args.part)


# -- the peer: python-graphblas on all cores, one process --------------------------------------
def peer(args):
    """python-graphblas (harness's peer) on the same graph and roots, its graph converted outside the clock."""
    try:
        import graphblas as gb
    except ImportError as error:
        return write_json({"skipped": f"python-graphblas is not installed ({error})"}, args.part)
    gb.ss.config["nthreads"] = int(os.environ["OMP_NUM_THREADS"])
    A = ld.kronecker(args.scale, EDGEFACTOR, backend="cpu")
    roots = pick_roots(A, args.roots, ROOT_SEED)
    began = time.perf_counter()
    S = A.to_scipy()
    degrees = np.diff(S.indptr)
    [contender], _ = peers(S, [PEER])
    converted = time.perf_counter() - began
    del A
    contender.search(roots[0])                                       # warm-up
    seconds, edges, digests, started = [], [], {}, time.perf_counter()
    for root in roots:
        gc.collect()
        (levels, _), took = timed(None, contender.search, root)
        seconds.append(took)
        edges.append(int(degrees[levels >= 0].sum()) // 2)
        digests[str(root)] = levels_digest(levels)
        if time.perf_counter() - started >= args.seconds:
            break
    run = teps_summary(edges, seconds) | {"roots": len(seconds), "seconds_per_root": seconds, "levels_digests": digests}
    write_json({"threads": int(gb.ss.config["nthreads"]), "convert_seconds": converted,
                "python-graphblas": gb.__version__, "runs": {PEER: run}}, args.part)


# -- the driver ---------------------------------------------------------------------------------
def launcher(given):
    """The launcher's words before ``-n``: --launcher's, else the mpiexec beside this Python (the mpich
    wheel), else mpirun or mpiexec on PATH, Open MPI's with the module docstring's flags; None if none."""
    if given:
        return shlex.split(given)
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else (shutil.which("mpirun") or shutil.which("mpiexec"))
    if found is None:
        return None
    said = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
    if "Open MPI" not in said.stdout + said.stderr:
        return [found]
    return [found, "--oversubscribe", "--bind-to", "none"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


def run_part(command, env, limit):
    """Run one configuration's process group within ``limit`` seconds; (part or None, why not)."""
    with tempfile.TemporaryDirectory(prefix="cpu-scaling-") as folder:
        part, began = Path(folder) / "part.json", time.perf_counter()
        with subprocess.Popen([*command, "--part", str(part)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True) as process:
            try:
                output = process.communicate(timeout=max(limit, 1.0))[0]
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)   # the launcher and its ranks: our own group
                log(process.communicate()[0][-2000:])
                return None, f"killed after its {limit:.0f} s limit"
        log(output[-3000:] if process.returncode else output[-600:])
        if process.returncode or not part.exists():
            tail = " | ".join(output.strip().splitlines()[-3:])
            return None, f"exited with status {process.returncode}: {tail}"
        return json.loads(part.read_text()) | {"wall_seconds": time.perf_counter() - began}, None


def worker_env(threads):
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               LAGRAPH_DIST_TRANSPORT="mpi-host", PYTHONUNBUFFERED="1")
    env.setdefault("CUDA_VISIBLE_DEVICES", "")        # the CPU backend only: no GPU is touched
    return env


def _against_one_rank(run, one):
    """Efficiency T(1 rank) / T(this run), medians over the roots both ran, added to ``run``."""
    mine = {s["root"]: s["seconds"] for s in run["searches"]}
    base = {s["root"]: s["seconds"] for s in one["searches"] if s["root"] in mine}
    if base:
        run["efficiency_vs_1_rank"] = statistics.median(base.values()) / statistics.median(mine[r] for r in base)
        run["roots_compared_with_1_rank"] = len(base)


def _levels_against(run, peer_name, digests):
    """The roots whose levels differ from the peer's digests; how many were compared, added to ``run``."""
    compared = [s for s in run["searches"] if str(s["root"]) in digests]
    differ = [s["root"] for s in compared if s["levels_digest"] != digests[str(s["root"])]]
    run.setdefault("levels_checked", {})[peer_name] = len(compared)
    if differ:
        run.setdefault("levels_differ", {})[peer_name] = differ
    return differ


def summarize(scale_record):
    """Each run's medians (stage breakdown, bytes, host reads), its efficiency against one rank and its
    levels against the peer's: added to ``scale_record`` in place; returns the problems found."""
    problems, configurations = [], scale_record["configurations"]
    for name, config in configurations.items():
        for direction, run in config.get("runs", {}).items():
            searches = run["searches"]

            def medians(key):
                return {part: statistics.median(x[key][part] for x in searches) for part in searches[0][key]}
            run["median_stage_seconds_max"] = medians("stage_seconds_max") | {
                OUTSIDE: statistics.median(x["outside_levels_seconds"] for x in searches)}
            run["median_bytes"] = medians("bytes")
            run["median_host_reads"] = statistics.median(x["host_reads"] for x in searches)
            one = configurations.get("1 rank", {}).get("runs", {}).get(direction)
            if one is not None:
                _against_one_rank(run, one)
            for peer_name, peer_run in scale_record.get("peer", {}).get("runs", {}).items():
                if differ := _levels_against(run, peer_name, peer_run["levels_digests"]):
                    problems.append(f"scale {scale_record['scale']} {name} {direction}: levels differ from "
                                    f"{peer_name} at roots {differ}")
    return problems


def table(record):
    """The record as markdown lines: its title, then one row a configuration and direction, the peer below."""
    rows = []
    for scale in record["scales"]:
        at, peer = scale["scale"], scale.get("peer", {})
        for name, config in scale["configurations"].items():
            if "runs" not in config:
                rows.append([at, name, "", config.get("error", "?"), "", "", "", ""])
            for direction, run in config.get("runs", {}).items():
                stages = " / ".join(f"{1e3 * run['median_stage_seconds_max'].get(s, 0.0):.1f}" for s in BREAKDOWN)
                eff = run.get("efficiency_vs_1_rank")
                rows.append([at, f"{name} {direction}", f"{config['ranks']} x {config['threads_per_rank']}",
                             f"{run['median_ms']:.1f}", f"{run['harmonic_mean_teps'] / 1e9:.3f}",
                             "" if eff is None else f"{eff:.2f}", stages, run["roots"]])
        for name, run in peer.get("runs", {}).items():
            rows.append([at, name, f"1 x {peer['threads']}", f"{run['median_ms']:.1f}",
                         f"{run['harmonic_mean_teps'] / 1e9:.3f}", "", "", run["roots"]])
        if "error" in peer or "skipped" in peer:
            rows.append([at, "python-graphblas", "", peer.get("error") or peer.get("skipped"), "", "", "", ""])
    return [f"CPU strong scaling, {record['cores']} cores ({record.get('device', '?')}), commit "
            f"{short_commit(record['commit'])}", "", *table_lines(HEADER, rows)]


def plot(record, path):
    """Median search time a configuration (the peer beside), efficiency against ranks, and the
    stage breakdown of each configuration (the slowest rank's median seconds)."""
    from lagraph_dist.tools.plot import pyplot
    plt = pyplot()
    scales = record["scales"]
    fig, axes = plt.subplots(len(scales), 3, figsize=(16, 4.5 * len(scales)), squeeze=False)
    for row, scale in zip(axes, scales):
        names, ms, eff, stacks = [], [], [], []
        for name, config in scale["configurations"].items():
            for direction, run in config.get("runs", {}).items():
                names.append(f"{name}\n{direction}")
                ms.append(run["median_ms"])
                eff.append((config["ranks"], run.get("efficiency_vs_1_rank")))
                stacks.append(run["median_stage_seconds_max"])
        for name, run in scale.get("peer", {}).get("runs", {}).items():
            names.append(name.replace("-", "-\n", 1))
            ms.append(run["median_ms"])
        row[0].bar(range(len(ms)), ms, color=["tab:blue"] * len(stacks) + ["tab:gray"] * (len(ms) - len(stacks)))
        row[0].set_xticks(range(len(ms)), names, fontsize=7)
        row[0].set(ylabel="median ms a search", title=f"Kronecker scale {scale['scale']}, {record['cores']} cores")
        points = sorted((r, e) for r, e in eff if e is not None)
        if points:
            row[1].plot([r for r, _ in points], [e for _, e in points], "o-")
        row[1].axhline(1.0, color="gray", lw=0.8, ls="--")
        row[1].set_xscale("log", base=2)
        row[1].set(xlabel="ranks (threads per rank = cores / ranks)", ylabel="T(1 rank) / T(R ranks)",
                   title="strong-scaling efficiency against 1 rank")
        bottom = np.zeros(len(stacks))
        for stage in (*STAGES, FUSED, OUTSIDE):
            height = np.array([1e3 * s.get(stage, 0.0) for s in stacks])
            if height.any():
                row[2].bar(range(len(stacks)), height, bottom=bottom, label=stage)
                bottom += height
        row[2].set_xticks(range(len(stacks)), names[:len(stacks)], fontsize=7)
        row[2].set(ylabel="ms a search (slowest rank, median)",
                   title="where a search goes (merge: the counts' exchange)")
        row[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def drive(args):
    began = time.perf_counter()
    words = launcher(args.launcher)
    if words is None:
        sys.exit("cpu_scaling: no mpiexec or mpirun found (pip install mpich, or pass --launcher)")
    me = [sys.executable, "-m", "mpi4py", str(Path(__file__).resolve())]
    common = ["--roots", str(args.roots), "--seconds", str(args.seconds)]

    def launch(ranks, threads, *role):
        """One process group of ``ranks`` ranks of ``threads`` threads within --limit and what --total
        leaves: (part or None, why not); (None, SKIPPED) once --total is spent."""
        left = args.total - (time.perf_counter() - began)
        if left < 10:
            return None, SKIPPED
        return run_part([*words, "-n", str(ranks), *me, *role], worker_env(threads), min(args.limit, left))
    record = {"benchmark": "cpu-scaling", "cores": args.cores, "launcher": words, "scales": [],
              "efficiency_definition": "T(1 rank) / T(R ranks), the median search seconds over the roots both "
                                       "ran; every configuration on all cores (ranks x threads = cores)",
              "protocol": "seeded roots of degree > 0 (the same in every configuration), the bench warm-up "
                          "excluded, one search a root until --seconds are spent, each validated (Graph500 "
                          "rules) and its levels compared with python-graphblas's outside the clock",
              "options": {k: v for k, v in vars(args).items() if k not in ("worker", "peer", "part")}}
    log(f"cpu_scaling: {args.cores} cores, scales {args.scales}, ranks {args.ranks}; launcher {' '.join(words)}")
    started = time.perf_counter()          # fill numba's cache: no timed configuration compiles
    _, why = launch(1, args.cores, "--worker", "--scale", "8", "--roots", "1", "--seconds", "0")
    record["compile_seconds"] = time.perf_counter() - started
    if why:
        sys.exit(f"cpu_scaling: the compile run failed: {why}")
    problems = []
    for scale in args.scales:
        scale_record = {"scale": scale, "edgefactor": EDGEFACTOR, "configurations": {}}
        record["scales"].append(scale_record)
        for ranks in args.ranks:
            name, threads = plural(ranks, "rank"), max(1, args.cores // ranks)
            log(f"== scale {scale}: {name} x {plural(threads, 'thread')}")
            part, why = launch(ranks, threads, "--worker", "--scale", str(scale), *common)
            scale_record["configurations"][name] = part or {"ranks": ranks, "threads_per_rank": threads, "error": why}
            if why and why != SKIPPED:
                problems.append(f"scale {scale} {name}: {why}")
            elif part:
                record.setdefault("environment", part["environment"])
        if not args.no_peer:
            log(f"== scale {scale}: python-graphblas on {args.cores} threads")
            part, why = launch(1, args.cores, "--peer", "--scale", str(scale), *common)
            scale_record["peer"] = part or {"error": why}
        problems += summarize(scale_record)
    env = record.get("environment", {})
    record.update(device=env.get("device"), commit=code_identity()["commit"],     # the workers' package: ours
                  problems=problems, total_seconds=time.perf_counter() - began)
    path = write_record(record, args.json or RESULTS / record_file("cpu-scaling", env.get("host"), record["commit"]))
    print("\n".join(table(record)))
    print(f"record: {path}")
    picture = path.with_suffix(".png")
    try:
        plot(record, picture)
        print(f"plot: {picture}")
    except ImportError as error:
        print(f"no plot: {error}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help="the smoke test: scale 10 on 1 and 4 ranks")
    parser.add_argument("--scales", type=int, nargs="+", help=f"Kronecker scales (default {FULL['scales']})")
    parser.add_argument("--ranks", type=int, nargs="+", help=f"ranks of each configuration (default {FULL['ranks']})")
    parser.add_argument("--roots", type=int, help=f"seeded roots (default {FULL['roots']})")
    parser.add_argument("--seconds", type=float, help="timing and checking budget of a configuration's searches "
                                                      f"(default {FULL['seconds']:g})")
    parser.add_argument("--limit", type=float,
                        help=f"a configuration's process is killed after this (default {FULL['limit']:g})")
    parser.add_argument("--total", type=float, help="no configuration starts after this many seconds (default "
                                                    f"{FULL['total']:g} a scale asked for)")
    parser.add_argument("--no-peer", action="store_true", help=f"no python-graphblas ({PEER}) run")
    parser.add_argument("--launcher", help='the MPI launcher before -n (e.g. "mpirun --allow-run-as-root")')
    parser.add_argument("--json",
                        help="the record's path (default benchmarks/results/cpu-scaling-<host>-<commit>.json)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scale", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--part", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = SMALL if args.small else FULL
    for name, value in sizes.items():          # what is not given takes the size's value
        if getattr(args, name) is None:
            setattr(args, name, value * len(args.scales) if name == "total" else value)
    # this process's cores (taskset narrows them)
    args.cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return args


def main(argv=None):
    args = parse(argv)
    if args.worker:
        return worker(args)
    if args.peer:
        return peer(args)
    return drive(args)


if __name__ == "__main__":
    sys.exit(main())
