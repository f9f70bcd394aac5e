"""CPU twins of the CUDA kernels in ``kernels/``, compiled with numba: the CPU backend runs them,
and the GPU tests compare the CUDA kernels against them on random inputs.

Each twin follows its kernel's contract (inputs, outputs, counters, wire layout) and its
algorithm where that shapes the result: push takes the frontier's edges in frontier then
adjacency order, the order of the kernel's search over the scan of frontier degrees (Bisson et
al. 2015, 3.4), the first one claiming an entry; pull scans each candidate row's inputs in
increasing order and stops at the first hit when the semiring allows it. A product returns its
output part (a bitmap that also knows its entries as a list) and its counters (:data:`FOUND`,
:data:`EXAMINED`, :data:`PUSH_EDGES`, ...), read by the caller once. Wide work runs on all
the threads numba has (:func:`compile_kernels` sets them: the host's cores shared among its
MPI ranks), cut so that the result is the one-thread result.

One module a CUDA source, as the kernels are split: ``bitmap`` (bitmap.cu), ``push``, ``pull``,
``fold``, ``fused``, ``multi``, ``multi_fused`` (the fused multi-source run), ``edge_rules`` (a
validation's), ``kronecker`` (the generator), ``dependencies``,
``components`` and ``queue`` (optional members, no CUDA twin; so is bitmap's ``level_planes_reduced``),
and ``common`` for
what push and pull share (common.cuh). This
package is the CPU backend's kernels object: it names every twin.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from lagraph_dist.local import compile_notice
from lagraph_dist.local.cpu_kernels import (bitmap, components, dependencies, edge_rules, fold, fused, kronecker, multi,
                                            multi_fused, pull, push, queue)
from lagraph_dist.local.cpu_kernels.bitmap import (assign_from_list, bitmap_from_list, bitmap_test, level_planes_reduced,
                                                   level_planes_rows, list_from_bitmap, new_counters, popcount,
                                                   single_entries)
from lagraph_dist.local.cpu_kernels.fold import fold_count, fold_merge, fold_pack
from lagraph_dist.local.cpu_kernels.common import set_kernel_threads
from lagraph_dist.local.cpu_kernels.fused import FUSED_LEVEL_CLOCK, bfs_fused, fused_workspace, search_plan
from lagraph_dist.local.cpu_kernels.multi import (MultiTarget, multi_fold_count, multi_merge, multi_new_counters,
                                                  multi_nonzero_ids, multi_pack_parents, multi_popcounts, multi_pull,
                                                  multi_push)
from lagraph_dist.local.cpu_kernels.components import component_sweeps, connected_components
from lagraph_dist.local.cpu_kernels.edge_rules import check_edges
from lagraph_dist.local.cpu_kernels.kronecker import kronecker_edges
from lagraph_dist.local.cpu_kernels.dependencies import DEPENDENCIES_BATCH as dependencies_batch, path_dependencies
from lagraph_dist.local.cpu_kernels.multi_fused import MULTI_ALPHA, MULTI_TWIN_AFTER, multi_bfs_fused
from lagraph_dist.local.cpu_kernels.pull import pull_spmv
from lagraph_dist.local.cpu_kernels.queue import queue_plan
from lagraph_dist.local.cpu_kernels.push import push_spmspv
from lagraph_dist.local import parts
from lagraph_dist.local.parts import LocalCSR
from lagraph_dist.semirings import semirings
from lagraph_dist.local.layout import (EXAMINED, FOUND, LONG_ROWS, M_BITS, M_COMPLETED, M_EXAMINED, M_FOUND, M_LIVE,
                                        M_NCOUNTERS, M_PUSH_EDGES, NCOUNTERS, OVERFLOW, PUSH_EDGES, STOP_EMPTY,
                                        STOP_LEVELS, STOP_TARGET, STOP_TOO_BIG)

__all__ = ["bitmap_from_list", "list_from_bitmap", "popcount", "bitmap_test", "new_counters", "single_entries",
           "push_spmspv", "pull_spmv", "assign_from_list", "fold_count", "fold_pack", "fold_merge",
           "bfs_fused", "search_plan", "queue_plan", "fused_workspace", "FOUND", "EXAMINED", "PUSH_EDGES", "OVERFLOW", "NCOUNTERS",
           "MultiTarget", "multi_new_counters", "multi_push", "multi_pull", "multi_merge",
           "multi_popcounts", "multi_nonzero_ids", "multi_fold_count", "multi_pack_parents", "multi_bfs_fused",
           "level_planes_rows", "level_planes_reduced",
           "path_dependencies", "dependencies_batch", "connected_components", "component_sweeps", "check_edges", "kronecker_edges",
           "M_FOUND", "M_BITS", "M_EXAMINED", "M_PUSH_EDGES", "M_COMPLETED", "M_LIVE", "M_NCOUNTERS",
           "LONG_ROWS", "STOP_EMPTY", "STOP_TOO_BIG", "STOP_LEVELS", "STOP_TARGET", "FUSED_LEVEL_CLOCK", "MULTI_ALPHA",
           "MULTI_TWIN_AFTER",
           "set_kernel_threads",
           "compile_kernels"]


compile_notice.install()      # before any kernel below compiles: a fresh install's wait is said


#: a fold's loops are specialised on the value type: these types' (4 and 8 bytes, integer and
#: float) are compiled ahead with the searches' (bool, int64), so that the ranks of a grid do not
#: all compile them at once on their first valued product
_VALUED_FOLDS = [semirings.plus_times.typed(np.float64), semirings.min_plus.typed(np.int32)]
#: the valued products compiled ahead: betweenness's sweeps (plus_first on float64 path counts,
#: both directions: mxv's plus_second runs as plus_first on the transpose)
_VALUED_PRODUCTS = [semirings.plus_first.typed(np.float64)]


def compile_kernels():
    """Set the kernels' threads, then compile (or load from numba's disk cache) every compiled
    loop, one thread and chunked, for the types the searches use, on a tiny graph. The backend
    does not call it (a kernel compiles on its first use, and a benchmark's untimed warm-up
    takes that); it fills the cache ahead, for the test suite's many MPI ranks."""
    set_kernel_threads()
    multi_fused.compile_multi_fused()     # first: the slowest to compile, and bfs_multi's tests come early
    fused.compile_kernels()
    queue.warm_up()
    n = 64
    indptr = np.arange(n + 1, dtype=np.int64)
    csr = LocalCSR(indptr, ((np.arange(n) + 1) % n).astype(np.int32), n)
    in_map = SimpleNamespace(block_len=n, stride=n, offset=0)
    bitmap.warm_up()
    push.warm_up(csr, in_map, list(semirings) + _VALUED_PRODUCTS)
    pull.warm_up(csr, in_map, list(semirings) + _VALUED_PRODUCTS)
    fold.warm_up(list(semirings) + _VALUED_FOLDS + _VALUED_PRODUCTS)
    multi.warm_up(csr, in_map)
    dependencies.warm_up(csr)
    components.warm_up(csr)
    edge_rules.warm_up(csr)
    kronecker.warm_up()
    parts.warm_up()
