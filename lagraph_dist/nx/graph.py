"""A networkx graph as the backend holds it, converted once.

What the answers need beside the engine's Matrix:

- the nodes in networkx's order (vertex k is the k-th node of ``G``), so that results come back
  keyed by node and in networkx's node order, and a dict from node to vertex id;
- the adjacency in networkx's order (CSR rows whose entries keep the order of ``G._adj[u]``;
  ``G._pred[u]`` too for a directed graph): networkx's breadth-first order follows it
  (:mod:`lagraph_dist.nx.order`), the engine's sorted blocks do not keep it.

The engine's Matrix is built on first use, on the backend of ``nx.config.backends.lagraph_dist``
(GPU when present), and kept. networkx caches the converted graph on ``G.__networkx_cache__``
(cleared when ``G`` changes through its methods), so a graph used in several calls is converted
once.
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from lagraph_dist.algebra.matrix import Matrix

BACKEND_NAME = "lagraph_dist"


def _csr_of(adjacency, nodes, index):
    """(indptr, indices) of an adjacency dict of dicts, rows in ``nodes`` order and each row's
    entries in the dict's own order; one pass of Python over the edges (``index`` None: the
    nodes are 0..n-1 in order, their own ids, and are not looked up, about 4x faster)."""
    n = len(nodes)
    rows = list(map(adjacency.__getitem__, nodes))
    degrees = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    heads = chain.from_iterable(rows)
    if index is not None:
        heads = map(index.__getitem__, heads)
    indices = np.fromiter(heads, dtype=np.int64, count=int(indptr[-1]))
    return indptr, indices


class LagraphGraph:
    """A networkx graph converted for lagraph_dist (``__networkx_backend__`` says so to networkx).

    ``nodes[k]`` is vertex k's node; ``succ`` (and ``pred`` when directed) the CSR of the
    adjacency in networkx's order; ``matrix`` the engine's Matrix (built on first use)."""

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, nodes, succ, pred=None, *, directed, multigraph=False, graph=None, backend="auto"):
        self.nodes = list(nodes)
        self.index = {node: k for k, node in enumerate(self.nodes)}
        self.succ = succ
        self.pred = pred if directed else succ
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.graph = dict(graph or {})
        self.backend = backend
        self._matrix = None

    # -- conversion --------------------------------------------------------------------------
    @classmethod
    def from_networkx(cls, G, *, keep_graph_attrs=True, backend="auto"):
        """The structure of ``G`` (any networkx graph or view): nodes, and adjacency in its order;
        weights and other attributes are not read (only the graph's own dict is kept)."""
        nodes = list(G)
        index = None if nodes == list(range(len(nodes))) else {node: k for k, node in enumerate(nodes)}
        directed = G.is_directed()
        succ = _csr_of(G._adj, nodes, index)
        pred = _csr_of(G._pred, nodes, index) if directed else None
        return cls(nodes, succ, pred, directed=directed, multigraph=G.is_multigraph(),
                   graph=G.graph if keep_graph_attrs else None, backend=backend)

    def to_networkx(self):
        """A networkx graph of the same nodes (in order) and edges (in adjacency order)."""
        import networkx as nx
        kind = {(False, False): nx.Graph, (True, False): nx.DiGraph,
                (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[self.directed, self.multigraph]
        G = kind()
        G.graph.update(self.graph)
        G.add_nodes_from(self.nodes)
        indptr, indices = self.succ
        nodes = self.nodes
        G.add_edges_from((nodes[u], nodes[v]) for u in range(len(nodes))
                         for v in indices[indptr[u]:indptr[u + 1]].tolist())
        return G

    # -- what networkx asks of a graph ------------------------------------------------------
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """Edges as networkx counts them (an undirected edge once; multi-edges merged)."""
        indptr, indices = self.succ
        if self.directed:
            return int(indptr[-1])
        loops = int(np.count_nonzero(np.repeat(np.arange(len(self.nodes)), np.diff(indptr)) == indices))
        return (int(indptr[-1]) + loops) // 2

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node) -> bool:
        return self.vertex(node) is not None

    # -- nodes and vertex ids --------------------------------------------------------------
    def vertex(self, node):
        """The vertex id of ``node``, or None when it is not a node (an unhashable object is
        none, as in ``node in G``)."""
        try:
            return self.index.get(node)
        except TypeError:
            return None

    def labels(self, ids):
        """The nodes of an array of vertex ids, as a list."""
        nodes = self.nodes
        return [nodes[k] for k in np.asarray(ids).tolist()]

    # -- the engine's side ------------------------------------------------------------------
    @property
    def matrix(self):
        """The engine's Matrix of the graph (built on first use, then kept): symmetric for an
        undirected graph, along ``G``'s edges for a directed one. Needs at least one node."""
        if self._matrix is None:
            import scipy.sparse as sp
            indptr, indices = self.succ
            n = len(self.nodes)
            pattern = sp.csr_matrix((np.ones(indices.shape[0], dtype=bool), indices, indptr), shape=(n, n))
            pattern.sort_indices()              # networkx's order is kept in self.succ, not here
            self._matrix = Matrix.from_scipy(pattern, symmetric=not self.directed, backend=self.backend)
        return self._matrix

    def along(self, reverse: bool):
        """(Matrix, CSR) to search along: out-edges, or in-edges when ``reverse`` on a directed
        graph (the Matrix's transpose, a view: no copy)."""
        if reverse and self.directed:
            return self.matrix.T, self.pred
        return self.matrix, self.succ

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        return f"LagraphGraph({len(self.nodes)} nodes, {kind})"
