"""Driver of kernels/fused.cu: the whole search as levels that never leave the device, in one
cooperative launch."""
from __future__ import annotations

import struct
from typing import NamedTuple

import numpy as np

from lagraph_dist.core.settings import settings
from lagraph_dist.local.engine import FusedRecords, LazyRecords, thin_graph
from lagraph_dist.local.gpu_kernels.base import KernelArguments, KernelsBase, PinnedMirror, row_bits
from lagraph_dist.local.gpu_kernels.push import PUSH_STAMPS
from lagraph_dist.local.layout import (FUSED_BLOCK_EDGES, FUSED_BUILDS, FUSED_CLUSTER, FUSED_CLUSTER_BLOCK_EDGES,
                                       FUSED_GIANT_DEGREE, FUSED_MAX_LEVELS, FUSED_NSLOTS, FUSED_NSTATUS,
                                       FUSED_PUSH_GIANT_DEGREE, FUSED_RECORD, FUSED_THIN_ROW,
                                       FUSED_THREADS, NCOUNTERS, STOP_LEVELS, STOP_TOO_BIG, THIN_ROW_DEGREE_BITS)

FUSED_LEVEL_CLOCK = "device %globaltimer"   # what times each fused level (kernels/fused.cu)
#: push levels of more out-edges than this leave the cooperative kernel for push.cu's
#: tile-balanced push, in place between two runs: it reads a big frontier's edges faster than
#: the kernel's warps (H100: Kronecker 26's third level, 1.33 M edges, 0.57 ms inside the
#: kernel, 0.27 ms handed; 2^18 also handed Kronecker 20's third level, 0.97 M edges, for no gain),
#: unless the level is flat (at most 2,048 entries: fused_grid_levels.cuh's ld_flat_keeps), whose
#: staged warps split its edges evenly (the kernel's ``handover_edges``; a search's own edge
#: limit, ``max_edges``, stops the kernel at any level)
FUSED_MAX_PUSH_EDGES = 1 << 20

#: fused.cu's ld_fused_args, the kernel's one argument, field by field in its order, each 8
#: bytes (a pointer "Q", an integer "q", a double "d"): a launch hands the driver one packed
#: buffer instead of 41 arguments, each a Python object CuPy converts. The graph's and the
#: workspace's fields come first, packed once a matrix; then the call's, packed in place.
FUSED_FIXED_ARGUMENTS = (
    ("out_indptr", "Q"), ("out_indices", "Q"), ("in_indptr", "Q"), ("in_indices", "Q"), ("empty_rows", "Q"),
    ("n", "q"), ("queues", "Q"), ("bitmaps", "Q"), ("giants", "Q"), ("giant_rows", "Q"), ("giant_capacity", "q"),
    ("giant_rows_possible", "q"), ("thin_rows", "Q"), ("slots", "Q"))
FUSED_CALL_ARGUMENTS = (
    ("words", "Q"), ("parents", "Q"), ("depths", "Q"), ("depth_words", "Q"), ("first_depth", "q"), ("first", "Q"),
    ("nfirst", "q"), ("source", "q"), ("pushed", "Q"), ("rule_mode", "q"),
    ("alpha", "d"), ("beta", "d"), ("rule_push", "q"), ("rule_previous", "q"), ("rule_unexplored", "q"),
    ("max_frontier", "q"), ("max_edges", "q"), ("handover_edges", "q"), ("max_levels", "q"), ("block_edges", "q"),
    ("target", "q"),
    ("records", "Q"), ("status", "Q"), ("mirror", "Q"), ("mirror_levels", "q"), ("cache_visited", "q"),
    ("depth_bits_follow", "q"))
_FIXED_PACKING, _CALL_PACKING = (struct.Struct("<" + "".join(kind for _, kind in fields))
                                 for fields in (FUSED_FIXED_ARGUMENTS, FUSED_CALL_ARGUMENTS))


def _pointer(array):
    """A device array's address, 0 for None (an optional argument)."""
    return 0 if array is None else array.data.ptr


class _KernelRecords(LazyRecords):
    """The twin's per-level records (frontier, discovered, examined, push, and seconds) of a
    run, from the kernel's rows (the four counts and %globaltimer at the level's end): a
    level's seconds are its end less the previous end."""

    __slots__ = ("_rows", "_started")

    def __init__(self, rows, started_ns):
        self._rows, self._started, self._made = rows, started_ns, None
        found = rows[:, 1]          # (a search's few levels: Python's sum of a list costs a third of numpy's)
        self.found = sum(found.tolist()) if found.shape[0] <= 64 else int(found.sum())

    def _made_now(self):
        ends = self._rows[:, 4].astype(np.int64)
        seconds = np.empty(ends.shape[0])
        if ends.shape[0]:            # (np.diff with prepend goes through broadcast_to and concatenate)
            seconds[0] = ends[0] - self._started
            np.subtract(ends[1:], ends[:-1], out=seconds[1:])
        seconds *= 1e-9
        return self._rows[:, :4].astype(np.int64), seconds

    def __len__(self):
        return int(self._rows.shape[0])


class _JoinedRecords(LazyRecords):
    """The records of several runs (and tile levels) of one search, joined when first read."""

    __slots__ = ("_runs",)

    def __init__(self, runs):
        self._runs, self._made = runs, None
        self.found = sum(run.found for run in runs)

    def _made_now(self):
        joined = FusedRecords.joined(self._runs)
        return joined.counts, joined.seconds

    def __len__(self):
        return sum(len(run) for run in self._runs)


_level_records = _KernelRecords


class SearchPlan:
    """:meth:`FusedKernels.bfs_fused`'s search from a source on one pair of blocks (push, pull)
    into outputs of ``length`` slots made for it, under one stock rule's mode and parameters: the
    engine boundary's ``SearchFromSource`` on one GPU, kept with the matrix. A call,
    ``plan(source, rule, max_frontier, max_edges, max_levels, target)``, is the kernel's runs
    and nothing of the level engine's (no vectors made beforehand, no frontier left): its
    outputs are those made while the last search of their shape ran (``made_ahead``), and a
    search deeper than one run's FUSED_MAX_LEVELS goes on from the frontier the run left. It
    returns (visited words, values (int64 parents, or bool), depth words and int64 depths (None,
    None without depths), the levels' records, the STOP_* reason), ``rule``'s state updated."""

    __slots__ = ("_kernels", "_blocks", "_space", "_positional", "_shape")

    def __init__(self, kernels, out_csr, in_csr, length, *, positional, depths, rule, workspace):
        del rule                 # (the call's rule carries the mode and parameters the key named)
        self._kernels, self._blocks, self._space = kernels, (out_csr, in_csr), workspace
        self._positional = bool(positional)
        self._shape = (int(length), self._positional, bool(depths))

    def _outputs(self):
        """The search's four arrays (depth words and depths None without depths) and their
        bytes, unwritten: the kernel clears the bitmaps and sets the source."""
        cp = self._kernels.cp
        length, positional, depths = self._shape
        made = (cp.empty(length // 32, cp.uint32), cp.empty(length, cp.int64 if positional else cp.bool_),
                *((cp.empty(length // 32, cp.uint32), cp.empty(length, cp.int64)) if depths else (None, None)))
        return made, sum(array.nbytes for array in made if array is not None)

    def __call__(self, source, rule, max_frontier, max_edges, max_levels, target):
        kernels = self._kernels
        words, values, depth_words, depths = outputs = kernels.made_ahead(("search plan", self._shape), self._outputs)
        runs, depth, frontier = [], 1, None
        while True:
            run_levels = min(max_levels, FUSED_MAX_LEVELS)
            records, frontier, _, reason = kernels.bfs_fused(
                *self._blocks, words, values, depth_words, depths, depth, frontier, self._positional, rule,
                max_frontier, max_edges, run_levels, target, workspace=self._space, source=source)
            runs.append(records)
            depth, max_levels = depth + len(records), max_levels - len(records)
            # (a run stops at its cap with STOP_LEVELS and a frontier left; at the search's own
            # cap the search ends)
            if reason != STOP_LEVELS or max_levels <= 0 or frontier.shape[0] == 0:
                return (*outputs, runs[0] if len(runs) == 1 else _JoinedRecords(runs), reason)


class _Report(NamedTuple):
    """A fused run's report buffer (FusedKernels._report), its views and the addresses a launch
    passes (read once: a CuPy array's address is a few attribute reads a call)."""
    whole: object       # the device buffer: status, push stamps, level records
    mirror: PinnedMirror    # the head's page-locked host copy (the status, the stamps and the
                            # first records), which the kernel writes as it exits
    records: object     # the level records (uint64)
    stamps: tuple       # the push stamps' views (push_stamps)
    whole_at: int       # the addresses of whole, records and the stamps' first view
    records_at: int
    stamps_at: int
    mirror_levels: int  # the level records the mirror holds (settings.fused_records_read when made)


class FusedKernels(KernelsBase):
    """The kernel of fused.cu and its workspace."""

    FUSED_LEVEL_CLOCK = FUSED_LEVEL_CLOCK     # as the numpy twin's module names it

    # -- the fused search (kernels/fused.cu) ------------------------------------------------
    def fused_workspace(self, n, nnz):
        """Buffers of the fused search over an n-vertex graph, made once per matrix (the caller
        keeps them): three frontier queues and bitmaps, giant lists, counters and the reports
        (:meth:`_report`); where a tile push level leaves the next run's first frontier (slot
        0's bitmap and giant list); the empty frontier a finished search returns."""
        cp = self.cp
        nwords = -(-n // 32)
        giants = min(n, nnz // min(FUSED_GIANT_DEGREE, FUSED_PUSH_GIANT_DEGREE) + 1)
        bitmaps, giant_lists = cp.empty(3 * max(nwords, 1), dtype=cp.uint32), cp.empty(3 * giants, dtype=cp.int32)
        return {"queues": cp.empty(3 * max(n, 1), dtype=cp.int32), "bitmaps": bitmaps, "giants": giant_lists,
                "giant_rows": cp.empty(giants, dtype=cp.int32), "giant_capacity": giants,
                "slots": cp.empty(FUSED_NSLOTS, dtype=cp.uint64), "reports": {}, "plans": {},
                "n": n, "nnz": nnz,
                "first_frontier": (bitmaps[:nwords], giant_lists[:giants]),
                "no_ids": cp.empty(0, dtype=cp.int32)}

    def search_plan(self, out_csr, in_csr, length, *, positional, depths, rule, workspace):
        """The engine boundary's SearchFromSource: a :class:`SearchPlan` of these blocks."""
        return SearchPlan(self, out_csr, in_csr, length, positional=positional, depths=depths, rule=rule,
                          workspace=workspace)

    @staticmethod
    def _per_matrix(space, what, csr, make):
        """``make(csr)``, made once per matrix (``csr``: the in-edge or out-edge block the
        workspace serves) and kept in the workspace under ``what``."""
        known = space.setdefault(what, {})
        key = id(csr.indptr)
        if key not in known:
            known[key] = make(csr)
        return known[key]

    def _longest_row(self, space, csr):
        """The most entries a row of ``csr`` has; one reduction and read per matrix."""
        def longest(csr):
            return int(self.read(self.cp.diff(csr.indptr).max())) if csr.indptr.shape[0] > 1 else 0
        return self._per_matrix(space, "longest_row", csr, longest)

    def _giant_rows(self, space, in_csr):
        """Whether some row of ``in_csr`` has more than FUSED_GIANT_DEGREE entries (a pull level
        then takes a second grid barrier for them); one reduction and read per matrix."""
        return self._longest_row(space, in_csr) > FUSED_GIANT_DEGREE

    def _empty_rows(self, space, in_csr):
        """The bitmap of ``in_csr``'s rows without entries (bits past its rows set), made once
        per matrix: pull levels close them like visited rows (kernels/fused.cu)."""
        def empty_bits(csr):
            return row_bits(self.cp, csr.indptr[1:] == csr.indptr[:-1])
        return self._per_matrix(space, "empty_rows", in_csr, empty_bits)

    def _thin(self, space, out_csr, build):
        """Whether the launch runs its block levels a thread an entry (fused.cu's
        ld_block_thin_level): the one-block-an-SM build on a graph whose rows have at most
        FUSED_THIN_ROW out-edges."""
        return build == 1 and self._longest_row(space, out_csr) <= FUSED_THIN_ROW

    def _thin_rows(self, space, out_csr):
        """A thin graph's rows as one word each, start << THIN_ROW_DEGREE_BITS | degree (fused.cu's
        ld_thin_claim reads a found vertex's row with one load where the indptr takes two), made
        once per matrix: 8 bytes a vertex."""
        def words(csr):
            cp = self.cp
            indptr = csr.indptr.astype(cp.uint64)
            return (indptr[:-1] << THIN_ROW_DEGREE_BITS) | (indptr[1:] - indptr[:-1])
        return self._per_matrix(space, "thin_rows", out_csr, words)

    def _arguments(self, space, out_csr, in_csr, thin):
        """The kernel's argument buffer (a KernelArguments), made once per launch plan
        (:meth:`_launch_plan` keeps it) with the fields that stay from call to call
        (FUSED_FIXED_ARGUMENTS: the graph's blocks, empty rows and n, its thin rows where its
        block levels may run a thread an entry (``thin``: :meth:`_thin`, :meth:`_thin_rows`; null
        elsewhere); the workspace's queues, bitmaps,
        giant lists and slots) packed: a call packs only its own (a whole call on a small
        graph is a few hundred microseconds of which the host's part is what is left to cut). The
        arrays stay alive in the workspace and the matrix, which outlive the launches."""
        return KernelArguments(_FIXED_PACKING.pack(
            _pointer(out_csr.indptr), _pointer(out_csr.indices), _pointer(in_csr.indptr), _pointer(in_csr.indices),
            _pointer(self._empty_rows(space, in_csr)), out_csr.nmajor, _pointer(space["queues"]),
            _pointer(space["bitmaps"]), _pointer(space["giants"]), _pointer(space["giant_rows"]),
            space["giant_capacity"], int(self._giant_rows(space, in_csr)),
            _pointer(self._thin_rows(space, out_csr) if thin else None), _pointer(space["slots"])),
            _CALL_PACKING)

    def _launch_plan(self, space, out_csr, in_csr, mult, ctype):
        """(kernel, blocks, dynamic shared bytes, argument buffer, one-block threshold) of a
        launch over ``in_csr`` (:meth:`_fused_launch`, :meth:`_arguments`,
        :meth:`_one_block_edges`), made once and kept in the workspace under everything they
        depend on: one lookup a call."""
        key = (id(in_csr.indptr), mult, ctype, self.fused_blocks_per_sm, self.fused_cache_visited,
               self.fused_cluster_levels, self.fused_block_edges)
        plan = space["plans"].get(key)
        if plan is None:
            function, blocks, cache, thin, clustered = self._fused_launch(space, out_csr, mult, ctype)
            arguments = self._arguments(space, out_csr, in_csr, thin)
            plan = space["plans"][key] = (function, blocks, cache, arguments, self._one_block_edges(clustered))
        return plan

    def _one_block_edges(self, clustered):
        """Frontier edges up to which a push level runs in block 0 (fused.cu's ld_block_fits):
        the ``fused_block_edges`` setting, else FUSED_CLUSTER_BLOCK_EDGES where the launch is
        clustered, so that the cluster levels take the levels between it and FUSED_BLOCK_EDGES
        (a 1000 x 1000 mesh's levels of 257-512 entries, 3.5 us a level there against 4.1 in
        block 0 on an H200: ``benchmarks/probes/fused_blocks.py``), else FUSED_BLOCK_EDGES."""
        if self.fused_block_edges is not None:
            return self.fused_block_edges
        return FUSED_CLUSTER_BLOCK_EDGES if clustered else FUSED_BLOCK_EDGES

    def _fused_launch(self, space, out_csr, mult, ctype):
        """(kernel, blocks, dynamic shared bytes, thin, clustered) of a cooperative launch over
        the graph of workspace ``space`` (made once: :meth:`_launch_plan` keeps it; the
        attributes read are driver queries). Blocks a
        multiprocessor: the ``fused_blocks_per_sm`` setting, else one on graphs of low average
        degree, whose thin frontiers make the level's latency chain the cost
        (benchmarks/probes/fused_blocks.py: 23 against 32 ms on the 1000 x 1000 mesh), else as many as
        fit at once (registers, threads and shared memory per multiprocessor, as the occupancy
        calculator counts), Kronecker graphs gaining from the second. One a multiprocessor runs
        the build whose threads have twice the registers (fused.cu, BLOCKS), and, where the
        visited words fit beside its shared memory, gives block 0 a copy of them to claim in
        (:meth:`_visited_cache_bytes`). On a thin graph (:meth:`_thin`) and a GPU with thread
        block clusters, that build launches in clusters (``fused_cluster_levels``), as many
        blocks as whole clusters fit at once (:meth:`_clustered_blocks`)."""
        n, nnz = space["n"], space["nnz"]
        wanted = self.fused_blocks_per_sm or (1 if thin_graph(nnz, n) else max(FUSED_BUILDS))
        build = min((b for b in FUSED_BUILDS if b >= wanted), default=max(FUSED_BUILDS))
        thin = self._thin(space, out_csr, build)
        if self.fused_cluster_levels and self._clusters and thin:
            function = self._function("fused", "ld_bfs_fused_clustered", mult, ctype)
            cache = self._visited_cache_bytes(function, n, build)
            return function, self._clustered_blocks(function, cache), cache, thin, True
        function = self._function("fused", "ld_bfs_fused", mult, ctype, build)
        cache = self._visited_cache_bytes(function, n, build)
        props = self._props
        regs = -(-max(function.num_regs, 1) // 8) * 8
        by_regs = int(props["regsPerMultiprocessor"]) // (regs * FUSED_THREADS)
        by_threads = int(props["maxThreadsPerMultiProcessor"]) // FUSED_THREADS
        by_shared = int(props["sharedMemPerMultiprocessor"]) // max(function.shared_size_bytes + cache + 1024, 1)
        fit = max(1, min(by_regs, by_threads, by_shared, int(props["maxBlocksPerMultiProcessor"])))
        return function, self._sms * min(fit, wanted), cache, thin, False

    def _clustered_blocks(self, function, cache):
        """Blocks of a clustered launch: one a multiprocessor, in whole clusters of
        FUSED_CLUSTER, no more than fit at once (a cooperative launch's blocks must all be
        resident)."""
        whole = self._sms // FUSED_CLUSTER
        fit = self.clusters_at_once(function, FUSED_CLUSTER, FUSED_THREADS, cache)
        if fit < 1:
            raise RuntimeError(f"no cluster of {FUSED_CLUSTER} blocks of the fused search fits this GPU "
                               f"({cache} bytes of dynamic shared memory a block)")
        return FUSED_CLUSTER * min(whole, fit)

    def _visited_cache_bytes(self, function, n, build):
        """Dynamic shared memory for block 0's copy of the visited words (fused.cu's
        cache_visited): the one-block-an-SM build, when ``fused_cache_visited`` is on and n / 8
        bytes fit beside the kernel's own shared memory (about 1.5 M vertices on an H100).
        Its block levels then claim at shared-memory latency, not a global atomic's; 0 for
        none."""
        cache = 4 * -(-n // 32)
        if build != 1 or not self.fused_cache_visited or \
                function.shared_size_bytes + cache > int(self._props["sharedMemPerBlockOptin"]):
            return 0
        kernel = function._function          # (the attribute is the kernel's, not the counter's)
        if kernel.max_dynamic_shared_size_bytes < cache:
            kernel.max_dynamic_shared_size_bytes = cache
        return cache

    def bfs_fused(self, out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier_ids, positional,
                  rule, max_frontier, max_edges, max_levels, target, workspace=None, source=None, while_running=None):
        """The search's levels from ``frontier_ids``, or (``frontier_ids`` None) from vertex
        ``source``, which the first run's kernel sets up: visited and depths cleared but for it
        (no launch, allocation or list of the host's). Runs of the cooperative kernel, and between
        two runs each push level of more than FUSED_MAX_PUSH_EDGES out-edges (the rule chose it
        in the run before) as push.cu's tile-balanced push written in place, which the next run
        follows with no read between them. Each run reads its status, the push before it (its
        stamps) and its first per-level records back in one copy (a second copy only past
        ``settings.fused_records_read`` levels).
        ``while_running``, when given, is called once while the first run's kernel runs (work
        the host would otherwise do after the read).
        Updates ``rule``'s state, and ``fused_cluster_counts`` (the levels its runs ran inside
        one thread block cluster, and those that spilled an inbox). Returns the twin's tuple
        (records, frontier ids (a copy), frontier out-edges, stop reason); each level's seconds
        come from %globaltimer readings."""
        cp = self.cp
        n = out_csr.nmajor
        space = workspace or self.fused_workspace(n, int(out_csr.indices.shape[0]))
        if space["n"] != n:      # the kernel indexes its slots by n: a smaller workspace is overrun
            raise ValueError(f"fused workspace made for {space['n']} vertices, used for {n}")
        report = self._report(space, max_levels)
        frontier = source if frontier_ids is None else frontier_ids.astype(cp.int32, copy=False)
        runs, depth, levels_left = [], first_depth, max_levels
        self.fused_cluster_counts = {"levels": 0, "spills": 0}
        pushed = False           # a tile push level made the next run's first frontier
        started_here = frontier_ids is None     # depths' bits equal the visited bits from the start
        while True:
            records, slot, count, edges, reason = self._fused_run(
                out_csr, in_csr, words, parents, depth_words, depths, depth, frontier, pushed, positional, rule,
                max_frontier, max_edges, levels_left, target, space, report, started_here, while_running)
            while_running = None
            runs.extend(records)
            ran = len(records[-1])
            depth, levels_left = depth + ran, levels_left - ran
            # (a run that used up its levels stops with STOP_LEVELS)
            if not (reason == STOP_TOO_BIG and count <= max_frontier and FUSED_MAX_PUSH_EDGES < edges <= max_edges):
                break
            # push.cu's tiles read a huge frontier's edges faster than the kernel's warps; the
            # next run takes the push's output from the device, with no read between them (and,
            # in a search started here, copies the visited words to the depths' bits as it exits:
            # the push sets none of them)
            slot = self._push_level(out_csr, words, parents, None if started_here else depth_words, depths, depth,
                                    slot, count, edges, positional, target, space, report.stamps)
            frontier, pushed = space["queues"][slot * n:(slot + 1) * n], True
            depth, levels_left = depth + 1, levels_left - 1
        # the queue is the workspace's, which the next run overwrites: a frontier left over is copied
        # (the usual end, no frontier left: the workspace's one empty list, which nothing writes)
        ids = space["queues"][slot * n:slot * n + count].copy() if count else space["no_ids"]
        return _JoinedRecords(runs) if len(runs) > 1 else runs[0], ids, edges, reason

    def _report(self, space, max_levels):
        """The report of runs of at most ``max_levels`` levels, made once per size: the run's
        status, a tile push level's stamps (push.cu writes them; the run after it reads its first
        frontier's counts there and the host reads them with that run's status), then the
        level records: a :class:`_Report`. Its head, the first ``settings.fused_records_read`` records
        with what comes before them, has a page-locked host mirror that the kernel writes."""
        if settings.fused_records_read < 0:
            raise ValueError(f"settings.fused_records_read must be 0 or more, got {settings.fused_records_read}")
        key = (max_levels, settings.fused_records_read)
        report = space["reports"].get(key)
        if report is None:
            cp = self.cp
            records_at = FUSED_NSTATUS + PUSH_STAMPS
            whole = cp.empty(records_at + FUSED_RECORD * max_levels, dtype=cp.int64)
            records = whole[records_at:].view(cp.uint64)
            stamps = self.push_stamps(whole[FUSED_NSTATUS:records_at].view(cp.uint64))
            mirror_levels = min(max_levels, settings.fused_records_read)
            mirror = PinnedMirror(cp, records_at + FUSED_RECORD * mirror_levels, np.int64)
            report = space["reports"][key] = _Report(
                whole, mirror, records, stamps, whole.data.ptr, records.data.ptr, stamps[0].data.ptr, mirror_levels)
        return report

    def _fused_run(self, out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier, pushed,
                   positional, rule, max_frontier, max_edges, max_levels, target, space, report, depth_bits_follow,
                   while_running=None):
        """One cooperative launch of at most ``max_levels`` levels (``frontier``: the first
        frontier's ids, or the search's source as an int, which the kernel sets up, or with
        ``pushed`` the queue a tile push level just wrote, whose count, out-edges, giants and
        stop the kernel reads from the push's stamps; ``report``: :meth:`_report`'s buffers):
        ([the push level's record (with ``pushed``), the run's records], slot of the last
        frontier, its count and out-edges, stop reason). ``depth_bits_follow``: the depths' bits
        equal the visited bits at the start (the search started in this call), so the kernel
        copies the visited words to them as it exits instead of setting a bit a found vertex."""
        first, nfirst, source = (0, 1, frontier) if isinstance(frontier, int) else (frontier.data.ptr,
                                                                                    frontier.shape[0], -1)
        mult, ctype = (2, "long long") if positional else (0, "bool")
        function, blocks, cache, arguments, block_edges = self._launch_plan(space, out_csr, in_csr, mult, ctype)
        arguments.pack(
            words.data.ptr, parents.data.ptr, _pointer(depths), _pointer(depth_words), first_depth, first, nfirst,
            source, report.stamps_at if pushed else 0, rule.code, rule.alpha, rule.beta, *rule.state(),
            max_frontier, max_edges, FUSED_MAX_PUSH_EDGES, max_levels, block_edges, target,
            report.records_at, report.whole_at, report.mirror.address, report.mirror_levels, cache > 0,
            depth_bits_follow)
        self.launch_cooperative(function, blocks, FUSED_THREADS, cache, arguments)
        self.make_ahead()                # while the kernel runs: the next search's outputs, the caller's work
        if while_running is not None:
            while_running()
        # the one read: the status, the stamps and the first records, which the kernel wrote
        head = self.read_mirrored(report.mirror)
        (levels, slot, count, edges, reason, push, previous, unexplored, started, cluster_levels,
         cluster_spills) = head[:FUSED_NSTATUS].tolist()
        rule.set_state(push, previous, unexplored)
        self.fused_cluster_counts["levels"] += cluster_levels
        self.fused_cluster_counts["spills"] += cluster_spills
        # (the mirror is read into again by the next run: the records keep copies)
        if levels > report.mirror_levels:
            flat = self.read(report.records[:FUSED_RECORD * levels])
        else:
            at = FUSED_NSTATUS + PUSH_STAMPS
            flat = head[at:at + FUSED_RECORD * levels].view(np.uint64).copy()
        run = _level_records(flat.reshape(-1, FUSED_RECORD), started)
        if not pushed:
            return [run], slot, count, edges, reason
        seen = head[FUSED_NSTATUS:FUSED_NSTATUS + PUSH_STAMPS].view(np.uint64).copy()     # the push's stamps
        pushed_level = _level_records(seen[NCOUNTERS + 2:].reshape(1, FUSED_RECORD), int(seen[NCOUNTERS]))
        return [pushed_level, run], slot, count, edges, reason

    def _push_level(self, out_csr, words, parents, depth_words, depths, depth, slot, count, edges, positional,
                    target, space, stamps):
        """The push level the kernel handed back (its frontier: slot ``slot``'s queue of ``count``
        entries and ``edges`` out-edges), written in place into the next slot's queue, which it
        returns; nothing is read back (the next run reads the push's ``stamps``, in its report). The
        push also lists what the next run's set-up would (the found vertices' bits in slot 0's
        bitmap, their giants in slot 0's list)."""
        n = out_csr.nmajor
        after = (slot + 1) % 3
        queues = space["queues"]
        self.push_level_in_place(out_csr, queues[slot * n:slot * n + count], positional, words, parents, depth_words,
                                 depths, depth, queues[after * n:(after + 1) * n], edges, target, stamps,
                                 next_frontier=space["first_frontier"])
        return after
