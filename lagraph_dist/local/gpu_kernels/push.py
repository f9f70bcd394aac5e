"""Driver of kernels/push.cu: the load-balanced push SpMSpV."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import KernelsBase
from lagraph_dist.local.layout import (ADD_ANY, FUSED_RECORD, MULT_PAIR, MULT_SECONDI, NCOUNTERS, PUSH_THREADS,
                                       TILE_EDGES)

PUSH_STAMPS = NCOUNTERS + 2 + FUSED_RECORD     # push_level_in_place's stamps: counters, clock, hit, record
#: blocks a multiprocessor of a big push launch, most of them waiting for a resident block to
#: finish: the shorter each warp's run of tiles, the less a level waits on its slowest warps at
#: the end (H200, push-only Kronecker 26, benchmarks/probes/push_blocks.py: its level of 625 M edges
#: 9.4 ms at 8, 8.3 at 16, 7.7 at 64 and 128; the Graph500 bench's 16 roots 37.3 -> 41.5 GTEPS
#: from 8 to 64; launching only the resident blocks had cost 35%)
PUSH_BLOCKS_PER_SM = 64

# in place, depths, depth bits, depth, the next run's giants
_NOT_IN_PLACE = (np.int32(0), np.intp(0), np.intp(0), np.int64(0), np.intp(0))


class PushKernels(KernelsBase):
    """The kernels of push.cu (its frontier scan is shared: KernelsBase._frontier_scan)."""

    def _push_blocks(self, frontier_edges):
        """Blocks of a push launch over at most ``frontier_edges`` edges (the frontier's
        out-edges, or a bound on them): each warp walks a contiguous run of tiles; the
        ``push_blocks_per_sm`` setting, else PUSH_BLOCKS_PER_SM, a multiprocessor, fewer where
        the edges fill fewer blocks' tiles. Four or five stay resident at once (64 or 48
        registers, 29 KB of shared memory) and the rest start as blocks finish."""
        most = self._sms * (self.push_blocks_per_sm or PUSH_BLOCKS_PER_SM)
        return max(1, min(-(-int(frontier_edges) // TILE_EDGES), most))

    def push_spmspv(self, csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map,
                    *, out_degree=None, frontier_edges=None):
        cp = self.cp
        nf = int(frontier_ids.shape[0])
        bound = csr.nminor if frontier_edges is None else frontier_edges
        part, counters = self._output(semiring, csr.nminor, bound)
        if nf == 0:
            return part, counters
        frontier = frontier_ids.astype(cp.int32, copy=False)
        scan = self._frontier_scan(csr, frontier)
        # (unknown out-edges: the matrix's entries bound them, so a small matrix launches few blocks)
        blocks = self._push_blocks(csr.nnz if frontier_edges is None else frontier_edges)
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else part.values[:1]
        self._function("push", "ld_push_spmspv", *self._codes(semiring))(
            (blocks,), (PUSH_THREADS,),
            (csr.indptr, csr.indices, frontier, left, scan, np.int32(nf), mask, mode, part.words, part.values,
             part.ids, counters, self._or_null(out_degree)) + self._idmap(in_map) + _NOT_IN_PLACE)
        return part, counters

    @staticmethod
    def push_stamps(whole):
        """The device words a push level in place writes its counters, clock and record to
        (``whole``: uint64, PUSH_STAMPS of them, the caller's) and their three views, made once by
        the caller (a view costs as much as a launch's set-up on the chain of a level handed
        over)."""
        return whole, whole[:NCOUNTERS], whole[NCOUNTERS:NCOUNTERS + 2], whole[NCOUNTERS + 2:]

    def push_level_in_place(self, csr, frontier, positional, words, parents, depth_words, depths, depth, queue,
                            frontier_edges, target, stamps, next_frontier=None):
        """One BFS level as the push product written into the search's own state (push.cu, in
        place): a neighbour whose ``words`` bit it claims gets its parent in ``parents`` (its id
        when ``positional``, else true), its depth (when ``depths`` is given; its bit in
        ``depth_words`` too unless that is None, as in a search whose fused run copies the visited
        words to them) and a place on ``queue``. ``stamps`` (:meth:`push_stamps`) gets the level's
        counters, its start on the device clock, whether it claimed ``target`` (-1: none) and its
        record in fused.cu's layout; nothing is read back here. ``next_frontier`` (bits, giants),
        when given: ``bits`` gets a copy of ``words`` from before the level and the found vertices
        of more than FUSED_PUSH_GIANT_DEGREE out-edges are listed in ``giants`` (their count: the
        counters' PUSH_GIANTS), from which fused.cu's next run makes its first frontier."""
        nf = int(frontier.shape[0])
        _, counters, clock, record = stamps
        giants = np.intp(0)
        if next_frontier is not None:
            bits, giants = next_frontier
            bits.data.copy_from_device_async(words.data, bits.nbytes)
        stamp = self._function("push", "ld_push_level_stamp")
        stamp((1,), (32,), (counters, clock, record, np.int64(nf), words, np.int64(target), np.int32(0)))
        scan = self._frontier_scan(csr, frontier)
        blocks = self._push_blocks(frontier_edges)
        n = np.int64(csr.nminor)      # one block: local ids are the global ids
        codes = (MULT_SECONDI, ADD_ANY, "long long") if positional else (MULT_PAIR, ADD_ANY, "bool")
        self._function("push", "ld_push_spmspv", *codes)(
            (blocks,), (PUSH_THREADS,),
            (csr.indptr, csr.indices, frontier, parents, scan, np.int32(nf), self._dummy_words, np.int32(0),
             words, parents, queue, counters, np.intp(0), n, n, np.int64(0), np.int32(1),
             self._or_null(depths), self._or_null(depth_words), np.int64(depth), giants))
        stamp((1,), (32,), (counters, clock, record, np.int64(nf), words, np.int64(target), np.int32(1)))
