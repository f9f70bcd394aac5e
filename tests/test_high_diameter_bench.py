"""benchmarks/peer_bench.py's high-diameter presets on the CPU: its deep-small run writes a record whose every run was
timed and validated, with the levels a mesh and a path must have; its exact levels agree with
scipy's shortest paths over meshes built here by hand; and a wrong result does not get past it."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from helpers import edges_to_scipy, load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "peer_bench.py"
HARNESS = ROOT / "benchmarks" / "harness.py"
TIMEOUT = 300
OUR_RUNS = ("push", "auto")
PEERS = ("scipy", "graphblas-push", "graphblas-pushpull")


def run_script(*args):
    done = subprocess.run([sys.executable, str(SCRIPT), "--backend", "cpu", *map(str, args)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    return done


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """(record, stdout) of one deep-small run on the CPU."""
    out = tmp_path_factory.mktemp("high_diameter") / "quick.json"
    done = run_script("--preset", "deep-small", "--json", out)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads(out.read_text()), done.stdout


def mesh_by_hand(rows, cols):
    """A rows x cols 4-neighbour mesh, vertex (r, c) = r * cols + c, built without the generator."""
    src, dst = [], []
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                src.append(r * cols + c); dst.append(r * cols + c + 1)
            if r + 1 < rows:
                src.append(r * cols + c); dst.append((r + 1) * cols + c)
    return edges_to_scipy(src, dst, rows * cols, symmetrize=True)


def hops_from_zero(S):
    return csgraph.shortest_path(S, unweighted=True, indices=0).astype(np.int64)


# -- the quick run ------------------------------------------------------------------------------
def test_quick_record_names_the_machine_and_the_protocol(quick):
    record, _ = quick
    assert record["benchmark"] == "high-diameter"
    assert record["backend"] == record["environment"]["backend"] == "cpu"
    assert record["backend_requested"] == "cpu"
    assert record["environment"]["grid"] == [1, 1] and record["environment"]["device"]
    assert record["source"] == 0 and "max level + 1" in record["levels_definition"]
    assert record["directions"] == list(OUR_RUNS) and record["peers"] == list(PEERS)
    # whether a marked search's wide thin levels could take two threads in that process
    assert isinstance(record["two_thread_levels"], bool)
    assert record["threading_layer"] in (None, "omp", "tbb", "workqueue")


def test_quick_graphs_have_the_levels_of_a_mesh_and_a_path(quick):
    record, _ = quick
    graphs = {g["name"]: g for g in record["graphs"]}
    assert list(graphs) == ["mesh 100x100", "path 2,000"]
    # corner to opposite corner of a 100x100 mesh is 198 steps; a 2000-vertex path's end, 1999
    assert graphs["mesh 100x100"]["levels"] == 199
    assert graphs["path 2,000"]["levels"] == 2000
    assert graphs["mesh 100x100"]["nvals"] == 2 * 2 * 100 * 99
    assert graphs["path 2,000"]["nvals"] == 2 * 1999
    for graph in graphs.values():
        assert graph["expected_levels"].startswith("exact") and graph["roots"] == [0]


def test_every_run_was_timed_and_validated(quick):
    record, _ = quick
    for graph in record["graphs"]:
        runs = [graph["lagraph_dist"][d] for d in OUR_RUNS] + [graph["peers"][p] for p in PEERS]
        for run in runs:
            assert "skipped" not in run
            assert run["repeats"] == run["validated"] == len(run["seconds"]) == 1
            assert run["levels_equal"] is True
            assert run["median_ms"] == pytest.approx(1e3 * np.median(run["seconds"]))
            assert run["us_per_level"] == pytest.approx(1e3 * run["median_ms"] / graph["levels"])


def test_our_runs_carry_their_per_level_figures(quick):
    record, _ = quick
    for graph in record["graphs"]:
        for direction in OUR_RUNS:
            stats = graph["lagraph_dist"][direction]["stats"]
            assert stats["levels"] == graph["levels"]      # one product a level, the last finds nothing
            assert 0 <= stats["fused_levels"] <= stats["levels"]
            assert stats["push_levels"] + stats["pull_levels"] == stats["levels"]
            assert stats["host_reads"] == 0 and stats["host_reads_per_level"] == 0    # CPU backend
            assert 0 < stats["seconds"] <= 1e-3 * graph["lagraph_dist"][direction]["median_ms"]
        assert graph["lagraph_dist"]["push"]["stats"]["pull_levels"] == 0


def test_ratios_are_each_peers_time_over_ours(quick):
    record, _ = quick
    for graph in record["graphs"]:
        assert set(graph["ratios"]) == set(PEERS)
        for peer, versus in graph["ratios"].items():
            for direction in OUR_RUNS:
                expected = graph["peers"][peer]["median_ms"] / graph["lagraph_dist"][direction]["median_ms"]
                assert versus[direction] == pytest.approx(expected)


def test_quick_prints_one_table_row_per_run(quick):
    record, out = quick
    rows = [line for line in out.splitlines() if line.startswith("| mesh") or line.startswith("| path")]
    assert len(rows) == len(record["graphs"]) * (len(OUR_RUNS) + len(PEERS))
    assert "| graph | levels | run | ms / BFS (median) | us / level |" in out
    assert all(row.split("|")[-3].strip() == "1/1" for row in rows)                  # validated
    engines = [row.split("|")[-2].strip() for row in rows]            # ours: what ran the levels; peers: none
    ours = ["cpu" if run == "pull" else "queue" for run in OUR_RUNS]  # (small graphs: the queue search may push)
    assert engines == (ours + ["-"] * len(PEERS)) * len(record["graphs"])


def test_sizes_and_runs_come_from_the_options(tmp_path):
    out = tmp_path / "thin.json"
    done = run_script("--preset", "deep-small", "--graphs", "mesh:3x40", "--directions", "push",
                      "--peers", "scipy", "--repeats", "2", "--json", out)
    assert done.returncode == 0, done.stderr[-4000:]
    (graph,) = json.loads(out.read_text())["graphs"]
    assert (graph["name"], graph["levels"]) == ("mesh 3x40", 42)
    assert list(graph["lagraph_dist"]) == ["push"] and list(graph["peers"]) == ["scipy"]
    assert graph["lagraph_dist"]["push"]["validated"] == 2


@pytest.mark.parametrize("args,message", [
    (("--graphs", "mesh:0x5"), "a mesh is mesh:ROWSxCOLS with both at least 1"),
    (("--graphs", "mesh:4by4"), "a mesh is mesh:ROWSxCOLS with both at least 1"),
    (("--graphs", "path:1"), "'1' is not a whole number of at least 2"),
    (("--repeats", "0"), "is not a whole number of at least 1"),
    (("--graphs",), "expected at least one argument"),
    (("--preset", "tall"), "invalid choice: 'tall'")])
def test_bad_options_are_refused(args, message):
    done = run_script("--preset", "deep-small", *args)
    assert done.returncode == 2 and message in done.stderr


# -- the pieces the record rests on ---------------------------------------------------------------
@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 9), (7, 1), (7, 13), (12, 5)])
def test_exact_mesh_levels_are_scipys_shortest_paths(rows, cols):
    script = load_script(SCRIPT)
    expected = script.exact_levels(script.parse_spec(f"mesh:{rows}x{cols}"))
    assert np.array_equal(expected, hops_from_zero(mesh_by_hand(rows, cols)))


def test_exact_path_levels_are_scipys_shortest_paths():
    script = load_script(SCRIPT)
    n = 37
    S = edges_to_scipy(np.arange(n - 1), np.arange(1, n), n, symmetrize=True)
    assert np.array_equal(script.exact_levels(script.parse_spec(f"path:{n}")), hops_from_zero(S))


def test_a_wrong_level_is_named():
    harness = load_script(HARNESS)
    expected = np.arange(6)
    wrong = expected.copy()
    wrong[4] = 2
    with pytest.raises(ld.ValidationError, match="vertex 4 is at level 2, expected 4"):
        harness.require_levels("someone", wrong, expected)


def test_a_bad_scipy_tree_fails_validation():
    """scipy's tree passes with the exact levels, and a predecessor that is no edge does not."""
    script, harness = load_script(SCRIPT), load_script(HARNESS)
    rows, cols = 4, 6
    S = mesh_by_hand(rows, cols)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    expected = script.exact_levels(script.parse_spec(f"mesh:{rows}x{cols}"))
    _, predecessors = csgraph.breadth_first_order(S, 0, return_predecessors=True)
    parents = harness.scipy_parents(predecessors, 0)
    assert parents[0] == 0 and (parents >= 0).all()
    ld.validate(A, 0, expected, parents)
    far = rows * cols - 1                    # the opposite corner: level rows + cols - 2
    parents[far] = far - cols - 1            # two levels up and not a neighbour
    with pytest.raises(ld.ValidationError):
        ld.validate(A, 0, expected, parents)
