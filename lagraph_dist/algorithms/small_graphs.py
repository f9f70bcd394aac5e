"""Where a search runs: a small graph of the GPU backend on the host.

One policy, one place: :func:`on_host_when_small` decorates ``ld.bfs``. Given a graph (converted
once, as the call itself would) whose Matrix has a host twin
(:func:`lagraph_dist.algebra.host_engine.host_twin`: the GPU backend on one process, at most
``ld.settings.host_search_edges`` stored edges), the call runs on the twin and its result comes
back as the GPU backend's (:func:`~lagraph_dist.algebra.host_engine.held_on_host`); else it runs
where the Matrix lives. ``res.stats`` records name the ``engine`` that ran.

``bfs_multi`` and the BFS family are not decorated: a batch amortises the device call's price,
and on one H200 (its 16-core host) 64 searches of ``bfs_multi`` ran faster on the device than on
the host on every small graph measured but the deep ones (jagmesh7 1.4 against 2.0 ms, Kronecker
12 0.5-0.6 against 1.4, 4elt 2.1-2.3 against 5.3-5.4; a 100 x 100 mesh 4.0-4.4 against 3.3-3.7):
docs/notes/host-overhead.md.
"""
from __future__ import annotations

import functools

from lagraph_dist.algebra.host_engine import held_on_host, host_twin
from lagraph_dist.io.interop import as_matrix

__all__ = ["on_host_when_small"]


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
