"""Tests of lagraph_dist.io.mtx: files the tests write (malformed ones, stand-ins for the real
graphs, write/read round trips) and, when present, every real .mtx file of the shared data."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import scipy.io
import scipy.sparse

from lagraph_dist.io import mtx
from lagraph_dist.core.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidValue,
    MatrixMarketError,
)
from graphs import MALFORMED_MTX, triangle_mesh, west_like_digraph, write_real_general
from helpers import data_dir, data_params, needs_data

DATA = data_dir()

# Every shared file that must be refused: name -> (line the error names, words in the message).
BAD_FILES = {
    "lagraph/mangled1.mtx": (1, "unknown object 'mangled'"),
    "lagraph/mangled2.mtx": (1, "unknown format 'mangled'"),
    "lagraph/mangled3.mtx": (1, "unknown field 'mangled'"),
    "lagraph/mangled4.mtx": (1, "unknown symmetry 'mangled'"),
    "lagraph/mangled5.mtx": (1, "'pattern' cannot be hermitian"),
    "lagraph/mangled6.mtx": (5, "entry needs 3 tokens"),
    "lagraph/mangled7.mtx": (2, "unknown GraphBLAS type 'gunk'"),
    "lagraph/mangled8.mtx": (4, "size line must be 3 non-negative integers"),
    "lagraph/mangled9.mtx": (4, "must be square"),
    "lagraph/mangled10.mtx": (6, "truncated"),
    "lagraph/mangled11.mtx": (5, "'zero' is not an integer"),
    "lagraph/mangled12.mtx": (5, "entry needs 3 tokens"),
    "lagraph/mangled13.mtx": (7, "column index 9999 is out of range"),
    "lagraph/mangled14.mtx": (8, "duplicate entry (2, 2)"),
    "lagraph/mangled15.mtx": (1, "'array'"),
    "lagraph/mangled16.mtx": (1, "'array'"),
    "lagraph/mangled_bool.mtx": (10, "value 2 does not fit GraphBLAS type bool"),
    "lagraph/mangled_format.mtx": (1, "'array'"),
    "lagraph/mangled_int8.mtx": (8, "value -129 does not fit"),
    "lagraph/mangled_int16.mtx": (8, "value -32769 does not fit"),
    "lagraph/mangled_int32.mtx": (8, "value -2147483649 does not fit"),
    "lagraph/mangled_skew.mtx": (2, "skew-symmetric matrix cannot have the unsigned type"),
    "lagraph/mangled_uint8.mtx": (9, "value 256 does not fit"),
    "lagraph/mangled_uint16.mtx": (9, "value 65536 does not fit"),
    "lagraph/mangled_uint32.mtx": (9, "value 4294967296 does not fit"),
    "lagraph/complex.mtx": (1, "'array'"),
    "lagraph/full.mtx": (1, "'array'"),
    "lagraph/comments_full.mtx": (1, "'array'"),
    "lagraph/full_symmetric.mtx": (1, "'array'"),
    "lagraph/full_noheader.mtx": (1, "missing '%%MatrixMarket' banner"),
    "lagraph/west0067_noheader.mtx": (1, "missing '%%MatrixMarket' banner"),
}

# Good files scipy.io.mmread refuses, with a good file holding the same edges.
SCIPY_REFUSES = {
    "lagraph/west0067_jumbled.mtx": "lagraph/west0067.mtx",  # a blank line before the data
    "lagraph/matrix_fp32.mtx": "lagraph/matrix_int8.mtx",  # 'integer' with inf values, type float
    "lagraph/matrix_fp64.mtx": "lagraph/matrix_int8.mtx",
    "lagraph/matrix_uint64.mtx": "lagraph/matrix_int8.mtx",  # 2**64 - 1 overflows scipy
}


def _all_files():
    if not DATA.is_dir():
        return []
    files = sorted(DATA.glob("lagraph/*.mtx")) + sorted(DATA.glob("networkit/*.mtx"))
    return [str(f.relative_to(DATA)) for f in files]


def _good_files():
    return [name for name in _all_files() if name not in BAD_FILES]


def _edge_pairs(src, dst):
    """Edges as a sorted (E, 2) array, so multisets compare with array_equal."""
    pairs = np.stack([np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _write(tmp_path, text, name="m.mtx"):
    path = tmp_path / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------------------------
# the shared files
# --------------------------------------------------------------------------------------------


@needs_data("lagraph")
def test_bad_file_list_is_complete_and_exists():
    names = set(_all_files())
    assert set(BAD_FILES) <= names, sorted(set(BAD_FILES) - names)
    # Every file whose name says it is broken is in the list.
    suspicious = {n for n in names if "mangled" in n or "noheader" in n}
    assert suspicious <= set(BAD_FILES)


@needs_data("lagraph")
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_raise(name):
    line, words = BAD_FILES[name]
    path = DATA / name
    with pytest.raises(MatrixMarketError) as info:
        mtx.read_mtx(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message


@pytest.mark.parametrize("name", _good_files() or data_params([], "lagraph"))
def test_good_files_match_scipy(name):
    graph = mtx.read_mtx(DATA / name)
    reference = SCIPY_REFUSES.get(name, name)
    expected = scipy.sparse.coo_matrix(scipy.io.mmread(DATA / reference))
    assert (graph.nrows, graph.ncols) == expected.shape
    assert graph.nedges == expected.nnz
    assert graph.src.dtype == np.int64 and graph.dst.dtype == np.int64
    np.testing.assert_array_equal(
        _edge_pairs(graph.src, graph.dst), _edge_pairs(expected.row, expected.col)
    )


@needs_data("lagraph")
def test_scipy_really_refuses_those_files():
    # If scipy learns to read one, it should move to the plain comparison.
    for name in SCIPY_REFUSES:
        with pytest.raises((ValueError, OverflowError)):
            scipy.io.mmread(DATA / name)


@needs_data("networkit", "wing.mtx")
def test_header_fields():
    graph = mtx.read_mtx(DATA / "networkit" / "wing.mtx")
    assert (graph.symmetry, graph.field) == ("symmetric", "pattern")
    assert graph.declared_entries == 121544
    assert graph.nedges == 2 * 121544  # wing has no diagonal entries
    skew = mtx.read_mtx(DATA / "lagraph" / "skew_int8.mtx")
    assert (skew.symmetry, skew.field, skew.declared_entries) == ("skew-symmetric", "integer", 10)
    empty = mtx.read_mtx(DATA / "lagraph" / "empty.mtx")
    assert (empty.nrows, empty.ncols, empty.nedges) == (3, 4, 0)


@needs_data("networkit", "astro-ph.mtx")
def test_large_file_uses_the_vectorised_parse(monkeypatch):
    def refuse(*args):
        raise AssertionError("line-by-line parse used on a well-formed file")

    monkeypatch.setattr(mtx, "_parse_entries_slow", refuse)
    graph = mtx.read_mtx(DATA / "networkit" / "astro-ph.mtx")
    assert graph.nedges == 242502


# --------------------------------------------------------------------------------------------
# synthetic files
# --------------------------------------------------------------------------------------------

GENERAL = "%%MatrixMarket matrix coordinate pattern general\n"


def _raises_at(path, line, words):
    with pytest.raises(MatrixMarketError) as info:
        mtx.read_mtx(path)
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)
    assert words in str(info.value)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.mtx"
    with pytest.raises(FileNotFoundError, match="nope.mtx"):
        mtx.read_mtx(path)


def test_comments_blank_lines_and_crlf_are_skipped(tmp_path):
    text = GENERAL + "% c\n\n3 3 2\n\n% mid\n 1 2 \n\n%end\n3 1\n\n"
    graph = mtx.read_mtx(_write(tmp_path, text.replace("\n", "\r\n")))
    np.testing.assert_array_equal(graph.src, [0, 2])
    np.testing.assert_array_equal(graph.dst, [1, 0])


def test_banner_words_are_case_insensitive(tmp_path):
    graph = mtx.read_mtx(_write(tmp_path, "%%MatrixMarket MATRIX Coordinate Pattern General\n2 2 1\n1 2\n"))
    assert graph.field == "pattern" and graph.symmetry == "general"


def test_empty_file_and_header_only(tmp_path):
    _raises_at(_write(tmp_path, "", "a.mtx"), 1, "missing '%%MatrixMarket' banner")
    _raises_at(_write(tmp_path, GENERAL + "% only\n", "b.mtx"), 2, "file ends before the size line")


def test_complex_coordinate_unsupported(tmp_path):
    path = _write(tmp_path, "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n")
    _raises_at(path, 1, "field 'complex' is not supported")


@pytest.mark.parametrize("size", ["3 3", "3 3 1 1", "-3 3 1", "3 x 1", "3 3 1.0"])
def test_bad_size_line(tmp_path, size):
    _raises_at(_write(tmp_path, GENERAL + f"%\n{size}\n1 1\n"), 3, "size line")


def test_entry_errors_name_their_line(tmp_path):
    real = "%%MatrixMarket matrix coordinate real general\n3 3 2\n"
    integer = "%%MatrixMarket matrix coordinate integer general\n3 3 2\n"
    _raises_at(_write(tmp_path, real + "1 1 1.5\n2 2 x\n", "a.mtx"), 4, "value 'x' is not a real")
    _raises_at(_write(tmp_path, integer + "1 1 1\n2 2 3.5\n", "b.mtx"), 4, "'3.5' is not an integer")
    _raises_at(_write(tmp_path, real + "1 1 1\n0 2 1\n", "c.mtx"), 4, "row index 0 is out of range")
    _raises_at(_write(tmp_path, real + "1 4 1\n2 2 1\n", "d.mtx"), 3, "column index 4 is out of range")
    _raises_at(_write(tmp_path, real + "1 1 1\n2 2\n", "e.mtx"), 4, "entry needs 3 tokens")
    _raises_at(_write(tmp_path, real + "1 1 1\n-2 2 1\n", "f.mtx"), 4, "out of range")


def test_entry_count_errors(tmp_path):
    head = GENERAL + "3 3 2\n"
    _raises_at(_write(tmp_path, head + "1 1\n", "a.mtx"), 3, "truncated: file ends after 1 of 2")
    _raises_at(_write(tmp_path, head + "1 1\n% c\n2 2\n\n3 3\n", "b.mtx"), 7, "more entries than the 2")
    _raises_at(_write(tmp_path, head, "c.mtx"), 2, "truncated: file ends after 0 of 2")


def test_skew_symmetric(tmp_path):
    head = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n"
    graph = mtx.read_mtx(_write(tmp_path, head + "2 1 0\n3 2 -1.5\n", "a.mtx"))
    assert _edge_pairs(graph.src, graph.dst).tolist() == [[0, 1], [1, 0], [1, 2], [2, 1]]
    _raises_at(_write(tmp_path, head + "2 1 1\n3 3 1\n", "b.mtx"), 4, "diagonal entry (3, 3)")


def test_symmetric_mirrors_off_diagonal_only(tmp_path):
    text = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 0\n2 1 0\n3 2 7\n"
    graph = mtx.read_mtx(_write(tmp_path, text))
    assert graph.declared_entries == 3 and graph.nedges == 5
    assert _edge_pairs(graph.src, graph.dst).tolist() == [[0, 0], [0, 1], [1, 0], [1, 2], [2, 1]]


def test_real_hermitian_reads_as_symmetric(tmp_path):
    text = "%%MatrixMarket matrix coordinate real hermitian\n2 2 2\n1 1 3\n2 1 4\n"
    graph = mtx.read_mtx(_write(tmp_path, text))
    assert graph.symmetry == "hermitian" and graph.nedges == 3


def test_duplicates(tmp_path):
    general = _write(tmp_path, GENERAL + "3 3 3\n1 2\n2 1\n1 2\n", "a.mtx")
    _raises_at(general, 5, "duplicate entry (1, 2), already stored on line 3")
    graph = mtx.read_mtx(general, allow_duplicates=True)
    assert graph.nedges == 3
    # In a symmetric file (1, 2) and (2, 1) are the same entry.
    text = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n1 2\n"
    symmetric = _write(tmp_path, text, "b.mtx")
    _raises_at(symmetric, 4, "duplicate entry (1, 2)")
    assert mtx.read_mtx(symmetric, allow_duplicates=True).nedges == 4


def test_graphblas_type_line(tmp_path):
    head = "%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type {}\n2 2 1\n"
    _raises_at(_write(tmp_path, head.format("int8_t") + "1 1 128\n", "a.mtx"), 4, "does not fit")
    assert mtx.read_mtx(_write(tmp_path, head.format("int8_t") + "1 1 -128\n", "b.mtx")).nedges == 1
    assert mtx.read_mtx(_write(tmp_path, head.format("double") + "1 1 -inf\n", "c.mtx")).nedges == 1
    _raises_at(_write(tmp_path, head.format("double complex") + "1 1 1\n", "d.mtx"), 2, "not supported")
    # Only the line right after the banner is the type line; later ones are comments.
    late = "%%MatrixMarket matrix coordinate pattern general\n%\n%%GraphBLAS type gunk\n2 2 1\n1 1\n"
    assert mtx.read_mtx(_write(tmp_path, late, "e.mtx")).nedges == 1


def test_bad_line_found_deep_in_a_large_file(tmp_path):
    rng = np.random.default_rng(1)
    n, m = 5000, 60000
    rows, cols = rng.integers(1, n + 1, m), rng.integers(1, n + 1, m)
    lines = [f"{r} {c} {v}" for r, c, v in zip(rows, cols, rng.random(m))]
    lines[43210] = "17 18 1.0.0"
    text = f"%%MatrixMarket matrix coordinate real general\n% x\n{n} {n} {m}\n" + "\n".join(lines) + "\n"
    _raises_at(_write(tmp_path, text), 3 + 43210 + 1, "'1.0.0' is not a real number")


def test_uint64_values_kept_exact(tmp_path):
    head = "%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type uint64_t\n2 2 2\n"
    ok = _write(tmp_path, head + "1 1 18446744073709551615\n2 2 0\n", "a.mtx")
    assert mtx.read_mtx(ok).nedges == 2
    _raises_at(_write(tmp_path, head + "1 1 18446744073709551616\n2 2 0\n", "b.mtx"), 4, "does not fit")


# stand-ins for the real graphs, written by the tests
# --------------------------------------------------------------------------------------------


def test_west_like_real_general_file(tmp_path):
    """A valued unsymmetric file (as west0067 is) gives the edges it was written from, as scipy
    reads them too."""
    (src, dst), n = west_like_digraph()
    path = tmp_path / "west_like.mtx"
    write_real_general(path, src, dst, n)
    graph = mtx.read_mtx(path)
    assert (graph.nrows, graph.ncols, graph.symmetry, graph.field) == (n, n, "general", "real")
    np.testing.assert_array_equal(_edge_pairs(graph.src, graph.dst), _edge_pairs(src, dst))
    expected = scipy.sparse.coo_matrix(scipy.io.mmread(path))
    np.testing.assert_array_equal(_edge_pairs(graph.src, graph.dst), _edge_pairs(expected.row, expected.col))


def test_mesh_symmetric_file_with_diagonal(tmp_path):
    """A symmetric pattern file with every diagonal entry (as jagmesh7 is): off-diagonal entries
    mirrored, diagonal ones once."""
    (src, dst), n = triangle_mesh()
    path = tmp_path / "mesh.mtx"
    mtx.write_mtx(path, src, dst, n, symmetric=True)
    graph = mtx.read_mtx(path)
    assert graph.symmetry == "symmetric" and graph.declared_entries == int((src >= dst).sum())
    np.testing.assert_array_equal(_edge_pairs(graph.src, graph.dst), _edge_pairs(src, dst))
    assert scipy.io.mmread(path).nnz == src.size


@pytest.mark.parametrize("name", sorted(MALFORMED_MTX))
def test_malformed_stand_ins_raise(tmp_path, name):
    path = _write(tmp_path, MALFORMED_MTX[name], name)
    with pytest.raises(MatrixMarketError) as info:
        mtx.read_mtx(path)
    assert str(info.value).startswith(f"{path}:"), str(info.value)


def test_large_written_file_uses_the_vectorised_parse(tmp_path, monkeypatch):
    def refuse(*args):
        raise AssertionError("line-by-line parse used on a well-formed file")

    rng = np.random.default_rng(5)
    n = 20000
    keys = np.unique(rng.integers(0, n * n, 250000))
    path = tmp_path / "large.mtx"
    mtx.write_mtx(path, keys // n, keys % n, n)
    monkeypatch.setattr(mtx, "_parse_entries_slow", refuse)
    graph = mtx.read_mtx(path)
    assert graph.nedges == keys.size
    np.testing.assert_array_equal(graph.src * n + graph.dst, keys)


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def test_write_read_round_trip_general(tmp_path):
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    keys = np.unique(src * 300 + dst)  # the reader refuses duplicates by default
    src, dst = keys // 300, keys % 300
    path = tmp_path / "g.mtx"
    mtx.write_mtx(path, src, dst, 300)
    graph = mtx.read_mtx(path)
    assert (graph.nrows, graph.ncols, graph.symmetry, graph.field) == (300, 300, "general", "pattern")
    np.testing.assert_array_equal(graph.src, src)
    np.testing.assert_array_equal(graph.dst, dst)


def test_write_read_round_trip_symmetric(tmp_path):
    rng = np.random.default_rng(8)
    a = scipy.sparse.random(200, 200, density=0.03, random_state=rng, format="coo")
    a = scipy.sparse.coo_matrix((a + a.T + scipy.sparse.eye(200)).astype(bool))
    path = str(tmp_path / "s.mtx")
    mtx.write_mtx(path, a.row, a.col, 200, symmetric=True)
    graph = mtx.read_mtx(path)
    assert graph.symmetry == "symmetric"
    assert graph.declared_entries == int(np.count_nonzero(a.row >= a.col))
    np.testing.assert_array_equal(_edge_pairs(graph.src, graph.dst), _edge_pairs(a.row, a.col))
    assert scipy.io.mmread(path).nnz == a.nnz  # and scipy agrees with what we wrote


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 40),
    pairs=st.sets(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=60),
)
def test_round_trip_any_edge_set(tmp_path_factory, n, pairs):
    pairs = sorted((s, d) for s, d in pairs if s < n and d < n)
    src = np.array([s for s, _ in pairs], dtype=np.int64)
    dst = np.array([d for _, d in pairs], dtype=np.int64)
    path = tmp_path_factory.mktemp("rt") / "g.mtx"
    mtx.write_mtx(path, src, dst, n)
    graph = mtx.read_mtx(path)
    assert graph.nrows == graph.ncols == n
    np.testing.assert_array_equal(graph.src, src)
    np.testing.assert_array_equal(graph.dst, dst)


def test_write_empty(tmp_path):
    path = tmp_path / "e.mtx"
    mtx.write_mtx(path, np.array([], dtype=np.int64), np.array([], dtype=np.int64), 4)
    graph = mtx.read_mtx(path)
    assert (graph.nrows, graph.nedges) == (4, 0)


def test_write_rejects_bad_input(tmp_path):
    path = tmp_path / "w.mtx"
    with pytest.raises(IndexOutOfBound, match="dst"):
        mtx.write_mtx(path, [0, 1], [1, 5], 5)
    with pytest.raises(IndexOutOfBound, match="src"):
        mtx.write_mtx(path, [-1], [0], 5)
    with pytest.raises(DimensionMismatch):
        mtx.write_mtx(path, [0, 1], [1], 5)
    with pytest.raises(DomainMismatch):
        mtx.write_mtx(path, [0.5], [1.0], 5)
    with pytest.raises(DomainMismatch):
        mtx.write_mtx(path, [0], [1], 5.0)
    with pytest.raises(InvalidValue):
        mtx.write_mtx(path, [], [], -1)
