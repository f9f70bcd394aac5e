"""What the products' compiled loops share (kernels/common.cuh's part): the semiring and mask
codes, the mask test, a value's multiply and combine, the claim of an output entry, the output
part with its counters, and how wide work is cut into chunks for the cores.

Values inside the loops are the multiply's: pair 1, land the input's value as 0/1, secondi the
input's global id (int64 each), first/times the input's value, plus the value + 1 (in the
input values' type: numba specialises the loops on the arrays' dtypes); they are combined by
the monoid's code and stored in the output array of the semiring's dtype, the cast on store
being numpy's (nonzero is True). The codes are the semiring objects' own
(lagraph_dist.semirings): the loops branch on them in the order of the searches' four first.
"""
from __future__ import annotations

import os
import sys

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import _list_and_degrees, new_counters
from lagraph_dist.local.layout import (ADD_ANY, ADD_LAND, ADD_LOR, ADD_MAX, ADD_MIN, ADD_PLUS, EXAMINED, FOUND,
                                        MASK_KEEP_CLEAR, MASK_KEEP_SET, MASK_NONE, MULT_FIRST, MULT_LAND, MULT_PLUS,
                                        MULT_SECONDI, MULT_TIMES, PUSH_EDGES)
from lagraph_dist.local.parts import LocalPart

#: below this much work (edges, rows) a product runs on one core: a parallel region costs more
PARALLEL_WORK = 1 << 15

_NOT_NEGATIVE = np.int64(0x7FFFFFFFFFFFFFFF)
_NO_WORDS = np.zeros(1, dtype=np.uint32)
_NO_INT64 = np.zeros(1, dtype=np.int64)


#: output arrays of at least this many slots are kept for the next product (see :func:`reused_empty`)
REUSED_SLOTS = 1 << 20


def reused_empty(kept, key, length, dtype):
    """An uninitialised output array of ``length`` ``dtype`` (a kernel writes every slot it
    reads): the one made last time under ``key`` in ``kept`` (a block's ``derived``) when
    nothing else holds it any more, else a new one, kept when it is long. A multi-rank product's
    output lives until its fold, so each level's would be freshly mapped pages: 3.5 ms of page
    faults a level for 2^22 int64 (glibc maps allocations past 32 MB afresh every time)."""
    if length < REUSED_SLOTS:
        return np.empty(length, dtype=dtype)
    held = kept.get(key)
    # references: kept's, held's and getrefcount's own: nobody else reads or writes it
    if held is not None and held.shape[0] == length and held.dtype == dtype and sys.getrefcount(held) == 3:
        return held
    held = kept[key] = np.empty(length, dtype=dtype)
    return held


def semiring_codes(semiring):
    """(add code, multiply code) of a semiring for the compiled loops: its objects' own."""
    return semiring.codes


def mask_args(mask_words, complement):
    """(words, mask code) of an optional mask: a dummy word when there is none."""
    if mask_words is None:
        return _NO_WORDS, MASK_NONE
    return mask_words, MASK_KEEP_CLEAR if complement else MASK_KEEP_SET


def map_args(in_map):
    """(block_len, stride, offset) of an IdMap, the arguments of :func:`to_global`."""
    return int(in_map.block_len), int(in_map.stride), int(in_map.offset)


def optional_int64(array):
    """(array, present) of an optional int64 array (a dummy when absent)."""
    if array is None:
        return _NO_INT64, False
    return array.astype(np.int64, copy=False), True


def left_values(values, semiring):
    """The input's values as the multiply reads them (its out dtype), or a dummy when unread."""
    if values is None or not semiring.reads_left_values:
        return np.zeros(1, dtype=semiring.out_dtype)
    return values.astype(semiring.out_dtype, copy=False)


def chunks_for(work):
    """How many chunks (one a thread) ``work`` items are cut into: 1 below PARALLEL_WORK."""
    if work < PARALLEL_WORK:
        return 1
    return max(1, min(numba.get_num_threads(), work // (PARALLEL_WORK // 2)))


def set_kernel_threads():
    """Threads of the parallel loops: NUMBA_NUM_THREADS when set, else the cores shared among
    the MPI ranks of this host (MPICH's MPI_LOCALNRANKS, Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE),
    so that ranks x threads = cores.

    Numba's thread pool starts here. Its OpenMP threads wait passively between loops
    (OMP_WAIT_POLICY=passive while the pool loads, unless the caller set it): spinning threads
    took a core from the search's own Python and from other processes, and made searches on a
    busy 2-core machine 2-5x slower than on one thread; sleeping ones cost a wake-up a loop."""
    policy = os.environ.get("OMP_WAIT_POLICY")
    if policy is None:
        os.environ["OMP_WAIT_POLICY"] = "passive"      # read once, when the pool's OpenMP loads
    try:
        if os.environ.get("NUMBA_NUM_THREADS"):
            return numba.get_num_threads()
        local = os.environ.get("MPI_LOCALNRANKS") or os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE") or "1"
        ranks = max(1, int(local)) if local.isdigit() else 1
        threads = max(1, min(numba.config.NUMBA_NUM_THREADS, usable_cores() // ranks))
        numba.set_num_threads(threads)
        return threads
    finally:
        if policy is None:
            del os.environ["OMP_WAIT_POLICY"]


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@numba.njit(cache=True, inline="always")
def allowed(mask, mode, r):
    """Whether the mask lets output ``r`` through (mode: MASK_NONE, _KEEP_SET, _KEEP_CLEAR)."""
    if mode == MASK_NONE:
        return True
    hit = (mask[r >> 5] >> np.uint32(r & 31)) & np.uint32(1)
    return (hit != 0) == (mode == MASK_KEEP_SET)


@numba.njit(cache=True)
def closed_bits(mask, mode, nwords):
    """The outputs closed to an ``any`` claim before any is made: those the mask refuses (the
    push's and the fold merge's claims then close the outputs they claim)."""
    if mode == MASK_NONE:
        return np.zeros(nwords, dtype=np.uint32)
    return mask.copy() if mode == MASK_KEEP_CLEAR else np.invert(mask)


@numba.njit(cache=True, inline="always")
def candidate_word(mask, mode, w, nbits):
    """Word ``w`` of the outputs the mask lets through (all of them without a mask), the bits
    past ``nbits`` clear."""
    if mode == MASK_NONE:
        word = np.uint32(0xFFFFFFFF)
    elif mode == MASK_KEEP_SET:
        word = np.uint32(mask[w])
    else:
        word = np.uint32(~mask[w])
    left = nbits - 32 * w
    if left < 32:
        word = np.uint32(word & ((np.uint32(1) << np.uint32(left)) - np.uint32(1)))
    return word


@numba.njit(cache=True, inline="always")
def to_global(local, block_len, stride, offset):
    """IdMap.to_global of one local id."""
    return (local // block_len) * stride + offset + local % block_len


@numba.njit(cache=True, inline="always")
def multiply(mult, left, at, local, block_len, stride, offset):
    """The product of input entry ``local`` (its value ``left[at]``) and a matrix entry."""
    if mult == MULT_SECONDI:
        return np.int64(to_global(np.int64(local), block_len, stride, offset))
    if mult == MULT_LAND:
        return np.int64(left[at] != 0)
    if mult == MULT_FIRST or mult == MULT_TIMES:     # x, x * 1
        return left[at]
    if mult == MULT_PLUS:                            # x + 1
        return left[at] + np.int64(1)
    return np.int64(1)                               # pair, second: the matrix's 1


@numba.njit(cache=True, inline="always")
def combine(add, current, value):
    """The monoid on two values (any keeps the first)."""
    if add == ADD_MIN:
        return min(current, value)
    if add == ADD_LOR:
        return np.int64(current != 0 or value != 0)
    if add == ADD_PLUS:
        return current + value
    if add == ADD_MAX:
        return max(current, value)
    if add == ADD_LAND:
        return np.int64(current != 0 and value != 0)
    return current


@numba.njit(cache=True, inline="always")
def claim(words, out, v, value, add):
    """Offer ``value`` to output ``v``: the first offer sets its bit and value, later ones are
    combined into it. True when this offer set the bit."""
    bit = np.uint32(1) << np.uint32(v & 31)
    if words[v >> 5] & bit:
        if add != ADD_ANY:
            out[v] = combine(add, out[v], value)
        return False
    words[v >> 5] |= bit
    out[v] = value
    return True


def listed_output(words, dense, ids, push_edges, examined, with_degrees):
    """A kernel's output whose list the kernel made itself (increasing ``ids`` and the sum of
    their out-degrees, ``push_edges``, counted when ``with_degrees``): the bitmap part that
    also lists its entries, and its counters, as :func:`output_part` gives them."""
    count = ids.shape[0]
    part = LocalPart("bitmap", dense.shape[0], count, dense, words=words, ids=ids, ids_sorted=True)
    counters = new_counters()
    counters[FOUND] = count
    counters[EXAMINED] = examined
    if with_degrees:
        counters[PUSH_EDGES] = push_edges
    return part, counters


def output_part(words, dense, examined, out_degree):
    """A kernel's output from its bitmap ``words`` and dense values: a bitmap part that also
    lists its entries (increasing), and its counters."""
    degrees, has_degrees = optional_int64(out_degree)
    ids, push_edges = _list_and_degrees(words, degrees, has_degrees)
    return listed_output(words, dense, ids, push_edges, examined, out_degree is not None)


@numba.njit(cache=True, inline="always")
def nonnegative(i):
    """``i`` (a vertex or an edge slot, never negative) as LLVM can see it is not: numba wraps
    negative indices, and that wrap sits on the load chain from a vertex to its edges to its
    neighbours' bits, which is a deep graph's whole level."""
    return i & _NOT_NEGATIVE
