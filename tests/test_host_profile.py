"""benchmarks/host_profile.py on the CPU: its record holds the call split at the backend's fused
run, with the level count of the search it timed (against scipy's), and the backend's function is
the same object after the split as before it (the engine reads its attributes)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "host_profile.py"


def test_a_cpu_record_splits_the_call_at_the_backend_run(tmp_path):
    out = tmp_path / "host.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "kron:8", "--backend", "cpu", "--calls", "20", "--lines", "0",
                           "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads(out.read_text())
    assert (record["benchmark"], record["backend"], record["graph"]) == ("host_profile", "cpu", "kron:8")
    split = record["split_us"]
    assert set(split) == {"call", "engine (outside the backend call)", "backend call",
                          "backend call less the levels' own"}
    assert all(value > 0 for name, value in split.items() if name != "backend call less the levels' own")
    assert split["engine (outside the backend call)"] < split["call"] and split["backend call"] < split["call"]
    assert record["timeline_us"] == {} and record["timeline_calls"] == 0      # the timeline is the GPU's
    # the levels it reports are those of a search of the same graph from its last root, by scipy
    A = ld.kronecker(8, backend="cpu")
    roots = [int(v) for v in A.out_degree().indices()[:8]]
    depths = csgraph.shortest_path(A.to_scipy(), unweighted=True, indices=roots[(record["calls"] - 1) % len(roots)])
    assert record["levels"] == int(np.max(depths[np.isfinite(depths)])) + 1


def test_the_split_restores_the_backend_function(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))         # (it imports gpu_quick beside it)
    script = load_script(SCRIPT)
    A = ld.kronecker(6, backend="cpu")
    kernels = A.backend.kernels
    before = kernels.bfs_fused
    split = script.backend_split(A, [int(v) for v in A.out_degree().indices()[:2]], 4)
    assert kernels.bfs_fused is before and before.max_levels is None
    assert split["call"] >= split["engine (outside the backend call)"]


def test_host_ab_records_both_sides_round_by_round(tmp_path):
    """host_ab.py against a base tree (here this checkout itself, so no worktree and no compile):
    every round's figures on both sides, and each ratio the head's median over the base's."""
    out = tmp_path / "ab.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "host_ab.py"), "kron:6", "--base-tree", str(ROOT),
                           "--base-name", "itself", "--rounds", "2", "--calls", "5", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads(out.read_text())
    assert (record["benchmark"], record["base"], record["rounds"]) == ("host_ab", "itself", 2)
    for side in ("base", "head"):
        rounds = record["rounds_us"][side]
        assert len(rounds) == 2 and set(rounds[0]) == set(record["ratios"])
        for name, median in record["medians_us"][side].items():
            assert median == float(np.median([r[name] for r in rounds]))
    for name, ratio in record["ratios"].items():
        assert ratio == record["medians_us"]["head"][name] / record["medians_us"]["base"][name]


def test_the_cpu_stage_timeline_follows_the_engine_and_restores_it(monkeypatch, capsys):
    """The stage timeline runs on the CPU backend too (the engine is the same Python as on one
    GPU): its stages come in the call's order, and every wrapped function is itself again after."""
    import importlib
    from lagraph_dist.algebra import levels
    from lagraph_dist.algebra.vector import Vector
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    script = load_script(SCRIPT)
    bfs_module = importlib.import_module("lagraph_dist.algorithms.bfs")
    before = (Vector.__dict__["_unset"], levels._fused_levels, bfs_module.repeat_masked_vxm)
    A = ld.kronecker(6, backend="cpu")
    script.stages(A, [int(v) for v in A.out_degree().indices()[:2]], 4)
    printed = capsys.readouterr().out
    order = [printed.index(mark) for mark in ("in  _unset#0", "in  repeat_masked_vxm#0", "in  _fused_levels#0",
                                              "in  _run#0", "out _fused_levels#0", "out call#0")]
    assert order == sorted(order), printed
    assert (Vector.__dict__["_unset"], levels._fused_levels, bfs_module.repeat_masked_vxm) == before
