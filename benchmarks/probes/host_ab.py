"""One ld.bfs call's host time, this tree against another commit, in alternating processes on
the same machine: ``benchmarks/probes/host_profile.py`` (this tree's script) runs ``--rounds`` times on
each side in turn, its package taken from this tree or from a worktree of ``--base``, so that
both sides see the same load on a noisy machine. The record keeps every round's medians and,
per figure, the median over the rounds of each side and their ratio.

    python3 benchmarks/probes/host_ab.py kron:10 --base 272fea6 [--backend cpu] [--rounds 5] [--calls 2000] [--cpus 2,3]
        [--json out.json]
    python3 benchmarks/probes/host_ab.py kron:20 --base-tree .old --base-name 272fea6 --backend gpu

``--base-tree`` takes the base from a folder holding its checkout instead (a device copy has no
history to make a worktree from: carry the base's tree as an ignored folder, as device.sh's
``.old``), ``--base-name`` naming its commit in the record. A folder given as a tree is put
first on PYTHONPATH: on the GPU give installed copies (``pip install --target``), which hold
the CUDA sources as the package's ``lagraph_dist.kernels``, for both sides (``--head-tree``
for this one; device.sh's ``host-ab`` stage does so).

The figures are host_profile's: the call, the levels' own time, and the call split at the
backend's fused run (the engine's Python outside it; the backend call less its levels' own
time). ``--base`` must be a commit whose package host_profile.py can drive (harness.py's
``build`` and ``lagraph_dist.tools.bench.device_name``: any since the fused run took a source).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(os.path.dirname(HERE))      # the checkout (this script is in benchmarks/probes/)


def git(*args, cwd=TREE):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def commit_of(tree):
    """The short commit of a checkout, or LAGRAPH_DIST_COMMIT where it has no history (a device copy)."""
    try:
        return git("rev-parse", "--short", "HEAD", cwd=tree)
    except (subprocess.CalledProcessError, OSError):
        return os.environ.get("LAGRAPH_DIST_COMMIT", "unknown")


def uncommitted(tree):
    """Whether a checkout's tracked files differ from its HEAD (False where it has no history)."""
    try:
        return bool(git("status", "--porcelain", "--untracked-files=no", cwd=tree))
    except (subprocess.CalledProcessError, OSError):
        return False


def profile(tree, commit, args, out):
    """host_profile.py on ``tree``'s package (its record naming ``commit``); returns its record."""
    path = os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path, LAGRAPH_DIST_COMMIT=commit)
    pinned = (lambda: os.sched_setaffinity(0, args.cpus)) if args.cpus else None
    done = subprocess.run([sys.executable, os.path.join(HERE, "host_profile.py"), args.graph, "--backend",
                           args.backend, "--calls", str(args.calls), "--lines", "0", "--json", out],
                          env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, preexec_fn=pinned)
    if done.returncode:
        raise SystemExit(f"host_profile.py failed on {tree} ({commit}):\n{(done.stdout + done.stderr)[-3000:]}")
    with open(out) as handle:
        return json.load(handle)


def _cpu_list(text):
    """CPU ids from ``2,3`` or ``2-5`` (or both: ``0,4-6``), each one this process may use."""
    cpus = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    allowed = os.sched_getaffinity(0)
    if not cpus <= allowed:
        raise argparse.ArgumentTypeError(f"CPUs {sorted(cpus - allowed)} are not among this process's {sorted(allowed)}")
    return cpus


def figures(record):
    """The figures compared: the call, the levels' own time, the split's parts and, on the GPU,
    the timeline's parts (the host time beyond the kernel among them) (us)."""
    return {"call": record["call_us"], "levels' own": record["levels_own_us"], **record["split_us"],
            **{f"timeline: {part}": value for part, value in record.get("timeline_us", {}).items()}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    base = parser.add_mutually_exclusive_group(required=True)
    base.add_argument("--base", help="the commit to compare this tree against (a worktree of it is made)")
    base.add_argument("--base-tree", help="a folder holding the base's checkout, instead of --base")
    parser.add_argument("--base-name", help="with --base-tree: the base's commit, for the record")
    parser.add_argument("--head-tree", default=TREE,
                        help="the folder this side's package is imported from (default: this checkout)")
    parser.add_argument("--backend", choices=("gpu", "cpu"), default="cpu")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--cpus", type=_cpu_list, default=None,
                        help="run every round's process on these CPUs (e.g. 2,3 or 2-5): both sides on the same "
                             "cores, which the scheduler would otherwise pick anew for each process")
    parser.add_argument("--json", help="write the record to this file")
    args = parser.parse_args()
    if uncommitted(TREE):
        print("note: this tree has uncommitted changes; its side is the working tree, not HEAD", file=sys.stderr)
    with tempfile.TemporaryDirectory() as scratch:
        base_tree = os.path.abspath(args.base_tree) if args.base_tree else os.path.join(scratch, "base")
        if not args.base_tree:
            git("worktree", "add", "--detach", base_tree, args.base)
        names = {"base": git("rev-parse", "--short", args.base) if args.base else (args.base_name or "unnamed"),
                 "head": commit_of(args.head_tree)}
        try:
            rounds = {"base": [], "head": []}
            for k in range(args.rounds):
                for side, tree in (("base", base_tree), ("head", args.head_tree)):
                    record = profile(tree, names[side], args, os.path.join(scratch, f"{side}-{k}.json"))
                    rounds[side].append(figures(record))
                    print(f"round {k + 1} {side}: " + ", ".join(f"{name} {value:.1f}"
                                                               for name, value in rounds[side][-1].items()), flush=True)
            device = record["device"]
        finally:
            if not args.base_tree:
                git("worktree", "remove", "--force", base_tree)
    medians = {side: {name: float(np.median([r[name] for r in rows])) for name in rows[0]}
               for side, rows in rounds.items()}
    # (a figure the base has at zero, a split part that a small graph's search does not reach, has no ratio)
    ratios = {name: medians["head"][name] / medians["base"][name] if medians["base"][name] else None
              for name in medians["base"]}
    print(f"{'figure (us, median of round medians)':44s} {'base':>9s} {'head':>9s} {'head/base':>9s}")
    for name, ratio in ratios.items():
        shown = "-" if ratio is None else f"{ratio:.3f}"
        print(f"{name:44s} {medians['base'][name]:9.1f} {medians['head'][name]:9.1f} {shown:>9s}")
    if args.json:
        # base and head name the two trees compared (git in each); write_json adds the code of the
        # package this script imports (loaded only now: MPI starts with it, after the rounds' processes)
        from lagraph_dist.tools.bench import write_json
        record = {"benchmark": "host_ab", "graph": args.graph, "backend": args.backend, "calls": args.calls,
                  "rounds": args.rounds, "device": device, "cpu_count": os.cpu_count(),
                  "cpus": sorted(args.cpus) if args.cpus else None,
                  "base": names["base"], "head": names["head"], "commit": names["head"],
                  "head_dirty": uncommitted(TREE),
                  "medians_us": medians, "ratios": ratios, "rounds_us": rounds}
        write_json(record, args.json)


if __name__ == "__main__":
    main()
