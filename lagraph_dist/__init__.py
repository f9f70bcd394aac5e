"""lagraph_dist: breadth-first search the GraphBLAS way, from one CPU process to many GPUs.

BFS is a loop of masked sparse-matrix x sparse-vector products over a boolean semiring, on a
2D-distributed adjacency matrix (numpy/scipy blocks on the CPU backend, CuPy blocks and our
CUDA kernels on the GPU backend), with list/bitmap sparse-vector encodings and MPI row/column
collectives. ``lagraph_dist.tools.reference`` runs python-graphblas as the CPU oracle.

The algebra reads two ways, running the same stages: the functional calls (``ld.vxm(q, A,
ld.semirings.any_pair, mask=v, complement=True)``) and python-graphblas's grammar
(``w(~v.S, replace=True) << q.vxm(A, ld.semiring.any_pair)``, see :mod:`lagraph_dist.algebra.expr`).
:mod:`lagraph_dist.io.interop` converts from and to scipy, cupyx, graphblas, networkx, edge lists
and Matrix Market files.

The public names load on first use (PEP 562): ``import lagraph_dist`` alone reads only the
version, so that ``lagraph-dist --version`` and ``--help`` start at once; the first public name
read imports the whole engine together (numpy, scipy, mpi4py, numba), with the grammar and the
conversions installed on ``Vector`` and ``Matrix``.
"""
import importlib

from lagraph_dist.core.version import __version__  # noqa: F401  (read without loading the engine)

# where each public name lives; the modules are imported in this order, all at once
_HOMES = {
    "lagraph_dist.semirings": ("semirings", "monoids", "binary", "semiring", "monoid"),
    "lagraph_dist.algorithms": ("BFSResult", "MultiBFSResult", "bfs", "bfs_multi", "bfs_path", "bfs_paths",
                                "sort_by_degree", "betweenness_centrality", "closeness_centrality", "eccentricity",
                                "connected_components", "number_connected_components"),
    "lagraph_dist.local.backend": ("get_backend", "gpu_available", "gpu_status"),
    "lagraph_dist.core.errors": ("CupyUnusableWarning", "DimensionMismatch", "DomainMismatch", "FileAccessDenied",
                                 "FileError", "IndexOutOfBound", "InvalidValue", "LagraphDistError",
                                 "MatrixMarketError", "MissingDependency", "MissingFile", "OutOfDeviceMemory",
                                 "OutOfHostMemory", "Unsupported", "ValidationError"),
    "lagraph_dist.algebra.ops": (),       # ld.ops, the namespace docs/api.md names (bound on the next line)
    "lagraph_dist.algebra": ("ops",),
    "lagraph_dist.algebra.expr": ("Mask", "Scalar", "VectorExpression"),
    "lagraph_dist.io.interop": (),        # installs Matrix.from_* and the conversions out
    "lagraph_dist.comm.grid": ("Grid",),
    "lagraph_dist.io.generators": ("kronecker",),
    "lagraph_dist.algebra.matrix": ("Matrix",),
    "lagraph_dist.algebra.memory": ("MemoryEstimate", "estimate_memory"),
    "lagraph_dist.algebra.products": ("mxv", "vxm"),
    "lagraph_dist.algebra.elementwise": ("apply", "assign", "ewise_add", "ewise_mult", "reduce"),
    "lagraph_dist.tools.validate": ("validate",),
    "lagraph_dist.core.settings": ("settings",),
    "lagraph_dist.core.stats": ("measured_seconds",),
    "lagraph_dist.algebra.vector": ("Vector",),
}
_SUBMODULES = {"reference": "lagraph_dist.tools.reference"}     # python-graphblas: loaded when read

__all__ = [
    "Grid", "Matrix", "Vector", "kronecker", "bfs", "BFSResult", "bfs_multi", "MultiBFSResult",
    "bfs_path", "bfs_paths", "sort_by_degree", "betweenness_centrality", "closeness_centrality",
    "eccentricity", "connected_components", "number_connected_components", "vxm", "mxv", "ewise_add", "assign",
    "ewise_mult", "apply", "reduce", "semirings", "monoids", "binary", "semiring", "monoid",
    "Mask", "Scalar", "VectorExpression", "validate", "reference",
    "get_backend", "gpu_available", "gpu_status", "estimate_memory", "MemoryEstimate", "settings", "measured_seconds",
    "LagraphDistError", "InvalidValue", "IndexOutOfBound", "DimensionMismatch", "DomainMismatch",
    "MatrixMarketError", "ValidationError", "OutOfDeviceMemory", "OutOfHostMemory",
    "MissingDependency", "CupyUnusableWarning", "Unsupported", "FileError", "MissingFile",
    "FileAccessDenied",
]


def _load_engine():
    """Import every home of a public name and bind the names here (once: afterwards they are
    plain module attributes and this is not called again)."""
    names = {}
    for module, exported in _HOMES.items():
        home = importlib.import_module(module)
        names.update((name, getattr(home, name)) for name in exported)
    # after the imports: importing lagraph_dist.semirings bound its module to that name
    globals().update(names)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(_SUBMODULES[name])
    if name in __all__:
        _load_engine()
        return globals()[name]
    raise AttributeError(f"module 'lagraph_dist' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
