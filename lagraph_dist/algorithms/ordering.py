"""Vertex orderings of a graph (LAGraph's ``LAGr_SortByDegree``), for :meth:`Matrix.permuted`.

Numbering the hubs first puts the visited bits that most edges probe side by side at the head
of every bitmap, where a cache keeps them; the Graph500 generator scatters them on purpose
(``benchmarks/probes/hub_labels.py`` measures the difference)."""
import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.core.errors import InvalidValue

__all__ = ["sort_by_degree"]

_DEGREES = ("out", "in")


@collective("A", "by", "ascending")
def sort_by_degree(A, *, by="out", ascending=False) -> np.ndarray:
    """Collective: the vertices of ``A`` ordered by degree, as an int64 numpy array on every
    rank (LAGraph's ``LAGr_SortByDegree``): ``order[k]`` is the vertex that comes k-th, by
    decreasing degree (``ascending=True``: increasing), ties by increasing id. ``by`` is
    ``"out"`` (out-degree: the row counts of A) or ``"in"`` (in-degree: those of A.T); they
    are equal on a symmetric graph. ``A.permuted(order)`` is the graph renumbered that way."""
    if by not in _DEGREES:
        raise InvalidValue(f"by must be 'out' or 'in', got {by!r}")
    degrees = (A if by == "out" else A.T).out_degree().to_numpy(fill=0)
    key = degrees if ascending else -degrees
    return np.argsort(key, kind="stable").astype(np.int64, copy=False)
