"""Driver of kernels/multi_fused.cu: a batch of up to 512 searches as one cooperative launch,
every level on the device, one read at the end."""
from __future__ import annotations

import struct

import numpy as np

from lagraph_dist.local.engine import (MULTI_FUSED_MAX_WIDTH, MULTI_RECORD_FIELDS, LevelPlanes, MultiFusedRun,
                                      levels_as_planes, planes_for_levels, thin_graph)
from lagraph_dist.local.gpu_kernels.base import KernelArguments, KernelsBase, PinnedMirror, row_bits
from lagraph_dist.local.layout import MULTI_FUSED_PULL_LANES_BUILT

MULTI_FUSED_CLOCK = "device %globaltimer"     # what times each level (the kernel's stamps)
MULTI_FUSED_THREADS = 512                     # multi_fused.cu: LD_MF_THREADS
MULTI_FUSED_LONG_ROW = 64                     # LD_MF_LONG_ROW: in-edges a pull slice reads at most
MULTI_FUSED_ROW = 16                          # LD_MF_ROW: counters a frontier
MULTI_FUSED_PUSH_GIANT = 256                  # LD_MF_PUSH_GIANT: out-edges past which a push vertex is a giant
MULTI_FUSED_GIANT_SHIFT = 40                  # LD_MF_GIANT_SHIFT: a giant's place and its edges' in one counter
MULTI_FUSED_NSTATUS = 8                       # LD_MF_NSTATUS
MULTI_FUSED_RECORD = 6                        # LD_MF_RECORD: frontier, discovered, examined, push, vertices, end
#: level records the kernel writes into the host's page-locked mirror with the status (deeper
#: runs read the rest from the device)
MULTI_FUSED_RECORDS_READ = 1024
#: blocks a multiprocessor of the launch's build (multi_fused.cu's BLOCKS: 2 spills a few
#: registers for twice the warps in flight), for a graph whose levels are wide
MULTI_FUSED_BLOCKS_PER_SM = 2
#: lanes that read a pull row together when a vertex has one word (multi_fused.cu's PULL_LANES;
#: Kronecker 22, 64 sources, one H200: 1, 2, 4, 8 lanes gave 5.89, 5.81, 6.04, 7.38 ms a batch)
MULTI_FUSED_PULL_LANES = 2
#: levels whose frontier words a run keeps to its end at most, which writes each row's levels
#: once, coalesced (multi_fused.cu's LD_MF_KEPT_PLANES bits of depth), where deeper levels' are
#: written as they settle, a row's few entries at a time (one H200, wing, 512 sources: a pull
#: level past the kept ones took ~105 us against ~58 us within them)
MULTI_FUSED_KEPT_LEVELS = 128
#: the kept levels a graph's workspace starts with; a run that goes deeper grows them to its
#: depth (rounded up to KEPT_STEP) for the runs after it, so a shallow graph holds no slots for
#: depths it never reaches (a slot is n * words * 8 bytes: 268 MB at Kronecker 22, 512 sources)
MULTI_FUSED_KEPT_FIRST = 32
KEPT_STEP = 8
#: the share of the device's total memory a workspace's kept words may grow to (bfs_multi plans
#: its batches on the free memory without them: growth stays within a sliver, wing's 96 levels
#: at 512 sources taking 0.4 GB, about 0.3% of an H200)
MULTI_FUSED_KEPT_GROW_SHARE = 0.02
#: the share of the device's free memory the kept words may take (fewer levels are kept beyond it)
MULTI_FUSED_KEPT_SHARE = 0.25
#: depth planes a graph's runs in bit planes start with (levels up to 2^bits - 1); a run that
#: goes deeper grows them for the runs after it, up to MULTI_FUSED_PLANE_BITS_MOST (multi_fused.cu's
#: LD_MF_KEPT_PLANES), past which that graph's batches write rows
MULTI_FUSED_PLANE_BITS_FIRST = 4
MULTI_FUSED_PLANE_BITS_MOST = 7

#: multi_fused.cu's ld_mf_args, field by field in its order, each 8 bytes
MULTI_FUSED_ARGUMENTS = (
    ("out_indptr", "Q"), ("out_indices", "Q"), ("in_indptr", "Q"), ("in_indices", "Q"), ("out_degree", "Q"),
    ("slice_rows", "Q"), ("slice_starts", "Q"), ("nslices", "q"), ("n", "q"), ("rows", "q"), ("k", "q"),
    ("nwords", "q"), ("sources", "Q"), ("visited", "Q"), ("frontiers", "Q"), ("bitmaps", "Q"), ("queues", "Q"), ("giants", "Q"), ("giant_ends", "Q"),
    ("full_words", "Q"), ("levels", "Q"), ("parents", "Q"), ("counters", "Q"),
    ("counter_rows", "q"), ("rule_mode", "q"), ("alpha", "d"), ("beta", "d"), ("rule_n", "d"),
    ("rule_push", "q"), ("rule_previous", "q"), ("rule_unexplored", "q"), ("nnz", "q"), ("max_levels", "q"),
    ("report", "Q"), ("mirror", "Q"), ("mirror_levels", "q"), ("kept", "q"), ("planes", "Q"),
    ("plane_bits", "q"), ("done", "Q"), ("skip_rows", "Q"))
_PACKING = struct.Struct("<" + "".join(kind for _, kind in MULTI_FUSED_ARGUMENTS))


def multi_fused_width(k):
    """uint64 words a vertex for k searches: ceil(k / 64) rounded up to 1, 2, 4 or 8."""
    if not 1 <= k <= MULTI_FUSED_MAX_WIDTH:
        raise ValueError(f"a fused multi-source run takes 1 to {MULTI_FUSED_MAX_WIDTH} searches, got {k}")
    words = -(-k // 64)
    return 1 << (words - 1).bit_length()


def _pointer(array):
    return 0 if array is None else array.data.ptr


_DISCOVERED = MULTI_RECORD_FIELDS.index("discovered")


def _plane_bits(space):
    """Depth planes a run in planes on this workspace's graph takes (the kernel's most at most)."""
    return min(space["plane_bits"], MULTI_FUSED_PLANE_BITS_MOST)


def _deeper_than_run(run, capped, max_levels):
    """Whether a run capped at ``capped`` levels, short of ``max_levels``, stopped with a
    frontier left (its last level discovered entries): the searches go deeper than its planes hold."""
    ran = run.counts.shape[0]
    return capped < max_levels and ran == capped and ran > 0 and run.counts[-1, _DISCOVERED] > 0


class MultiFusedKernels(KernelsBase):
    """The kernel of multi_fused.cu."""

    #: the batch's alpha (engine.Kernels.MULTI_ALPHA). One H200, Kronecker 22, 64 sources: the
    #: 10-30 M-edge second level pushed in 1.17 ms where its pull took 1.69 (4 against 8); 512
    #: sources the same at 4 and 8, slower at 3; meshes within 2%
    MULTI_ALPHA = 4.0

    #: engine.Kernels.MULTI_TWIN_AFTER: a graph's twin is made once its levels-only calls have
    #: asked for this many searches, about what its build costs in searches. One H100, Kronecker
    #: 22, levels only (h100-multi-source-59a9d13.json): the twin's call 4.34 -> 3.98 ms at 64
    #: sources, 16.77 -> 14.32 at 512, its build 0.41-0.57 s: repaid after 101,000 and 119,000
    #: searches whose rows are reduced (closeness, eccentricity), after 340,000 at 512 where every
    #: batch's rows are read (put back: 1.6 ms a batch), never at 64 (0.42 ms). One H200 at
    #: 0a5269a (h200-multi-source-0a5269a.json): the call 3.62 -> 3.18 ms at 64 sources, 14.43
    #: -> 12.15 at 512, a 0.45 s build: repaid after 65,000 and 101,000 reduced searches, after
    #: 205,000 and 262,000 where every batch's rows are read (put back: 0.30 and 1.40 ms)
    MULTI_TWIN_AFTER = 1 << 17

    #: blocks a multiprocessor (multi_fused.cu's BLOCKS: 1 or 2), None: by the graph (one on a
    #: thin graph, engine.thin_graph); tests and benchmarks compare them
    multi_fused_blocks_per_sm = None
    #: lanes a pull row for one word a vertex (MULTI_FUSED_PULL_LANES_BUILT); benchmarks compare them
    multi_fused_pull_lanes = MULTI_FUSED_PULL_LANES
    #: levels kept to the end at most (0: every level's written as it settles); benchmarks compare them
    multi_fused_kept_levels = MULTI_FUSED_KEPT_LEVELS
    #: a run's levels as bit planes (True), as rows (False), or None: by the graph
    #: (:meth:`_multi_fused_planes`); tests and benchmarks compare them
    multi_fused_level_planes = None

    def multi_bfs_fused(self, out_csr, in_csr, sources, out_degree, *, rows, levels, parents, rule,
                        max_levels, queue_searches=False) -> MultiFusedRun:
        """All searches from ``sources`` (int64 numpy, one a search, repeats allowed) in one
        cooperative launch: levels / parents (rows, k) int32 on the device when asked for, -1 where
        unreached, or the levels as :class:`LevelPlanes` where :meth:`_multi_fused_planes` keeps
        them so; per level the counts of MULTI_RECORD_FIELDS and its device time. ``rule`` (a
        DirectionRule) chooses each level's direction on the device and is left as its choose
        would have left it; at most ``max_levels`` levels run. One device read (two launches and
        reads where a run in planes turns out deeper than its planes hold: then it runs again
        writing rows). ``queue_searches`` is the interface's hint for a set with the queue search;
        this set has none, and every batch is the one launch whatever it says."""
        sources = np.asarray(sources, dtype=np.int64)
        width = multi_fused_width(int(sources.shape[0]))
        if rows < out_csr.nmajor:
            raise ValueError(f"rows ({rows}) must be at least n ({out_csr.nmajor})")
        space = self._multi_fused_space(out_csr, in_csr, width)
        max_levels = max(int(max_levels), 0)
        if levels and self._multi_fused_planes(out_csr, space, max_levels):
            state = rule.state()
            capped = min(max_levels, (1 << _plane_bits(space)) - 1)
            run = self._multi_fused_launch(out_csr, in_csr, sources, out_degree, space, rows, "planes", parents, rule,
                                           capped)
            if not _deeper_than_run(run, capped, max_levels):
                return run
            rule.set_state(*state)
            run = self._multi_fused_launch(out_csr, in_csr, sources, out_degree, space, rows, "rows", parents, rule,
                                           max_levels)
            self._plane_deeper(space, run.counts.shape[0])
            return run
        return self._multi_fused_launch(out_csr, in_csr, sources, out_degree, space, rows, "rows" if levels else None,
                                        parents, rule, max_levels)

    def _multi_fused_planes(self, out_csr, space, max_levels):
        """Whether a run keeps its levels as bit planes (each frontier's settle ORs its bits into
        a few words a vertex, and no end pass writes the (rows, k) int32 rows):
        ``multi_fused_level_planes``, or by the graph when that is None (engine.levels_as_planes),
        unless a run on it went deeper than MULTI_FUSED_PLANE_BITS_MOST planes hold."""
        forced = self.multi_fused_level_planes
        wanted = levels_as_planes(forced, out_csr.nnz, out_csr.nmajor)
        deep = forced is None and space["plane_bits"] > MULTI_FUSED_PLANE_BITS_MOST
        return wanted and not deep and max_levels >= 1

    @staticmethod
    def _plane_deeper(space, depth):
        """After a run in planes found the searches deeper than its planes hold, and a run as
        rows went ``depth`` levels: the graph's later runs in planes take as many depth planes
        (past MULTI_FUSED_PLANE_BITS_MOST: none, rows from then on)."""
        space["plane_bits"] = max(space["plane_bits"], planes_for_levels(depth))

    def _multi_fused_launch(self, out_csr, in_csr, sources, out_degree, space, rows, levels, parents, rule,
                            max_levels):
        """One run: ``levels`` "rows", "planes" (``max_levels`` at most 2^plane_bits - 1; the
        planes' first is the run's visited words) or None."""
        cp = self.cp
        k, n = int(sources.shape[0]), out_csr.nmajor
        width = multi_fused_width(k)
        if levels == "rows":
            self._keep_for_rows(space, n, width)
        kept = min(space["kept"], max_levels + 1) if levels == "rows" else 0     # (kept words serve rows alone)
        plane_bits = min(_plane_bits(space), planes_for_levels(max_levels)) if levels == "planes" else 0
        levels_out = cp.empty((rows, k), dtype=cp.int32) if levels == "rows" else None
        planes_out = cp.empty((1 + plane_bits, rows, width), dtype=cp.uint64) if levels == "planes" else None
        visited = space["visited"] if planes_out is None else planes_out
        parents_out = cp.empty((rows, k), dtype=cp.int32) if parents else None
        report = self._multi_fused_report(space, min(max_levels, n) + 3)
        build = self._multi_fused_build(out_csr)
        function = self._function("multi_fused", "ld_multi_bfs_fused", width, build,
                                  self._multi_fused_pull_lanes() if width == 1 else width)
        arguments = space["arguments"]
        arguments.pack(
            _pointer(out_csr.indptr), _pointer(out_csr.indices), _pointer(in_csr.indptr), _pointer(in_csr.indices),
            _pointer(out_degree), _pointer(space["slice_rows"]), _pointer(space["slice_starts"]),
            space["nslices"], n, int(rows), k, -(-k // 64), self._multi_fused_sources(space, sources),
            _pointer(visited),
            _pointer(space["frontiers"]), _pointer(space["bitmaps"]), _pointer(space["queues"]), _pointer(space["giants"]),
            _pointer(space["giant_ends"]),
            _pointer(space["full_words"]), _pointer(levels_out), _pointer(parents_out),
            _pointer(report["counters"]), report["counter_rows"], rule.code, float(rule.alpha), float(rule.beta),
            float(rule.n), *rule.state(), out_csr.nnz, max_levels,
            _pointer(report["device"]), report["mirror"].address, MULTI_FUSED_RECORDS_READ, kept,
            _pointer(planes_out), plane_bits, _pointer(space["done"]), _pointer(space["skip_rows"]))
        self.launch_cooperative(function, self._multi_fused_blocks(function, build), MULTI_FUSED_THREADS, 0, arguments)
        head = self.read_mirrored(report["mirror"])            # the one read: status and records
        ran, push, previous, unexplored, started, entered, written = head[:7].tolist()
        if levels == "rows":
            self._keep_deeper(space, n, width, ran + 1)
        rule.set_state(push, previous, unexplored)
        span = slice(MULTI_FUSED_NSTATUS, MULTI_FUSED_NSTATUS + MULTI_FUSED_RECORD * ran)
        flat = self.read(report["device"][span]) if ran > MULTI_FUSED_RECORDS_READ else head[span]
        # (a copy: the next run overwrites the mirror)
        records = flat.reshape(ran, MULTI_FUSED_RECORD).astype(np.int64)
        counts, ends = records[:, :5], records[:, 5]
        seconds = np.diff(ends, prepend=started) * 1e-9
        if planes_out is not None:                # the planes the run's depths use (the kernel wrote those)
            planes_out = LevelPlanes.of_run(planes_out, k, ran)
        return MultiFusedRun(levels_out if planes_out is None else planes_out, parents_out, counts, seconds,
                             MULTI_FUSED_CLOCK, setup_seconds=(started - entered) * 1e-9,
                             finish_seconds=(written - (int(ends[-1]) if ran else started)) * 1e-9)

    # -- set-up, made once a graph and width ---------------------------------------------------
    def _multi_fused_build(self, out_csr):
        """Blocks a multiprocessor of the build a graph's batch runs: multi_fused_blocks_per_sm,
        or by the graph when that is None (one on a thin graph: engine.thin_graph)."""
        forced = self.multi_fused_blocks_per_sm
        if forced is None:
            return 1 if thin_graph(out_csr.nnz, out_csr.nmajor) else MULTI_FUSED_BLOCKS_PER_SM
        if forced not in (1, 2):
            raise ValueError(f"multi_fused_blocks_per_sm must be 1, 2 or None (by the graph), got {forced!r}")
        return forced

    def _multi_fused_pull_lanes(self):
        lanes = int(self.multi_fused_pull_lanes)
        if lanes not in MULTI_FUSED_PULL_LANES_BUILT:
            raise ValueError(f"multi_fused_pull_lanes must be one of {MULTI_FUSED_PULL_LANES_BUILT}, got {lanes}")
        return lanes

    def _multi_fused_blocks(self, function, build):
        """Blocks of the cooperative launch: as many as fit at once, up to the build's ``build``
        per multiprocessor (registers, threads and shared memory, as the occupancy calculator counts)."""
        props = self._props
        regs = -(-max(function.num_regs, 1) // 8) * 8
        by_regs = int(props["regsPerMultiprocessor"]) // (regs * MULTI_FUSED_THREADS)
        by_threads = int(props["maxThreadsPerMultiProcessor"]) // MULTI_FUSED_THREADS
        by_shared = int(props["sharedMemPerMultiprocessor"]) // max(function.shared_size_bytes + 1024, 1)
        fit = max(1, min(by_regs, by_threads, by_shared, build))
        return self._sms * fit

    def _multi_fused_space(self, out_csr, in_csr, width):
        """The run's workspace for this graph and width (kept while the graph is the last one
        searched): visited words, three frontier slots (words and bits, left zero by every run;
        the kept slots are made by the graph's first run as rows), their queues, giant lists and
        the ends of the giants' edges, full-word counts, the pull's slices of long rows, the done
        bits and the rows the pull's row sweep skips, the sources' page-locked buffer, the argument
        buffer."""
        key = (id(out_csr.indptr), id(in_csr.indptr), width, self.multi_fused_kept_levels)
        cached = getattr(self, "_multi_fused_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        self._multi_fused_cache = None                        # free the last one first
        cp = self.cp
        n = out_csr.nmajor
        giants = int((out_csr.indptr[1:] - out_csr.indptr[:-1] > MULTI_FUSED_PUSH_GIANT).sum())
        if giants >= 1 << (64 - MULTI_FUSED_GIANT_SHIFT) or out_csr.nnz >= 1 << MULTI_FUSED_GIANT_SHIFT:
            raise ValueError(f"a fused multi-source run counts at most 2^{64 - MULTI_FUSED_GIANT_SHIFT} vertices of "
                             f"more than {MULTI_FUSED_PUSH_GIANT} out-edges and 2^{MULTI_FUSED_GIANT_SHIFT} edges; "
                             f"this graph has {giants:,} and {out_csr.nnz:,}")
        rows, starts = self._long_row_slices(in_csr)
        self._kept_most()                # (a bad multi_fused_kept_levels refused before any run)
        space = {
            "visited": cp.empty(n * width, dtype=cp.uint64),
            "frontiers": cp.zeros(3 * n * width, dtype=cp.uint64), "kept": 0, "rows_kept": False,
            "plane_bits": MULTI_FUSED_PLANE_BITS_FIRST,
            "bitmaps": cp.zeros(3 * -(-n // 32), dtype=cp.uint32),
            "queues": cp.empty(3 * max(n, 1), dtype=cp.int32),
            "giants": cp.empty(3 * max(n, 1), dtype=cp.int32),
            "giant_ends": cp.empty(3 * max(n, 1), dtype=cp.int64),
            "full_words": cp.empty(max(n, 1), dtype=cp.uint32),
            "slice_rows": rows, "slice_starts": starts, "nslices": int(rows.shape[0]),
            "done": cp.empty(max(-(-n // 32), 1), dtype=cp.uint32), "skip_rows": self._rows_not_swept(in_csr),
            "sources": PinnedMirror(cp, MULTI_FUSED_MAX_WIDTH, np.int64),
            "arguments": KernelArguments(b"", _PACKING), "reports": {},
            "keep": (out_csr, in_csr),
        }
        self._multi_fused_cache = (key, space)
        return space

    def _kept_most(self):
        most = int(self.multi_fused_kept_levels)
        if not 0 <= most <= MULTI_FUSED_KEPT_LEVELS:
            raise ValueError(f"multi_fused_kept_levels must be 0 to {MULTI_FUSED_KEPT_LEVELS}, got {most}")
        return most

    def _multi_fused_kept(self, n, width, depths):
        """Frontier slots kept to the end for runs of ``depths`` levels: as many, at most
        multi_fused_kept_levels, fewer where their words would take more than
        MULTI_FUSED_KEPT_SHARE of the device's free memory (deeper levels' rows are then written
        as they settle: the same levels, written in more pieces)."""
        slot_bytes = 8 * max(n, 1) * width
        return min(self._kept_most(), depths, int(self.free_device_bytes()[0] * MULTI_FUSED_KEPT_SHARE) // slot_bytes)

    def _keep_for_rows(self, space, n, width):
        """Before a graph's first run that writes rows: its MULTI_FUSED_KEPT_FIRST kept slots
        (a run in planes keeps none, so a graph searched only so never holds them)."""
        if not space["rows_kept"]:
            self._grow_kept(space, n, width, self._multi_fused_kept(n, width, MULTI_FUSED_KEPT_FIRST))
            space["rows_kept"] = True

    def _keep_deeper(self, space, n, width, depths):
        """After a run of ``depths`` levels deeper than the workspace keeps: its frontier slots
        grown for the next runs on this graph."""
        if depths <= space["kept"]:
            return
        slot_bytes = 8 * max(n, 1) * width
        room = int(self.free_device_bytes()[1] * MULTI_FUSED_KEPT_GROW_SHARE) // slot_bytes
        self._grow_kept(space, n, width, min(self._multi_fused_kept(n, width, -(-depths // KEPT_STEP) * KEPT_STEP),
                                             room))

    def _grow_kept(self, space, n, width, kept):
        """The workspace's frontier words made ``kept`` slots and the three that rotate, if that
        is more than it has (zero, as every run leaves them)."""
        if kept > space["kept"]:
            space["frontiers"] = None                            # (free the old slots first)
            space["frontiers"] = self.cp.zeros((kept + 3) * n * width, dtype=self.cp.uint64)
            space["kept"] = kept

    @staticmethod
    def _multi_fused_sources(space, sources):
        """The device address of the run's sources: written into the workspace's page-locked
        buffer, which the kernel reads once (a copy to the device cost a synchronous transfer:
        85 us of a 64-source batch's call on the nvidia-h200 host). The last run has ended (its
        report was read), so nothing reads the buffer now."""
        buffer = space["sources"]
        buffer.array[:sources.shape[0]] = sources
        return buffer.address

    def _rows_not_swept(self, in_csr):
        """The rows a pull level's row sweep never looks at, as bits (row_bits): those without
        in-edges and those of more than MULTI_FUSED_LONG_ROW, which it reads in slices."""
        degrees = in_csr.indptr[1:] - in_csr.indptr[:-1]
        return row_bits(self.cp, (degrees == 0) | (degrees > MULTI_FUSED_LONG_ROW))

    def _long_row_slices(self, in_csr):
        """(row, first in-edge) of every slice of MULTI_FUSED_LONG_ROW in-edges of the rows that
        have more (int32, int64)."""
        cp = self.cp
        indptr = in_csr.indptr
        degrees = indptr[1:] - indptr[:-1]
        long_rows = cp.flatnonzero(degrees > MULTI_FUSED_LONG_ROW)
        per_row = (degrees[long_rows] + MULTI_FUSED_LONG_ROW - 1) // MULTI_FUSED_LONG_ROW
        ends = cp.cumsum(per_row)
        total = int(ends[-1]) if long_rows.shape[0] else 0
        if total == 0:
            return cp.zeros(1, dtype=cp.int32), cp.zeros(1, dtype=cp.int64)
        index = cp.arange(total, dtype=cp.int64)
        owner = cp.searchsorted(ends, index, side="right")
        row = long_rows[owner]
        starts = indptr[row] + MULTI_FUSED_LONG_ROW * (index - (ends[owner] - per_row[owner]))
        return row.astype(cp.int32), starts.astype(cp.int64)

    def _multi_fused_report(self, space, counter_rows):
        """Counter rows (the kernel zeroes those it uses), the device report (status, then a
        record a level) and its page-locked mirror's head, made once per capacity."""
        report = space["reports"].get(counter_rows)
        if report is None:
            cp = self.cp
            levels = counter_rows
            report = space["reports"][counter_rows] = {
                "counters": cp.empty(counter_rows * MULTI_FUSED_ROW, dtype=cp.uint64),
                "counter_rows": counter_rows,
                "device": cp.empty(MULTI_FUSED_NSTATUS + MULTI_FUSED_RECORD * levels, dtype=cp.uint64),
                "mirror": PinnedMirror(cp, MULTI_FUSED_NSTATUS + MULTI_FUSED_RECORD * MULTI_FUSED_RECORDS_READ,
                                       np.uint64),
            }
        return report
