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
