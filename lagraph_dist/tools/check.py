"""``lagraph-dist check GRAPH``: our BFS against python-graphblas (SuiteSparse) on one graph.

For users checking a GPU or multi-rank run against the CPU reference: for each root, the levels
must equal the reference's exactly and the parents must pass the Graph500 rules
(:func:`lagraph_dist.tools.reference.compare`). Rank 0 prints one report per root; the exit status is
1 when any root differs.
"""
from __future__ import annotations

from typing import Callable, Sequence

from lagraph_dist.tools.bench import pick_roots
from lagraph_dist.tools.reference import compare
from lagraph_dist.core.errors import InvalidValue
from lagraph_dist.comm.grid import Grid
from lagraph_dist.io.generators import kronecker
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.core.text import plural

__all__ = ["load_graph", "run_check"]


def load_graph(path=None, *, scale: int | None = None, edgefactor: int = 16, seed: int = 0,
               merge_duplicates: bool = False, grid: Grid | None = None,
               backend="auto") -> Matrix:
    """Collective. The graph to check: a .mtx/.mtx.gz file, or a Kronecker graph of ``scale``."""
    if (path is None) == (scale is None):
        raise InvalidValue("give a Matrix Market file or a Kronecker scale, not both or neither")
    if path is not None:
        return Matrix.from_mtx(path, merge_duplicates=merge_duplicates, grid=grid, backend=backend)
    return kronecker(scale, edgefactor, seed=seed, grid=grid, backend=backend)


def run_check(path=None, *, scale: int | None = None, edgefactor: int = 16, seed: int = 0,
              roots: Sequence[int] | None = None, nroots: int = 4, root_seed: int = 2,
              direction: str = "auto", backend="auto", grid_shape=None,
              merge_duplicates: bool = False, say: Callable[[str], None] = print) -> int:
    """Collective. Compare on each root; rank 0 reports through ``say``. Returns the exit
    status: 0 when every root agrees with the reference, 1 otherwise."""
    grid = Grid(*grid_shape) if grid_shape else Grid()
    A = load_graph(path, scale=scale, edgefactor=edgefactor, seed=seed,
                   merge_duplicates=merge_duplicates, grid=grid, backend=backend)
    roots = list(roots) if roots else pick_roots(A, nroots, seed=root_seed)
    if not roots:
        raise InvalidValue("the graph has no edges, so no root to start from; pass --root")
    reports = [compare(A, root, direction=direction) for root in roots]
    differing = sum(not report.ok for report in reports)
    if grid.rank == 0:
        say(f"graph: n={A.n} stored edges={A.nvals} grid={grid.rows}x{grid.cols} "
            f"backend={A.backend.name}; reference: python-graphblas")
        for report in reports:
            say(str(report))
        say(verdict(differing, len(reports)))
    return 1 if differing else 0


def verdict(differing: int, total: int) -> str:
    """The closing line: how many of the ``total`` roots differ from the reference."""
    if differing:
        verb = "differs" if differing == 1 else "differ"
        return f"{differing} of {plural(total, 'root')} {verb} from the reference"
    if total == 1:
        return "the 1 root agrees with the reference"
    return f"all {total} roots agree with the reference"
