"""The engine boundary: what the layers above ask of a backend's kernels, declared once.

Two kernel sets implement it: the CPU's compiled loops (:mod:`lagraph_dist.local.cpu_kernels`, a
module) and the GPU's CUDA kernels (:class:`lagraph_dist.local.gpu_kernels.GpuKernels`).
:class:`Kernels` is the typed interface both implement, member for member with the same
parameters (``tests/test_engine_boundary.py`` walks both, and checks that the algebra, the
collectives and the algorithms call nothing else); :class:`DeviceKernels` adds what only a
device has (reads, launches, the memory pool), which the :class:`~lagraph_dist.local.backend.Backend`
alone uses. The records the two sides hand each other live here too: a multi-source kernel's
:class:`MultiTarget`, a fused search's :class:`FusedRecords` and a fused multi-source run's
:class:`MultiFusedRun`.

What a semiring means to a kernel is the semiring's own business (its monoid's and multiply's
kernel codes, :mod:`lagraph_dist.semirings`): a kernel set derives its codes from those objects,
never from a name.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.settings import settings

__all__ = ["Kernels", "DeviceKernels", "EDGE_RULE_NONE", "MULTI_FUSED_MAX_WIDTH", "MultiFusedRun", "MULTI_RECORD_FIELDS",
           "MultiTarget", "FusedRecords", "LevelPlanes"]

#: a rule of :meth:`Kernels.check_edges` that no edge broke
EDGE_RULE_NONE = np.uint64(np.iinfo(np.uint64).max)

#: searches one fused multi-source run carries at most: 8 uint64 words a vertex
MULTI_FUSED_MAX_WIDTH = 512

#: the columns of MultiFusedRun.counts, one row a level run
MULTI_RECORD_FIELDS = ("frontier", "discovered", "examined", "push", "vertices")

Array = Any        # a numpy array on the CPU backend, a CuPy array on the GPU backend


# -- the records both sides share --------------------------------------------------------------
@dataclass
class MultiTarget:
    """Where a multi-source kernel claims bits, over one space of ``length`` vertices.

    ``words``: uint64, the bits already claimed, updated in place; ``next``: zeroed uint64,
    receives the bits claimed now; ``queue``: int32 room for ``length`` ids, receives each
    vertex whose next word became nonzero (any order; counters[M_FOUND] of them);
    ``parents``/``levels``: (length, width) int64 or None; ``depth``: the value written to
    levels; ``full``: the bits of all the batch's searches; ``out_degree``: dense int64 over
    the space, or None (then M_PUSH_EDGES and M_COMPLETED stay 0); ``counters``: M_NCOUNTERS
    zeroed uint64, added to.
    """

    words: object
    next: object
    queue: object
    parents: object
    levels: object
    width: int
    depth: int
    full: int
    out_degree: object
    counters: object


#: a level's seconds slot when the level was timed only as part of a run of levels (the CPU's
#: one-vertex levels): the run's seconds are in its last level's slot
RUN_TIMED = float("nan")


class FusedRecords:
    """The per-level tuples (frontier, discovered, examined, push, seconds) of a run, read from
    the compiled loop's arrays as they are asked for (a run of 100,000 levels makes no tuple
    until one is read)."""

    __slots__ = ("counts", "seconds", "found", "_timed")

    def __init__(self, counts, seconds, found=None):
        self.counts, self.seconds, self.found = counts, seconds, found     # found: their discovered, summed
        self._timed = None

    def timed_levels(self):
        """Each level's count of the levels its seconds cover: 1 for a level timed alone; for a
        run timed as a run (:data:`RUN_TIMED` in every slot but its last), 0 for the others and
        the run's length for its last level, whose seconds are the whole run's."""
        timed = getattr(self, "_timed", None)        # (a subclass made lazily may not set it)
        if timed is None:
            timed = np.zeros(len(self), np.int64)
            ends = np.flatnonzero(~np.isnan(self.seconds))
            timed[ends] = np.diff(ends, prepend=-1)
            self._timed = timed
        return timed

    def __len__(self):
        return int(self.counts.shape[0])

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        frontier, discovered, examined, push = (int(x) for x in self.counts[k])
        return frontier, discovered, examined, push, float(self.seconds[k])

    def __iter__(self):
        for row, seconds in zip(self.counts.tolist(), self.seconds.tolist()):
            yield (*row, seconds)

    @property
    def discovered(self) -> int:
        """The vertices the run's levels found, all together."""
        return int(self.counts[:, 1].sum()) if self.found is None else int(self.found)

    @classmethod
    def joined(cls, runs):
        return cls(np.concatenate([r.counts for r in runs]) if runs else np.zeros((0, 4), np.int64),
                   np.concatenate([r.seconds for r in runs]) if runs else np.zeros(0))


class LazyRecords(FusedRecords):
    """FusedRecords made when first read (a search's records are read, if at all, after it
    returns): a subclass's ``_made_now`` makes (counts, seconds); ``found``, the levels'
    discovered total, is set at once (the visited set's count needs it)."""

    __slots__ = ("_made",)

    def _make(self):
        if self._made is None:
            self._made = self._made_now()
        return self._made

    counts = property(lambda self: self._make()[0])
    seconds = property(lambda self: self._make()[1])


#: mean out-degree under which a graph's levels are thin (a mesh's, a road's, a path's: many
#: levels of few vertices), so that the fused searches, single and multi-source, run one block a
#: multiprocessor: such a search pays each level's latency chain and grid barrier, and fewer,
#: roomier blocks pay them faster (fused: 23 against 32 ms on the 1000 x 1000 mesh; multi-source,
#: 64 sources: the 10,000-vertex path 134 -> 95 ms, a 100 x 100 mesh 4.04 -> 2.98, on one H200;
#: Kronecker graphs, mean degree 24-28, gain from the second block)
THIN_DEGREE = 8


def thin_graph(nnz, n) -> bool:
    """Whether a graph of ``nnz`` stored edges over ``n`` vertices is thin (:data:`THIN_DEGREE`)."""
    return nnz < THIN_DEGREE * n


#: the records' ``engine`` where the host's queue search ran the levels (:class:`QueueSearch`)
QUEUE_ENGINE = "queue"


def queue_search_allowed(nvals, direction) -> bool:
    """Whether a search of ``direction`` on a graph of ``nvals`` stored edges may run as the
    queue search (push only, in queue order): at most ``settings.queue_search_edges`` edges (0:
    never), a direction that may push, the stock rule (a replaced ``choose`` is asked at every
    level). The single search's policy adds its own terms (``algebra.levels.queue_search_fits``),
    and so does a batch's searches run one at a time (the CPU set's ``multi_bfs_fused``)."""
    return 0 < settings.queue_search_edges >= nvals and direction != "pull" and DirectionRule.stock()


#: a thin graph of at most this many stored edges (and any of at most
#: :data:`QUEUE_SMALL_GRAPH_EDGES`) may have its depth measured (one queue search from a vertex,
#: once a matrix: 25 ms on a 1000 x 1000 mesh, 90 on a road of a million vertices, one EPYC core)
#: by the policies that weigh it: the
#: queue search past ``queue_search_edges`` (:func:`narrow_levels`) and the GPU backend's host twin
#: (``algorithms/small_graphs.py``)
DEPTH_PROBE_EDGES = 1 << 22
#: a thin graph whose levels hold fewer vertices than this on average (its vertices over its
#: depth from its first vertex with an edge) is searched by the queue search past
#: ``queue_search_edges``: its levels are too narrow for the fused search's second thread and
#: level records to pay. One core pair of the 2-core EPYC, ms a search from random sources,
#: queue against fused: the 100,000 path 0.66-0.70 against 1.09-1.11 (scipy 0.39-0.41), the
#: 1,000,000 path 6.1 against 13.4, a 20 x 5000 mesh 1.6-2.2 against 2.5-3.5, 100 x 2000 4.0-5.0
#: against 4.9-5.7 (95 vertices a level from its corner), 250 x 250 0.67-0.76 against 0.84-0.99
#: (125), 4elt 0.45-0.50 against 0.52-0.53; the fused search wins on 300 x 1000 (231), 500 x 500
#: (250), wing (over 500) and the road of a million vertices (56 against 88-93)
QUEUE_LEVEL_VERTICES = 192
#: a graph of at most this many stored edges, thin or not, takes the queue search where its
#: levels read fewer than :data:`QUEUE_SMALL_LEVEL_EDGES` edges on average: there the fused
#: search's fixed costs (its second thread's wake-up, a level's hand-over between the threads)
#: outweigh what its second thread and pull levels save. The 2-core EPYC, each call after 64 MB
#: of other reads (as a benchmark's check leaves the caches), us from eight random sources, queue
#: against fused (scipy), with the edges a level: 4elt (1,311) 643 against 867-901 (562-571), a
#: 25 x 25 x 25 mesh (1,233) 451-554 against 672-681 (417), small worlds of 30,000 vertices (a
#: ring of degree 4, a share of its edges rewired) of 2,667, 4,444 and 6,000 930-954 against
#: 1,350-1,541, 989-992 against 1,212-1,290 and 1,034-1,052 against 1,219-1,334; bcsstk13 (6,990)
#: 262-264 against 398-400 (203-205), a 27-point stencil on 15^3 (5,075) 238-244 against 433-438,
#: a band of 30 diagonals (447) 208-225 against 332-334; even, Kronecker 12 (19,324: 258-260
#: against 278-283) and random graphs of 500 and 1,000 vertices (30,000 and 32,000: 226-266
#: against 227-249); the fused search's, random graphs of 25,000 vertices of mean degree 4
#: (7,692: 988-990 against 890-922) and 3,000 of mean degree 33 (about 30,000: 459-473 against
#: 364-372), whose pull levels pay. Past this size the fused search wins from about 250 vertices
#: a level (:data:`QUEUE_LEVEL_VERTICES`; a 300 x 1000 mesh from random sources: 6.3-6.5 ms
#: against 5.1)
QUEUE_SMALL_GRAPH_EDGES = 1 << 17
QUEUE_SMALL_LEVEL_EDGES = 1 << 13


def depth_weighed(n, nnz) -> bool:
    """Whether :func:`narrow_levels` may hold for a graph of ``n`` vertices and ``nnz`` stored
    edges, so that its depth is worth measuring: a graph of at most
    :data:`QUEUE_SMALL_GRAPH_EDGES`, or a thin one of at most :data:`DEPTH_PROBE_EDGES`."""
    return nnz <= QUEUE_SMALL_GRAPH_EDGES or (nnz <= DEPTH_PROBE_EDGES and thin_graph(nnz, n))


def narrow_levels(n, nnz, levels) -> bool:
    """Whether a graph of ``n`` vertices and ``nnz`` stored edges, ``levels`` deep, has levels
    narrow enough for the queue search: up to :data:`QUEUE_SMALL_GRAPH_EDGES`, fewer than
    :data:`QUEUE_SMALL_LEVEL_EDGES` edges a level; past it, a thin graph's fewer than
    :data:`QUEUE_LEVEL_VERTICES` vertices a level."""
    if nnz <= QUEUE_SMALL_GRAPH_EDGES:
        return nnz < QUEUE_SMALL_LEVEL_EDGES * levels
    return thin_graph(nnz, n) and n < QUEUE_LEVEL_VERTICES * levels


#: the vertices and edges a thread's share of a batch's queue searches reads at least (about
#: 0.4-0.6 ms of them): a share costs the pool's hand-over, tens of microseconds. One H100's
#: 16-core host gave each of 16 threads 4 searches of a 30 x 30 mesh, and the batch of 64 took
#: 2.2 ms, more than 64 ``ld.bfs`` calls (1.5 ms); with this share, 0.95 ms
QUEUE_SHARE_ELEMENTS = 1 << 18


def queue_batch_shares(searches, n, nnz, threads) -> int:
    """The threads (of ``threads``) a batch of ``searches`` queue searches run one at a time on
    a graph of ``n`` vertices and ``nnz`` edges takes: as many as have
    :data:`QUEUE_SHARE_ELEMENTS` vertices and edges to read, at most one a search (the CPU
    set's batch, and the batch policy's model of it, ``algorithms/small_graphs.py``)."""
    return max(1, min(threads, searches, -(-searches * (n + nnz) // QUEUE_SHARE_ELEMENTS)))


def levels_as_planes(forced, nnz, n) -> bool:
    """Whether a fused multi-source batch keeps its levels as :class:`LevelPlanes` (both kernel
    sets' rule): ``forced`` (a kernel set's ``multi_fused_level_planes``: True, False, or None,
    by the graph) decides; by the graph, one of ``nnz`` stored edges over ``n`` vertices that is
    not thin (a thin graph's searches run deep, past the planes a run starts with, and its rows
    are few)."""
    if forced not in (None, True, False):
        raise ValueError(f"multi_fused_level_planes must be True, False or None (by the graph), got {forced!r}")
    return not thin_graph(nnz, n) if forced is None else forced


@dataclass
class LevelPlanes:
    """A batch's levels as bit planes, the way a fused multi-source run keeps them: ``words``
    (1 + P, rows, W) uint64 (numpy or the device's), search c being bit c % 64 of word c // 64
    of a row; plane 0 holds the bits of the searches that reached the vertex, plane 1 + p those
    whose depth has bit p (a search's depth bits where plane 0 has none are not read: every
    reader masks with plane 0). A row of k searches is W words a plane, P + 1 planes for depths below
    2^P, where the (rows, k) int32 table is 32 bits a search: the batch writes a few words a
    vertex, and the table is made only where it is read (the kernel sets' ``level_planes_rows``:
    bitmap.cu's, and its twin's for words in host memory)."""

    words: Array
    k: int

    @property
    def shape(self):
        """The table's shape, (rows, k)."""
        return (int(self.words.shape[1]), self.k)

    @property
    def depth_planes(self) -> int:
        return int(self.words.shape[0]) - 1

    @classmethod
    def of_run(cls, words, k, levels):
        """The planes of a run of ``levels`` levels (its depths 0 .. levels) out of ``words``,
        which may hold more (a view of them; themselves where the run's took every plane)."""
        planes = 1 + planes_for_levels(levels)
        return cls(words if planes >= words.shape[0] else words[:planes], k)


def planes_for_levels(levels) -> int:
    """Depth planes a run of ``levels`` levels takes (its depths 0 .. levels)."""
    return max(int(levels), 0).bit_length()


@dataclass
class MultiFusedRun:
    """What one fused multi-source run returns.

    ``levels`` / ``parents``: (rows, k) int32 arrays on the backend's device (None when not
    asked for), row v column i the level / parent (global id) of vertex v in search i, -1 where
    search i did not reach v; or ``levels`` as :class:`LevelPlanes` where the kernel set keeps
    them so (both sets, on a graph that is not thin: :func:`levels_as_planes`). ``counts``:
    int64 numpy (levels run, 5), columns :data:`MULTI_RECORD_FIELDS`: the level's input
    entries ((search, vertex) pairs), entries
    discovered, matrix entries read, 1 for a push level / 0 for pull, and the vertices of the
    next frontier (those with some search's bit). ``seconds``: float64 numpy (levels run,), each
    level's own time by ``clock``. ``separate``: the searches ran one at a time, not bit-parallel
    (a kernel set may, where their waves run apart); a row of ``counts`` is then a depth, summed
    over the searches. ``setup_seconds`` / ``finish_seconds``: by ``clock``, the run's time before
    its first level (zeroing its workspace, the sources) and after its last (the levels' rows
    written), where the kernel set times them (None where it does not). ``engine``: what ran the
    levels where not the set's own batch loops (:data:`QUEUE_ENGINE`: searches one at a time,
    each the queue search, their depths timed as one run), else None.
    """

    levels: Array
    parents: Array
    counts: np.ndarray
    seconds: np.ndarray
    clock: str
    separate: bool = False
    setup_seconds: float | None = None
    finish_seconds: float | None = None
    engine: str | None = None


# -- the interface ---------------------------------------------------------------------------------
class Kernels(Protocol):
    """The kernels the algebra (:mod:`lagraph_dist.algebra`), the collectives
    (:mod:`lagraph_dist.comm.collectives`) and the searches call, on either backend. Arrays are
    the backend's; ``csr`` is a :class:`~lagraph_dist.local.parts.LocalCSR`, ``in_map`` an
    :class:`~lagraph_dist.comm.grid.IdMap`, ``semiring`` a :class:`~lagraph_dist.semirings.Semiring`,
    ``counters`` the uint64 counters of :mod:`lagraph_dist.local.layout` (FOUND, EXAMINED, ...)."""

    #: the clock a fused run's levels are timed by
    FUSED_LEVEL_CLOCK: str

    #: Beamer's alpha for this kernel set's multi-source batches where the caller gives none
    #: (``ld.bfs_multi(alpha=None)``): about what a pushed edge costs over a pulled one here. A
    #: batch's pull row stops only once it has every live search's bit, so it reads nearly all
    #: the unexplored edges it is charged with, and a pushed edge is worth fewer pulled ones than
    #: in one search (``DEFAULT_ALPHA``).
    MULTI_ALPHA: float

    #: searches a graph's ``bfs_multi`` calls (levels only) ask for before
    #: ``settings.multi_degree_order="auto"`` runs them on its degree-ordered twin
    #: (``algorithms/degree_twin.py``), or None: never by itself (where putting the rows back
    #: costs what the twin saves)
    MULTI_TWIN_AFTER: int | None

    # bitmaps (bitmap.cu)
    def bitmap_from_list(self, ids: Array, length: int, words: Array | None = None) -> Array:
        """The uint32 bitmap of ``ids`` over ``length`` slots (set into ``words`` when given)."""

    def list_from_bitmap(self, words: Array, count: int | None = None) -> Array:
        """The increasing int32 ids of the set bits (``count``: a size hint)."""

    def popcount(self, words: Array) -> int:
        """Set bits of a bitmap."""

    def bitmap_test(self, words: Array, ids: Array) -> Array:
        """A bool per id: is its bit set."""

    def new_counters(self) -> Array:
        """A product's zeroed counters."""

    def single_entries(self, index: int, entries, length: int, *, as_list: bool = False):
        """Bitmap parts holding one entry each at ``index`` (and its list, ``as_list``)."""

    def assign_from_list(self, ids: Array, words: Array, values: Array, *, src_dense=None, src_compact=None,
                         scalar=None) -> None:
        """A bitmap part takes the entries ``ids`` in place: values from a dense or compact
        source, or one scalar."""

    # products (push.cu, pull.cu)
    def push_spmspv(self, csr, frontier_ids: Array, frontier_values: Array | None, semiring, mask_words: Array | None,
                    complement: bool, in_map, *, out_degree: Array | None = None, frontier_edges: int | None = None):
        """Top-down masked product of a listed frontier: (output part, counters)."""

    def pull_spmv(self, csr, frontier_words: Array, frontier_values: Array | None, semiring, mask_words: Array | None,
                  complement: bool, in_map, *, out_degree: Array | None = None):
        """Bottom-up masked product of a bitmap frontier: (output part, counters)."""

    # the fold of a product's candidates to their owners (fold.cu)
    def fold_count(self, part, counters: Array, block_len: int, nowners: int) -> Array:
        """Candidates per owner."""

    def fold_pack(self, part, counters: Array, vw: int, block_len: int, nowners: int, cap: int, threshold: int,
                  counts: Array | None = None):
        """The candidates packed by owner, each piece list- or bitmap-encoded by the one rule."""

    def fold_merge(self, recv: Array, nowners: int, block_len: int, vw: int, cap: int, threshold: int,
                   counts: Array, semiring, mask_words: Array | None, complement: bool, *,
                   out_degree: Array | None = None):
        """The owner's merge of received pieces by the semiring's monoid: (part, counters)."""

    # the fused single search (fused.cu)
    def bfs_fused(self, out_csr, in_csr, words: Array, parents: Array, depth_words: Array | None,
                  depths: Array | None, first_depth: int, frontier_ids: Array | None, positional: bool, rule,
                  max_frontier: int, max_edges: int, max_levels: int, target: int, workspace=None, source=None,
                  while_running=None):
        """A search's levels in one call: (FusedRecords, frontier ids left, their out-edges, STOP_* reason).
        Its attributes: ``max_levels`` (levels one run takes at most, None: no cap) and
        ``asks_replaced_rule`` (whether a rule with its own ``choose`` is asked level by level)."""

    def fused_workspace(self, n: int, nnz: int):
        """The buffers of a fused search over an n-vertex block, kept by the caller."""

    # the multi-source search, one word a vertex (multi.cu)
    def multi_new_counters(self) -> Array:
        """A multi-source kernel's zeroed counters (M_FOUND ... of layout)."""

    def multi_push(self, csr, frontier_ids: Array, frontier_words: Array, in_map, target: MultiTarget) -> Array:
        """Top-down: the frontier's words offered to out-neighbours, claimed into ``target``."""

    def multi_pull(self, csr, frontier_words: Array, live: int, in_map, target: MultiTarget) -> Array:
        """Bottom-up: each row with live searches not yet claimed looks among its inputs."""

    def multi_merge(self, ids: Array, words: Array, offsets: Array | None, parents: Array | None,
                    target: MultiTarget) -> Array:
        """The owner's claims of received (id, word) pairs and their parents."""

    def multi_popcounts(self, words: Array) -> Array:
        """Set bits of every word (int64)."""

    def multi_nonzero_ids(self, words: Array, count: int | None = None) -> Array:
        """int32 ids of the nonzero words, increasing."""

    def multi_fold_count(self, queue: Array, counters: Array, words: Array, block_len: int, nowners: int) -> Array:
        """[vertices per owner, bits per owner] of a kernel's queue."""

    def multi_pack_parents(self, sources: Array, words: Array, offsets: Array, cand_parents: Array, total: int) -> Array:
        """The parents of every set bit, packed in bit order at each word's offset."""

    # the fused multi-source search (several words a vertex)
    def multi_bfs_fused(self, out_csr, in_csr, sources: np.ndarray, out_degree: Array, *, rows: int, levels: bool,
                        parents: bool, rule, max_levels: int, queue_searches: bool = False) -> MultiFusedRun:
        """Up to MULTI_FUSED_MAX_WIDTH searches from ``sources``, every level in one call, in
        the directions ``rule`` (a stock DirectionRule, its state updated) gives.
        ``queue_searches``: ``ld.bfs``'s policy would run the queue search on this graph
        (``algebra.levels.queue_search_fits``: past ``settings.queue_search_edges`` too, on narrow
        levels), so a set with the queue search (:class:`QueueSearch`) runs the searches it runs
        one at a time as queue searches; else such a set decides by the graph's size, and a set
        without one runs as ever."""

    def level_planes_rows(self, planes: LevelPlanes, start: int, stop: int) -> Array:
        """Rows ``start .. stop - 1`` of a batch's levels kept as ``planes`` (in this set's
        memory) as a (stop - start, k) int32 table, -1 where unreached."""

    # Graph500 Kronecker edges (kronecker.cu)
    def kronecker_edges(self, first: int, count: int, scale: int, level_keys: np.ndarray, thresholds: np.ndarray,
                        permute_keys: np.ndarray) -> tuple[Array, Array]:
        """int64 (src, dst) of edges ``first .. first + count - 1`` of the generator whose
        host-made plan ``lagraph_dist.io.generators.kronecker_plan`` gives."""

    # the Graph500 edge rules of a validation (edge_rules.cu)
    def check_edges(self, csr, row_map: tuple, col_map: tuple, rows_are_heads: bool, depth: Array,
                    parents: Array | None, marks: Array) -> np.ndarray:
        """One pass over ``csr``'s edges (its rows' vertices the tails, or the heads when
        ``rows_are_heads``; ids made global by the ``(block_len, stride, offset)`` maps) against
        int64 ``depth`` and ``parents`` (n,): in ``marks`` (uint8, n), the head of each edge
        from a reached tail one level up that is, where ``parents`` is given, its tree edge; on
        the host, uint64 [smallest ``head * n + tail`` of an edge from a reached
        tail to an unreached head, the same of one that skips a level, 0 if an endpoint is
        outside [0, n)], :data:`EDGE_RULE_NONE` where nothing broke the rule."""


@runtime_checkable
class PathDependencies(Protocol):
    """An optional member of a kernel set: Brandes's sweeps of a batch of searches in one call
    (``lagraph_dist.algebra.multi.path_dependencies`` asks for it on one process; a kernel set
    without it leaves betweenness to its products, a source at a time). Both sets have it."""

    #: the searches a batch of betweenness gives one call (the CPU's sweeps take a word of 64 at
    #: a time; the GPU's take all the words of a fused multi-source batch together)
    dependencies_batch: int

    def path_dependencies(self, out_csr, in_csr, levels: Array, *, endpoints: bool) -> tuple[Array, np.ndarray, int]:
        """(each vertex's dependencies summed over the searches whose (rows, k) int32 levels
        are given, (n,) float64 in the backend's memory; each search's vertices reached
        besides its source, (k,) int64 on the host; the edges read)."""


#: a components kernel's sampling (Afforest): each vertex's first out-edges linked before the
#: giant component is named by the most frequent root among this many sampled vertices
COMPONENT_SAMPLED_EDGES = 2
COMPONENT_SAMPLES = 1024


@runtime_checkable
class ComponentLabels(Protocol):
    """An optional member of a kernel set: every vertex's connected-component label in one call
    (``lagraph_dist.algebra.components.component_labels`` asks for it on one process; a kernel
    set without it leaves components to searches and label propagation). Both sets have it."""

    def connected_components(self, out_csr, in_csr, n: int) -> tuple[Array, int]:
        """(int64 labels over the block's rows, each vertex's smallest id of its component
        (weakly connected: ``in_csr`` the in-edges of a directed graph; None for a symmetric
        one), the number of components among the first ``n`` vertices (the rows past them hold
        no edge))."""


@runtime_checkable
class ComponentSweeps(Protocol):
    """An optional member of a kernel set: the labels of :class:`ComponentLabels` made by one
    queue search a component, in one pass (``lagraph_dist.algebra.components.component_labels``
    asks for it on a graph of :func:`chain_levels`, where it costs less than the union-find).
    The CPU set has it."""

    def component_sweeps(self, out_csr, in_csr, n: int) -> tuple[Array, int]:
        """What ``connected_components(out_csr, in_csr, n)`` gives, by searches."""


#: a thin graph whose levels hold fewer vertices than this on average (a path's, a strip's) has
#: its component labels made by sweeps (:class:`ComponentSweeps`). Cold, 2 EPYC cores, sweeps
#: against the union-find: paths 1.4x faster, a 5 x 10000 mesh 1.7x; a 20 x 5000 mesh (20 a
#: level) 2x slower, jagmesh7 (19) even
SWEEP_LEVEL_VERTICES = 8


def chain_levels(n, levels) -> bool:
    """Whether a thin graph of ``n`` vertices, ``levels`` deep, is chain-like enough for
    component sweeps (:data:`SWEEP_LEVEL_VERTICES`)."""
    return n < SWEEP_LEVEL_VERTICES * levels


@runtime_checkable
class SearchFromSource(Protocol):
    """An optional member of a kernel set: a whole single search from a source in one call that
    also makes its outputs, prepared once a matrix (``lagraph_dist.algebra.levels.search_from``
    asks for it on one process, for a stock rule: a search costs little more than its levels; a
    kernel set without it runs the level engine's fused runs). Both sets have it: the CPU's one
    compiled call, the GPU's cooperative kernel's runs with their outputs made ahead."""

    def search_plan(self, out_csr, in_csr, length: int, *, positional: bool, depths: bool, rule, workspace):
        """A callable, ``plan(source, rule, max_frontier, max_edges, max_levels, target)``: the
        search from ``source`` of :meth:`Kernels.bfs_fused` on these blocks, under a rule of
        ``rule``'s mode and parameters, into outputs of ``length`` slots it makes: (visited
        words, values (int64 parents, or bool), depth words and int64 depths (None, None
        without ``depths``), the levels' FusedRecords, the STOP_* reason); the given rule's
        state updated. The search runs up to ``max_levels`` levels whatever its runs' own cap
        (a kernel set whose runs are capped goes on from where a run stopped). The caller keeps
        it for the blocks' life."""


@runtime_checkable
class QueueSearch(Protocol):
    """An optional member of a kernel set: a small graph's whole search from a source as one
    compiled queue loop, push only, its outputs made there (``lagraph_dist.algebra.levels.search_from``
    asks for it on one process for a matrix of at most ``settings.queue_search_edges`` stored
    edges, a rule that may push and no limits but levels and a target: such a search costs less
    than the fused search's call). The CPU set has it."""

    def queue_plan(self, out_csr, length: int, n: int):
        """The searches along ``out_csr``'s rows (``n``: the graph's vertices; the block's rows
        past them are its padding) into outputs of ``length`` slots, made once a block: an
        object whose ``search(source, positional, depths, max_levels, target)`` returns (visited
        words, values (int64 parents, or bool), depth words and int64 depths (None, None without
        ``depths``), the levels' FusedRecords, the vertices reached), in outputs made there; the
        search stops after the level that finds nothing, reaches ``target`` (-1: none) or is the
        ``max_levels``-th."""


@runtime_checkable
class PlanesReduction(Protocol):
    """An optional member of a kernel set: a batch's levels kept as planes reduced search by
    search without their (rows, k) table (``lagraph_dist.algebra.multi.DenseRows.reduce_rows``
    asks for it for planes in host memory: closeness and eccentricity; a kernel set without it
    makes the table a slice at a time and reduces that). The CPU set has it."""

    def level_planes_reduced(self, planes: LevelPlanes, start: int, stop: int, kinds: tuple) -> np.ndarray:
        """Rows ``start .. stop - 1`` of ``planes``: a (len(kinds) + 1, k) int64 numpy array, each
        of ``kinds``' ("plus", "min", "max") reduction of each search's levels over the rows it
        reached (the kind's identity where none), then the rows each search reached."""


#: the optional members (each a Protocol of its own) a kernel set may have
OPTIONAL_KERNELS = (PathDependencies, ComponentLabels, ComponentSweeps, SearchFromSource, QueueSearch, PlanesReduction)


@functools.cache
def offers(kernels, member) -> bool:
    """Whether the kernel set ``kernels`` has the optional ``member`` (one of
    :data:`OPTIONAL_KERNELS`), worked out once a set: a runtime-checkable Protocol's
    ``isinstance`` walks its attributes each time (about 10 us, a small graph's whole search)."""
    if member not in OPTIONAL_KERNELS:
        raise TypeError(f"{member!r} is not an optional member of a kernel set")
    return isinstance(kernels, member)


class DeviceKernels(Kernels, Protocol):
    """What a device's kernels add, for the :class:`~lagraph_dist.local.backend.Backend` only:
    device reads and launches counted, reads, results made ahead, and the memory pool."""

    reads: int
    launches: int

    def read(self, array: Array, out: np.ndarray | None = None) -> np.ndarray:
        """A device array on the host (one counted read), into ``out`` when given."""

    def made_ahead(self, key, make):
        """``make()``'s first value, made while the previous search of ``key`` ran where small."""

    def peak_bytes(self) -> int:
        """The memory pool's high-water mark since the last reset."""

    def reset_peak(self) -> None:
        """Start a new high-water mark."""

    def device_info(self) -> dict:
        """The device's name, memory and compute capability."""
