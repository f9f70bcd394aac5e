"""benchmarks/bfs_extras.py runs on the CPU at small scales (one process and under mpiexec),
writes its record, and its checks catch wrong results."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import lagraph_dist as ld
from helpers import needs_mpi, run_mpi

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bfs_extras.py"


@pytest.fixture(scope="module")
def extras():
    spec = importlib.util.spec_from_file_location("bfs_extras", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SMALL = ["--backend", "cpu", "--multi-scale", "9", "--depth-scale", "10", "--sources", "12",
         "--roots", "3", "--repeats", "2"]


def test_small_run_and_its_record(extras, tmp_path):
    out = tmp_path / "extras.json"
    record = extras.main(SMALL + ["--json", str(out)])
    assert json.loads(out.read_text())["multi_source"]["sources"] == 12
    multi = record["multi_source"]
    assert multi["graph"]["scale"] == 9 and len(multi["roots"]) == 12 and multi["batches"] == [12]
    assert len(multi["bfs_multi_seconds"]) == 2 and [len(r) for r in multi["single_seconds"]] == [12, 12]
    assert multi["validated"] == 12 + 2 * 12 and multi["levels_equal_single"]
    assert multi["speedup"] == pytest.approx(np.median([sum(r) for r in multi["single_seconds"]])
                                             / np.median(multi["bfs_multi_seconds"]))
    depth = record["depth_limit"]
    assert depth["graph"]["scale"] == 10 and depth["checked"] == 3 and depth["depth_limit"] == 2
    assert len(depth["full_seconds"]) == len(depth["limited_seconds"]) == 3
    assert 0 < depth["time_ratio"]
    assert record["environment"]["backend"] == "cpu" and record["environment"]["commit"]
    assert record["device"]


def test_the_checks_catch_wrong_results(extras):
    # 0 -> 1 -> 2 -> 5 and 0 -> 3 -> 4
    A = ld.Matrix.from_edges([0, 1, 2, 0, 3], [1, 2, 5, 3, 4], 6, backend="cpu")
    assert extras.tree_edges_exist(A, np.array([0, 1, 3]), np.array([1, 2, 4]))
    assert not extras.tree_edges_exist(A, np.array([0, 2]), np.array([1, 1]))
    full = ld.bfs(A, 0).levels.to_numpy()
    limited = ld.bfs(A, 0, depth_limit=2)
    extras.check_limited(A, 0, full, limited, 2)
    with pytest.raises(AssertionError, match="levels differ"):
        extras.check_limited(A, 0, full, limited, 3)
    limited.parents = ld.Vector.from_indices([0, 1, 3, 2, 4], 6, values=np.array([0, 0, 0, 1, 1]),
                                             backend="cpu")           # 1 -> 4 is no edge
    with pytest.raises(AssertionError, match="not an edge"):
        extras.check_limited(A, 0, full, limited, 2)


@pytest.mark.mpi
@pytest.mark.timeout(600)
@needs_mpi
def test_under_mpiexec(tmp_path):
    out = tmp_path / "extras.json"
    done = run_mpi(4, SCRIPT, *SMALL, "--json", out, timeout=540)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert done.stdout.count("multi-source, 12 roots") == 1
    record = json.loads(out.read_text())
    assert record["environment"]["grid"] == [2, 2] and record["depth_limit"]["checked"] == 3
