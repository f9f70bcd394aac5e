"""Conversions between lagraph_dist and the rest of the ecosystem, never through a dense array.

=========================  ============================================  ==========================
format                     in (collective)                               out (collective)
=========================  ============================================  ==========================
scipy.sparse               ``Matrix.from_scipy(S)``                      ``A.to_scipy()``
cupyx.scipy.sparse         ``Matrix.from_scipy(S)``                      ``A.to_cupyx()``
graphblas.Matrix / Vector  ``Matrix.from_graphblas``, ``Vector.from_``   ``A.to_graphblas()``,
                           ``graphblas``                                 ``v.to_graphblas()``
networkx graph             ``Matrix.from_networkx(G)``                   ``A.to_networkx()``
edge list (m, 2)           ``Matrix.from_edgelist(E)``                   ``A.to_edgelist()``
Matrix Market              ``Matrix.from_mtx(path)`` (.mtx, .mtx.gz)     ``A.to_mtx(path)``
=========================  ============================================  ==========================

A graph object comes in on one rank (``root``, read there only, as ``from_scipy`` always did)
and its edges are routed to their owners; an edge list is each rank's share, as in
``Matrix.from_edges``. Every conversion out is collective: every rank calls it, and none may
skip it. A matrix (O(edges)) goes out on ``root`` (default 0) and None elsewhere, or on every
rank with ``root=None``; ``to_mtx`` writes its one file on ``root``. A vector (O(n)) goes out on
every rank, like ``to_numpy``. Only the pattern crosses: values of the other
library are dropped (an explicit zero is an edge), and what comes out holds True (cupyx: 1.0).
Directedness travels as ``Matrix.symmetric``: an undirected networkx graph, a symmetric Matrix
Market file, a scipy or cupyx matrix whose pattern equals its transpose (``from_scipy`` finds
out, unless told ``symmetric=``) or ``symmetrize=True`` make a symmetric matrix, which goes back
out as an undirected graph or a symmetric file. A networkx graph's nodes travel as ``Matrix.labels`` (unless they are
0..n-1) and name the nodes of ``to_networkx``.

The methods of the table (``Matrix.from_*``, ``A.to_*`` but ``to_scipy``, ``Vector.from_graphblas``,
``v.to_graphblas``) are these module functions, installed on the classes in one block at the end
of this module: they build and read Matrix and Vector, so they live in this layer, above them.
"""
from __future__ import annotations

import importlib
import numbers
import pickle
import sys
from dataclasses import dataclass

import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.local.backend import get_backend
from lagraph_dist.core.checks import check_size, check_vertex_array
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch, InvalidValue, Unsupported
from lagraph_dist.comm.grid import default_grid
from lagraph_dist.algebra.matrix import Matrix, checked_root, gathered_edges
from lagraph_dist.io.mtx import read_stored_entries, write_mtx
from lagraph_dist.algebra.vector import Vector

__all__ = ["as_matrix", "ACCEPTED_GRAPHS"]

ACCEPTED_GRAPHS = ("lagraph_dist.Matrix", "scipy.sparse matrix or array", "cupyx.scipy.sparse matrix",
                   "graphblas.Matrix", "networkx graph")


# -- what a foreign object is (decided without importing optional packages) ------------------
def _loaded(name):
    """The module ``name`` when the caller's program already imported it, else None: an
    object of a package nobody imported cannot be one of its types."""
    return sys.modules.get(name)


def graph_kind(X) -> str | None:
    """"scipy", "cupyx", "graphblas", "networkx", or None for anything else."""
    import scipy.sparse as sp
    if sp.issparse(X):
        return "scipy"
    cupyx_sparse = _loaded("cupyx.scipy.sparse")
    if cupyx_sparse is not None and cupyx_sparse.issparse(X):
        return "cupyx"
    gb = _loaded("graphblas")
    if gb is not None and isinstance(X, (gb.Matrix, gb.core.matrix.TransposedMatrix)):
        return "graphblas"
    nx = _loaded("networkx")
    if nx is not None and isinstance(X, nx.Graph):
        return "networkx"
    return None


def _not_a_graph(X, what):
    return DomainMismatch(f"{what} needs a graph: a {', a '.join(ACCEPTED_GRAPHS)}; "
                          f"got {type(X).__module__}.{type(X).__name__}")


@collective("grid", "backend", "root", "what", what="as_matrix")
def as_matrix(X, *, grid=None, backend="auto", root: int = 0, what: str = "as_matrix") -> Matrix:
    """Collective. ``X`` itself when it is a Matrix, else ``X`` (given on ``root``) converted
    once: scipy or cupyx sparse, a graphblas.Matrix, or a networkx graph. ``what`` names the
    caller in the error for anything else."""
    if isinstance(X, Matrix):       # already distributed: no collective, its grid is its own
        return X
    grid = grid or default_grid()
    kind = grid.bcast_from(checked_root(grid, root), _kind_or_raise, X, what)
    convert = {"scipy": from_sparse, "cupyx": from_sparse, "graphblas": from_graphblas,
               "networkx": from_networkx}[kind]
    return convert(X, grid=grid, backend=backend, root=root)


def _kind_or_raise(X, what):
    kind = graph_kind(X)
    if kind is None:
        raise _not_a_graph(X, what)
    return kind


# -- the one way a graph held on one rank becomes a Matrix ------------------------------------
@dataclass
class RootGraph:
    """A graph read on the root rank: n, its edges as int64 ids (numpy or the backend's),
    whether each undirected edge is given once (``symmetrize``), whether it is symmetric, and
    the node labels of its vertices (None: the ids are the labels). ``csr``: (indptr, indices)
    of a numpy CSR of the edges whose rows are sorted and duplicate-free, when the reader has
    one (then src and dst are made from it only where a build needs them)."""

    n: int
    src: object
    dst: object
    symmetrize: bool = False
    symmetric: bool = False
    labels: tuple | None = None
    csr: tuple | None = None

    def edges(self):
        if self.src is None:
            indptr, indices = self.csr
            self.src = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(indptr))
            self.dst = indices
        return self.src, self.dst


def from_root(read, *, grid=None, backend="auto", root: int = 0) -> Matrix:
    """Collective. ``read()`` runs on ``root`` only and returns a :class:`RootGraph`; when it
    raises, every rank raises. The edges then go to their owners; the labels to every rank."""
    grid = grid or default_grid()
    backend = get_backend(backend)
    root = checked_root(grid, root)
    graph = grid.agree(read if grid.rank == root else lambda: None)
    header = (graph.n, graph.symmetrize, graph.symmetric, graph.labels) if grid.rank == root else None
    n, symmetrize, symmetric, labels = _broadcast(grid, header, root)
    if grid.size == 1 and backend.xp is np and graph.csr is not None and not symmetrize:
        A = Matrix._from_sorted_csr(*graph.csr, n, grid, backend, symmetric=symmetric)   # taken as it is
        return A if labels is None else A._with_labels(labels)
    if grid.rank == root:
        src, dst = (on_backend(ids, backend) for ids in graph.edges())
    else:
        src = dst = backend.xp.zeros(0, np.int64)
    A = Matrix._from_valid_edges(src, dst, n, grid, backend, symmetrize=symmetrize, symmetric=symmetric)
    return A if labels is None else A._with_labels(labels)


def _broadcast(grid, value, root):
    """Collective: ``value`` from ``root`` on every rank. It is pickled inside ``agree``, so
    that what cannot be pickled (a node label) raises on every rank, none left waiting."""
    if grid.size == 1:
        return value

    def packed():
        if grid.rank != root:
            return None
        try:
            return pickle.dumps(value)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise DomainMismatch(f"the graph's node labels must be picklable to reach every rank: {exc}") from exc
    return pickle.loads(grid.comm.bcast(grid.agree(packed), root=root))


def on_backend(array, backend):
    """A numpy or CuPy integer array as an int64 array of ``backend`` (one copy at most)."""
    if type(array).__module__.startswith("cupy") and backend.xp is np:
        array = array.get()
    return backend.asarray(array).astype(np.int64, copy=False)


def _square(shape, what) -> int:
    if len(shape) != 2 or shape[0] != shape[1]:
        shape = tuple(int(k) for k in shape)
        raise DimensionMismatch(f"{what}: an adjacency matrix must be square, got "
                                f"{' x '.join(map(str, shape))} (shape {shape})")
    return check_size(int(shape[0]), f"{what}: number of rows")


# -- scipy.sparse and cupyx.scipy.sparse ------------------------------------------------------
@collective("symmetric", "grid", "backend", "root", what="Matrix.from_scipy")
def from_sparse(S, *, symmetric: bool | None = None, grid=None, backend="auto", root: int = 0) -> Matrix:
    """Collective. A scipy or cupyx sparse matrix given on ``root``; its pattern is the graph.
    ``symmetric``: None finds out (on ``root``) whether the pattern equals its transpose; True
    says it does, and is checked (InvalidValue if not: a symmetric matrix shares one copy of
    its edges for both directions, so a wrong claim would give wrong searches); False keeps it
    directed even when it is symmetric."""
    def read():
        kind = graph_kind(S)
        if kind not in ("scipy", "cupyx"):
            raise DomainMismatch(f"from_scipy needs a scipy or cupyx sparse matrix, got "
                                 f"{type(S).__module__}.{type(S).__name__}")
        if symmetric is not None and not isinstance(symmetric, (bool, np.bool_)):
            raise DomainMismatch(f"from_scipy's symmetric must be None, True or False, got {symmetric!r}")
        n = _square(S.shape, "from_scipy")
        graph = _sparse_graph(S, kind, n)
        graph.symmetric = _symmetric_as_said(symmetric, graph, kind)
        return graph
    return from_root(read, grid=grid, backend=backend, root=root)


def _sparse_graph(S, kind, n) -> RootGraph:
    """The edges of S's pattern: its own CSR arrays when it is a canonical scipy CSR or COO."""
    if kind == "scipy" and S.format in ("csr", "coo") and S.has_canonical_format:    # sorted, no duplicates
        if S.format == "csr":
            return RootGraph(n, None, None, csr=(S.indptr, S.indices))
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(S.row, minlength=n), out=indptr[1:])
        return RootGraph(n, None, None, csr=(indptr, S.col))
    coo = S.tocoo()
    return RootGraph(n, coo.row, coo.col)


def _symmetric_as_said(symmetric, graph: RootGraph, kind) -> bool:
    """``symmetric`` as from_scipy takes it: False as it is, None found out, True checked."""
    if symmetric is not None and not symmetric:
        return False
    found = _pattern_is_symmetric(graph, kind)
    if symmetric and not found:
        raise InvalidValue("from_scipy was told symmetric=True, but the matrix's pattern is not "
                           "symmetric (some entry (i, j) has no (j, i)); pass symmetric=None to "
                           "find out, or False for a directed graph")
    return found


def _pattern_is_symmetric(graph: RootGraph, kind) -> bool:
    """Whether the stored entries (explicit zeros too) equal their transpose: a canonical CSR
    of the pattern against its transpose, made by S's own library (a counting sort, linear in
    the edges; cupyx on the device)."""
    if kind == "cupyx":
        import cupy as xp
        import cupyx.scipy.sparse as sparse
    else:
        import scipy.sparse as sparse
        xp = np
    n = graph.n
    if graph.csr is not None:
        indptr, indices = graph.csr
        P = sparse.csr_matrix((xp.ones(indices.shape[0], np.float32), indices, indptr), shape=(n, n))
    else:
        src, dst = graph.edges()
        P = sparse.coo_matrix((xp.ones(src.shape[0], np.float32), (src, dst)), shape=(n, n)).tocsr()
        P.sum_duplicates()                    # sorted, duplicate-free: comparable entry by entry
    T = P.T.tocsr()
    T.sum_duplicates()
    return bool(P.nnz == T.nnz and (P.indptr == T.indptr).all() and (P.indices == T.indices).all())


@collective("A", "root", what="to_cupyx")
def to_cupyx(A: Matrix, *, root: int | None = 0):
    """Collective: the pattern as a ``cupyx.scipy.sparse.csr_matrix`` of 1.0 on ``root`` (None
    elsewhere), or on every rank with ``root=None``."""
    cupyx_sparse = require(A.grid, "cupyx.scipy.sparse", "to_cupyx")
    S = A.to_scipy(root=root)
    return None if S is None else cupyx_sparse.csr_matrix(S.astype(np.float32))


def require(grid, module: str, what: str):
    """Collective: import ``module`` on every rank, or raise Unsupported on every rank."""
    def attempt():
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            raise Unsupported(f"{what} needs the {module} package: "
                              f"pip install 'lagraph-dist[interop]'") from exc
    return grid.agree(attempt)


# -- python-graphblas -------------------------------------------------------------------------

@collective("grid", "backend", "root", what="Matrix.from_graphblas")
def from_graphblas(M, *, grid=None, backend="auto", root: int = 0) -> Matrix:
    """Collective. A ``graphblas.Matrix`` given on ``root``; its structure is the graph."""
    def read():
        if graph_kind(M) != "graphblas":
            raise DomainMismatch(f"from_graphblas needs a graphblas.Matrix, got "
                                 f"{type(M).__module__}.{type(M).__name__}")
        n = _square((M.nrows, M.ncols), "from_graphblas")
        rows, cols, _ = M.to_coo(values=False)
        return RootGraph(n, rows.astype(np.int64), cols.astype(np.int64))
    return from_root(read, grid=grid, backend=backend, root=root)


@collective("A", "root", what="to_graphblas")
def to_graphblas(A: Matrix, *, root: int | None = 0):
    """Collective: a boolean ``graphblas.Matrix`` of the pattern on ``root`` (None elsewhere),
    or on every rank with ``root=None``."""
    gb = require(A.grid, "graphblas", "to_graphblas")
    src, dst = gathered_edges(A, root)
    if src is None:
        return None
    return gb.Matrix.from_coo(src, dst, True, dtype=bool, nrows=A.n, ncols=A.n)


@collective("v", what="Vector.to_graphblas")
def vector_to_graphblas(v: Vector):
    """Collective: ``v`` as a ``graphblas.Vector`` of its dtype, on every rank (like to_numpy)."""
    gb = require(v.grid, "graphblas", "to_graphblas")
    ids, values = v.to_coo()
    return gb.Vector.from_coo(ids, values, dtype=values.dtype, size=v.n)


@collective("grid", "backend", "root", what="Vector.from_graphblas")
def vector_from_graphblas(x, *, grid=None, backend="auto", root: int = 0) -> Vector:
    """Collective. A ``graphblas.Vector`` given on ``root``, with its values and dtype."""
    grid = grid or default_grid()
    root = checked_root(grid, root)

    def read():
        gb = _loaded("graphblas")
        if gb is None or not isinstance(x, gb.Vector):
            raise DomainMismatch(f"Vector.from_graphblas needs a graphblas.Vector, got "
                                 f"{type(x).__module__}.{type(x).__name__}")
        ids, values = x.to_coo()
        return check_size(x.size, "graphblas vector size"), ids.astype(np.int64), values

    n, ids, values = grid.agree(read if grid.rank == root else lambda: (None, None, None))
    n, dtype = grid.comm.bcast((n, None if values is None else values.dtype), root=root) \
        if grid.size > 1 else (n, values.dtype)
    if grid.rank != root:
        ids, values = np.zeros(0, np.int64), np.zeros(0, dtype)
    return Vector.from_indices(ids, n, values=values, dtype=dtype, grid=grid, backend=backend)


# -- networkx ---------------------------------------------------------------------------------
@collective("grid", "backend", "root", "nodelist", what="Matrix.from_networkx")
def from_networkx(G, *, grid=None, backend="auto", root: int = 0, nodelist=None) -> Matrix:
    """Collective. A networkx graph given on ``root``. Vertex k is ``nodelist[k]``, by default
    the k-th node of G; the matrix keeps the nodes as its ``labels`` (on every rank), except
    when the nodes are the integers 0..n-1, which stay their own ids. An undirected graph
    makes a symmetric matrix; multi-edges merge, weights are dropped."""
    def read():
        if graph_kind(G) != "networkx":
            raise DomainMismatch(f"from_networkx needs a networkx graph, got "
                                 f"{type(G).__module__}.{type(G).__name__}")
        nodes = _node_order(G, nodelist)
        n = check_size(len(nodes), "number of networkx nodes")
        index = {node: k for k, node in enumerate(nodes)}
        m = G.number_of_edges()
        src = np.fromiter((index[a] for a, _ in G.edges()), dtype=np.int64, count=m)
        dst = np.fromiter((index[b] for _, b in G.edges()), dtype=np.int64, count=m)
        undirected = not G.is_directed()
        labels = None if _are_ids(nodes) else tuple(nodes)
        return RootGraph(n, src, dst, symmetrize=undirected, symmetric=undirected, labels=labels)
    return from_root(read, grid=grid, backend=backend, root=root)


def _node_order(G, nodelist) -> list:
    """The nodes of G in vertex order: ``nodelist``, else 0..n-1 when those are the nodes, else
    G's own order."""
    if nodelist is None:
        nodes = list(G)
        by_id = sorted(nodes, key=_id_order)
        return by_id if _are_ids(by_id) else nodes
    nodes = list(nodelist)
    if len(set(nodes)) != len(nodes) or set(nodes) != set(G):
        raise InvalidValue("nodelist must hold every node of the graph exactly once")
    return nodes


def _id_order(node):
    """Integers first, by value, then everything else: sorts any mix of labels."""
    integral = isinstance(node, numbers.Integral) and not isinstance(node, bool)
    return (0, int(node)) if integral else (1, 0)


def _are_ids(nodes) -> bool:
    """Whether node k is the integer k for every k (so the vertex ids are the labels)."""
    return all(isinstance(node, numbers.Integral) and not isinstance(node, bool) and node == k
               for k, node in enumerate(nodes))


@collective("A", "root", "directed", what="to_networkx")
def to_networkx(A: Matrix, *, root: int | None = 0, directed: bool | None = None):
    """Collective: on ``root`` (None elsewhere; every rank with ``root=None``), a networkx
    graph whose nodes are A's labels (0..n-1 without labels), in vertex order; a
    ``networkx.Graph`` when A is symmetric, else a ``DiGraph`` (``directed`` overrides). One
    Python object per edge: for small graphs."""
    nx = require(A.grid, "networkx", "to_networkx")
    src, dst = gathered_edges(A, root)
    if src is None:
        return None
    directed = not A.symmetric if directed is None else directed
    G = nx.DiGraph() if directed else nx.Graph()
    nodes = A.labels if A.labels is not None else range(A.n)
    G.add_nodes_from(nodes)
    G.add_edges_from((nodes[s], nodes[d]) for s, d in zip(src.tolist(), dst.tolist()))
    return G


# -- edge lists -------------------------------------------------------------------------------
@collective("n", "symmetrize", "grid", "backend", what="Matrix.from_edgelist")
def from_edgelist(E, n: int | None = None, *, symmetrize: bool = False, grid=None,
                  backend="auto") -> Matrix:
    """Collective. ``E``: this rank's share of the edges as an (m, 2) integer numpy or CuPy
    array, row k the edge ``E[k, 0] -> E[k, 1]``. ``n=None``: the largest id + 1 over all ranks."""
    grid = grid or default_grid()
    backend = get_backend(backend)

    def checked():
        edges = on_backend_2d(E, backend)
        if n is None:
            ids = check_vertex_array(edges.reshape(-1), np.iinfo(np.int64).max, "edge list ids",
                                     backend.xp)
            return edges, int(ids.max()) + 1 if ids.shape[0] else 0
        return edges, None

    edges, largest = grid.agree(checked)
    if n is None:
        n = grid.allreduce(largest, "MAX")
        if n == 0:
            raise InvalidValue("from_edgelist needs n= when no rank passes an edge")
    return Matrix.from_edges(edges[:, 0], edges[:, 1], n, symmetrize=symmetrize, grid=grid,
                             backend=backend)


def on_backend_2d(E, backend):
    """An (m, 2) integer array-like as an array of ``backend`` (no copy when already there)."""
    if type(E).__module__.startswith("cupy") and backend.xp is np:
        E = E.get()
    edges = backend.xp.asarray(E)
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise DimensionMismatch(f"an edge list must have shape (m, 2), got {tuple(edges.shape)}")
    if edges.shape[0] and edges.dtype.kind not in "iu":
        raise DomainMismatch(f"edge list ids must be integers, got {edges.dtype}")
    return edges


@collective("A", "root", what="to_edgelist")
def to_edgelist(A: Matrix, *, root: int | None = 0):
    """Collective: the stored edges as a sorted (m, 2) int64 numpy array on ``root`` (None
    elsewhere), or on every rank with ``root=None``."""
    src, dst = gathered_edges(A, root)
    return None if src is None else np.stack([src, dst], axis=1)


# -- Matrix Market ----------------------------------------------------------------------------
@collective("merge_duplicates", "grid", "backend", "root", what="Matrix.from_mtx")   # path: read on root
def from_mtx(path, *, merge_duplicates: bool = False, grid=None, backend="auto",
             root: int = 0) -> Matrix:
    """Collective. A Matrix Market coordinate file (``.mtx``, or gzip-compressed ``.mtx.gz``)
    read on ``root``. An entry stored twice is an error unless ``merge_duplicates``."""

    def read():
        # a symmetric kind's stored entries, made both ways by the build (no mirrored copy)
        graph, mirrored = read_stored_entries(path, allow_duplicates=bool(merge_duplicates))
        n = _square((graph.nrows, graph.ncols), str(path))
        return RootGraph(n, graph.src, graph.dst, symmetrize=mirrored, symmetric=graph.symmetry == "symmetric")
    return from_root(read, grid=grid, backend=backend, root=root)


@collective("A", "root", what="to_mtx")     # path: written on root
def to_mtx(A: Matrix, path, *, root: int = 0) -> None:
    """Collective: ``root`` writes the pattern (gzip when ``path`` ends in .gz); a symmetric
    matrix is written as a symmetric file (one triangle). A failure raises on every rank."""
    src, dst = gathered_edges(A, checked_root(A.grid, root))
    if src is not None:
        A.grid.agree(write_mtx, path, src, dst, A.n, symmetric=A.symmetric)
    else:
        A.grid.agree(lambda: None)


# -- Matrix's and Vector's own spellings of the conversions above ------------------------------
# Matrix.from_scipy(S), A.to_graphblas() ... are these functions. They live in this layer, above
# the classes (they build and read Matrix and Vector), so this layer installs them there.
for _name, _function in (("from_scipy", from_sparse), ("from_mtx", from_mtx), ("from_graphblas", from_graphblas),
                         ("from_networkx", from_networkx), ("from_edgelist", from_edgelist)):
    setattr(Matrix, _name, staticmethod(_function))
for _name, _function in (("to_graphblas", to_graphblas), ("to_networkx", to_networkx), ("to_cupyx", to_cupyx),
                         ("to_edgelist", to_edgelist), ("to_mtx", to_mtx)):
    setattr(Matrix, _name, _function)
Vector.from_graphblas = staticmethod(vector_from_graphblas)
Vector.to_graphblas = vector_to_graphblas
