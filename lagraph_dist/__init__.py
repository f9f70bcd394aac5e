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
"""
from lagraph_dist import semirings as _semirings_pkg
from lagraph_dist.algorithms import (BFSResult, MultiBFSResult, bfs, bfs_multi, bfs_path, bfs_paths,
                                     sort_by_degree)
from lagraph_dist.local.backend import get_backend, gpu_available, gpu_status
from lagraph_dist.core.errors import (CupyUnusableWarning, DimensionMismatch, DomainMismatch,
                                 FileAccessDenied, FileError, IndexOutOfBound, InvalidValue,
                                 LagraphDistError, MatrixMarketError, MissingDependency, MissingFile,
                                 OutOfDeviceMemory, OutOfHostMemory, Unsupported, ValidationError)
from lagraph_dist.algebra import ops
from lagraph_dist.algebra.expr import Mask, Scalar, VectorExpression
from lagraph_dist.io import interop  # noqa: F401  (installs Matrix.from_* and the conversions out)
from lagraph_dist.comm.grid import Grid
from lagraph_dist.io.generators import kronecker
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.algebra.memory import MemoryEstimate, estimate_memory
from lagraph_dist.algebra.ops import apply, assign, ewise_add, ewise_mult, mxv, reduce, vxm
from lagraph_dist.tools.validate import validate
from lagraph_dist.algebra.vector import Vector

semirings = _semirings_pkg.semirings
monoids = _semirings_pkg.monoids
binary = _semirings_pkg.binary
semiring = _semirings_pkg.semiring     # python-graphblas's names (with .ss for positional ops)
monoid = _semirings_pkg.monoid

from lagraph_dist.core.version import __version__  # noqa: E402  (the one place it is written)

__all__ = [
    "Grid", "Matrix", "Vector", "kronecker", "bfs", "BFSResult", "bfs_multi", "MultiBFSResult",
    "bfs_path", "bfs_paths", "sort_by_degree", "vxm", "mxv", "ewise_add", "assign",
    "ewise_mult", "apply", "reduce", "semirings", "monoids", "binary", "semiring", "monoid",
    "Mask", "Scalar", "VectorExpression", "validate", "reference",
    "get_backend", "gpu_available", "gpu_status", "estimate_memory", "MemoryEstimate",
    "LagraphDistError", "InvalidValue", "IndexOutOfBound", "DimensionMismatch", "DomainMismatch",
    "MatrixMarketError", "ValidationError", "OutOfDeviceMemory", "OutOfHostMemory",
    "MissingDependency", "CupyUnusableWarning", "Unsupported", "FileError", "MissingFile",
    "FileAccessDenied",
]


def __getattr__(name):
    # the reference loads on first use: importing graphblas is slow
    if name == "reference":
        import importlib
        return importlib.import_module("lagraph_dist.tools.reference")
    raise AttributeError(f"module 'lagraph_dist' has no attribute {name!r}")
