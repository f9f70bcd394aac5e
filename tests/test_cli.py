"""The command line as a newcomer meets it: help, version, clear errors, the bfs report and its
saved arrays, the bench table and JSON, and one error message under mpiexec."""
import importlib.metadata
import json
import textwrap
import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from lagraph_dist.tools import bench
from lagraph_dist.algebra import memory
from lagraph_dist.tools.cli import build_parser

from helpers import needs_mpi, run_cli as run, run_mpi


def subcommands(parser):
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return action.choices


# -- help and version -------------------------------------------------------------------------
def test_version(capsys):
    """The installed version, then the commit of the checkout the package is imported from
    (tests/test_code_identity.py checks where that commit comes from)."""
    status, out, _ = run(capsys, "--version")
    assert status == 0
    assert out.startswith(f"lagraph-dist {importlib.metadata.version('lagraph-dist')} (commit ")


def test_every_option_shows_its_default_and_every_command_an_example():
    parser = build_parser()
    commands = subcommands(parser)
    assert set(commands) == {"bfs", "bench", "generate", "plot", "check", "estimate"}
    top = parser.format_help()
    for name in commands:
        assert name in top
    for name, sub in commands.items():
        text = sub.format_help()
        assert sub.description and "examples:" in text and f"lagraph-dist {name} " in text
        formatter = sub._get_formatter()
        for action in sub._actions:
            if not action.option_strings or action.dest == "help":
                continue
            shown = formatter._expand_help(action)
            assert action.help, f"{name} {action.option_strings} has no help"
            assert "default" in shown, f"{name} {action.option_strings}: {shown!r}"


# -- clear errors -----------------------------------------------------------------------------
@pytest.mark.parametrize("argv, expected", [
    (["bench", "--scale", "6", "--roots", "0"], "argument --roots: must be a positive integer, got '0'"),
    (["bfs", "--scale", "6", "--roots", "-3"], "argument --roots: must be a positive integer"),
    (["bench", "--scale", "6", "--peers", "igraph"], "unknown peer 'igraph'"),
    (["bench", "--scale", "6", "--peers", "networkx"], "--peers networkx: not a peer of the search"),
    (["bench", "--scale", "6", "--algorithm", "bc", "--peers", "scipy"], "not a peer of --algorithm bc"),
    (["bench", "--scale", "6", "--algorithm", "apsp"], "invalid choice: 'apsp'"),
    (["bench", "--scale", "6", "--directions", "sideways"], "unknown direction 'sideways'"),
    (["bfs", "--scale", "6", "--grid", "2y2"], "grid must look like RxC"),
])
def test_bad_arguments_are_named(capsys, argv, expected):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert expected in err and "Traceback" not in err and "list index" not in err


def test_pick_roots_refuses_no_roots():
    A = ld.kronecker(6, backend="cpu")
    with pytest.raises(ld.InvalidValue, match="positive integer"):
        bench.pick_roots(A, 0, seed=2)
    empty = ld.Matrix.from_edges([], [], 40, backend="cpu")
    with pytest.raises(ld.InvalidValue, match="no vertex"):
        bench.pick_roots(empty, 4, seed=2)


def test_scale_40_on_the_cpu_fails_at_once(capsys):
    """The command stops at the memory estimate: nothing built (tracemalloc, which sees numpy's
    buffers, saw a few MiB at most; one generator chunk's source ids alone are 256 MiB), no search
    run or reported, and the message gives the estimate's own total."""
    estimate = ld.estimate_memory(1 << 40, 2 * 16 << 40, backend="cpu", symmetric=True)
    tracemalloc.start()
    try:
        status, out, err = run(capsys, "bfs", "--scale", "40", "--backend", "cpu")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 24
    assert status == 2 and out == ""
    assert f"needs about {memory.format_bytes(estimate.total)} of host memory" in err
    assert err.startswith("lagraph-dist: error: a scale-40 Kronecker graph")
    assert "needs about" in err and "of host memory, but only" in err and "are free" in err


def test_a_root_given_twice(capsys):
    status, _, err = run(capsys, "bfs", "--scale", "6", "--root", "3", "--root", "3")
    assert status == 2 and "given twice" in err


# -- bfs: the report and the saved arrays ------------------------------------------------------
def scipy_levels(S, source):
    dist = csgraph.shortest_path(S, unweighted=True, indices=source)
    return np.where(np.isinf(dist), -1, dist).astype(np.int64)


def test_bfs_report_and_saved_arrays(capsys, tmp_path):
    out_file = tmp_path / "result.npz"
    status, out, err = run(capsys, "bfs", "--scale", "9", "--seed", "4", "--root", "3", "--root", "17",
                           "--out", str(out_file))
    assert status == 0, err
    S = ld.kronecker(9, seed=4, backend="cpu").to_scipy()
    lines = out.splitlines()
    for key, value in [("graph", "Kronecker scale 9, edge factor 16, seed 4"), ("n", "512 vertices"),
                       ("edges", f"{S.nnz:,} stored (directed) edges, symmetric"),
                       ("grid", "1x1 (1 rank)"), ("backend", "cpu (asked for auto)")]:
        assert f"{key:<9} {value}" in lines, (key, out)
    assert any(line.startswith("device ") and len(line.split()) > 1 for line in lines)
    assert any(line.startswith("built in  ") and line.endswith(" s") for line in lines)

    saved = np.load(out_file)
    assert sorted(saved.files) == ["levels_17", "levels_3", "parents_17", "parents_3", "roots"]
    assert saved["roots"].tolist() == [3, 17]
    for root in (3, 17):
        levels, parents = saved[f"levels_{root}"], saved[f"parents_{root}"]
        np.testing.assert_array_equal(levels, scipy_levels(S, root))
        reached = np.flatnonzero((levels > 0))
        assert parents[root] == root
        assert np.all(S[parents[reached], reached] != 0)           # tree edges are edges
        np.testing.assert_array_equal(levels[parents[reached]], levels[reached] - 1)
        depth = int(levels.max())
        header = (f"root {root}: reached {int((levels >= 0).sum()):,} vertices in {depth} levels, ")
        (line,) = [x for x in lines if x.startswith(header)]
        assert line.endswith("ms, validated (Graph500 rules)")
        table = lines[lines.index(line) + 1:]
        assert table[0].split()[:3] == ["level", "dir", "frontier"]
        discovered = [int(row.split()[3]) for row in table[1:depth + 2]]
        assert discovered == np.bincount(levels[levels > 0], minlength=depth + 2)[1:].tolist()


# -- estimate: the memory each rank needs -----------------------------------------------------
def estimate_table(out):
    """{name: bytes} of the estimate's rows, and the GiB each row also shows."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if line.startswith("  ") and len(parts) >= 5 and parts[2] == "B" and parts[4] == "GiB":
            nbytes = int(parts[1].replace(",", ""))
            assert float(parts[3].replace(",", "")) == pytest.approx(nbytes / 2**30, abs=0.006), line
            rows[parts[0]] = nbytes
    return rows


@pytest.mark.parametrize("argv, n, nvals, grid, backend", [
    (["--scale", "30", "--grid", "8x8"], 1 << 30, 32 << 30, (8, 8), "gpu"),
    (["--scale", "20", "--backend", "cpu", "--edgefactor", "8"], 1 << 20, 16 << 20, (1, 1), "cpu"),
    (["--scale", "26", "--grid", "2x4", "--backend", "gpu"], 1 << 26, 32 << 26, (2, 4), "gpu"),
])
def test_estimate_prints_the_estimate_per_rank(capsys, argv, n, nvals, grid, backend):
    status, out, err = run(capsys, "estimate", *argv)
    assert status == 0, err
    expected = ld.estimate_memory(n, nvals, grid_shape=grid, backend=backend, symmetric=True)
    assert estimate_table(out) == {"graph": expected.graph, "search": expected.search,
                                   "construction": expected.construction, "peak": expected.total}
    assert f"n = {n:,} vertices, at most {nvals:,} stored edges" in out
    assert f"{grid[0]}x{grid[1]} grid ({grid[0] * grid[1]} rank" in out and f"{backend} backend" in out


def test_estimate_with_sources(capsys):
    status, out, err = run(capsys, "estimate", "--scale", "22", "--sources", "100")
    assert status == 0, err
    rows = estimate_table(out)
    assert rows["bfs_multi"] == memory.multi_search_bytes(1 << 22, 32 << 22, backend="gpu", width=64,
                                                           sources=100, symmetric=True)
    assert "100 sources beside the graph, batches of 64" in out


def test_estimate_matches_what_the_constructor_checks():
    """The CPU build of a scale-12 graph fits in what the estimate prints for it."""
    import tracemalloc
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        ld.kronecker(12, backend="cpu")
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert peak <= ld.estimate_memory(1 << 12, 32 << 12, backend="cpu", symmetric=True).construction


@pytest.mark.parametrize("argv, expected", [
    (["estimate"], "the following arguments are required: --scale"),
    (["estimate", "--scale", "0"], "argument --scale/-g: must be a positive integer"),
    (["estimate", "--scale", "20", "--grid", "3"], "grid must look like RxC"),
    (["estimate", "--scale", "20", "--backend", "tpu"], "invalid choice: 'tpu'"),
])
def test_estimate_bad_arguments(capsys, argv, expected):
    status, _, err = run(capsys, *argv)
    assert status == 2 and expected in err


# -- bench: the table and the record ----------------------------------------------------------
def test_bench_table_and_record(capsys, tmp_path):
    record_file = tmp_path / "bench.json"
    status, out, err = run(capsys, "bench", "--scale", "8", "--roots", "4", "--peers", "scipy,cupyx-naive",
                           "--json", str(record_file), "--no-progress")
    assert status == 0, err
    record = json.loads(record_file.read_text())
    assert record["backend"] == "cpu" == record["environment"]["backend"]
    assert record["backend_requested"] == "auto"
    assert len(record["roots"]) == 4
    for run_ in record["lagraph_dist"].values():
        assert run_["validated"] == run_["roots"] == 4 and run_["levels_checked"] == 4
    assert record["peers"]["scipy"]["roots"] == 4 and record["peers"]["scipy"]["agrees_with_ours"]
    assert record["peers"]["cupyx-naive"]["skipped"].startswith("needs CuPy")
    assert "lagraph_dist/cupyx-naive" not in record["ratios"]

    assert f"n = 256 vertices, {record['nvals']:,} stored edges" in out
    assert f"device: {record['environment']['device']}; backend: cpu (asked for auto)" in out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "4/4 Graph500 rules, levels = python-graphblas on 4" in rows["lagraph_dist cpu push"]
    assert "| 4 | reached the same edges as ours |" in rows["scipy"]
    assert "skipped: needs CuPy" in rows["cupyx-naive"]
    assert "peers ran the first" not in out


def test_bench_says_when_the_peers_ran_fewer_roots(capsys):
    status, out, err = run(capsys, "bench", "--scale", "7", "--roots", "5", "--peer-roots", "2",
                           "--peers", "scipy", "--no-check-levels", "--no-progress")
    assert status == 0, err
    assert "scipy ran the first 2 roots of our 5." in out


def test_progress_covers_graph_construction(capsys):
    status, _, err = run(capsys, "bench", "--scale", "6", "--roots", "2", "--peers", "none",
                         "--directions", "push")
    assert status == 0
    assert "building the graph" in err and "bfs push" in err


def test_naive_peer_is_skipped_past_int32(monkeypatch):
    """cupyx.scipy.sparse holds < 2**31 entries: the peer is skipped with the reason, not
    crashed on (as it was at scale 27)."""
    monkeypatch.setattr(bench, "gpu_status", lambda: (True, None))
    A = SimpleNamespace(nvals=2**31, symmetric=True, n=2**27)
    config = bench.BenchConfig(peers=("cupyx-naive",))
    peers, _ = bench._peer_runs(None, [0], config, A, bench.Progress(False, 0), np.ones(4, dtype=np.int64), {})
    assert set(peers) == {"cupyx-naive"}
    assert "int32" in peers["cupyx-naive"]["skipped"] and str(2**31) in peers["cupyx-naive"]["skipped"]


# -- under mpiexec ----------------------------------------------------------------------------
MPI_SCRIPT = textwrap.dedent("""
    import sys
    from mpi4py import MPI
    from lagraph_dist.tools.cli import main
    rank = MPI.COMM_WORLD.Get_rank()
    for name, argv in [("big", ["bfs", "--scale", "40", "--backend", "cpu"]),
                       ("zero", ["bench", "--scale", "6", "--roots", "0"]),
                       ("small", ["bfs", "--scale", "8", "--roots", "1"]),
                       ("estimate", ["estimate", "--scale", "30", "--grid", "8x8"])]:
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
        sys.stdout.flush(); sys.stderr.flush()
        MPI.COMM_WORLD.Barrier()
        print(f"{name} rank {rank} exit {status}", flush=True)
""")


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(180)
def test_under_mpiexec_rank_0_speaks_and_every_rank_fails(tmp_path):
    script = tmp_path / "cli_mpi.py"
    script.write_text(MPI_SCRIPT)
    done = run_mpi(2, script, timeout=150)
    report = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    for rank in (0, 1):
        assert f"big rank {rank} exit 2" in done.stdout, report
        assert f"zero rank {rank} exit 2" in done.stdout, report
        assert f"small rank {rank} exit 0" in done.stdout, report
        assert f"estimate rank {rank} exit 0" in done.stdout, report
    assert done.stdout.count("Kronecker scale 30, edge factor 16") == 1, report
    assert done.stderr.count("lagraph-dist: error:") == 1, report
    assert "on each of the 2 ranks sharing it" in done.stderr
    assert done.stderr.count("argument --roots: must be a positive integer") == 1, report
    assert done.stdout.count("graph     Kronecker scale 8") == 1, report
    assert "grid      1x2 (2 ranks)" in done.stdout
