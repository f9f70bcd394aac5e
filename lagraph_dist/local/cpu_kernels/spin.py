"""Two threads of one compiled call meeting at a spin barrier (the CPU set's two-thread thin
levels, :func:`lagraph_dist.local.cpu_kernels.fused._two_thread_levels`).

numba has no atomics for the host, so a barrier is made of LLVM's own operations
(:mod:`~lagraph_dist.local.cpu_kernels.intrinsics`): a sequentially consistent fetch-and-add,
an acquire load, and the core's spin hint. Each thread counts its progress in a slot of its
own as it works (:func:`progress`); a thread waiting at a barrier that sees the other's count
stand still for its patience takes the other for not running (a busy or shared machine), gives
its core away at each further round and says so, and the caller then leaves the two threads for
one: on a machine whose cores are all taken, waiting at a barrier a level would cost a
scheduler's time slice a level. A thread that is merely slower (its stores faulting in fresh
pages of the outputs) still moves its count.

A barrier is only safe when both threads run at once: the caller starts them as the two
iterations of a ``prange`` only where :func:`two_threads_at_once` says the threading layer gives
each iteration a thread of its own.
"""
from __future__ import annotations

import os

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.common import usable_cores
from lagraph_dist.local.cpu_kernels.intrinsics import (_fetch_add, _load_acquire, _read_clock, _spin_hint,
                                                      _store_relaxed, _yield_core)

__all__ = ["barrier", "progress", "start_threads", "threading_layer", "two_threads_at_once", "PATIENCE_SECONDS"]

#: how long a thread at a barrier watches the other's progress count stand still before it takes
#: the other for not running: a healthy barrier of two cores takes tens of ns, a thread not
#: running is away for a scheduler's time slice (milliseconds), and a running one can stand
#: still for a page fault that clears a 2 MB page (50 us was too short on the development
#: machine: a 1000 x 1000 mesh's search left its two threads in most runs)
PATIENCE_SECONDS = 5e-4
#: the patience is this many times longer while the other thread has not started (its count
#: still 0): waking a sleeping thread of the pool takes up to milliseconds
PATIENCE_TO_START = 10

#: numba's threading layers that give each of a two-iteration ``prange``'s iterations a thread
#: of its own (static schedules); TBB's work stealing may run both on one thread, which would
#: wait at the barrier for itself
_STATIC_LAYERS = ("workqueue", "omp")


@numba.njit(cache=True, inline="always")
def progress(counts, slot, count):
    """This thread's progress, ``count`` (growing), published in ``counts[slot]`` for the other
    thread's barrier to watch."""
    _store_relaxed(counts, slot, count)


@numba.njit(cache=True, inline="always")
def barrier(sync, arrivals, patience, counts, slot):
    """Adds this thread's arrival to ``sync[0]`` (the arrivals at every barrier of the run so
    far) and waits until it reaches ``arrivals``: the k-th barrier of two threads waits for 2k.
    The fetch-and-add publishes the thread's stores before it; the acquire load sees the
    other's. Returns whether the other thread's progress (``counts[slot]``, :func:`progress`)
    stood still for ``patience`` ticks of the core's counter while this one waited, after which
    it yields its core at each round."""
    _fetch_add(sync, 0, 1)
    if _load_acquire(sync, 0) >= arrivals:
        return False
    seen, since = _load_acquire(counts, slot), _read_clock()
    tired = False
    while _load_acquire(sync, 0) < arrivals:
        _spin_hint()
        if tired:
            _yield_core()
            continue
        now = _read_clock()
        if now - since > (patience if seen else PATIENCE_TO_START * patience):
            count = _load_acquire(counts, slot)
            tired = count == seen
            seen, since = count, now
    return tired


@numba.njit(cache=True, parallel=True)
def start_threads(slots):
    """A parallel region: numba chooses its threading layer and starts its threads (their first
    region costs ~0.1 s)."""
    for k in numba.prange(slots.shape[0]):
        slots[k] = k


def _teams_of_two() -> bool:
    """Whether OpenMP gives a region every thread it asks for: not where ``OMP_DYNAMIC`` lets it
    give fewer, nor under an ``OMP_THREAD_LIMIT`` of 1 (a barrier would wait for a thread that
    never comes)."""
    dynamic = os.environ.get("OMP_DYNAMIC", "").strip().lower() in ("true", "1", "yes")
    limit = os.environ.get("OMP_THREAD_LIMIT", "").strip()
    return not dynamic and not (limit.isdigit() and int(limit) < 2)


_layer_is_static = []            # the answer for the threading layer, once asked


def two_threads_at_once() -> bool:
    """Whether a two-iteration ``prange`` runs its iterations on two threads at once here: numba
    has at least two threads, the process may run on at least two cores, and the threading
    layer schedules statically (numba names its layer only once a parallel region has run: one
    is run first where none has)."""
    if numba.get_num_threads() < 2 or usable_cores() < 2 or not _teams_of_two():
        return False
    if not _layer_is_static:
        _layer_is_static.append(threading_layer() in _STATIC_LAYERS)
    return _layer_is_static[0]


def threading_layer() -> str:
    """numba's threading layer ("omp", "tbb" or "workqueue"); numba names it only once a
    parallel region has run, so one is run first where none has."""
    try:
        return numba.threading_layer()
    except ValueError:
        start_threads(np.zeros(2, np.int64))
        return numba.threading_layer()
