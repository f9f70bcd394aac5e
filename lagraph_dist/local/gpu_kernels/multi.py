"""Driver of kernels/multi.cu: up to 64 searches at once on a frontier of one uint64 word a vertex."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import KernelsBase
from lagraph_dist.local.layout import M_NCOUNTERS, THREADS


class MultiKernels(KernelsBase):
    """The kernels of multi.cu (the ids of nonzero words go through list_from_bitmap,
    BitmapKernels' in the composed GpuKernels)."""

    # -- multi-source search (kernels/multi.cu) ----------------------------------------------
    def multi_new_counters(self):
        return self.cp.zeros(M_NCOUNTERS, dtype=self.cp.uint64)

    def _multi_target(self, target):
        """The kernels' trailing arguments for a MultiTarget (cpu_kernels.MultiTarget)."""
        return (target.words, target.next, target.queue, self._or_null(target.parents),
                self._or_null(target.levels), np.int32(target.width), np.int64(target.depth),
                np.uint64(target.full), self._or_null(target.out_degree), target.counters)

    @staticmethod
    def _with_parents(target):
        return "true" if target.parents is not None else "false"

    def multi_push(self, csr, frontier_ids, frontier_words, in_map, target):
        nf = int(frontier_ids.shape[0])
        if nf == 0:
            return target.counters
        frontier = frontier_ids.astype(self.cp.int32, copy=False)
        scan = self._frontier_scan(csr, frontier)
        self._function("multi", "ld_multi_push", self._with_parents(target))(
            (self._sms * 8,), (THREADS,),          # edges past the grid's first pass loop
            (csr.indptr, csr.indices, frontier, np.int32(nf), frontier_words, scan)
            + self._idmap(in_map) + self._multi_target(target))
        return target.counters

    def multi_pull(self, csr, frontier_words, live, in_map, target):
        nrows = csr.nmajor
        if nrows:
            self._function("multi", "ld_multi_pull", self._with_parents(target))(
                (self._blocks(nrows, cap_per_sm=16),), (THREADS,),
                (csr.indptr, csr.indices, np.int64(nrows), frontier_words, np.uint64(live))
                + self._idmap(in_map) + self._multi_target(target))
        return target.counters

    def multi_merge(self, ids, words, offsets, parents, target):
        count = int(ids.shape[0])
        if count:
            self._function("multi", "ld_multi_merge", self._with_parents(target))(
                (self._blocks(count),), (THREADS,),
                (ids, words, self._or_null(offsets), self._or_null(parents), np.int64(count))
                + self._multi_target(target))
        return target.counters

    def multi_popcounts(self, words):
        cp = self.cp
        count = int(words.shape[0])
        out = cp.empty(count, dtype=cp.int64)
        if count:
            self._function("multi", "ld_multi_popcounts")((self._blocks(count),), (THREADS,),
                                                          (words, np.int64(count), out))
        return out

    def multi_nonzero_ids(self, words, count=None):
        """int32 ids of the nonzero words, increasing; reads the count back only when not given."""
        cp = self.cp
        nwords = int(words.shape[0])            # a multiple of 32 (whole blocks)
        occupancy = cp.empty(nwords // 32, dtype=cp.uint32)
        if nwords:
            self._function("multi", "ld_multi_occupancy")((self._blocks(nwords),), (THREADS,),
                                                          (words, np.int64(nwords), occupancy))
        return self.list_from_bitmap(occupancy, count)

    def multi_fold_count(self, queue, counters, words, block_len, nowners):
        cp = self.cp
        out = cp.zeros(2 * nowners, dtype=cp.uint64)
        self._function("multi", "ld_multi_fold_count")(
            (self._blocks(queue.shape[0], cap_per_sm=8),), (THREADS,),
            (queue, counters, words, np.int64(block_len), np.int32(nowners), out))
        return out.view(cp.int64)

    def multi_pack_parents(self, sources, words, offsets, cand_parents, total):
        cp = self.cp
        out = cp.empty(int(total), dtype=cp.int64)
        count = int(sources.shape[0])
        if count:
            self._function("multi", "ld_multi_pack_parents")(
                (self._blocks(count),), (THREADS,),
                (sources.astype(cp.int32, copy=False), words, offsets, np.int64(count), cand_parents,
                 np.int32(cand_parents.shape[1]), out))
        return out
