"""Where a search runs: a small graph of the GPU backend on the host.

One policy, one place. :func:`components_on_host_when_cheaper` decorates the connected
components (``connected_components``, ``number_connected_components``: the CPU set's union-find in
one compiled call): given a graph (converted once, as the call itself would) whose Matrix has a
host twin (:func:`lagraph_dist.algebra.host_engine.host_twin`: the GPU backend on one process, at
most ``ld.settings.host_search_edges`` stored edges, or more where the host's union-find costs
less than the device's by the models below), the call runs on the twin and its result comes back
as the GPU backend's (:func:`~lagraph_dist.algebra.host_engine.held_on_host`); else it runs where
the Matrix lives. ``res.stats`` records name the ``engine`` that ran.

:func:`search_on_host_when_cheaper` decorates ``ld.bfs``: on the twin of a small graph, as above,
and past ``host_search_edges`` where the host's search costs less than the device's by the
models below: a graph that is not thin (shallow) up to about 131,000 edges, a thin one of up to
:data:`DEPTH_PROBE_EDGES` by its depth. The device pays its call's fixed price and each level's grid
barrier, the host each vertex and edge: a path of 50,000 vertices is a few hundred microseconds
on the host and tens of milliseconds on the device, a mesh of a million edges is the device's.

:func:`batch_on_host_when_deep` decorates the batches (``bfs_multi``, and betweenness, whose
sweeps read the batch's levels where they lie; closeness and eccentricity run on ``bfs_multi``):
on the twin where ``ld.settings.host_batches`` says, by default where the host's batch costs less
than the device's by the models below. A batch spreads the device call's price over its
searches, but pays a grid barrier and a level's fixed cost at each of its levels; the host runs
a small thin graph's searches one at a time, each the queue search, on as many threads as have
enough to read. One H100 (its 16-core host), 64 sources, levels only, host against device: a 30 x
30 mesh 0.95 against 0.90 ms, jagmesh7 1.20 against 1.01, a 100 x 100 mesh 2.05 against 2.76, the
2,000-vertex path 1.30 against 21.3 and the 10,000-vertex one 2.97 against 107 (scipy's
``shortest_path`` from the same sources: 4.5, 6.4, 54, 2.6 and 11.8 ms).
"""
from __future__ import annotations

import functools

import numba

from lagraph_dist.algebra.host_engine import held_on_host, host_twin, may_have_twin
from lagraph_dist.algebra.levels import graph_depth, queue_search_fits
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.core.settings import settings
from lagraph_dist.io.interop import as_matrix
from lagraph_dist.local.engine import DEPTH_PROBE_EDGES, MULTI_FUSED_MAX_WIDTH, queue_batch_shares, thin_graph

__all__ = ["components_on_host_when_cheaper", "search_on_host_when_cheaper", "batch_on_host_when_deep", "count_of",
           "HOST_BATCHES"]

#: ``settings.host_batches``'s values: by the models below, every small graph, none
HOST_BATCHES = ("auto", "always", "never")

#: the device's fused batch on a small graph: its fixed cost, and each level's (a grid barrier
#: and the level's own fixed work). One H200, 64 sources, levels only
#: (``h200-multi-source-small-fdddc29.json``): a 30 x 30 mesh 0.93 ms (about 60 levels), a 100 x
#: 100 mesh 3.1 ms (about 200), the 10,000-vertex path 108 ms (up to 10,000)
DEVICE_BATCH_SECONDS, DEVICE_BATCH_LEVEL_SECONDS = 0.3e-3, 10.8e-6
#: the host's batch (queue searches one at a time, side by side on the threads that
#: ``engine.queue_batch_shares`` gives it): a fixed cost, then a thread's searches' vertices and
#: edges (one H100's host at e9c1322, 64 sources, fitted: the 30 x 30 mesh 0.95 ms, jagmesh7
#: 1.20 and the 2,000 path 1.30 within 4%; the 100 x 100 mesh and the 10,000 path, on 13 and 8
#: threads, 1.3x and 1.9x the model's, which keeps their choice)
HOST_BATCH_SECONDS, HOST_ELEMENT_SECONDS = 0.14e-3, 5.8e-9
#: the device's search from a source: its call's fixed cost (the smallest graph's), and a level's
#: of a thin graph by its edges: a fixed part, each edge, and at most a wide level's. One H100 at
#: 0312875 (``h100-small-crossover-0312875.json``, meshes from a corner, paths from an end): a
#: path's level (2 edges) 0.65 us, the 150 x 150 mesh's (299 edges) 1.86, the 250 x 250 mesh's
#: (499) 2.54, 4elt's (about 1,070) 2.71 and wing's (about 3,000) 2.42 beyond Kronecker 10's
#: 0.19 ms call (94dea2e). A level at 1.6 us whatever its width sent the 250 x 250 mesh to the
#: device, 1.27 ms against the host's 0.49. A wide level at 2.5 us sent 4elt there too (its depth
#: from the first vertex, 70, puts the device at 0.365 ms against the host's 0.368): 0.411 against
#: 0.358 ms on another H100 at 0f4b932 (``h100-small-graphs-0f4b932.json``), 2.68 us a level
#: beyond that run's Kronecker 10 call
DEVICE_SEARCH_SECONDS = 0.19e-3
DEVICE_SEARCH_LEVEL_SECONDS, DEVICE_SEARCH_LEVEL_EDGE_SECONDS, DEVICE_SEARCH_WIDE_LEVEL_SECONDS = 0.65e-6, 4e-9, 2.7e-6
#: the host's search from a source on a thin graph: a fixed cost, then each vertex and edge, by
#: the search that runs it. Same record: the queue search (narrow levels) 2.7 and 2.9 ns on the
#: 20,000 and 50,000 paths, 1.3 and 1.4 on the meshes; the fused search 4.1 on 4elt and 4.3 on
#: wing. The largest, rounded up, so that a graph the two models put level stays on the device
HOST_SEARCH_SECONDS, HOST_QUEUE_ELEMENT_SECONDS, HOST_SEARCH_ELEMENT_SECONDS = 0.046e-3, 3e-9, 4.4e-9
#: the host's search on a graph that is not thin (the fused search, whose pull levels read a
#: fraction of a dense graph's edges), each stored edge. Kronecker 12 (96,620 edges, 5 levels)
#: 0.158 ms on the host against 0.187 on the device (0312875); Kronecker 10 0.091 against 0.191
#: (94dea2e). Such a graph is shallow, so the device's levels add little to its call: past about
#: 131,000 edges the device's search is the cheaper (Kronecker 13, 203,480 edges: 0.186 both ways)
HOST_SEARCH_EDGE_SECONDS = 1.1e-9
#: the connected components: the device's call (its floor: one H100 at 3d57d70,
#: ``probes/results/h100-small-components-3d57d70.json``, 0.95-1.13 ms on eight graphs of 4,000
#: to 107,000 vertices and edges; 1.05-1.72 on another at 0312875) and the host's union-find, a
#: fixed cost and each vertex and edge: of a thin graph, the meshes' and 4elt's (the 250 x 250
#: mesh 2.7 ns at 0312875, 4elt 2.0) rounded up, of one that is not thin (Kronecker 12 and 13,
#: 0.9-1.0 ns) likewise. At 0312875 one slope for both (4.4 ns) sent Kronecker 13 to the device,
#: 1.15 ms against the host's 0.25, and the 250 x 250 mesh, 1.63 against 0.90 (scipy 1.41). A
#: path's union-find cost more (6.1 ns on the 50,000 path); a path is now labelled by sweeps
#: (``cpu_kernels/components.py``: 0.33 ms a call against the union-find's 0.59 on the 50,000
#: path, 2 EPYC cores), below the thin slope
DEVICE_COMPONENTS_SECONDS, HOST_COMPONENTS_SECONDS = 0.95e-3, 0.045e-3
HOST_COMPONENTS_THIN_ELEMENT_SECONDS, HOST_COMPONENTS_ELEMENT_SECONDS = 2.8e-9, 1.2e-9


def _on_twin(func, twin_of):
    """``func(A, ...)`` run on ``twin_of(A)`` where that is a host twin, else where ``A`` lives."""
    @functools.wraps(func)
    def call(A, *args, **kwargs):
        if not isinstance(A, Matrix):    # (a Matrix as it is: as_matrix's collective wrapper would add
            A = as_matrix(A, what=func.__name__)      # steps a small graph's whole search is a few of)
        twin = twin_of(A) if may_have_twin(A) else None
        if twin is None:
            return func(A, *args, **kwargs)
        return held_on_host(func(twin, *args, **kwargs), A)
    return call


def components_on_host_when_cheaper(func):
    """``func(A)``, a labelling of ``A``'s components, run on ``A``'s host twin where
    :func:`_components_twin` gives one (see the module docstring)."""
    return _on_twin(func, _components_twin)


def _components_twin(A):
    """``A``'s host twin where its components are labelled on the host: a small graph
    (:func:`host_twin`), or one whose vertices and edges cost the host's union-find less than the
    device's call; else None."""
    twin = host_twin(A)
    if twin is not None or A.nvals <= settings.host_search_edges:
        return twin
    element = HOST_COMPONENTS_THIN_ELEMENT_SECONDS if thin_graph(A.nvals, A.n) else HOST_COMPONENTS_ELEMENT_SECONDS
    host = HOST_COMPONENTS_SECONDS + (A.n + A.nvals) * element
    return host_twin(A, DEPTH_PROBE_EDGES) if host < DEVICE_COMPONENTS_SECONDS else None


def search_on_host_when_cheaper(func):
    """``func(A, source, ...)``, a search from a source, run on ``A``'s host twin where
    :func:`_search_twin` gives one (see the module docstring)."""
    return _on_twin(func, _search_twin)


def _search_twin(A):
    """``A``'s host twin where a search from a source on ``A`` runs on the host: a small graph
    (:func:`host_twin`); past that, a graph that is not thin whose edges cost the host less than
    the device's call, or a thin one of up to :data:`DEPTH_PROBE_EDGES` edges whose search costs
    the host less than the device (:func:`_host_search_wins`); else None."""
    twin = host_twin(A)
    if twin is not None:
        return twin
    if not thin_graph(A.nvals, A.n):
        shallow_on_host = HOST_SEARCH_SECONDS + A.nvals * HOST_SEARCH_EDGE_SECONDS < DEVICE_SEARCH_SECONDS
        return host_twin(A, DEPTH_PROBE_EDGES) if shallow_on_host else None
    twin = _deep_twin(A)
    return twin if twin is not None and _host_search_wins(twin) else None


def _deep_twin(A):
    """``A``'s host twin where ``A`` is a thin graph past ``settings.host_search_edges`` of at most
    :data:`DEPTH_PROBE_EDGES` edges, whose calls' costs are weighed; else None."""
    if A.nvals <= settings.host_search_edges or not thin_graph(A.nvals, A.n):
        return None
    return host_twin(A, DEPTH_PROBE_EDGES)


def _host_search_wins(twin) -> bool:
    """Whether a search from a source on the thin graph of ``twin`` costs the host less than the
    device, by the models above, the graph's depth (:func:`~lagraph_dist.algebra.levels.graph_depth`)
    and the search the host would run (:func:`~lagraph_dist.algebra.levels.queue_search_fits` of
    a search that may push, as most do)."""
    levels = graph_depth(twin)
    element = HOST_QUEUE_ELEMENT_SECONDS if queue_search_fits(twin, "auto") else HOST_SEARCH_ELEMENT_SECONDS
    host = HOST_SEARCH_SECONDS + (twin.n + twin.nvals) * element
    return host < DEVICE_SEARCH_SECONDS + levels * _device_level_seconds(twin.nvals / levels)


def _device_level_seconds(edges):
    """What a thin graph's level of ``edges`` edges costs the device's search, by the model above."""
    return min(DEVICE_SEARCH_LEVEL_SECONDS + edges * DEVICE_SEARCH_LEVEL_EDGE_SECONDS, DEVICE_SEARCH_WIDE_LEVEL_SECONDS)


def _batch_twin(A, searches):
    """``A``'s host twin where a batch of ``searches`` searches on ``A`` runs on the host
    (``settings.host_batches``; "auto": :func:`_host_batch_wins`), else None."""
    mode = settings.host_batches
    if mode not in HOST_BATCHES:
        raise ValueError(f"settings.host_batches must be one of {', '.join(map(repr, HOST_BATCHES))}, got {mode!r}")
    twin = None if mode == "never" else host_twin(A)
    if twin is not None and (mode == "always" or _host_batch_wins(twin, searches)):
        return twin
    if mode == "auto" and twin is None:
        twin = _deep_twin(A)
        return twin if twin is not None and _host_batch_wins(twin, searches) else None
    return None


def _host_batch_wins(twin, searches) -> bool:
    """Whether ``searches`` searches on the small graph of ``twin`` cost the host's batch less
    than the device's, by the models above and the graph's depth (:func:`~lagraph_dist.algebra.levels.graph_depth`):
    the device pays a level's fixed cost at each of the batch's levels, the host each thread's
    searches' vertices and edges."""
    if searches is None or not thin_graph(twin.nvals, twin.n):     # (a graph that is not thin is shallow)
        return False
    levels = graph_depth(twin)
    a_thread = searches / queue_batch_shares(searches, twin.n, twin.nvals, numba.get_num_threads())
    host = HOST_BATCH_SECONDS + a_thread * (twin.n + twin.nvals) * HOST_ELEMENT_SECONDS
    batches = -(-searches // MULTI_FUSED_MAX_WIDTH)
    return host < batches * (DEVICE_BATCH_SECONDS + levels * DEVICE_BATCH_LEVEL_SECONDS)


def count_of(sources):
    """How many searches a sequence of ``sources`` asks for, for :func:`batch_on_host_when_deep`
    (None where it has no length: the call refuses it)."""
    try:
        return len(sources)
    except TypeError:
        return None


def batch_on_host_when_deep(searches):
    """Decorate ``func(A, ...)``, a batch of searches, to run on the host twin of a Matrix ``A``
    where ``settings.host_batches`` says (see the module docstring); ``searches(A, *args,
    **kwargs)`` tells how many searches the call runs (None: it cannot tell, and the call runs
    where A lives). Anything else ``A`` may be goes to ``func``, which converts or refuses it."""
    def decorate(func):
        @functools.wraps(func)
        def call(A, *args, **kwargs):
            twin = _batch_twin(A, searches(A, *args, **kwargs)) if isinstance(A, Matrix) else None
            if twin is None:
                return func(A, *args, **kwargs)
            return held_on_host(func(twin, *args, **kwargs), A)
        return call
    return decorate
