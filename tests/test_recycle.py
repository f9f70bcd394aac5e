"""lagraph_dist.local.recycle: a kept array is handed out again only when the program holds no
reference to it (nor to a view of it), small arrays are not kept, the kept bytes stay under the
cap, and free kept arrays count as available host memory."""
import numpy as np
import pytest

from lagraph_dist.local import fit, recycle


@pytest.fixture(autouse=True)
def fresh_pool(monkeypatch):
    recycle.release()
    yield
    recycle.release()


def big(n=recycle.RECYCLE_AT_LEAST // 4, dtype=np.int32):
    return recycle.empty((n,), dtype)


def test_an_array_held_or_viewed_is_never_handed_out_again():
    first = big()
    address = first.ctypes.data
    second = big()
    assert second.ctypes.data != address              # the first is held
    view = first[::3]
    del first
    third = big()
    assert third.ctypes.data != address               # a view holds its base
    del view
    again = big()
    assert again.ctypes.data == address               # free now: reused, pages and all
    again[:] = 7
    assert (again == 7).all() and not np.shares_memory(again, second) and not np.shares_memory(again, third)


def test_loop_of_calls_alternates_two_arrays():
    addresses = set()
    result = None
    for _ in range(6):
        result = big()                                # the last result is held while the next is made
        addresses.add(result.ctypes.data)
    assert len(addresses) == 2


def test_shape_and_dtype_must_match_and_other_free_arrays_are_let_go():
    a = big()
    address = a.ctypes.data
    del a
    b = big(dtype=np.int64)                           # another dtype: a new array; the free one goes
    assert b.dtype == np.int64 and recycle.kept_bytes() == b.nbytes
    assert big(n=recycle.RECYCLE_AT_LEAST // 4 + 1).shape == (recycle.RECYCLE_AT_LEAST // 4 + 1,)
    del address


def test_small_arrays_are_not_kept_and_the_cap_holds(monkeypatch):
    small = recycle.empty((10,), np.int32)
    assert small.shape == (10,) and recycle.kept_bytes() == 0
    monkeypatch.setattr(recycle, "KEPT_BYTES", recycle.RECYCLE_AT_LEAST + 1)
    held = [big(), big()]
    assert recycle.kept_bytes() <= recycle.KEPT_BYTES and all(h.shape == held[0].shape for h in held)


def test_free_kept_arrays_count_as_available_host_memory(monkeypatch):
    monkeypatch.setattr(fit, "host_memory", lambda: (1000, 10_000))
    a = big()
    assert fit.available_bytes("cpu") == (1000, 10_000)
    nbytes = a.nbytes
    del a
    assert recycle.free_bytes() == nbytes
    assert fit.available_bytes("cpu") == (1000 + nbytes, 10_000)


def test_maker_leaves_small_sets_to_numpy_and_recycles_large_ones():
    assert recycle.maker(recycle.SET_RECYCLED_AT_LEAST - 1) is np.empty
    make = recycle.maker(recycle.SET_RECYCLED_AT_LEAST)
    first = make((recycle.SET_RECYCLED_AT_LEAST // 8,), np.int64)
    address = first.ctypes.data
    del first
    assert make((recycle.SET_RECYCLED_AT_LEAST // 8,), np.int64).ctypes.data == address


def test_queue_search_outputs_and_scratch_are_recycled_between_calls():
    # A 100,000-vertex path's search: fresh, its four arrays of 800 KB cost 1.1 ms of page
    # faults a call, more than the search; dropped, the next call gets them back.
    from lagraph_dist.local.cpu_kernels.queue import queue_plan
    from lagraph_dist.local.parts import LocalCSR
    n = 100_000
    indptr = np.arange(n + 1, dtype=np.int64)
    indptr[-1] = n - 1
    csr = LocalCSR(indptr, np.arange(1, n, dtype=np.int32), n)      # a directed path 0 -> 1 -> ...
    length = 32 * ((n + 31) // 32)
    plan = queue_plan(csr, length, n)
    first = plan.search(0, True, True, n, -1)
    addresses = (first[1].ctypes.data, first[3].ctypes.data)
    assert first[5] == n and (first[3][:n] == np.arange(n)).all() and (first[1][1:n] == np.arange(n - 1)).all()
    del first
    second = plan.search(5, True, True, n, -1)
    assert (second[1].ctypes.data, second[3].ctypes.data) == addresses
    assert second[5] == n - 5 and (second[3][5:n] == np.arange(n - 5)).all() and (second[3][:5] == -1).all()
