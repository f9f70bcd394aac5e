"""Two threads of one compiled call meeting at a spin barrier (the CPU set's two-thread thin
levels, :func:`lagraph_dist.local.cpu_kernels.fused._two_thread_levels`).

numba has no atomics for the host, so the three operations a barrier needs are LLVM's own,
emitted as intrinsics: a sequentially consistent fetch-and-add, an acquire load and the core's
spin hint (x86 ``pause``). A waiting thread spins, and after :data:`SPINS_BEFORE_YIELD` spins
gives its core away (``sched_yield``) at each further round: two threads sharing one core, or a
busy machine, then cost a scheduler round a level instead of a whole time slice.

A barrier is only safe when both threads run at once: the caller starts them as the two
iterations of a ``prange`` only where :func:`two_threads_at_once` says the threading layer gives
each iteration a thread of its own.
"""
from __future__ import annotations

import os
import platform

import llvmlite.ir as llvm_ir
import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

__all__ = ["barrier", "two_threads_at_once", "SPINS_BEFORE_YIELD"]

#: spins (each a ``pause``, tens of ns) a thread waits at a barrier before it yields its core
SPINS_BEFORE_YIELD = 1 << 12

_X86 = platform.machine().lower() in ("x86_64", "amd64")

#: numba's threading layers that give each of a two-iteration ``prange``'s iterations a thread
#: of its own (static schedules); TBB's work stealing may run both on one thread, which would
#: wait at the barrier for itself
_STATIC_LAYERS = ("workqueue", "omp")


def _slot(context, builder, signature, args):
    data = make_array(signature.args[0])(context, builder, args[0]).data
    return builder.gep(data, [args[1]])


@intrinsic
def _fetch_add(typingctx, array, index, value):
    """``array[index] += value`` as one atomic step (sequentially consistent); returns the old value."""
    def codegen(context, builder, signature, args):
        return builder.atomic_rmw("add", _slot(context, builder, signature, args), args[2], "seq_cst")
    return types.int64(array, index, value), codegen


@intrinsic
def _load_acquire(typingctx, array, index):
    """``array[index]`` read with acquire order: what the writer stored before its release is seen."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(_slot(context, builder, signature, args), "acquire", 8)
    return types.int64(array, index), codegen


@intrinsic
def _spin_hint(typingctx):
    """The core's spin-wait hint (x86 ``pause``: the sibling hyperthread gets the pipeline, and
    leaving the loop costs no misspeculation); nothing elsewhere."""
    def codegen(context, builder, signature, args):
        if _X86:
            fnty = llvm_ir.FunctionType(llvm_ir.VoidType(), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def _yield_core(typingctx):
    """libc's ``sched_yield``: the thread gives its core to another runnable one."""
    def codegen(context, builder, signature, args):
        fnty = llvm_ir.FunctionType(llvm_ir.IntType(32), [])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
        return context.get_dummy_value()
    return types.none(), codegen


@numba.njit(cache=True, inline="always")
def barrier(sync, arrivals):
    """Waits until ``sync[0]`` (the arrivals at every barrier of the run so far) reaches
    ``arrivals``, after adding this thread's arrival: the k-th barrier of two threads waits for
    2k. The fetch-and-add publishes the thread's stores before it; the acquire load sees the
    other's."""
    _fetch_add(sync, 0, 1)
    spins = 0
    while _load_acquire(sync, 0) < arrivals:
        _spin_hint()
        spins += 1
        if spins >= SPINS_BEFORE_YIELD:
            _yield_core()


@numba.njit(cache=True, parallel=True)
def _first_region(slots):
    """A parallel region, run once so that numba chooses its threading layer and starts its threads."""
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
    if numba.get_num_threads() < 2 or len(os.sched_getaffinity(0)) < 2 or not _teams_of_two():
        return False
    if not _layer_is_static:
        try:
            layer = numba.threading_layer()
        except ValueError:
            _first_region(np.zeros(2, np.int64))
            layer = numba.threading_layer()
        _layer_is_static.append(layer in _STATIC_LAYERS)
    return _layer_is_static[0]
