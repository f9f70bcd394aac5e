"""Where a search runs: a small graph of the GPU backend on the host.

One policy, one place. :func:`on_host_when_small` decorates ``ld.bfs`` and the connected
components (``connected_components``, ``number_connected_components``: the CPU set's union-find
in one compiled call): given a graph (converted once, as the call itself would) whose Matrix has
a host twin (:func:`lagraph_dist.algebra.host_engine.host_twin`: the GPU backend on one process, at most
``ld.settings.host_search_edges`` stored edges), the call runs on the twin and its result comes
back as the GPU backend's (:func:`~lagraph_dist.algebra.host_engine.held_on_host`); else it runs
where the Matrix lives. ``res.stats`` records name the ``engine`` that ran.

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

from lagraph_dist.algebra.host_engine import held_on_host, host_twin
from lagraph_dist.algebra.levels import RepeatLimits, search_from
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.settings import settings
from lagraph_dist.io.interop import as_matrix
from lagraph_dist.local.engine import MULTI_FUSED_MAX_WIDTH, queue_batch_shares, thin_graph
from lagraph_dist.semirings import any_pair

__all__ = ["on_host_when_small", "batch_on_host_when_deep", "count_of", "HOST_BATCHES"]

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
_DEPTH = "levels from vertex 0"      # the twin's cache key of :func:`_levels_from_a_vertex`


def on_host_when_small(func):
    """``func(A, ...)`` run on ``A``'s host twin when it has one (see the module docstring)."""
    @functools.wraps(func)
    def call(A, *args, **kwargs):
        A = as_matrix(A, what=func.__name__)
        twin = host_twin(A)
        if twin is None:
            return func(A, *args, **kwargs)
        return held_on_host(func(twin, *args, **kwargs), A)
    return call


def _batch_twin(A, searches):
    """``A``'s host twin where a batch of ``searches`` searches on ``A`` runs on the host
    (``settings.host_batches``; "auto": :func:`_host_batch_wins`), else None."""
    mode = settings.host_batches
    if mode not in HOST_BATCHES:
        raise ValueError(f"settings.host_batches must be one of {', '.join(map(repr, HOST_BATCHES))}, got {mode!r}")
    twin = None if mode == "never" else host_twin(A)
    if twin is None or mode == "always" or _host_batch_wins(twin, searches):
        return twin
    return None


def _host_batch_wins(twin, searches) -> bool:
    """Whether ``searches`` searches on the small graph of ``twin`` cost the host's batch less
    than the device's, by the models above and the graph's depth (:func:`_levels_from_a_vertex`):
    the device pays a level's fixed cost at each of the batch's levels, the host each thread's
    searches' vertices and edges."""
    if searches is None or not thin_graph(twin.nvals, twin.n):     # (a graph that is not thin is shallow)
        return False
    levels = _levels_from_a_vertex(twin)
    a_thread = searches / queue_batch_shares(searches, twin.n, twin.nvals, numba.get_num_threads())
    host = HOST_BATCH_SECONDS + a_thread * (twin.n + twin.nvals) * HOST_ELEMENT_SECONDS
    batches = -(-searches // MULTI_FUSED_MAX_WIDTH)
    return host < batches * (DEVICE_BATCH_SECONDS + levels * DEVICE_BATCH_LEVEL_SECONDS)


def _levels_from_a_vertex(twin) -> int:
    """The levels of a search from vertex 0 on ``twin`` (its eccentricity and one): the graph's
    depth as a batch's policy sees it, measured once a matrix by one search on the host."""
    levels = twin._cache.get(_DEPTH)
    if levels is None:
        rule = DirectionRule("push", twin.n, twin.nvals)
        _, _, records = search_from(twin, 0, any_pair, depths=False, limits=RepeatLimits(max_levels=twin.n),
                                    rule=rule)
        levels = twin._cache[_DEPTH] = len(records)
    return levels


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
