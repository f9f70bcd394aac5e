"""Block construction: several passes over regenerated chunks build the same matrix as one."""
import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.matrix import Matrix, _kronecker_chunks, construction_bytes
from helpers import BACKENDS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("passes", [2, 3, 8])
def test_passes_build_the_same_matrix(backend, passes):
    grid = ld.Grid()
    back = ld.get_backend(backend)
    one = ld.kronecker(9, seed=11, backend=backend)
    many = Matrix._from_edge_chunks(lambda: _kronecker_chunks(9, 16, 11, grid, back), 512, grid, back,
                                    symmetrize=True, symmetric=True, capacity=2 * 16 * 512,
                                    passes=passes)
    assert many.nvals == one.nvals
    assert (many.to_scipy() != one.to_scipy()).nnz == 0
    levels = ld.bfs(many, 3).levels.to_numpy()
    np.testing.assert_array_equal(levels, ld.bfs(one, 3).levels.to_numpy())


def test_construction_bytes_shrink_with_passes():
    nkeys, n = 2 << 31, 1 << 27
    assert construction_bytes(nkeys, n, 2) < construction_bytes(nkeys, n, 1)
    # scale 27 in two passes stays under the 80 GB of an H100
    assert construction_bytes(nkeys, n, 2) < 78 * 2**30


def test_from_edges_duplicates_and_capacity():
    A = ld.Matrix.from_edges([0, 0, 1, 1], [1, 1, 2, 2], 3, symmetrize=True, backend="cpu")
    assert A.nvals == 4
    assert A.to_scipy().nnz == 4
