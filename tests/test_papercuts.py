"""Issue 18's newcomer papercuts, one section each: counts with their nouns ("1 vertex", never
"1 vertices")."""
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
