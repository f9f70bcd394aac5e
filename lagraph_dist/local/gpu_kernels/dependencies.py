"""Driver of kernels/dependencies.cu: Brandes's sweeps of a batch of searches from their levels
(the twin of :mod:`lagraph_dist.local.cpu_kernels.dependencies`; the CUDA source says how the
depths and the one value a (vertex, search) are laid out).

The searches go a group of words at a time, as many words as a share of the free memory holds
(each word: a float64 for each of its 64 searches a vertex, and a depth plane a depth); a group
costs one launch that splits its slots by depth, then two a depth and sweep (the rows longer
than SWEEP_HEAVY_EDGES take the second, a block a row; it is skipped on graphs without such
rows); the searches of a slot of few searches and a short row are summed a thread each
(SWEEP_THREAD_WORK), a longer slot's by a warp. Host reads: the deepest level and the longest
row, once a call; the searches' reached counts and the edges read, once at the end."""
from __future__ import annotations

import struct

import numpy as np

from lagraph_dist.core.errors import OutOfDeviceMemory
from lagraph_dist.local.fit import format_bytes
from lagraph_dist.local.gpu_kernels.base import KernelArguments, KernelsBase, NULL_POINTER
from lagraph_dist.local.layout import SWEEP_GROUP_WORDS, SWEEP_HEAVY_EDGES, SWEEP_HEAVY_THREADS, SWEEP_THREAD_WORK, THREADS

#: the share of the free device memory one group of words may take
SWEEP_MEMORY_SHARE = 0.5
#: dependencies.cu's ld_sweep_args, field by field in its order, each 8 bytes
SWEEP_ARGUMENTS = (
    ("indptr", "Q"), ("indices", "Q"), ("planes", "Q"), ("values", "Q"), ("per_slot", "Q"), ("n", "q"),
    ("words", "q"), ("thread_work", "q"), ("heavy_edges", "q"), ("heavy", "Q"), ("heavy_counts", "Q"),
    ("examined", "Q"), ("depth", "q"), ("backward", "q"), ("first", "q"))
_PACKING = struct.Struct("<" + "".join(kind for _, kind in SWEEP_ARGUMENTS))


def sweep_bytes_per_word(n, deepest) -> int:
    """Device bytes one word of 64 searches holds during the sweeps: its values (64 float64 a
    vertex), its depth planes (one uint64 a vertex and depth), its
    per-slot sums and its long rows' list (8 bytes a vertex each)."""
    return n * (64 * 8 + (deepest + 1) * 8 + 8 + 8)


class DependencyKernels(KernelsBase):
    """The kernels of dependencies.cu."""

    #: the searches a betweenness batch gives the sweeps at once: a group's (a group of words
    #: runs its depths together: a mesh's hundreds of depths cost launches a group, not a word,
    #: and a launch over more slots keeps more loads in flight), the levels of several fused
    #: multi-source runs side by side
    dependencies_batch = 64 * SWEEP_GROUP_WORDS

    def path_dependencies(self, out_csr, in_csr, levels, *, endpoints):
        """(dependencies (n,) float64 on the device, reached (k,) int64, edges read) of the
        searches whose (rows, k) int32 device ``levels`` are given: as the CPU twin's."""
        cp = self.cp
        n = out_csr.nmajor
        levels = cp.ascontiguousarray(levels[:n], dtype=cp.int32)
        k = int(levels.shape[1])
        totals = cp.zeros(n, dtype=cp.float64)
        if n == 0 or k == 0:
            return totals, np.zeros(k, dtype=np.int64), 0
        deepest = int(self.read(levels.max().reshape(1))[0])
        if deepest < 1:
            return totals, np.zeros(k, dtype=np.int64), 0
        counts = cp.zeros(k + 1, dtype=cp.uint64)        # each search's reached vertices, then the edges read
        reached, examined = counts[:k], counts[k:]
        # with endpoints: each vertex's searches reaching it, and each search's source (the planes' launch)
        ends = (cp.zeros(n, dtype=cp.float64), cp.empty(k, dtype=cp.int64)) if endpoints else None
        words = -(-k // 64)
        group = self._words_a_group(n, deepest, words)
        heavy = self._has_heavy_rows(out_csr, in_csr)
        for first in range(0, words, group):
            totals += self._group(out_csr, in_csr, levels, first, min(group, words - first), deepest, heavy, reached,
                                  examined, ends)
        if endpoints:         # one for each search reaching a vertex; a source, its search's reach
            reaching, sources = ends
            totals += reaching
            cp.add.at(totals, sources, reached.astype(cp.float64))      # (repeated sources add up)
        counts = self.read(counts).astype(np.int64)
        return totals, counts[:k], int(counts[k])

    def _words_a_group(self, n, deepest, words):
        """The words one group takes: as many as SWEEP_MEMORY_SHARE of the free memory holds, at
        most SWEEP_GROUP_WORDS (the planes' launch counts a group's columns in shared memory)."""
        need = sweep_bytes_per_word(n, deepest)
        free, total = self.free_device_bytes()
        group = min(words, SWEEP_GROUP_WORDS, int(SWEEP_MEMORY_SHARE * free) // need)
        if group < 1:
            raise OutOfDeviceMemory(f"betweenness's fused sweeps need about {format_bytes(need)} of device memory "
                                    f"a word of 64 searches ({n:,} vertices, depths to {deepest}), but only "
                                    f"{format_bytes(free)} of {format_bytes(total)} are free")
        return group

    def _has_heavy_rows(self, out_csr, in_csr):
        """Whether a row of either CSR is longer than SWEEP_HEAVY_EDGES (one read)."""
        cp = self.cp
        longest = cp.stack([cp.diff(csr.indptr).max() for csr in (out_csr, in_csr)])
        return int(self.read(longest).max()) > SWEEP_HEAVY_EDGES

    def _group(self, out_csr, in_csr, levels, first_word, words, deepest, heavy, reached, examined, ends):
        """Both sweeps of words first_word .. first_word + words - 1: each vertex's
        dependencies summed over those searches (n,) float64."""
        cp = self.cp
        n, k = int(levels.shape[0]), int(levels.shape[1])
        slots = n * words
        planes = cp.zeros((deepest + 1, slots), dtype=cp.uint64)
        values = cp.empty((n, words * 64), dtype=cp.float64)
        per_slot = cp.zeros(slots, dtype=cp.float64)
        long_rows = cp.empty(slots, dtype=cp.int64)
        long_counts = cp.zeros(2 * (deepest + 1), dtype=cp.uint64)
        self._function("dependencies", "ld_sweep_planes")(          # a warp a slot
            (self._blocks(slots * 32),), (THREADS,),
            (levels, np.int64(k), np.int64(first_word * 64), np.int64(n), np.int64(words), planes, reached,
             *(ends or (NULL_POINTER, NULL_POINTER))))
        depth_launch = self._function("dependencies", "ld_sweep_depth")
        heavy_launch = self._function("dependencies", "ld_sweep_heavy")
        arguments = KernelArguments(b"", _PACKING)
        depth_blocks, heavy_blocks = self._blocks(slots), self._sms * 2

        def sweep(depth, backward):
            csr = out_csr if backward else in_csr
            first = depth == (deepest if backward else 0)        # (reads no edges)
            arguments.pack(csr.indptr.data.ptr, csr.indices.data.ptr, planes.data.ptr, values.data.ptr,
                           per_slot.data.ptr, n, words, SWEEP_THREAD_WORK, SWEEP_HEAVY_EDGES, long_rows.data.ptr,
                           long_counts.data.ptr, examined.data.ptr, depth, int(backward), int(first))
            self.launch(depth_launch, depth_blocks, THREADS, 0, arguments)
            if heavy and not first:
                self.launch(heavy_launch, heavy_blocks, SWEEP_HEAVY_THREADS, 0, arguments)

        for depth in range(deepest + 1):           # forward: path counts, the sources' first
            sweep(depth, backward=False)
        for depth in range(deepest, 0, -1):        # backward: the deepest settles first
            sweep(depth, backward=True)
        return per_slot.reshape(n, words).sum(axis=1)
