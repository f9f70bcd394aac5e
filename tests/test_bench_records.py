"""Benchmark records that can be trusted (issue 18): each fused level timed on its own, nothing
one-off inside the clock, outliers named, parts that cannot fit skipped before they allocate, a
failing peer that keeps our results, and progress that stays out of logs."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from lagraph_dist.tools import bench
from lagraph_dist.local import cpu_kernels
from lagraph_dist.algebra import levels
from lagraph_dist.tools.cli import main
from lagraph_dist.core.errors import ValidationError


@pytest.fixture(scope="module")
def kron():
    return ld.kronecker(11, edgefactor=16, seed=3, backend="cpu")


def small_config(**changes):
    settings = dict(roots=4, peers=("scipy",), peer_seconds=5.0, progress=False)
    settings.update(changes)
    return bench.BenchConfig(**settings)


# -- a search's levels by frontier size ---------------------------------------------------------
@pytest.mark.usefixtures("fused_single_searches")
def test_frontier_bands_count_each_size_of_a_mesh_search():
    """A 30 x 40 mesh searched from a corner, on the CPU: each band holds the levels whose
    frontier size falls in it, as scipy's distances count them (the number of vertices at each
    distance), and its figures are those levels' own; bands without a level are left out."""
    from lagraph_dist.io.generators import grid2d_edges
    rows, cols = 30, 40
    src, dst = grid2d_edges(rows, cols)
    A = ld.Matrix.from_edges(src, dst, rows * cols, symmetrize=True, backend="cpu")
    stats = ld.bfs(A, 0).stats
    distances = csgraph.shortest_path(A.to_scipy(), unweighted=True, indices=0).astype(int)
    sizes = np.bincount(distances)              # vertices at each distance: 1, 2, ..., 30, ..., 1
    bands = bench.frontier_bands(stats, bounds=(8, 16, 29))
    assert [(b["frontier_from"], b["frontier_to"]) for b in bands] == [(1, 8), (9, 16), (17, 29), (30, None)]
    expected = [int(((sizes >= lo) & (sizes <= (hi or sizes.max()))).sum()) for lo, hi in
                [(1, 8), (9, 16), (17, 29), (30, None)]]
    assert [b["levels"] for b in bands] == expected and sum(expected) == len(stats)
    for band in bands:
        inside = [s for s in stats if band["frontier_from"] <= s["frontier"] <= (band["frontier_to"] or 1 << 62)]
        assert band["us_mean"] == pytest.approx(1e6 * np.mean([s["seconds"] for s in inside]))
        assert band["host_reads"] == sum(s["host_reads"] for s in inside)
        assert band["launches"] == sum(s["launches"] for s in inside)
    assert [b["frontier_to"] for b in bench.frontier_bands(stats, bounds=(2, 1000))] == [2, 1000]
    assert bench.frontier_bands([]) == []


# -- each fused level's own seconds -----------------------------------------------------------
@pytest.mark.usefixtures("fused_single_searches")
def test_fused_cpu_levels_are_timed_one_by_one(kron):
    """A fused 1x1 CPU search times every level by itself: the seconds differ between levels
    and each is positive (no bound on them: a unit test asserts no timing)."""
    stats = ld.bfs(kron, 0, direction="auto").stats
    assert len(stats) >= 3 and all(s["fused"] for s in stats)
    seconds = [s["seconds"] for s in stats]
    assert all(t > 0 for t in seconds)
    # (two of a search's levels may take the same ticks: CI once read 4 distinct of 5)
    assert len(set(seconds)) > 1, "one number repeated is a total shared out, not a measure"
    assert {s["clock"] for s in stats} == {cpu_kernels.FUSED_LEVEL_CLOCK}
    # the run's launches and reads are counted where they happen, not spread over its levels
    assert all(isinstance(s["host_reads"], int) and isinstance(s["launches"], int) for s in stats)


def test_levels_as_separate_products_are_timed_by_the_host(kron):
    with levels.separate_levels():
        stats = ld.bfs(kron, 0, direction="auto").stats
    assert not any(s["fused"] for s in stats)
    assert {s["clock"] for s in stats} == {"host perf_counter"}
    expected = csgraph.breadth_first_order(kron.to_scipy(), 0, return_predecessors=False)
    assert sum(s["discovered"] for s in stats) + 1 == expected.shape[0]


def test_stage_timing_prints_each_levels_own_time(capsys):
    assert main(["bfs", "--scale", "12", "--roots", "1", "--stage-timing", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(k for k, line in enumerate(lines) if line.strip().startswith("level"))
    rows = [line.split() for line in lines[header + 1:] if line.strip()]
    # a row ends with: ms, reads, launches, and the clock ("host perf_counter")
    assert all(row[-2:] == ["host", "perf_counter"] for row in rows)
    ms = [float(row[-5]) for row in rows]
    assert len(ms) >= 3 and len(set(ms)) > 1


# -- the warm-up walks every path ------------------------------------------------------------
@pytest.mark.usefixtures("fused_single_searches")
def test_warm_up_runs_each_direction_fused_and_as_separate_products(kron, monkeypatch):
    calls = {"fused": 0, "vxm": 0, "mxv": 0}

    def counting(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(cpu_kernels, "bfs_fused", counting("fused", cpu_kernels.bfs_fused))
    planned = levels._search_plan              # (ld.bfs's one call: the plan kept with the matrix)
    monkeypatch.setattr(levels, "_search_plan", lambda *args: counting("fused", planned(*args)))
    monkeypatch.setattr(levels, "vxm", counting("vxm", levels.vxm))
    monkeypatch.setattr(levels, "mxv", counting("mxv", levels.mxv))
    root = bench.pick_roots(kron, 1, 2)[0]
    bench.warm_up(kron, root, ("push", "auto"))
    assert calls["fused"] >= 3               # push, pull and auto as the composite
    assert calls["vxm"] >= 2 and calls["mxv"] >= 1    # and as single push and pull products


def test_outliers_are_named_with_their_levels():
    seconds = [0.010, 0.011, 0.012, 0.050, 0.009]
    levels = [[{"level": 1}], [{"level": 1}], [{"level": 1}], [{"level": 1}, {"level": 2}], [{"level": 1}]]
    named = bench.outliers([5, 6, 7, 8, 9], seconds, levels)
    assert [o["root"] for o in named] == [8]
    assert named[0]["levels"] == levels[3]
    assert named[0]["times_median"] == pytest.approx(0.050 / 0.011)


def test_a_bench_record_keeps_per_root_times_and_outliers(kron):
    record = bench.run_bench(kron, {"kind": "test"}, small_config(peers=()))
    # no peer reads scipy: the level check took one rank's pattern as python-graphblas's arrays
    assert "level_check_skipped" not in record
    assert all(run["levels_checked"] >= 1 and run["levels_differ"] == [] for run in record["lagraph_dist"].values())
    for run in record["lagraph_dist"].values():
        assert len(run["seconds_per_root"]) == run["roots"] == 4
        assert len(run["level_seconds_per_root"]) == 4
        assert isinstance(run["outliers"], list)
        median = np.median(run["seconds_per_root"])
        assert {o["root"] for o in run["outliers"]} == {
            r for r, t in zip(record["roots"], run["seconds_per_root"]) if t > 3 * median}


# -- memory: parts checked before they allocate, results written as parts finish ---------------
def test_a_peer_out_of_memory_leaves_our_results_written(kron, monkeypatch, tmp_path):
    real = bench._peer_searcher

    def failing(peer, S, A, shared):
        if peer == "scipy":
            def search(root):
                raise MemoryError("fake: 16830835712 bytes")
            return search
        return real(peer, S, A, shared)

    monkeypatch.setattr(bench, "_peer_searcher", failing)
    path = tmp_path / "record.json"
    written = []

    def on_part(record):
        bench.write_json(record, path)
        written.append(set(record["lagraph_dist"]))

    record = bench.run_bench(kron, {"kind": "test"}, small_config(peers=("scipy", "graphblas-push")),
                             on_part=on_part)
    saved = json.loads(path.read_text())
    assert saved["peers"]["scipy"]["skipped"].startswith("ran out of memory")
    assert saved["peers"]["graphblas-push"]["roots"] >= 1          # the other peer went on
    for direction in ("push", "auto"):
        assert saved["lagraph_dist"][direction]["validated"] == 4
    assert written[0] == {"push"}, "our first direction is written before anything else runs"
    assert record["peers"] == saved["peers"]


def test_parts_that_cannot_fit_are_skipped_before_allocating(kron, monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "host_memory", lambda: (10_000, 10_000))

    def must_not_build(*args):
        raise AssertionError("a peer was built without room for it")

    monkeypatch.setattr(bench, "_peer_searcher", must_not_build)
    record = bench.run_bench(kron, {"kind": "test"}, small_config(peers=("scipy", "graphblas-pushpull")))
    assert "needs about" in record["level_check_skipped"]
    for peer in ("scipy", "graphblas-pushpull"):
        assert "gathered" in record["peers"][peer]["skipped"]
    assert record["lagraph_dist"]["auto"]["validated"] == 4


def test_the_cli_writes_the_json_when_a_peer_fails(monkeypatch, tmp_path, capsys):
    def failing(peer, S, A, shared):
        raise RuntimeError("a peer that breaks")

    monkeypatch.setattr(bench, "_peer_searcher", failing)
    path = tmp_path / "out.json"
    with pytest.raises(RuntimeError, match="breaks"):
        main(["bench", "--scale", "8", "--roots", "3", "--peers", "scipy", "--no-check-levels",
              "--no-progress", "--json", str(path)])
    saved = json.loads(path.read_text())
    assert set(saved["lagraph_dist"]) == {"push", "auto"}


def test_levels_that_differ_from_the_reference_raise_after_the_record(kron, monkeypatch):
    from lagraph_dist.tools import reference
    real = reference.bfs

    def shifted(graph, root, direction="push"):
        levels, parents = real(graph, root, direction=direction)
        return np.where(levels > 1, levels + 1, levels), parents

    monkeypatch.setattr(reference, "bfs", shifted)
    kept = []
    with pytest.raises(ValidationError, match="differ from python-graphblas"):
        bench.run_bench(kron, {"kind": "test"}, small_config(peers=()), on_part=kept.append)
    assert kept[-1]["lagraph_dist"]["auto"]["levels_differ"]


def test_levels_equal_to_the_reference_are_counted(kron):
    record = bench.run_bench(kron, {"kind": "test"}, small_config(peers=("graphblas-pushpull",)))
    for run in record["lagraph_dist"].values():
        assert run["levels_checked"] == 4 and run["levels_differ"] == []


# -- progress ---------------------------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_no_bars_when_stderr_is_not_a_terminal():
    stream = io.StringIO()
    progress = bench.Progress(True, 2, stream=stream)
    with progress.phase("peers"):
        list(progress.over([1, 2, 3], "scipy"))
        progress.say("scipy skipped: no room")
    progress.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    first, second = text.splitlines()
    assert first.startswith("bench: peers (at ") and first.endswith(" s)")
    assert second == "scipy skipped: no room"


def test_on_a_terminal_a_message_gets_a_line_of_its_own():
    stream = _Terminal()
    progress = bench.Progress(True, 2, stream=stream)
    with progress.phase("peers"):
        for _ in progress.over([1, 2], "scipy"):
            pass
        progress.say("scipy skipped: no room")
    progress.close()
    text = stream.getvalue()
    assert "\r" in text                               # bars were drawn
    assert any(line.split("\r")[-1] == "scipy skipped: no room" for line in text.split("\n"))


def test_the_command_line_draws_no_bar_into_a_pipe():
    done = subprocess.run([sys.executable, "-m", "lagraph_dist.tools.cli", "bench", "--scale", "7", "--roots", "2",
                           "--peers", "scipy", "--backend", "cpu"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "bench: peers" in done.stderr
    assert "| scipy |" in done.stdout


def test_plot_of_a_missing_record_is_a_file_error(tmp_path):
    from lagraph_dist.tools.plot import load_record
    with pytest.raises(ld.MissingFile, match="benchmark record"):
        load_record(tmp_path / "absent.json")
    with pytest.raises(FileNotFoundError):
        load_record(tmp_path / "absent.json")


def test_a_record_that_cannot_be_written_is_a_file_error(tmp_path):
    with pytest.raises(ld.FileError, match="write the benchmark record"):
        bench.write_json({"a": 1}, tmp_path / "no-such-folder" / "out.json")


def test_policy_settings_name_the_packages_policy_none_and_back():
    """Benchmarks' knob settings ("1,2,policy") read as ints and None (the package's policy),
    and a record names None "policy" again."""
    from lagraph_dist.tools.bench import policy_label, policy_settings
    assert policy_settings("0,1024,policy") == [0, 1024, None]
    assert [policy_label(x) for x in policy_settings("policy,2")] == ["policy", 2]
    with pytest.raises(ValueError):
        policy_settings("1,auto")


def _cpuinfo_cores() -> dict:
    """{processor: (physical id, core id)} from /proc/cpuinfo (empty where it has no core ids)."""
    cores, processor, package = {}, None, 0
    try:
        lines = open("/proc/cpuinfo").read().splitlines()
    except OSError:
        return {}
    for line in lines:
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "processor":
            processor = int(value)
        elif key == "physical id":
            package = int(value)
        elif key == "core id" and processor is not None:
            cores[processor] = (package, int(value))
    return cores


def test_records_name_the_hosts_processor():
    """A record's environment names the host's processor on either backend (the GPU machines'
    hosts differ, and so do the host-side peers' times): /proc/cpuinfo's model name where it
    has one."""
    A = ld.kronecker(6, seed=1, backend="cpu")
    named = bench.environment(A)["host_cpu"]
    try:
        models = {value.strip() for key, _, value in (line.partition(":") for line in open("/proc/cpuinfo"))
                  if key.strip() == "model name"}
    except OSError:
        models = set()
    if not models:
        pytest.skip("/proc/cpuinfo names no processor model here")
    assert named in models


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")
def test_records_name_the_cpus_and_the_physical_cores_under_them():
    """A record's environment names the process's CPUs and counts the physical cores they lie on
    as /proc/cpuinfo numbers them; a process held to one CPU has one core."""
    found = bench.cpu_affinity()
    assert found["cpus"] == sorted(os.sched_getaffinity(0))
    cores = _cpuinfo_cores()
    if not cores:
        pytest.skip("/proc/cpuinfo has no core ids here")
    assert found["physical_cores"] == len({cores[cpu] for cpu in found["cpus"]})
    one = min(found["cpus"])
    done = subprocess.run([sys.executable, "-c", f"import os, json; os.sched_setaffinity(0, {{{one}}}); "
                           "from lagraph_dist.tools.bench import cpu_affinity; print(json.dumps(cpu_affinity()))"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"cpus": [one], "physical_cores": 1}
