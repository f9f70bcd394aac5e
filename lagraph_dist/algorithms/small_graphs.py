"""Where a search runs: a small graph of the GPU backend on the host.

One policy, one place. :func:`on_host_when_small` decorates ``ld.bfs``: given a graph (converted
once, as the call itself would) whose Matrix has a host twin
(:func:`lagraph_dist.algebra.host_engine.host_twin`: the GPU backend on one process, at most
``ld.settings.host_search_edges`` stored edges), the call runs on the twin and its result comes
back as the GPU backend's (:func:`~lagraph_dist.algebra.host_engine.held_on_host`); else it runs
where the Matrix lives. ``res.stats`` records name the ``engine`` that ran.

:func:`batch_on_host_when_thin` decorates the batches (``bfs_multi``, and betweenness, whose
sweeps read the batch's levels where they lie): on the twin only where ``ld.settings.host_batches``
says, by default where the graph is also thin. A batch spreads the device call's price over its
searches, and on one H200 (its 16-core host) 64 searches of ``bfs_multi`` ran faster on the device
than on the host on every small graph measured but the deep ones (jagmesh7 1.4 against 2.0 ms,
Kronecker 12 0.5-0.6 against 1.4, 4elt 2.1-2.3 against 5.3-5.4; a 100 x 100 mesh 4.0-4.4 against
3.3-3.7, the 10,000-vertex path 129 against 18-21): a deep graph's batch pays the device's grid
barrier and fixed cost at each of its many levels (docs/notes/host-overhead.md).
"""
from __future__ import annotations

import functools

from lagraph_dist.algebra.host_engine import held_on_host, host_twin
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.core.settings import settings
from lagraph_dist.io.interop import as_matrix
from lagraph_dist.local.engine import thin_graph

__all__ = ["on_host_when_small", "batch_on_host_when_thin", "HOST_BATCHES"]

#: ``settings.host_batches``'s values: thin small graphs, every small graph, none
HOST_BATCHES = ("auto", "always", "never")


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


def _batch_twin(A):
    """``A``'s host twin where a batch of searches on ``A`` runs on the host
    (``settings.host_batches``), else None."""
    mode = settings.host_batches
    if mode not in HOST_BATCHES:
        raise ValueError(f"settings.host_batches must be one of {', '.join(map(repr, HOST_BATCHES))}, got {mode!r}")
    if mode == "never" or (mode == "auto" and not thin_graph(A.nvals, A.n)):
        return None
    return host_twin(A)


def batch_on_host_when_thin(func):
    """``func(A, ...)``, a batch of searches, run on the host twin of a Matrix ``A`` where
    ``settings.host_batches`` says (see the module docstring); anything else ``A`` may be goes to
    ``func``, which converts or refuses it."""
    @functools.wraps(func)
    def call(A, *args, **kwargs):
        twin = _batch_twin(A) if isinstance(A, Matrix) else None
        if twin is None:
            return func(A, *args, **kwargs)
        return held_on_host(func(twin, *args, **kwargs), A)
    return call
