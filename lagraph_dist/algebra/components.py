"""Connected-component labels in one call of the backend, where its kernel set has them.

``lagraph_dist.algorithms.components`` labels components by searches and label propagation,
products any backend and grid run. On one process whose kernel set has the optional
``connected_components`` member (:class:`~lagraph_dist.local.engine.ComponentLabels`: a sampled
union-find, in both sets), the whole labelling is that one call instead: on 2 cores a 1000 x 1000
mesh's one search across 2,000 levels was slower than scipy's components, which a union-find
over the edges is not. A thin graph of chain-like levels (a path's, a strip's:
:func:`~lagraph_dist.local.engine.chain_levels` of its depth) is labelled by sweeps instead, one
queue search a component, where the kernel set has them (:class:`~lagraph_dist.local.engine.ComponentSweeps`).
"""
from __future__ import annotations

import time

from lagraph_dist.algebra import trace
from lagraph_dist.algebra.levels import LevelRecord, graph_depth
from lagraph_dist.algebra.products import orientation
from lagraph_dist.algebra.vector import every_vertex
from lagraph_dist.local.engine import (DEPTH_PROBE_EDGES, ComponentLabels, ComponentSweeps, chain_levels, offers,
                                       thin_graph)

__all__ = ["labels_fusable", "component_labels"]


def labels_fusable(A) -> bool:
    """Whether :func:`component_labels` runs on ``A``: one process, and a kernel set with the
    components' kernel."""
    return A.grid.size == 1 and offers(A.backend.kernels, ComponentLabels)


def component_labels(A):
    """(an int64 Vector with every vertex's label, the smallest id of its component, weakly
    connected for a directed ``A``; the number of components) in one call of the backend's
    kernels. Its trace record is one fused step over every edge."""
    orient = orientation(A, along_rows=True)
    started = time.perf_counter()
    backend = A.backend
    sweeps = _by_sweeps(A)
    label = backend.kernels.component_sweeps if sweeps else backend.kernels.connected_components
    labels, count = label(orient.push_csr, None if A.symmetric else orient.pull_csr_of(), A.n)
    trace.note_levels("components", [LevelRecord(A.n, count, A.nvals, False, time.perf_counter() - started,
                                                 fused=True)], direction="queue sweeps" if sweeps else "union-find")
    return every_vertex(A, labels), count


def _by_sweeps(A) -> bool:
    """Whether ``A``'s labels are made by sweeps: a kernel set that has them, and a symmetric thin
    graph of at most ``DEPTH_PROBE_EDGES`` edges whose levels are chain-like (its depth measured
    once a matrix, as the searches' policies measure it; along out-edges, which say little of a
    directed graph's weak components)."""
    return (offers(A.backend.kernels, ComponentSweeps) and A.symmetric and A.nvals <= DEPTH_PROBE_EDGES
            and thin_graph(A.nvals, A.n) and chain_levels(A.n, graph_depth(A)))
