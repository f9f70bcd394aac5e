"""Issue 18's newcomer papercuts, one section each: counts with their nouns ("1 vertex", never
"1 vertices"); a file that cannot be read or written raises a LagraphDistError that is also the
matching OSError."""
import errno
import os

import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist import cli
from lagraph_dist.check import verdict
from lagraph_dist.reference import Comparison
from lagraph_dist.text import plural


# -- plurals ------------------------------------------------------------------------------------
@pytest.mark.parametrize("count,noun,expected", [
    (0, "root", "0 roots"), (1, "root", "1 root"), (2, "root", "2 roots"),
    (1, "vertex", "1 vertex"), (7, "vertex", "7 vertices"), (np.int64(1), "level", "1 level"),
    (np.int32(3), "level", "3 levels"), (2, "batch", "2 batches"), (1, "search", "1 search"),
    (5, "search", "5 searches"), (2, "stored edge", "2 stored edges"), (1, "stored edge", "1 stored edge"),
    (3, "declared entry", "3 declared entries"), (-1, "step", "-1 steps"),
])
def test_plural(count, noun, expected):
    assert plural(count, noun) == expected


def test_plural_options():
    assert plural(12345, "vertex", spec=",") == "12,345 vertices"
    assert plural(1, "datum", "data") == "1 datum" and plural(4, "datum", "data") == "4 data"


@pytest.mark.parametrize("count", [1.0, True, "3", None, np.float64(2)])
def test_plural_refuses_what_is_not_a_count(count):
    with pytest.raises(ld.DomainMismatch, match="integer"):
        plural(count, "root")


@pytest.mark.parametrize("noun", ["", "  ", None, 3])
def test_plural_refuses_what_is_not_a_noun(noun):
    with pytest.raises(ld.DomainMismatch, match="noun"):
        plural(2, noun)


@pytest.mark.parametrize("differing,total,expected", [
    (0, 1, "the 1 root agrees with the reference"),
    (0, 4, "all 4 roots agree with the reference"),
    (1, 1, "1 of 1 root differs from the reference"),
    (1, 3, "1 of 3 roots differs from the reference"),
    (2, 3, "2 of 3 roots differ from the reference"),
])
def test_check_verdict(differing, total, expected):
    assert verdict(differing, total) == expected


def test_check_command_with_one_root(tmp_path, capsys):
    path = tmp_path / "path.mtx"
    ld.Matrix.from_edges([0, 1], [1, 2], 3, backend="cpu").to_mtx(path)
    assert cli.main(["check", str(path), "--root", "0", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "the 1 root agrees with the reference", out
    assert "roots" not in out


def test_comparison_names_one_vertex():
    one = Comparison(source=0, n=4, direction="push", reached=3, reference_reached=3,
                     level_differences=1, examples=[(2, 5, 2)])
    assert "levels differ at 1 vertex (vertex: ours vs reference) 2: 5 vs 2" in str(one)
    two = Comparison(source=0, n=4, direction="push", reached=3, reference_reached=3,
                     level_differences=2, examples=[(2, 5, 2), (3, 6, 3)])
    assert "levels differ at 2 vertices" in str(two)


def test_messages_count_in_the_singular():
    one = ld.Matrix.from_edges([], [], 1, backend="cpu")
    with pytest.raises(ld.IndexOutOfBound, match="out of range for a graph of 1 vertex$"):
        ld.bfs(one, 1)
    with pytest.raises(ld.DimensionMismatch, match="^1 source id but 2 destination ids$"):
        ld.Matrix.from_edges([0], [1, 2], 3, backend="cpu")
    with pytest.raises(ld.DimensionMismatch, match="^2 values for 1 index$"):
        ld.Vector.from_indices([0], 3, values=[1, 2], backend="cpu")
    with pytest.raises(ld.DimensionMismatch, match="^a scalar value for 1 index$"):
        ld.Vector.from_indices([0], 3, values=1, backend="cpu")


def test_truncated_file_names_one_entry(tmp_path):
    path = tmp_path / "short.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n")
    with pytest.raises(ld.MatrixMarketError, match="file ends after 0 of 1 declared entry$"):
        ld.Matrix.from_mtx(path, backend="cpu")


# -- files that cannot be read or written ---------------------------------------------------------
def a_graph():
    return ld.Matrix.from_edges([0, 1], [1, 2], 3, backend="cpu")


def test_missing_mtx_file(tmp_path):
    for name in ("absent.mtx", "absent.mtx.gz"):
        with pytest.raises(ld.MissingFile) as info:
            ld.Matrix.from_mtx(tmp_path / name, backend="cpu")
        error = info.value
        assert isinstance(error, ld.LagraphDistError) and isinstance(error, FileNotFoundError)
        assert str(error) == f"cannot read Matrix Market file {tmp_path / name}: no such file or directory"
        assert error.errno == errno.ENOENT and error.filename == str(tmp_path / name)


def test_a_directory_is_no_mtx_file(tmp_path):
    with pytest.raises(ld.FileError, match="cannot read Matrix Market file .*: is a directory") as info:
        ld.Matrix.from_mtx(tmp_path, backend="cpu")
    assert isinstance(info.value, OSError) and info.value.errno == errno.EISDIR


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its permissions")
def test_unreadable_mtx_file(tmp_path):
    path = tmp_path / "locked.mtx"
    a_graph().to_mtx(path)
    path.chmod(0)
    with pytest.raises(ld.FileAccessDenied, match="cannot read Matrix Market file .*locked.mtx: permission denied"):
        ld.Matrix.from_mtx(path, backend="cpu")


def test_permission_denied_is_file_access_denied(tmp_path, monkeypatch):
    """What the operating system says when permissions forbid it (faked: tests may run as root)."""
    import lagraph_dist.errors
    path = tmp_path / "g.mtx"
    a_graph().to_mtx(path)

    def refuse(name, mode="r", **options):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(name))
    monkeypatch.setattr(lagraph_dist.errors, "open", refuse, raising=False)
    with pytest.raises(ld.FileAccessDenied) as info:
        ld.Matrix.from_mtx(path, backend="cpu")
    assert isinstance(info.value, PermissionError) and isinstance(info.value, ld.LagraphDistError)
    assert str(info.value) == f"cannot read Matrix Market file {path}: permission denied"
    with pytest.raises(ld.FileAccessDenied, match="cannot write Matrix Market file"):
        a_graph().to_mtx(tmp_path / "out.mtx")


def test_writing_where_no_file_can_be(tmp_path):
    A = a_graph()
    with pytest.raises(ld.MissingFile, match="cannot write Matrix Market file .*no_folder.*no such file"):
        A.to_mtx(tmp_path / "no_folder" / "g.mtx")
    with pytest.raises(ld.FileError, match="is a directory"):
        A.to_mtx(tmp_path)
    with pytest.raises(ld.DomainMismatch, match="file name must be a str or os.PathLike, got int"):
        A.to_mtx(7)
    with pytest.raises(ld.DomainMismatch, match="got bytes"):
        ld.Matrix.from_mtx(b"g.mtx", backend="cpu")


def test_files_that_exist_still_read(tmp_path):
    """The file checks are the opening's own: a good plain or compressed file reads as before."""
    import scipy.io
    for name in ("g.mtx", "g.mtx.gz"):
        a_graph().to_mtx(tmp_path / name)
        assert (ld.Matrix.from_mtx(tmp_path / name, backend="cpu").to_scipy() != scipy.io.mmread(
            tmp_path / name).astype(bool)).nnz == 0


@pytest.mark.parametrize("command", [["bfs", "--mtx"], ["bench", "--peers", "none", "--no-progress", "--mtx"],
                                     ["check"]])
def test_cli_says_which_file_is_missing(tmp_path, capsys, command):
    path = tmp_path / "missing.mtx"
    assert cli.main([*command, str(path), "--backend", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1:] == [
        f"lagraph-dist: error: cannot read Matrix Market file {path}: no such file or directory"], err
    assert "Traceback" not in err
