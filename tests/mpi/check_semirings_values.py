"""The valued semirings' products on R x C grids against python-graphblas (the cases of
tests/semiring_cases.py): every monoid, values of each width, push and pull, vxm and mxv,
masked and complemented; the fold combines by the monoid and the wire carries the values. Run
under mpiexec by tests/test_semirings_values.py on as many ranks as the largest grid holds (one
start of the ranks for every grid: each grid runs on the first ranks, the others wait); prints
"rank K ok" on each rank.

usage: check_semirings_values.py ROWS COLS  |  check_semirings_values.py RxC [RxC ...]
"""
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from semiring_cases import MASKS, check_product, random_graph, random_values  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))        # tests/mpi/common.py
from common import on_grids, parse_shapes  # noqa: E402


def check_grid(grid):
    rng = np.random.default_rng(7)               # the same draws on every rank (and every grid)
    S = random_graph(rng, 61, 0.08)
    A = ld.Matrix.from_scipy(S, grid=grid, backend="cpu")
    ids, mask_ids = np.flatnonzero(rng.random(61) < 0.4), np.flatnonzero(rng.random(61) < 0.5)
    mask_values = rng.random(mask_ids.shape[0]) < 0.5
    # every monoid and a value of each width the wire carries (1, 4 and 8 bytes; integers and floats),
    # beside two of the searches' own semirings (every (semiring, dtype) pair runs in one process,
    # tests/test_semirings_values.py): the grid adds the fold and the wire. Each dtype's loops
    # compile on every rank of the grid at once, and make test's ranks share 2 cores: few dtypes here
    cases = [("plus_times", np.float64), ("min_plus", np.int32), ("max_first", np.float64), ("plus_pair", np.int32),
             ("min_second", np.bool_), ("max_second", np.int32), ("lor_land", np.bool_), ("min_secondi", np.bool_)]
    for k, (name, dtype) in enumerate(cases):
        values = random_values(rng, dtype, ids.shape[0])
        product, encoding, mask_kind = ("vxm", "mxv")[k % 2], ("push", "pull")[(k // 2) % 2], MASKS[k % 4]
        problem = check_product(name, dtype, product, mask_kind, encoding, S=S, A=A, ids=ids, values=values,
                                mask_ids=mask_ids, mask_values=mask_values)
        if problem is not None:
            raise AssertionError(f"grid {grid.rows}x{grid.cols}, rank {grid.rank}: {name} {np.dtype(dtype).name} "
                                 f"{product} {mask_kind} {encoding}: {problem}")


on_grids(parse_shapes(sys.argv[1:]), check_grid)
