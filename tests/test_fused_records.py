"""The GPU driver's host-side bookkeeping that needs no device: a fused run's level records made
from the kernel's rows when first read, several runs joined, and the value bits a kernel
receives for a search's starting values."""
import numpy as np
import pytest

from lagraph_dist.local.cpu_kernels.fused import FusedRecords
from lagraph_dist.local.gpu_kernels.bitmap import value_bits
from lagraph_dist.local.gpu_kernels.fused import _JoinedRecords, _level_records


def kernel_rows(levels):
    """Rows as fused.cu writes them: frontier, discovered, examined, push, end (ns), uint64."""
    return np.array(levels, dtype=np.uint64).reshape(-1, 5)


def test_run_records_read_like_the_twins():
    rows = kernel_rows([(1, 4, 4, 1, 1_000), (4, 9, 30, 0, 3_500), (9, 0, 12, 1, 3_600)])
    records = _level_records(rows, 400)
    assert len(records) == 3
    assert records.discovered == 13                       # known before anything is read
    assert list(records) == [(1, 4, 4, 1, pytest.approx(600e-9)), (4, 9, 30, 0, pytest.approx(2_500e-9)),
                             (9, 0, 12, 1, pytest.approx(100e-9))]
    assert records[1] == (4, 9, 30, 0, pytest.approx(2.5e-6))
    assert records[0:2] == list(records)[:2]
    assert records.counts.dtype == np.int64 and records.seconds.dtype == np.float64


def test_the_kernels_records_are_each_timed_alone():
    """The GPU's records (made lazily, by a subclass) time every level alone: the level records
    made of them carry their own seconds (this read once failed on the device's classes)."""
    from lagraph_dist.algebra.levels import FusedRun
    rows = kernel_rows([(1, 4, 4, 1, 1_000), (4, 9, 30, 0, 3_500)])
    for records in (_level_records(rows, 400), _JoinedRecords([_level_records(rows, 400)] * 2)):
        np.testing.assert_array_equal(records.timed_levels(), [1] * len(records))
        stats = [r.as_dict(k + 1) for k, r in enumerate(FusedRun(records, "clock", 1, 1))]
        assert all(r["seconds"] > 0 and "run_levels" not in r for r in stats)


def test_an_empty_run_has_no_records():
    records = _level_records(kernel_rows([]), 7)
    assert len(records) == 0 and records.discovered == 0 and list(records) == []


def test_joined_runs_equal_the_eager_join():
    first = _level_records(kernel_rows([(1, 2, 2, 1, 50), (2, 7, 9, 1, 90)]), 10)
    handed = _level_records(kernel_rows([(7, 30, 200, 1, 400)]), 150)       # a tile level: its own start
    last = _level_records(kernel_rows([(30, 1, 35, 0, 1_000)]), 500)
    joined = _JoinedRecords([first, handed, last])
    assert len(joined) == 4 and joined.discovered == 40
    eager = FusedRecords(np.array([(1, 2, 2, 1), (2, 7, 9, 1), (7, 30, 200, 1), (30, 1, 35, 0)], dtype=np.int64),
                         np.array([40e-9, 40e-9, 250e-9, 500e-9]))
    assert list(joined) == [tuple(pytest.approx(x) for x in row) for row in eager]
    np.testing.assert_array_equal(joined.counts, eager.counts)


@pytest.mark.parametrize("value, dtype", [(True, bool), (False, bool), (np.bool_(True), bool), (0, np.int64),
                                          (12345, np.int64), (-1, np.int64), (np.int64(-7), np.int64),
                                          ((1 << 63) - 1, np.int64), (-(1 << 63), np.int64), (3, np.int32),
                                          (2.5, np.float64), (7, np.float32), (200, np.uint8)])
def test_value_bits_are_the_stored_bytes(value, dtype):
    dtype = np.dtype(dtype)
    assert value_bits(value, dtype) == int.from_bytes(np.asarray(value, dtype=dtype).tobytes(), "little")


def test_levels_timed_as_a_run_say_how_many_levels_their_seconds_cover():
    """A run timed as a run leaves RUN_TIMED (NaN) in its levels' slots but its last, which holds
    the run's seconds: each level then covers 0 levels, the run's last its length, any other 1;
    its records show None seconds and the run on its last level."""
    from lagraph_dist.algebra.levels import FusedRun
    from lagraph_dist.local.engine import RUN_TIMED
    seconds = np.array([RUN_TIMED, RUN_TIMED, 3e-6, 1e-6, RUN_TIMED, 2e-6])
    records = FusedRecords(np.ones((6, 4), np.int64), seconds)
    np.testing.assert_array_equal(records.timed_levels(), [0, 0, 3, 1, 0, 2])
    stats = [r.as_dict(k + 1) for k, r in enumerate(FusedRun(records, "clock", 0, 1))]
    assert [r["seconds"] for r in stats] == [None, None, None, 1e-6, None, None]
    assert [(r.get("run_levels"), r.get("run_seconds")) for r in stats] == [
        (None, None), (None, None), (3, 3e-6), (None, None), (None, None), (2, 2e-6)]
    from lagraph_dist.core.stats import measured_seconds
    assert sum(map(measured_seconds, stats)) == pytest.approx(6e-6)


def test_stats_when_called_makes_the_records_of_stats_later():
    """A result's stats_when_called() holds the levels' records unmade (the result's own stats
    too), and gives, when called, the records its ``stats`` gives: on a path each level's
    frontier is one vertex and finds one."""
    import lagraph_dist as ld
    n = 50
    A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, symmetrize=True, backend="cpu")
    res = ld.bfs(A, 0)
    later = res.stats_when_called()
    assert callable(res._stats)                          # nothing made yet
    made = later()
    assert [(r["level"], r["frontier"], r["discovered"]) for r in made] == [(k, 1, 1) for k in range(1, n)] + [(n, 1, 0)]
    assert [r["frontier"] for r in res.stats] == [r["frontier"] for r in made]
    assert res.stats_when_called()() == res.stats        # (once made, the same records)
