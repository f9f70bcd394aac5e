"""The level engine: repeated masked products with assignment. ``repeat_masked_vxm`` (the
composite every single-source search runs) with its RepeatLimits, one LevelRecord a level kept
in LevelRecords, LevelEngine (the one loop over a search's levels, which the frontier matrix of
:mod:`lagraph_dist.algebra.multi` subclasses too), and the fused runs: the backend's composite
run without returning to Python, unless :func:`separate_levels` asks for separate products.
"""
from __future__ import annotations

import abc
import contextlib
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from lagraph_dist.comm import collectives
from lagraph_dist.local.layout import FUSED_MAX_LEVELS, STOP_LEVELS
from lagraph_dist.core.checks import check_vertex
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.errors import DomainMismatch, InvalidValue
from lagraph_dist.comm.grid import WORD_BITS
from lagraph_dist.local.parts import LocalPart
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algebra import trace
from lagraph_dist.algebra.products import ProductStats, check_operands, mxv, vxm
from lagraph_dist.algebra.elementwise import assign, ewise_mult, reduce
from lagraph_dist.semirings import BinaryOp, lookup_semiring
from lagraph_dist.core.stats import HOST_CLOCK, level_record
from lagraph_dist.local.engine import (QUEUE_ENGINE, QueueSearch, SearchFromSource, depth_weighed, narrow_levels, offers,
                                       queue_search_allowed)

__all__ = ["repeat_masked_vxm", "search_from", "RepeatLimits", "LevelRecord", "LevelRecords", "FusedRun", "LevelEngine",
           "frontier_out_edges", "holds", "separate_levels", "FUSED_MAX_LEVELS"]


@contextlib.contextmanager
def separate_levels():
    """Inside it, :func:`repeat_masked_vxm` runs every level as separate products even where
    the backend could fuse them (a benchmark's warm-up walks that path too, so that nothing
    it uses is first built inside the clock)."""
    global _FUSE_LEVELS
    before, _FUSE_LEVELS = _FUSE_LEVELS, False
    try:
        yield
    finally:
        _FUSE_LEVELS = before


_FUSE_LEVELS = True


# -- a composite: repeated masked products with assignment ------------------------------------
class RepeatLimits(NamedTuple):
    """When :func:`repeat_masked_vxm` stops: after ``max_levels`` levels, or after the level
    whose result is empty, holds ``target``, or exceeds ``max_nvals`` entries, or before a push
    level whose input has more than ``max_edges`` out-edges (None: no such limit). (A named
    tuple: two are made a search, and a frozen dataclass costs twice as much to make.)"""

    max_levels: int
    max_nvals: int | None = None
    max_edges: int | None = None
    target: int | None = None


@dataclass(slots=True)
class LevelRecord:
    """One level of :func:`repeat_masked_vxm`: input entries, result entries, edges read,
    whether the product ran top-down (push) or bottom-up (pull), and the level's own seconds
    with the clock that measured them (inside a fused run: the backend's, e.g. the GPU's
    %globaltimer; otherwise the host's perf_counter around the level's calls); the products'
    stats (None inside a fused run), and the device reads and kernel launches made during the
    level (a fused run's one launch counts on its first level, its reads on its last)."""

    frontier: int
    discovered: int
    examined: int
    push: bool = True
    seconds: float = 0.0
    clock: str = HOST_CLOCK
    fused: bool = False          # run inside the backend's composite, not as separate products
    stats: ProductStats | None = None
    host_reads: int = 0
    launches: int = 0
    vertices: int | None = None  # a frontier matrix's result: the vertices in some search's frontier
    timed_levels: int = 1        # the levels ``seconds`` cover (FusedRecords.timed_levels)

    def as_dict(self, level, direction=None) -> dict:
        """This rank's stats dict of the record as level ``level`` (:func:`level_record`);
        ``direction`` where the push flag does not name what ran."""
        return level_record(level, direction or ("push" if self.push else "pull"), self.frontier, self.discovered,
                            self.stats, self.seconds, self.host_reads, self.launches, clock=self.clock,
                            edges_examined=self.examined, fused=self.fused, timed_levels=self.timed_levels)


_NO_CAP = (1 << 63) - 1


def _fused_run_honours(kernels, rule):
    """Whether the backend's fused run follows ``rule``: a stock rule's arithmetic every fused
    run evaluates itself; a replaced ``choose`` only a run that asks it level by level does
    (the CPU's). Elsewhere the levels run as separate products, each asking the rule."""
    return not rule.replaced or getattr(kernels.bfs_fused, "asks_replaced_rule", False)


def _fused_level_cap(kernels):
    """The levels one fused run of ``kernels`` takes at most: what its ``bfs_fused`` says
    (``max_levels``; None: no cap, the CPU's compiled run, whose records grow), else
    FUSED_MAX_LEVELS (the CUDA kernel's report)."""
    levels = getattr(kernels.bfs_fused, "max_levels", FUSED_MAX_LEVELS)
    return _NO_CAP if levels is None else levels


@dataclass
class FusedRun:
    """The levels of one fused run as the backend returned them (a FusedRecords: tuples
    (frontier, discovered, examined, push, seconds) read from its arrays), made into
    LevelRecords only when read; the run's one launch counts on its first level, its reads on
    its last."""

    raw: object
    clock: str
    reads: int
    launches: int
    vertices: object = None      # a frontier matrix's run: each level's vertices (a sequence)
    separate: bool = False       # a batch's searches run one at a time: a record a depth, summed
    engine: str | None = None    # what ran the levels where not the backend's kernels (QUEUE_ENGINE)

    def __len__(self):
        return len(self.raw)

    def record(self, k, row):
        frontier, discovered, examined, push, seconds = row
        return LevelRecord(frontier, discovered, examined, bool(push), seconds, self.clock, fused=True,
                           host_reads=self.reads if k == len(self.raw) - 1 else 0,
                           launches=self.launches if k == 0 else 0,
                           vertices=None if self.vertices is None else int(self.vertices[k]),
                           timed_levels=int(self.raw.timed_levels()[k]))

    def __iter__(self):
        for k, row in enumerate(self.raw):
            yield self.record(k, row)


class LevelRecords(Sequence):
    """A search's :class:`LevelRecord` list, in level order: a single product's level as its
    record, a fused run's levels as the backend's own tuples, made into records only when read
    (so that a fused run of 100,000 levels makes no Python object a level)."""

    separate = False             # (as FusedRun's: a level's searches ran together)

    def __init__(self, engine=None, run=None):
        self._pieces, self._count = [], 0
        self.engine = engine     # what ran the levels where not the backend's kernels (QUEUE_ENGINE)
        if run is not None:      # (a search of one run: its records as it is made)
            self.add_fused(run)

    def append(self, record):
        self._pieces.append(record)
        self._count += 1

    def add_fused(self, run):
        levels = len(run)
        if levels:
            self._pieces.append(run)
            self._count += levels

    def __len__(self):
        return self._count

    def __iter__(self):
        for piece in self._pieces:
            if isinstance(piece, FusedRun):
                yield from piece
            else:
                yield piece

    def __getitem__(self, k):
        if isinstance(k, slice):
            return list(self)[k]
        k = range(self._count)[k]
        for piece in self._pieces:
            size = len(piece) if isinstance(piece, FusedRun) else 1
            if k < size:
                return piece.record(k, piece.raw[k]) if isinstance(piece, FusedRun) else piece
            k -= size


def frontier_out_edges(q, degrees):
    """Collective: the out-edges of ``q``'s entries (``degrees`` = ``A.out_degree()``), from
    the counters of the product that made ``q`` when it has them (no work, no read)."""
    known = q.facts.push_edges(degrees)
    return known if known is not None else int(reduce(ewise_mult(q, degrees, BinaryOp("second")), "plus"))


def repeat_masked_vxm(q, A, semiring, visited, *, depths=None, depth=1, limits: RepeatLimits, rule=None,
                      source=None, frontier=True):
    """Collective. The BFS level engine: repeats, from ``d = depth``, until ``limits`` stop it::

        q = vxm(q, A, semiring, mask=visited, complement=True)   # q<!visited.S, replace> = q' A
        assign(visited, q)                                        # visited<q.S> = q
        assign(depths, q, value=d)                                # (when depths is given)
        d += 1

    and returns ``(q, records)``: the last result (already assigned) and a
    :class:`LevelRecord` a level; with ``frontier=False`` q may be None (a caller that reads only
    ``visited`` and ``depths``: a fused run then makes no vector of what it left). ``semiring``
    is ``any_pair`` or ``any_secondi``. ``rule`` (a
    :class:`lagraph_dist.core.direction.DirectionRule`, updated as it goes; default: push only)
    picks how each product is computed: top-down from the list of ``q`` or bottom-up as
    ``mxv(A.T, q)`` over the unvisited vertices (the same result, by any's choice of parent);
    pull levels need ``A.T.prepare_pull()`` first.

    With ``source`` (a vertex id) and ``q`` None, the search starts at that vertex: before the
    first level ``visited`` becomes it alone (its value: its id under ``any_secondi``, true
    under ``any_pair``), ``depths`` it alone at ``depth - 1``, and ``q`` it alone; their
    contents before do not matter (``ld.bfs`` passes the unwritten bitmaps of
    ``Vector._unset``). A fused backend does this inside its kernel, with no launch of its own.

    On a 1 x 1 grid, with ``visited`` (and ``depths``) as bitmaps, the backend runs the levels
    without returning to Python (the GPU backend: one persistent cooperative kernel with a
    grid barrier between levels, and visited updated in place instead of a separate assign,
    ``kernels/fused.cu``), in runs of at most FUSED_MAX_LEVELS levels. Elsewhere
    every level is the loop above. This is the only level loop of the package's searches.
    """
    semiring = lookup_semiring(semiring)
    if (q is None) == (source is None):
        raise InvalidValue("repeat_masked_vxm starts from a frontier q or from a source vertex, one of the two")
    if source is not None:           # (a fused kernel would write at the id as given)
        source = check_vertex(source, A.n, "source")
    check_operands(visited if q is None else q, A, visited)
    if semiring.add.kind != "any" or semiring.multiply.name not in ("pair", "secondi"):
        raise DomainMismatch(f"repeat_masked_vxm takes any_pair or any_secondi, got {semiring!r}")
    rule = rule or DirectionRule("push", A.n, A.nvals)
    fusable = (_FUSE_LEVELS and A.grid.size == 1 and not A.transposed and visited.encoding == "bitmap"
               and (depths is None or depths.encoding == "bitmap") and _fused_run_honours(A.backend.kernels, rule))
    if limits.target is not None and (source == limits.target if q is None else q.nvals and holds(q, limits.target)):
        engine = _VectorLevels(q, A, semiring, visited, depths, depth, limits, rule, fusable, source)
        engine.start()
        return engine.q, LevelRecords()
    if fusable and source is not None and limits.max_levels > 0:
        return _from_source_fused(A, semiring, visited, depths, depth, limits, rule, source, frontier)
    return _VectorLevels(q, A, semiring, visited, depths, depth, limits, rule, fusable, source).run()


def search_from(A, source, semiring, *, depths: bool, limits: RepeatLimits, rule) -> tuple:
    """Collective. The search from vertex ``source`` of :func:`repeat_masked_vxm` (``depth=1``:
    the source at depth 0) into outputs made here: (visited, depths (None unless ``depths``),
    the LevelRecords). ``semiring`` is ``any_secondi`` (visited holds the parents) or
    ``any_pair`` (True). On one process with a kernel set that runs a whole search in one call
    (:class:`~lagraph_dist.local.engine.SearchFromSource`) and a stock ``rule``, the search is
    that call and its outputs are the arrays it made: no engine, no vectors made beforehand,
    no frontier left; on a fused backend without it, its first fused run starts on unwritten
    bitmaps made here; elsewhere it is :func:`repeat_masked_vxm` on them."""
    source = check_vertex(source, A.n, "source")
    kernels = A.backend.kernels
    fused = (_FUSE_LEVELS and A.grid.size == 1 and not A.transposed and _fused_run_honours(kernels, rule)
             and limits.max_levels > 0 and limits.target != source)
    if (fused and not rule.replaced and limits.max_nvals is None and limits.max_edges is None
            and queue_search_fits(A, rule.mode)):
        return queue_search_from(A, source, semiring, depths, limits.max_levels, limits.target)
    if fused and not rule.replaced and offers(kernels, SearchFromSource):
        return _one_call_search(A, source, semiring, depths, limits, rule)
    dtypes = [np.int64 if semiring.multiply.positional else bool] + ([np.int64] if depths else [])
    visited, *kept = Vector._unset(A.n, dtypes, grid=A.grid, backend=A.backend, layout=A.layout)
    kept = kept[0] if depths else None
    if fused:          # (the outputs made here fit: none of repeat_masked_vxm's checks is needed)
        _, records = _from_source_fused(A, semiring, visited, kept, 1, limits, rule, source, False)
    else:
        _, records = repeat_masked_vxm(None, A, semiring, visited, depths=kept, depth=1, limits=limits, rule=rule,
                                       source=source, frontier=False)
    return visited, kept, records


def _one_call_search(A, source, semiring, depths, limits, rule):
    """:func:`search_from` as the kernel set's one call (its ``search_plan``, kept with A)."""
    backend = A.backend
    reads, launches = backend.device_reads, backend.kernel_launches
    limits = _compiled_limits(A, limits, limits.max_levels)      # (the plan goes past a run's cap itself)
    words, values, depth_words, levels, raw, _ = _search_plan(A, semiring.multiply.positional, depths, rule)(
        source, rule, limits.max_nvals, limits.max_edges, limits.max_levels,
        -1 if limits.target is None else limits.target)
    found = 1 + raw.discovered                    # the source, then what the levels found
    visited, kept = _search_outputs(A, found, values, words, levels, depth_words, None)
    records = LevelRecords()
    records.add_fused(_counted_run(backend, raw, reads, launches))
    trace.note_levels(_VectorLevels.traced_as, records)
    return visited, kept, records


def _search_outputs(A, found, values, words, levels, depth_words, depths_found):
    """The visited and depths Vectors of a search whose kernel made their bitmap arrays: visited
    holds ``found`` entries, the depths ``depths_found`` (None: counted when first read); the
    depths None where ``levels`` is."""
    backend, layout = A.backend, A.layout
    visited = Vector._from_part(A.n, A.grid, backend, LocalPart("bitmap", layout.block_len, found, values, words=words),
                                layout=layout, nvals=found)
    if levels is None:
        return visited, None
    part = LocalPart("bitmap", layout.block_len, depths_found, levels, words=depth_words)
    if depths_found is None:
        part.changed_in_place(backend)
    return visited, Vector._from_part(A.n, A.grid, backend, part, layout=layout, nvals=depths_found)


def queue_search_fits(A, direction) -> bool:
    """Whether a search from a source on ``A`` in ``direction`` may run as the kernel set's queue
    search (:class:`~lagraph_dist.local.engine.QueueSearch`): one process, ``A`` not a transposed
    view, at most ``settings.queue_search_edges`` stored edges, or a graph of at most
    ``DEPTH_PROBE_EDGES`` whose levels are narrow (:func:`~lagraph_dist.local.engine.narrow_levels`
    of :func:`graph_depth`: a small graph's by its edges a level, a larger thin one's by its
    vertices a level), a direction that may push, the levels fused (not inside
    :func:`separate_levels`) and the stock rule (the one place of this policy; :func:`search_from`
    adds its limits' and its rule's terms)."""
    if not (A.grid.size == 1 and not A.transposed and _FUSE_LEVELS and offers(A.backend.kernels, QueueSearch)):
        return False
    if queue_search_allowed(A.nvals, direction):
        return True
    # (allowed at no edges: the setting on, a direction that may push, the stock rule)
    return (queue_search_allowed(0, direction) and depth_weighed(A.n, A.nvals)
            and narrow_levels(A.n, A.nvals, graph_depth(A)))


_DEPTH = "levels from a vertex"      # a matrix's cache key of :func:`graph_depth`


def graph_depth(A) -> int:
    """The levels of a search on one process's ``A`` from its first vertex with a stored edge (its
    eccentricity and one; from an isolated vertex a deep graph would look one level deep): the
    graph's depth as the policies that weigh it see it, measured once a matrix by the kernel
    set's queue search (the CPU set's: a GPU backend's graph is measured on its host twin)."""
    levels = A._cache.get(_DEPTH)
    if levels is None:
        indptr = A.block.by_col.indptr[:A.n + 1]
        start = int(np.argmax(indptr[1:] > indptr[:-1])) if A.n else 0
        with trace.inside_search():      # (a policy's measure, not the caller's search: not traced)
            _, _, records = queue_search_from(A, start, lookup_semiring("any_pair"), False, A.n)
        levels = A._cache[_DEPTH] = len(records)
    return levels


def queue_search_from(A, source, semiring, depths, max_levels, target=None):
    """:func:`search_from` as the kernel set's queue search, push only, in queue order, where
    :func:`queue_search_fits`: at most ``max_levels`` levels (at least one), stopping after the
    level that reaches ``target`` (None: none; not the source). The caller has checked
    ``source``."""
    words, values, depth_words, levels, raw, found = _queue_plan(A).search(
        source, semiring.multiply.positional, depths, max_levels, -1 if target is None else target)
    visited, kept = _search_outputs(A, found, values, words, levels, depth_words, found)
    records = LevelRecords(QUEUE_ENGINE, FusedRun(raw, HOST_CLOCK, 0, 0))
    trace.note_levels(_VectorLevels.traced_as, records)
    return visited, kept, records


def _queue_plan(A):
    """The kernel set's plan of A's queue searches (``queue_plan``), made on first use and kept
    with A, whose blocks never change (A is no transposed view: :func:`queue_search_fits`)."""
    plan = A._cache.get("queue_plan")
    if plan is None:
        plan = A._cache["queue_plan"] = A.backend.kernels.queue_plan(A.block.by_col, A.layout.block_len, A.n)
    return plan


def _search_plan(A, positional, depths, rule):
    """The kernel set's plan of A's searches from a source of this kind (outputs, the rule's
    mode and parameters), made on first use and kept with A, whose blocks never change."""
    key = ("search_plan", bool(positional), bool(depths), rule.mode, rule.alpha, rule.beta)
    plan = A._cache.get(key)
    if plan is None:
        out_csr, in_csr = _search_blocks(A, rule)
        plan = A._cache[key] = A.backend.kernels.search_plan(
            out_csr, in_csr, A.layout.block_len, positional=positional, depths=depths, rule=rule,
            workspace=_fused_workspace(A))
    return plan


def _from_source_fused(A, semiring, visited, depths, depth, limits, rule, source, frontier):
    """A fused search from ``source``: its first run straight from here (a whole search on the
    CPU, whose runs have no cap, and any search of fewer levels than the GPU's report holds),
    the engine's loop only where that run stopped at its cap with levels left: a small graph's
    search costs its one compiled call and little Python around it."""
    q, run, reason = _fused_levels(None, A, semiring, visited, depths, depth, _run_limits(A, limits, 0), rule,
                                   source, frontier=frontier or limits.max_levels > _fused_level_cap(A.backend.kernels))
    records = LevelRecords()
    records.add_fused(run)
    if reason == STOP_LEVELS and len(records) < limits.max_levels:
        engine = _VectorLevels(q, A, semiring, visited, depths, depth, limits, rule, True)
        engine.records = records
        return engine.run()
    trace.note_levels(_VectorLevels.traced_as, records)
    return q, records


def _run_limits(A, limits, levels_run):
    """The limits of a fused run on ``A`` after ``levels_run`` levels of a search under
    ``limits``: as many levels as are left and the run may take, and no None (the compiled runs
    take integers)."""
    return _compiled_limits(A, limits, min(_fused_level_cap(A.backend.kernels), limits.max_levels - levels_run))


def _compiled_limits(A, limits, max_levels):
    """``limits`` as the compiled searches take them: ``max_levels`` levels, no None."""
    return RepeatLimits(
        max_levels=max_levels,
        max_nvals=A.n if limits.max_nvals is None else limits.max_nvals,
        max_edges=_NO_CAP if limits.max_edges is None else limits.max_edges, target=limits.target)


class LevelEngine(abc.ABC):
    """The loop over a search's levels, written once: it runs :meth:`step` while the frontier
    has entries, no limit has stopped it and fewer than ``limits.max_levels`` levels ran, and
    returns ``(the last frontier, its LevelRecords)``. A step runs one level (or, where the
    backend fuses them, several) and appends their records. The searches' engines subclass it:
    a vector frontier here (:func:`repeat_masked_vxm`), the k x n frontier matrix in
    :mod:`lagraph_dist.algebra.multi`."""

    def __init__(self, q, A, depth, limits, rule):
        self.q, self.A, self.depth, self.limits, self.rule = q, A, depth, limits, rule
        self.records, self.stopped = LevelRecords(), False

    def more(self):
        return not self.stopped and len(self.records) < self.limits.max_levels and self.q.nvals > 0

    #: what a trace (lagraph_dist.algebra.trace) calls this engine's levels
    traced_as = "search"

    def run(self):
        with trace.inside_search():
            while self.more():
                self.step()
        trace.note_levels(self.traced_as, self.records)
        return self.q, self.records

    @abc.abstractmethod
    def step(self):
        """Run the next level (or several fused ones) and append their records."""

    def next_depth(self):
        """The depth the next level's entries get."""
        return self.depth + len(self.records)


class _VectorLevels(LevelEngine):
    """The levels of :func:`repeat_masked_vxm`: fused runs where the backend has them, single
    products elsewhere."""

    def __init__(self, q, A, semiring, visited, depths, depth, limits, rule, fusable, source=None):
        super().__init__(q, A, depth, limits, rule)
        self.semiring, self.visited, self.depths, self.fusable = semiring, visited, depths, fusable
        self.source = source         # the search's start, until made (q None meanwhile)
        self.degrees = A.out_degree()

    def more(self):
        if self.source is not None and self.limits.max_levels <= 0:
            self.start()             # no level runs: the start alone is the result
        return self.source is not None or super().more()

    def start(self):
        """Make the search's start at ``source`` here (a fused run makes it in its kernel):
        visited, depths and q the source alone, made in one launch on its owner."""
        source, visited, depths = self.source, self.visited, self.depths
        starts = [(source if self.semiring.multiply.positional else True, visited.dtype)]
        if depths is not None:
            starts.append((self.depth - 1, depths.dtype))
        made, self.q = Vector.singles(source, starts, self.A.n, grid=self.A.grid, backend=self.A.backend,
                                      with_list=True)
        for vector, singles in zip((visited, depths), made):
            vector._replace_part(singles.part)
        self.source = None

    def step(self):
        if self.fusable:
            self.fused_run()
        else:
            if self.source is not None:
                self.start()
            self.single()

    def _after(self, q):
        """Take ``q`` as the frontier and stop where the limits say."""
        self.q = q
        limits = self.limits
        if (q.nvals == 0 or (limits.max_nvals is not None and q.nvals > limits.max_nvals)
                or (limits.target is not None and holds(q, limits.target))):
            self.stopped = True

    def single(self):
        """One level as separate products (the loop of :func:`repeat_masked_vxm`)."""
        A, q, degrees, limits = self.A, self.q, self.degrees, self.limits
        backend = A.backend
        reads, launches, started = backend.device_reads, backend.kernel_launches, time.perf_counter()
        edges = q.facts.push_edges(degrees)        # the product that made q counted them
        counted = edges is not None
        if not counted:                             # one reduce at most, only when asked for
            edges = functools.cache(lambda: frontier_out_edges(q, degrees))
        push = self.rule.choose(q.nvals, edges)
        if push and limits.max_edges is not None and (edges if counted else edges()) > limits.max_edges:
            self.stopped = True
            return
        visited = self.visited
        if push:
            found = vxm(q.to_list(), A, self.semiring, mask=visited, complement=True)
        else:
            found = mxv(A.T, q.to_bitmap(), self.semiring, mask=visited, complement=True)
        found_nvals = found.nvals
        if found_nvals:
            assign(visited, found)
            if self.depths is not None:
                assign(self.depths, found, value=self.next_depth())
        stats = found.op_stats
        self.records.append(LevelRecord(
            q.nvals, found_nvals, stats.edges_examined, push, time.perf_counter() - started,
            stats=stats, host_reads=backend.device_reads - reads,
            launches=backend.kernel_launches - launches))
        self._after(found)

    def fused_run(self):
        """Levels inside the backend's composite, until it stops (empty, at the target, past
        max_nvals, before a push past max_edges) or its run of levels ends."""
        q, run, reason = _fused_levels(self.q, self.A, self.semiring, self.visited, self.depths, self.next_depth(),
                                       _run_limits(self.A, self.limits, len(self.records)),
                                       self.rule, self.source)
        self.source = None
        self.records.add_fused(run)
        self.q = q
        if reason != STOP_LEVELS:
            self.stopped = True


def holds(q, vertex):
    """Collective: does ``q`` have an entry at global id ``vertex``?"""
    start, stop = q.layout.block_range(q.grid.row, q.grid.col)
    mine = False
    if start <= vertex < stop:
        part = q.part.to_bitmap(q.backend)
        local = vertex - start
        mine = bool(int(q.backend.to_host(part.words[local // WORD_BITS:local // WORD_BITS + 1])[0])
                    >> (local % WORD_BITS) & 1)
    return bool(q.grid.allreduce(int(mine), op="MAX"))


def _fused_levels(q, A, semiring, visited, depths, depth, limits, rule, source=None, frontier=True):
    """One run of the backend's fused search from ``q``, or from vertex ``source`` (the search's
    start, which the run makes): (the frontier after it, its levels (a :class:`FusedRun`), why
    it stopped: a STOP_* reason of the kernels). With ``frontier=False`` no frontier is made
    (None in its place): a caller whose search cannot go on after the run."""
    backend = A.backend
    reads, launches = backend.device_reads, backend.kernel_launches
    out_csr, in_csr = _search_blocks(A, rule)
    space = _fused_workspace(A)
    ended = []       # a run's usual end, no frontier left, made while its kernel runs (on a GPU)
    raw, ids, edges, reason = backend.kernels.bfs_fused(
        out_csr, in_csr, visited.part.words, visited.part.values, None if depths is None else depths.part.words,
        None if depths is None else depths.part.values, depth, None if q is None else q.to_list().part.ids,
        semiring.multiply.positional, rule, limits.max_nvals, limits.max_edges, limits.max_levels,
        -1 if limits.target is None else int(limits.target), workspace=space, source=source,
        while_running=(lambda: ended.append(_frontier_left(A, visited, A.out_degree(), backend.xp.empty(0, np.int32),
                                                           0))) if frontier else None)
    run = _counted_run(backend, raw, reads, launches)
    added = raw.discovered                        # (both backends' runs are FusedRecords)
    if source is not None:                        # the run made the start: the source, then what it found
        visited.part.started_in_place(1 + added)
        visited.facts.started(1 + added)
    else:                                         # every found vertex was new to it
        visited.part.grew_in_place(added)
        visited.facts.grew(added)
    if depths is not None:
        depths.part.changed_in_place(backend)
    if not frontier:
        return None, run, reason
    if ended and ids.shape[0] == 0 and edges == 0:
        return ended[0], run, reason
    return _frontier_left(A, visited, A.out_degree(), ids, int(edges)), run, reason


def _search_blocks(A, rule):
    """(the out-edges' block, the block a pull level reads: its in-edges, or the out-edges again
    where ``rule`` only pushes) of a fused search of A."""
    out_csr = A.block.by_col
    return out_csr, out_csr if rule.mode == "push" else A.block.by_row


def _counted_run(backend, raw, reads, launches):
    """A fused run's records as a FusedRun, with the device reads and kernel launches made since
    the counts were ``reads`` and ``launches``."""
    return FusedRun(raw, backend.kernels.FUSED_LEVEL_CLOCK, backend.device_reads - reads,
                    backend.kernel_launches - launches)


def _fused_workspace(A):
    """The buffers of A's fused searches, made once and kept with A."""
    space = A._cache.get("fused_workspace")
    if space is None:
        out_csr = A.block.by_col
        space = A._cache["fused_workspace"] = A.backend.kernels.fused_workspace(out_csr.nmajor, out_csr.nnz)
    return space


def _frontier_left(A, visited, degrees, ids, edges):
    """The frontier a fused run leaves (``ids``, its ``edges`` out-edges), its values gathered
    from ``visited`` when read, its counts known."""
    count = int(ids.shape[0])
    part = LocalPart.gathered_list(ids, visited.part.values, visited.part.length, ids_sorted=False)
    out = Vector._from_part(A.n, A.grid, A.backend, part, layout=A.layout)
    out.facts.record_counts(collectives.GlobalCounts((count,), count, edges), degrees)
    return out
