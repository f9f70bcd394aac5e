"""benchmarks/peer_bench.py (its cpu preset) at tiny sizes: its record names the machine, every run of ours and of
the peers was timed and checked on the same roots, the construction was timed beside scipy's,
the per-level figures are kept, and results_report.py makes its table from the record."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "peer_bench.py"
TIMEOUT = 600
GRAPHS = ("kron:7", "mesh:6x5", "path:40", "road:60")
NAMES = ["Kronecker 7", "mesh 6x5", "path 40", "road 60 (k=3)"]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """(record, its path, stdout) of one tiny run."""
    out = tmp_path_factory.mktemp("cpu_bench") / "cpu-test-0000000.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--graphs", *GRAPHS, "--roots", "2", "--repeats", "2",
                           "--peer-repeats", "1", "--build-repeats", "1", "--io", "--json", str(out)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads(out.read_text()), out, done.stdout


def test_the_record_names_the_machine_and_the_runs(small):
    record, _, stdout = small
    env = record["environment"]
    assert record["benchmark"] == "cpu" and record["backend"] == env["backend"] == "cpu"
    assert env["grid"] == [1, 1] and env["device"] and env["host"] and env["commit"] is not None
    assert record["threads"] >= 1 and record["numba"]
    assert record["directions"] == ["auto", "push", "pull"]
    assert [g["name"] for g in record["graphs"]] == NAMES
    for name in NAMES:
        assert f"| {name} |" in stdout


def test_every_run_was_timed_and_checked_on_the_same_roots(small):
    record, _, _ = small
    for graph in record["graphs"]:
        roots = graph["roots"]
        assert len(roots) == (2 if graph["kind"] == "kronecker" else 1)
        assert len(graph["reached"]) == len(roots) and graph["levels"] >= 2
        expected_runs = {"auto", "push", "pull"} if graph["kind"] in ("kronecker", "mesh") else {"auto", "push"}
        assert set(graph["lagraph_dist"]) == expected_runs
        for run in graph["lagraph_dist"].values():
            assert run["roots"] == len(roots) and run["validated"] == len(run["seconds"]) == 2 * len(roots)
            assert run["levels_equal"] and run["median_ms"] > 0
            assert run["stats"]["levels"] >= 2 and run["stats"]["fused_levels"] == run["stats"]["levels"]
            assert len(run["stats"]["per_level"]) == run["stats"]["levels"]
        if "pull" not in expected_runs:
            assert "pull" in graph["not_run"]
        for peer, run in graph["peers"].items():
            if "skipped" in run:            # python-graphblas not installed
                assert peer.startswith("graphblas")
                continue
            assert run["validated"] == len(run["seconds"]) >= len(roots) and run["levels_equal"]
            assert set(graph["ratios"][peer]) == expected_runs
        assert "scipy" in graph["peers"]


def test_construction_is_timed_beside_scipys(small):
    record, _, _ = small
    for graph in record["graphs"]:
        build = graph["construction"]
        for kind in ("from_edges", "scipy_csr", "from_scipy", "scipy_tocsr", "from_mtx", "scipy_mmread"):
            assert build[kind]["median_ms"] > 0 and len(build[kind]["seconds"]) == 1, kind
        assert build["edges"] > 0


def test_the_results_report_makes_its_table(small, tmp_path):
    record, path, _ = small
    report = load_script(ROOT / "benchmarks" / "results_report.py")
    (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "cpu-other-0000000.json").write_text(json.dumps(record | {"benchmark": "other"}))
    table = report.results_cpu_peers(tmp_path)
    assert "cpu-other-0000000.json" not in table          # a cpu-*.json of another benchmark is not tabled
    for graph in record["graphs"]:
        assert f"| {graph['name']} | {graph['levels']:,} |" in table
    assert f"`{path.name}`" in table and "scipy / ours auto" in table
    assert report.what_is(record).startswith("CPU benchmark")
    assert "No record yet" in report.results_cpu_peers(tmp_path / "empty")


def test_the_default_name_holds_the_host_and_the_commit():
    harness = load_script(ROOT / "benchmarks" / "harness.py")
    assert harness.record_file("cpu", "My Box.local", "0123456789abcdef") == "cpu-my-box-local-0123456.json"
