"""How many bytes a graph, a search on it and its construction take on each rank, and how many
are free, and whether a need fits: the one place where the package's memory arithmetic lives.

The constructors check :func:`estimate_memory` against the memory of their backend before they
allocate (free device memory on the GPU backend, available host memory on the CPU backend),
so a graph that cannot fit fails at once with the bytes needed and the bytes free
(:func:`check_fits`, :func:`require_fit`); a by-row copy takes as many passes as it needs to
fit (:func:`passes_to_fit`) and the multi-source search batches as wide as its share of the free
memory holds (:func:`free_share`). Validation reads :func:`available_bytes` to size its edge
batches. The per-edge and per-vertex costs below are counted from the code that allocates
them; on the CPU they were checked against ``tracemalloc`` peaks (tests/test_memory.py does so
on every run).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

from lagraph_dist.core.errors import DomainMismatch, InvalidValue
from lagraph_dist.core.settings import settings
from lagraph_dist.comm.grid import Layout, most_square
from lagraph_dist.local.parts import ROW_RANGE_ENTRIES
# the fit checks live with the backend's memory (lagraph_dist.local.fit); they are named here too,
# beside the estimates they are applied to
from lagraph_dist.local.fit import (MAX_PASSES, available_bytes, check_fits,  # noqa: F401
                                    format_bytes, free_share, host_memory, passes_to_fit, ranks_sharing_memory,
                                    require_fit)

__all__ = ["MemoryEstimate", "estimate_memory", "estimate_to_fit", "transpose_bytes", "by_row_copy_bytes",
           "results_ahead_bytes",
           "multi_search_bytes",
           "multi_output_bytes", "MultiPlan", "plan_multi_batches", "check_fits", "require_fit",
           "free_share", "passes_to_fit", "available_bytes", "host_memory", "ranks_sharing_memory",
           "format_bytes", "EDGES_PER_CHUNK", "sweep_bytes", "sweep_join_room"]

#: Edges the Kronecker generator makes at once on a rank (each becomes two keys when symmetrized):
#: a chunk's temporaries on the GPU (the sorts of the one-GPU build, and the generator's draws
#: while it was array operations) were 100 to 150 bytes a key, 2.3 GiB at this size (6.5 GiB at
#: 1 << 25 took a scale-28 build past 1.3 times the graph's bytes)
EDGES_PER_CHUNK = 1 << 23

# -- the graph: a CSR block by column-space id, and (when pull needs it) one by row-space id
INDEX_BYTES = 4                  # int32 local id per stored edge
OFFSET_BYTES = 8                 # int64 offset per row (indptr)

# -- construction (lagraph_dist.algebra.matrix._from_edge_chunks and _CsrWriter)
PASS_KEY_BYTES = 16              # a pass's int64 keys ``col * row_space_len + row`` plus the sort's scratch
COUNT_BYTES_PER_ROW = 16         # the writer's int64 row counts and their prefix sum
# a chunk in flight (generator draws, symmetrized copies, owner ranks, routed copies) before it
# becomes keys: under 56 bytes a key on the CPU (tracemalloc); on the GPU, CuPy's temporaries
# and its pool's cached blocks leave 140-230 bytes a chunk key beside the terms above in the
# measured build peaks of scales 20 to 27 (benchmarks/results/gpu-*.json)
CHUNK_BYTES_PER_KEY = {"cpu": 96, "gpu": 192}
# the one-rank CPU build (local/parts.csr_from_edges: compiled counting sorts, no keys, no
# routing): a chunk's ids and the rows' slots, 17-25 bytes a key measured (tracemalloc)
CPU_ONE_RANK_BYTES_PER_KEY = 32
# the one-GPU build (local/parts.csr_by_counting): a chunk's temporaries while it is counted and
# placed (a sort by row, the runs and the slots, and what CuPy's pool keeps of them; one H200,
# scale 22, measured with the generator's draws still array operations: 104 bytes a key with
# chunks of 2^26 keys, 148 with 2^24, an upper bound now that the generator makes none),
# then a range of rows sorted and merged at once (its entries' int64 keys and rows, a copy of
# the merged ones and the sort's scratch)
COUNTING_CHUNK_BYTES_PER_KEY = 192
ROW_RANGE_BYTES_PER_ENTRY = 48

# -- a search (lagraph_dist.algorithms.bfs) and the gathers and checks that follow it
# the first pull builds the by-row CSR (matrix.transpose_csr) in passes over ranges of rows
TRANSPOSE_BYTES_PER_EDGE = 16    # over the whole block: every entry's row (int32), and a pass's selection
                                 # (its masks and CuPy's int32/int64 scan of them in nonzero)
TRANSPOSE_PASS_BYTES_PER_EDGE = 48   # per entry of one pass: its position, widened ids, keys and the sort's scratch
TRANSPOSE_BYTES_PER_ROW = 8      # per row of the copy: the writer's counts, beside the offsets they become
CPU_KERNEL_BYTES_PER_EDGE = 56   # the numpy products (several ranks) materialise every edge of a product's rows
WORKSPACE_BYTES_PER_VERTEX = 96  # per vertex of the larger local space: visited/parents, depths,
                                 # degrees, frontier, the gathered frontier, the product's output
RESULT_BYTES_PER_VERTEX = 48     # per graph vertex: dense levels and parents on every rank
                                 # (to_numpy) and the per-vertex arrays of their validation
THIN_ROWS_BYTES_PER_VERTEX = 8   # one GPU: a thin graph's rows as one word each (fused.py's
                                 # _thin_rows), made at its first fused search; counted for every
                                 # graph, as the estimate does not know the longest row
AHEAD_BYTES_PER_VERTEX = 17      # one GPU: the next search's parents, depths and their bits, made
                                 # while a search runs when under settings.results_ahead_bytes

# -- a multi-source search (lagraph_dist.algorithms.bfs_multi, lagraph_dist.algebra.multi): one uint64
# word a vertex holds the bits of up to 64 searches
MULTI_BLOCK_BYTES = 32           # per vertex of the own block: visited, frontier and next words,
                                 # the frontier's and the next frontier's id queues
MULTI_INPUT_BYTES = 28           # per vertex of the input space: the gathered words and ids, the
                                 # received pairs' words, the push's degree scan
MULTI_OUTPUT_BYTES = 96          # per vertex of the output space on grids with several processors a
                                 # row: the visited bound, candidate words and queue, the grouped
                                 # candidates (ids, words, popcounts, offsets, the sort's scratch)
                                 # and the received ones
MULTI_PARENT_COPIES = 3          # candidate parents, packed and received: 8 bytes a search each,
                                 # per vertex of the output space
MULTI_CPU_BYTES_PER_EDGE = 128   # the numpy kernels' per-edge arrays of one level (edges, owners,
                                 # offered words, claims)

# -- betweenness's fused sweeps (lagraph_dist.algebra.multi.path_dependencies), a word of 64
# searches at a time, per vertex
SWEEP_BYTES_PER_VERTEX = 2 * 64 * 8 + 64 * 8 + 4 * 8   # path counts and dependencies (64 float64
                                 # each), the (vertex, search) entries by depth (at most 64), two
                                 # depth masks and two vertex lists


SWEEP_JOIN_SHARE = 0.25          # of the free memory the levels of several fused runs, joined
                                 # side by side for one call of the sweeps, may take (the GPU
                                 # sweeps' own workspace takes half: SWEEP_MEMORY_SHARE)


def sweep_bytes(n) -> int:
    """Bytes the fused sweeps of one word of searches hold at once, beside the batch's levels."""
    return SWEEP_BYTES_PER_VERTEX * _count("n", n, 0)


def sweep_join_room(backend) -> int:
    """Bytes a joined levels block for the sweeps may take now (SWEEP_JOIN_SHARE of the free
    memory of ``backend``)."""
    return int(SWEEP_JOIN_SHARE * free_share(backend))


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes on one rank: the graph's blocks, a search's peak beside them, the construction's
    peak. The most held at once is :attr:`total`."""

    graph: int
    search: int
    construction: int

    @property
    def total(self) -> int:
        return max(self.construction, self.graph + self.search)

    def __str__(self):
        return (f"graph {format_bytes(self.graph)} + search {format_bytes(self.search)}, "
                f"construction peak {format_bytes(self.construction)}")


def _count(name, value, low):
    try:
        count = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        count = None
    if count is None:
        raise DomainMismatch(f"{name} must be an integer, got {value!r}")
    if count < low:
        raise InvalidValue(f"{name} must be >= {low}, got {count}")
    return count


def _backend_name(backend):
    name = getattr(backend, "name", backend)
    if name not in ("cpu", "gpu"):
        raise InvalidValue(f"backend must be 'cpu' or 'gpu' (or a Backend), got {backend!r}")
    return name


def transpose_bytes(edges, rows, passes=1) -> int:
    """Transient bytes of building the by-row copy (``rows`` rows) of a block of ``edges``
    entries in ``passes`` passes over ranges of rows (each pass sorts only its range's keys)."""
    return (TRANSPOSE_BYTES_PER_EDGE * edges + TRANSPOSE_PASS_BYTES_PER_EDGE * -(-edges // passes)
            + TRANSPOSE_BYTES_PER_ROW * (rows + 1))


def by_row_copy_bytes(edges, row_space_len, passes=1) -> int:
    """Peak bytes the by-row copy of a block adds while it is built: its indices and offsets
    beside the transient of :func:`transpose_bytes`."""
    return INDEX_BYTES * edges + OFFSET_BYTES * (row_space_len + 1) + transpose_bytes(edges, row_space_len, passes)


def results_ahead_bytes(n) -> int:
    """Bytes one GPU holds for the next search's outputs, made while a search runs: all of them
    when they fit ``settings.results_ahead_bytes``, else none (a big graph's memory stays the graph's)."""
    need = AHEAD_BYTES_PER_VERTEX * n
    return need if need <= settings.results_ahead_bytes else 0


def estimate_memory(n, nvals, *, grid_shape=(1, 1), backend="gpu", symmetric=False, passes=1,
                    chunk_keys=None, transpose_passes=1) -> MemoryEstimate:
    """Bytes per rank of a graph with ``n`` vertices and ``nvals`` stored (directed) edges.

    Parameters
    ----------
    n, nvals : int
        Vertices and stored edges; an undirected edge counts twice. An upper bound is fine
        (a Kronecker graph stores at most ``2 * edgefactor * 2**scale``).
    grid_shape : (R, C)
        The process grid; each rank holds about ``nvals / (R * C)`` edges.
    backend : "gpu" or "cpu" (or a Backend)
        The CPU kernels materialise each product's edges; the CUDA kernels do not.
    symmetric : bool
        A symmetric graph on one rank pulls through its by-column block; otherwise the first
        pull builds a by-row copy, counted in the graph and in the search.
    passes : int
        Passes over the edges of a grid's construction (each sorts a slice of the keys); one
        rank's build counts and fills its rows instead, whatever the passes.
    chunk_keys : int, optional
        Keys made and routed at once during construction; default: one generator chunk.
    transpose_passes : int
        Passes of the first pull's by-row build, over ranges of rows (more passes, less memory).

    Returns
    -------
    MemoryEstimate
        ``graph``, ``search`` and ``construction`` bytes, and their peak ``total``.
    """
    n = _count("n", n, 1)
    nvals = _count("nvals", nvals, 0)
    passes = _count("passes", passes, 1)
    transpose_passes = _count("transpose_passes", transpose_passes, 1)
    rows, cols = (_count("grid rows", g, 1) for g in grid_shape)
    name = _backend_name(backend)
    layout = Layout(n, rows, cols)
    edges = -(-nvals // (rows * cols))                  # Kronecker labels are permuted: balanced
    by_row_copy = not (symmetric and rows * cols == 1)

    graph = INDEX_BYTES * edges + OFFSET_BYTES * (layout.col_space_len + 1)
    if by_row_copy:
        graph += INDEX_BYTES * edges + OFFSET_BYTES * (layout.row_space_len + 1)

    transient = transpose_bytes(edges, layout.row_space_len, transpose_passes) if by_row_copy else 0
    if name == "cpu" and tuple(grid_shape) != (1, 1):      # one rank: the compiled fused twin, no per-edge arrays
        transient = max(transient, CPU_KERNEL_BYTES_PER_EDGE * edges)
    search = (transient + RESULT_BYTES_PER_VERTEX * n
              + WORKSPACE_BYTES_PER_VERTEX * max(layout.col_space_len, layout.row_space_len))
    if name == "gpu" and rows * cols == 1:
        search += results_ahead_bytes(n) + THIN_ROWS_BYTES_PER_VERTEX * n

    chunk = min(edges, 2 * EDGES_PER_CHUNK if chunk_keys is None else _count("chunk_keys", chunk_keys, 0))
    construction = INDEX_BYTES * edges + COUNT_BYTES_PER_ROW * (layout.col_space_len + 1)
    if name == "cpu" and tuple(grid_shape) == (1, 1):
        construction += CPU_ONE_RANK_BYTES_PER_KEY * chunk
    elif tuple(grid_shape) == (1, 1):        # parts.csr_by_counting: a chunk, then a range of rows
        construction += max(COUNTING_CHUNK_BYTES_PER_KEY * chunk, ROW_RANGE_BYTES_PER_ENTRY * min(edges, ROW_RANGE_ENTRIES))
    else:
        construction += PASS_KEY_BYTES * -(-edges // passes) + CHUNK_BYTES_PER_KEY[name] * chunk
    return MemoryEstimate(graph=graph, search=search, construction=construction)


#: the largest grid a refusal looks at when it says how many ranks would hold a graph
MOST_RANKS_SUGGESTED = 4096


def kronecker_alternatives(scale, edgefactor, grid_shape, backend, free) -> str:
    """What fits ``free`` bytes a rank where a scale-``scale`` Kronecker graph on ``grid_shape``
    does not (its by-row copy in the most passes): the largest scale on this grid, and the
    fewest ranks, each with that much memory, in the most square grid, that hold this scale."""
    def need(s, shape):
        return estimate_memory(1 << s, 2 * (edgefactor << s), grid_shape=shape, backend=backend, symmetric=True,
                               transpose_passes=MAX_PASSES).total
    smaller = next((s for s in range(scale - 1, 0, -1) if need(s, grid_shape) <= free), None)
    grids = [most_square(p) for p in (1 << k for k in range(1, MOST_RANKS_SUGGESTED.bit_length()))
             if p > grid_shape[0] * grid_shape[1]]
    holding = next((shape for shape in grids if need(scale, shape) <= free), None)
    here = f"scale {smaller} fits here" if smaller is not None else "no Kronecker graph fits here"
    if holding is not None:
        more = (f"scale {scale} needs {holding[0] * holding[1]} ranks with this much memory each (a "
                f"{holding[0]} x {holding[1]} grid)")
    else:        # (a rank's share stops shrinking: it keeps some bytes for every vertex of the graph)
        least = min(need(scale, shape) for shape in grids) if grids else need(scale, grid_shape)
        more = f"scale {scale} needs at least {format_bytes(least)} a rank on any grid of up to {MOST_RANKS_SUGGESTED} ranks"
    return f"{here}; {more}"


def estimate_to_fit(n, nvals, backend, **options) -> MemoryEstimate:
    """:func:`estimate_memory` on ``backend`` (a Backend) with the by-row passes the first pull
    will take: the fewest whose peak fits the free memory (one on the CPU)."""
    passes = backend.passes_to_fit(
        lambda p: estimate_memory(n, nvals, backend=backend, transpose_passes=p, **options).total)
    return estimate_memory(n, nvals, backend=backend, transpose_passes=passes, **options)


def multi_output_bytes(n, *, grid_shape=(1, 1), sources=1, levels=True, parents=True) -> int:
    """Bytes per rank of the levels and parents of ``sources`` searches: 8 bytes a search a
    vertex of the rank's block for each output kept."""
    rows, cols = (_count("grid rows", g, 1) for g in grid_shape)
    sources = _count("sources", sources, 1)
    return (bool(levels) + bool(parents)) * 8 * sources * Layout(_count("n", n, 1), rows, cols).block_len


def multi_search_bytes(n, nvals, *, grid_shape=(1, 1), backend="gpu", width=64, sources=None,
                       levels=True, parents=True, symmetric=False) -> int:
    """Bytes per rank a multi-source search (``ld.bfs_multi``) holds beside the graph.

    One batch of ``width`` searches runs at a time, with the workspaces of
    :mod:`lagraph_dist.algebra.multi`; the outputs of ``sources`` searches (default: ``width``, the
    running batch's) are held in the same memory; the first pull builds the by-row block when
    the graph has none (as in :func:`estimate_memory`).
    """
    n = _count("n", n, 1)
    nvals = _count("nvals", nvals, 0)
    width = _count("width", width, 1)
    sources = width if sources is None else sources
    rows, cols = (_count("grid rows", g, 1) for g in grid_shape)
    name = _backend_name(backend)
    layout = Layout(n, rows, cols)
    edges = -(-nvals // (rows * cols))
    words = -(-width // 64)          # a fused run's batch holds several words a vertex
    workspace = MULTI_BLOCK_BYTES * words * layout.block_len + MULTI_INPUT_BYTES * layout.col_space_len
    if cols > 1:
        workspace += MULTI_OUTPUT_BYTES * layout.row_space_len
        if parents:
            workspace += MULTI_PARENT_COPIES * 8 * width * layout.row_space_len
    if not (symmetric and rows * cols == 1):
        workspace += by_row_copy_bytes(edges, layout.row_space_len)
    if name == "cpu":
        workspace += MULTI_CPU_BYTES_PER_EDGE * edges
    return workspace + multi_output_bytes(n, grid_shape=(rows, cols), sources=sources, levels=levels,
                                          parents=parents)


@dataclass(frozen=True)
class MultiPlan:
    """How ``ld.bfs_multi`` runs its sources: ``width`` searches a batch (0: not even one fits);
    ``offload``: each finished batch's outputs move to the host, so that the device holds one
    batch's only."""

    width: int
    offload: bool


def plan_multi_batches(free_bytes, host_free_bytes, n, nvals, *, sources, backend="gpu", most=64,
                       **options) -> MultiPlan:
    """The batches of a multi-source search from ``sources`` with ``free_bytes`` free where it
    computes (``options``: the keywords of :func:`multi_search_bytes`).

    Batches are as wide as fits, at most ``most``, with every output kept where it was made.
    On the GPU, when that does not fit even one search a batch, finished batches move their
    outputs to the host (which must hold all of them in ``host_free_bytes``), and batches
    are as wide as the device holds with one batch's outputs. ``host_free_bytes`` is a number
    or a function giving it, called only then (a read of the host's free memory costs a call
    more than its search on a small graph).
    """
    sources = _count("sources", sources, 1)

    def widest(resident):
        for width in range(min(most, sources), 0, -1):
            held = sources if resident == "all" else width
            if multi_search_bytes(n, nvals, backend=backend, width=width, sources=held, **options) <= free_bytes:
                return width
        return 0

    width = widest("all")
    if width:
        return MultiPlan(width, False)
    if _backend_name(backend) != "gpu":            # (the CPU's outputs stay where they are)
        return MultiPlan(0, False)
    outputs = multi_output_bytes(n, grid_shape=options.get("grid_shape", (1, 1)), sources=sources,
                                 levels=options.get("levels", True), parents=options.get("parents", True))
    if outputs <= (host_free_bytes() if callable(host_free_bytes) else host_free_bytes):
        width = widest("batch")
        if width:
            return MultiPlan(width, True)
    return MultiPlan(0, False)

