"""benchmarks/bfs_extras.py runs on the CPU at small scales (one process and under mpiexec),
writes its record, and its checks catch wrong results."""
import json
from pathlib import Path

import numpy as np
import pytest

import lagraph_dist as ld
from helpers import load_script, needs_mpi, run_mpi

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bfs_extras.py"


@pytest.fixture(scope="module")
def extras():
    return load_script(SCRIPT)


SMALL = ["--backend", "cpu", "--multi-scale", "9", "--depth-scale", "10", "--sources", "12",
         "--roots", "3", "--repeats", "2"]


# The seconds each timed call reports, in the order the script times them (the searches still
# run and are checked; only their clock is scripted), so that the record's figures can be
# compared with values worked out by hand. Three repeats, skewed, so a median is no mean.
MULTI_SECONDS = [0.3, 0.9, 0.4]                            # median 0.4 (mean 0.53)
SINGLE_SECONDS = [0.1] * 12 + [0.15] * 12 + [0.5] * 12     # sums 1.2, 1.8, 6.0: median 1.8
FULL_SECONDS = [1.0, 3.0, 2.0, 2.0, 2.0, 9.0, 4.0, 6.0, 5.0]       # per root: medians 2, 2, 5
LIMITED_SECONDS = [0.1, 0.3, 0.2, 0.5, 0.5, 0.1, 0.2, 0.4, 0.3]    # medians 0.2, 0.5, 0.3


def scripted_clock(extras, monkeypatch):
    """Replace the script's clock: each timed call runs, and reports the next scripted seconds of
    its kind. Returns the queues, to check that every scripted time was taken."""
    queues = {"multi": list(MULTI_SECONDS), "bfs": SINGLE_SECONDS + FULL_SECONDS,
              "limited": list(LIMITED_SECONDS)}

    def timed(A, func, *args, **kwargs):
        result = func(*args, **kwargs)
        kind = ("multi" if func is ld.bfs_multi else
                "limited" if kwargs.get("depth_limit") is not None else "bfs")
        return result, queues[kind].pop(0)

    monkeypatch.setattr(extras, "timed", timed)
    return queues


def test_small_run_and_its_record(extras, tmp_path, monkeypatch):
    queues = scripted_clock(extras, monkeypatch)
    out = tmp_path / "extras.json"
    record = extras.main(SMALL + ["--repeats", "3", "--json", str(out)])
    assert queues == {"multi": [], "bfs": [], "limited": []}, "a timed call more or fewer than the runs"
    assert json.loads(out.read_text())["multi_source"]["sources"] == 12
    multi = record["multi_source"]
    assert multi["graph"]["scale"] == 9 and len(multi["roots"]) == 12 and multi["batches"] == [12]
    assert multi["bfs_multi_seconds"] == MULTI_SECONDS
    assert multi["single_seconds"] == [SINGLE_SECONDS[:12], SINGLE_SECONDS[12:24], SINGLE_SECONDS[24:]]
    assert multi["validated"] == 12 + 3 * 12 and multi["levels_equal_single"]
    # by hand: 12 searches in a median 0.4 s together, or in a median 1.8 s one by one
    assert multi["bfs_multi_searches_per_second"] == pytest.approx(30.0)
    assert multi["single_searches_per_second"] == pytest.approx(12 / 1.8)
    assert multi["speedup"] == pytest.approx(4.5)
    depth = record["depth_limit"]
    assert depth["graph"]["scale"] == 10 and depth["checked"] == 3 and depth["depth_limit"] == 2
    assert depth["full_seconds"] == [[1.0, 3.0, 2.0], [2.0, 2.0, 9.0], [4.0, 6.0, 5.0]]
    assert depth["limited_seconds"] == [[0.1, 0.3, 0.2], [0.5, 0.5, 0.1], [0.2, 0.4, 0.3]]
    # by hand: limited medians 0.2 + 0.5 + 0.3 = 1.0 s against full ones 2 + 2 + 5 = 9 s
    assert depth["time_ratio"] == pytest.approx(1 / 9)
    assert depth["time_ratio_per_root"] == pytest.approx([0.1, 0.25, 0.06])
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
