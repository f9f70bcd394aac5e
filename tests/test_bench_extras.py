"""benchmarks/multi_source.py runs on the CPU at small scales (one process and under mpiexec),
writes its record, and its checks catch wrong results."""
import json
from pathlib import Path

import numpy as np
import pytest

import lagraph_dist as ld
from helpers import load_script, needs_mpi, run_mpi

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "multi_source.py"


@pytest.fixture(scope="module")
def multi():
    return load_script(SCRIPT)


SMALL = ["--backend", "cpu", "--graph", "kron:9", "--sources", "12", "--roots", "3", "--depth-limit", "2"]


# The seconds each timed call reports, in the order the script times them (the searches still
# run and are checked; only their clock is scripted), so that the record's figures can be
# compared with values worked out by hand. Three repeats, skewed, so a median is no mean.
BATCH_SECONDS = [0.3, 0.9, 0.4] * 2                  # levels only, then with parents: median 0.4
SEPARATE_SECONDS = [1.2, 1.8, 6.0] * 2               # median 1.8
FULL_SECONDS = [1.0, 3.0, 2.0, 2.0, 2.0, 9.0, 4.0, 6.0, 5.0]       # per root: medians 2, 2, 5
LIMITED_SECONDS = [0.1, 0.3, 0.2, 0.5, 0.5, 0.1, 0.2, 0.4, 0.3]    # medians 0.2, 0.5, 0.3
PUT_BACK_SECONDS = [0.05, 0.07]                      # the last batch's rows put back, each run once


def scripted_clock(multi, monkeypatch):
    """Replace the script's clock: each timed call runs, and reports the next scripted seconds of
    its kind. Returns the queues, to check that every scripted time was taken."""
    queues = {"batch": list(BATCH_SECONDS), "separate": list(SEPARATE_SECONDS), "full": list(FULL_SECONDS),
              "limited": list(LIMITED_SECONDS), "put_back": list(PUT_BACK_SECONDS)}

    def timed(A, func, *args, **kwargs):
        result = func(*args, **kwargs)
        if A is None:               # scipy's, not scripted
            return result, 1.0
        kind = ("batch" if func is ld.bfs_multi else "separate" if func is multi.one_call_each else
                "put_back" if func is multi.put_back else "limited" if kwargs.get("depth_limit") is not None else "full")
        return result, queues[kind].pop(0)

    monkeypatch.setattr(multi, "timed", timed)
    return queues


def test_small_run_and_its_record(multi, tmp_path, monkeypatch):
    queues = scripted_clock(multi, monkeypatch)
    out = tmp_path / "multi.json"
    record = multi.main(SMALL + ["--repeats", "3", "--json", str(out)])
    assert all(not left for left in queues.values()), "a timed call more or fewer than the runs"
    assert json.loads(out.read_text())["depth_limit"][0]["time_ratio"] == pytest.approx(1 / 9)
    levels_only, with_parents = record["runs"]
    assert (levels_only["parents"], with_parents["parents"]) == (False, True)
    for run in record["runs"]:
        assert run["graph"] == "Kronecker 9" and run["sources"] == 12 and run["widths"] == [12]
        assert run["batch_seconds"] == [0.3, 0.9, 0.4] and run["separate_seconds"] == [1.2, 1.8, 6.0]
        # by hand: 12 searches in a median 0.4 s together, or in a median 1.8 s one by one
        assert run["batch_searches_per_second"] == pytest.approx(30.0)
        assert run["separate_searches_per_second"] == pytest.approx(12 / 1.8)
        assert run["ratio_to_separate"] == pytest.approx(4.5)
        assert run["levels_equal_separate"] and run["scipy_searches_per_second"] == pytest.approx(12.0)
    assert (levels_only["parents_validated_rows"], with_parents["parents_validated_rows"]) == (0, 8)
    assert [run["put_back_seconds"] for run in record["runs"]] == PUT_BACK_SECONDS
    [depth] = record["depth_limit"]
    assert depth["checked"] == 3 and depth["depth_limit"] == 2
    assert depth["full_seconds"] == [[1.0, 3.0, 2.0], [2.0, 2.0, 9.0], [4.0, 6.0, 5.0]]
    assert depth["limited_seconds"] == [[0.1, 0.3, 0.2], [0.5, 0.5, 0.1], [0.2, 0.4, 0.3]]
    # by hand: limited medians 0.2 + 0.5 + 0.3 = 1.0 s against full ones 2 + 2 + 5 = 9 s
    assert depth["time_ratio"] == pytest.approx(1 / 9)
    assert depth["time_ratio_per_root"] == pytest.approx([0.1, 0.25, 0.06])
    assert record["environment"]["backend"] == "cpu" and record["environment"]["commit"]


def test_the_checks_catch_wrong_results(multi):
    # 0 -> 1 -> 2 -> 5 and 0 -> 3 -> 4
    A = ld.Matrix.from_edges([0, 1, 2, 0, 3], [1, 2, 5, 3, 4], 6, backend="cpu")
    assert multi.tree_edges_exist(A, np.array([0, 1, 3]), np.array([1, 2, 4]))
    assert not multi.tree_edges_exist(A, np.array([0, 2]), np.array([1, 1]))
    full = ld.bfs(A, 0).levels.to_numpy()
    limited = ld.bfs(A, 0, depth_limit=2)
    multi.check_limited(A, 0, full, limited, 2)
    with pytest.raises(AssertionError, match="levels differ"):
        multi.check_limited(A, 0, full, limited, 3)
    limited.parents = ld.Vector.from_indices([0, 1, 3, 2, 4], 6, values=np.array([0, 0, 0, 1, 1]),
                                             backend="cpu")           # 1 -> 4 is no edge
    with pytest.raises(AssertionError, match="not an edge"):
        multi.check_limited(A, 0, full, limited, 2)


@pytest.mark.mpi
@pytest.mark.timeout(600)
@needs_mpi
def test_under_mpiexec(tmp_path):
    out = tmp_path / "multi.json"
    done = run_mpi(4, SCRIPT, *SMALL, "--repeats", "2", "--json", out, timeout=540)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert done.stdout.count("depth_limit=2, 3 roots") == 1
    record = json.loads(out.read_text())
    assert record["environment"]["grid"] == [2, 2] and record["depth_limit"][0]["checked"] == 3
    assert [run["scipy_sources"] for run in record["runs"]] == [0, 0]      # scipy runs in one process only


def test_a_deep_batch_keeps_a_summary_of_its_levels(multi, monkeypatch):
    """A batch of more depths than DEPTHS_KEPT keeps their summary, not a record each (64
    searches of a 100,000 path: 61 MB of JSON); a shallower one keeps every depth's record."""
    A = ld.Matrix.from_edges(np.arange(49), np.arange(1, 50), 50, symmetrize=True, backend="cpu")
    res = ld.bfs_multi(A, [0, 7, 49], parents=False)
    kept = multi.batch_levels(res.stats)
    assert [level["level"] for level in kept["levels"]] == [r["level"] for r in res.stats]
    monkeypatch.setattr(multi, "DEPTHS_KEPT", 10)
    summary = multi.batch_levels(res.stats)
    assert summary["levels"] is None
    assert summary["level_summary"]["levels"] == len(res.stats) == 50
    assert summary["level_summary"]["seconds"] == pytest.approx(sum(ld.measured_seconds(r) for r in res.stats))
