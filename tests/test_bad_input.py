"""Bad input raises the documented exception type (a LagraphDistError subclassing the matching
builtin, or FileNotFoundError for a missing file) with a message naming the bad value."""
import numpy as np
import pytest
import scipy.sparse as sp

import lagraph_dist as ld
from graphs import MALFORMED_MTX
from helpers import bad_mtx_files, data_file, data_params


@pytest.fixture(scope="module")
def A():
    return ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 5, backend="cpu")


def raises(exc_type, *fragments):
    """pytest.raises that also checks the message names each fragment."""
    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(exc_type)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            swallowed = self.ctx.__exit__(*exc)
            message = str(self.info.value)
            for fragment in fragments:
                assert str(fragment) in message, f"message {message!r} does not name {fragment!r}"
            return swallowed
    return _Check()


# -- bfs source -----------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [5, 6, 10**12, -1, -5])
def test_bfs_source_out_of_range(A, source):
    with raises(IndexError, source):
        ld.bfs(A, source)


@pytest.mark.parametrize("source", [1.5, 2.0, "3", True, False, None, np.True_, np.float64(1.0), [1]])
def test_bfs_source_not_an_integer(A, source):
    with raises(TypeError, repr(source)):
        ld.bfs(A, source)


@pytest.mark.parametrize("source", [np.int64(1), np.int32(1), np.uint8(1), np.int16(1)])
def test_bfs_numpy_integer_source_is_fine(A, source):
    res = ld.bfs(A, source)
    assert res.levels.to_numpy().tolist() == [-1, 0, 1, 2, -1]
    assert res.parents.to_numpy().tolist() == [-1, 1, 1, 2, -1]


def test_bfs_bad_options(A):
    with raises(ValueError, "sideways"):
        ld.bfs(A, 0, direction="sideways")
    with raises(ValueError):
        ld.bfs(A, 0, levels=False, parents=False)
    with raises(TypeError, "scipy.sparse matrix"):       # the message names what is accepted
        ld.bfs("not a matrix", 0)
    # a scipy matrix is converted (issue 9), so it no longer raises
    assert ld.bfs(sp.eye(3, format="csr"), 0).levels.to_numpy().tolist() == [0, -1, -1]


# -- the options of both searches: one set of checks ---------------------------------------------
SEARCHES = {"bfs": lambda A, **options: ld.bfs(A, 0, **options),
            "bfs_multi": lambda A, **options: ld.bfs_multi(A, [0, 1], **options)}


@pytest.mark.parametrize("search", sorted(SEARCHES))
@pytest.mark.parametrize("options, error, fragments", [
    ({"direction": "sideways"}, ld.InvalidValue, ["unknown direction 'sideways'", "push, pull, auto"]),
    ({"direction": None}, ld.InvalidValue, ["unknown direction None"]),
    ({"levels": False, "parents": False}, ld.InvalidValue, ["needs levels=True or parents=True"]),
    ({"alpha": 0}, ld.InvalidValue, ["alpha must be a positive number, got 0"]),
    ({"alpha": -1.5}, ld.InvalidValue, ["alpha must be a positive number, got -1.5"]),
    ({"alpha": True}, ld.InvalidValue, ["alpha must be a positive number, got True"]),
    ({"alpha": float("nan")}, ld.InvalidValue, ["alpha must be a positive number, got nan"]),
    ({"beta": False}, ld.InvalidValue, ["beta must be a positive number, got False"]),
    ({"beta": "24"}, ld.InvalidValue, ["beta must be a positive number, got '24'"]),
    ({"depth_limit": -1}, ld.InvalidValue, ["depth_limit must be >= 0, got -1"]),
    ({"depth_limit": 2.0}, ld.DomainMismatch, ["depth_limit must be an integer or None, got 2.0"]),
    ({"depth_limit": True}, ld.DomainMismatch, ["depth_limit must be an integer or None, got True"]),
])
def test_search_options_are_checked_alike(A, search, options, error, fragments):
    """ld.bfs and ld.bfs_multi refuse the same options with the same error and message."""
    with raises(error, *fragments):
        SEARCHES[search](A, **options)


@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_search_options_good_values(A, search):
    """Integers and floats for alpha and beta, numpy integers for the depth limit."""
    SEARCHES[search](A, alpha=3, beta=12.5, depth_limit=np.int64(1), direction="auto")


# -- from_edges -----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [5, 6, 2**40])
def test_from_edges_id_too_large(bad):
    with raises(IndexError, bad):
        ld.Matrix.from_edges([0, bad], [1, 2], 5, backend="cpu")
    with raises(IndexError, bad):
        ld.Matrix.from_edges([0, 1], [1, bad], 5, backend="cpu")


@pytest.mark.parametrize("bad", [-1, -2**40])
def test_from_edges_negative_id(bad):
    with raises(IndexError, bad):
        ld.Matrix.from_edges(np.array([0, bad]), [1, 2], 5, backend="cpu")
    with raises(IndexError, bad):
        ld.Matrix.from_edges([0, 1], np.array([1, bad]), 5, backend="cpu")


def test_from_edges_nan_ids():
    # errors.py lists "NaN id" under InvalidValue and checks.py raises DomainMismatch: either
    # builtin kind is a clear rejection; the message must say NaN.
    with pytest.raises((ValueError, TypeError)) as info:
        ld.Matrix.from_edges(np.array([0.0, np.nan]), [1, 2], 5, backend="cpu")
    assert "nan" in str(info.value).lower()
    with pytest.raises((ValueError, TypeError)) as info:
        ld.Matrix.from_edges([0, 1], np.array([np.nan, 1.0]), 5, backend="cpu")
    assert "nan" in str(info.value).lower()


@pytest.mark.parametrize("ids", [np.array([0.5, 1.0]), np.array([1.0, 2.0]), [0, 1.5],
                                 np.array([1, 2], dtype=np.float32)])
def test_from_edges_float_ids(ids):
    with raises(TypeError, "float"):
        ld.Matrix.from_edges(ids, [1, 2], 5, backend="cpu")


def test_from_edges_length_mismatch():
    with raises(ValueError, 3, 2):
        ld.Matrix.from_edges([0, 1, 2], [1, 2], 5, backend="cpu")
    with raises(ValueError, 0, 1):
        ld.Matrix.from_edges([], [1], 5, backend="cpu")


@pytest.mark.parametrize("n, exc", [(0, ValueError), (-3, ValueError), (2.5, TypeError),
                                    ("4", TypeError), (None, TypeError), (True, TypeError)])
def test_from_edges_bad_n(n, exc):
    with raises(exc, repr(n) if exc is TypeError else n):
        ld.Matrix.from_edges([0], [0], n, backend="cpu")


def test_from_edges_two_dimensional_ids():
    with pytest.raises(ValueError):
        ld.Matrix.from_edges([[0, 1]], [[1, 0]], 5, backend="cpu")


def test_from_scipy_bad_input():
    with raises(ValueError, "(3, 4)"):
        ld.Matrix.from_scipy(sp.csr_matrix((3, 4)), backend="cpu")
    with raises(TypeError, "ndarray"):
        ld.Matrix.from_scipy(np.eye(3), backend="cpu")


# -- Vector ---------------------------------------------------------------------------------------
def test_vector_bad_input():
    with raises(IndexError, 10):
        ld.Vector.from_indices([1, 10], 10, backend="cpu")
    with raises(IndexError, -1):
        ld.Vector.from_indices([-1], 10, backend="cpu")
    with raises(TypeError, "float"):
        ld.Vector.from_indices(np.array([1.5]), 10, backend="cpu")
    with raises(ValueError, 0):
        ld.Vector.from_indices([], 0, backend="cpu")
    with raises(ValueError, 3, 2):
        ld.Vector.from_indices([1, 2], 10, values=np.array([1, 2, 3]), backend="cpu")


# -- Matrix Market files --------------------------------------------------------------------------
BAD_FILES = bad_mtx_files()


@pytest.mark.parametrize("name", sorted(MALFORMED_MTX))
def test_from_mtx_malformed_written(tmp_path, name):
    path = tmp_path / name
    path.write_text(MALFORMED_MTX[name])
    with raises(ld.MatrixMarketError, name):
        ld.Matrix.from_mtx(path, backend="cpu")
    assert issubclass(ld.MatrixMarketError, ValueError)


@pytest.mark.parametrize("path", data_params(BAD_FILES, "lagraph"))
def test_from_mtx_malformed_real(path):
    with raises(ld.MatrixMarketError, path.name):
        ld.Matrix.from_mtx(path, backend="cpu")


def test_bad_file_list_is_complete():
    data_file("lagraph")
    names = {p.name for p in BAD_FILES}
    assert {"mangled1.mtx", "mangled16.mtx", "west0067_noheader.mtx", "full_noheader.mtx",
            "complex.mtx", "mangled_skew.mtx"} <= names


@pytest.mark.parametrize("name", ["empty.mtx", "lp_afiro.mtx"])
def test_from_mtx_rectangular_real(name):
    path = data_file("lagraph", name)
    with raises(ValueError, name, "square"):
        ld.Matrix.from_mtx(path, backend="cpu")


def test_from_mtx_rectangular(tmp_path):
    path = tmp_path / "rect.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n3 4 2\n1 2\n3 4\n")
    with raises(ValueError, "rect.mtx", "3 x 4"):
        ld.Matrix.from_mtx(path, backend="cpu")


def test_from_mtx_truncated(tmp_path):
    path = tmp_path / "truncated.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n5 5 6\n1 2 1.0\n2 3 1.0\n3 4 1.")
    with raises(ld.MatrixMarketError, "truncated.mtx"):
        ld.Matrix.from_mtx(path, backend="cpu")
    cut = tmp_path / "cut_header.mtx"
    cut.write_text("%%MatrixMarket matrix coordinate pattern general\n")
    with raises(ld.MatrixMarketError, "cut_header.mtx"):
        ld.Matrix.from_mtx(cut, backend="cpu")
    empty = tmp_path / "zero_bytes.mtx"
    empty.write_bytes(b"")
    with raises(ld.MatrixMarketError, "zero_bytes.mtx"):
        ld.Matrix.from_mtx(empty, backend="cpu")


def test_from_mtx_missing(tmp_path):
    path = tmp_path / "does_not_exist.mtx"
    with pytest.raises((FileNotFoundError, ld.MatrixMarketError)) as info:
        ld.Matrix.from_mtx(path, backend="cpu")
    assert "does_not_exist.mtx" in str(info.value)
    with pytest.raises((OSError, ld.MatrixMarketError)):
        ld.Matrix.from_mtx(tmp_path, backend="cpu")            # a directory


def test_from_mtx_good_file_after_bad_ones(tmp_path):
    """A failed read leaves nothing behind: the next good read works."""
    path = tmp_path / "ok.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n")
    A = ld.Matrix.from_mtx(path, backend="cpu")
    assert A.n == 3 and A.nvals == 4
    assert ld.bfs(A, 0).levels.to_numpy().tolist() == [0, 1, 2]


# -- grid, backend, generator ---------------------------------------------------------------------
def test_grid_shape_must_match_ranks():
    with raises(ValueError, "2 x 3"):
        ld.Grid(rows=2, cols=3)
    with pytest.raises(ValueError):
        ld.Grid(rows=2)
    with pytest.raises((ValueError, TypeError)):
        ld.Grid(rows=0, cols=1)
    with pytest.raises((ValueError, TypeError)):
        ld.Grid(rows=1.5, cols=1)
    g = ld.Grid(rows=1, cols=1)
    assert (g.rows, g.cols, g.rank) == (1, 1, 0)


def test_unknown_backend():
    with raises(ValueError, "tpu"):
        ld.Matrix.from_edges([0], [1], 3, backend="tpu")
    with raises(ValueError, "tpu"):
        ld.kronecker(4, backend="tpu")
    with raises(ValueError, "tpu"):
        ld.get_backend("tpu")


@pytest.mark.skipif(ld.gpu_available(), reason="a GPU is present")
def test_gpu_backend_without_a_device():
    with pytest.raises(ValueError):
        ld.Matrix.from_edges([0], [1], 3, backend="gpu")


@pytest.mark.parametrize("scale, exc", [(0, ValueError), (-1, ValueError), (2.5, TypeError),
                                        ("4", TypeError)])
def test_kronecker_bad_scale(scale, exc):
    with raises(exc, "scale", scale):
        ld.kronecker(scale, backend="cpu")


# -- the algebra ----------------------------------------------------------------------------------
def test_semiring_given_as_monoid(A):
    u = ld.Vector.from_indices([0], A.n, backend="cpu")
    with raises(TypeError, "lor"):
        ld.vxm(u, A, ld.monoids.lor)
    with raises(TypeError, "min"):
        ld.mxv(A, u, ld.monoids.min)
    with raises(TypeError, "plus_times"):
        ld.vxm(u, A, "plus_times")
    with raises(TypeError, "any_pair"):
        ld.ewise_add(u, u, ld.semirings.any_pair)


def test_vxm_wrong_sizes(A):
    small = ld.Vector.from_indices([0], A.n - 1, backend="cpu")
    big = ld.Vector.from_indices([0], A.n + 1, backend="cpu")
    good = ld.Vector.from_indices([0], A.n, backend="cpu")
    for u in (small, big):
        with raises(ValueError, u.n):
            ld.vxm(u, A, ld.semirings.any_pair)
        with raises(ValueError, u.n):
            ld.mxv(A, u, ld.semirings.any_pair)
        with pytest.raises(ValueError):
            ld.vxm(good, A, ld.semirings.any_pair, mask=u)
        with pytest.raises(ValueError):
            ld.ewise_add(good, u, ld.monoids.any)
        with pytest.raises(ValueError):
            ld.ewise_mult(good, u, ld.binary.first)
    with pytest.raises(TypeError):
        ld.vxm(np.zeros(A.n), A, ld.semirings.any_pair)


def test_bad_binary_ops(A):
    u = ld.Vector.from_indices([0], A.n, backend="cpu")
    with pytest.raises(TypeError):
        ld.apply(u, ld.binary.second)             # needs right=
    with pytest.raises(TypeError):
        ld.apply(u, ld.monoids.plus)
    with pytest.raises(TypeError):
        ld.ewise_mult(u, u, ld.monoids.plus)
    with pytest.raises(TypeError):
        ld.reduce(u, ld.semirings.any_pair)
