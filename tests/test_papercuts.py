"""Issue 18's newcomer papercuts, one section each: counts with their nouns ("1 vertex", never
"1 vertices"); a file that cannot be read or written raises a LagraphDistError that is also the
matching OSError; conversions out are collective, with the object on ``root`` (None elsewhere)
or on every rank (``root=None``; vectors always); a networkx graph keeps its node labels (a
label as source, results by label, against networkx itself); docs/api.md names every public
name, constructor and converter and says what bfs takes. tests/mpi/check_grid.py checks the
conversions, labels and missing files on every grid shape; tests/test_examples.py the examples'
bad arguments."""
import builtins
import errno
import os
import re
from pathlib import Path

import graphblas as gb
import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import lagraph_dist as ld
from helpers import edges_to_scipy, pattern
from lagraph_dist.tools import cli
from lagraph_dist.tools.check import verdict
from lagraph_dist.tools.reference import Comparison
from lagraph_dist.core.text import plural


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
    import lagraph_dist.core.errors
    path = tmp_path / "g.mtx"
    a_graph().to_mtx(path)

    def refuse(name, mode="r", **options):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(name))
    monkeypatch.setattr(lagraph_dist.core.errors, "open", refuse, raising=False)
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


# -- conversions out ------------------------------------------------------------------------------
SRC, DST, N = [0, 0, 1, 3, 4, 4], [1, 2, 2, 4, 0, 4], 6      # a self-loop, vertex 5 isolated


def networkx_edges(G):
    """The directed edges of a networkx graph: both ways for an undirected one."""
    edges = set(G.edges())
    return edges if G.is_directed() else edges | {(b, a) for a, b in edges}


def matrix_outs(A, root):
    """Every conversion of a Matrix, as {name: the pattern it holds} (None where it gave None)."""
    outs = {"to_scipy": A.to_scipy(root=root), "to_graphblas": A.to_graphblas(root=root),
            "to_networkx": A.to_networkx(root=root), "to_edgelist": A.to_edgelist(root=root)}
    readers = {"to_scipy": pattern,
               "to_graphblas": lambda M: set(zip(*(ids.tolist() for ids in M.to_coo(values=False)[:2]))),
               "to_networkx": networkx_edges,
               "to_edgelist": lambda E: set(map(tuple, E.tolist()))}
    return {name: None if out is None else readers[name](out) for name, out in outs.items()}


@pytest.mark.parametrize("symmetrize", [False, True])
@pytest.mark.parametrize("root", [0, None])
def test_matrix_conversions_on_one_rank(symmetrize, root):
    A = ld.Matrix.from_edges(SRC, DST, N, symmetrize=symmetrize, backend="cpu")
    expected = pattern(edges_to_scipy(SRC, DST, N, symmetrize=symmetrize))
    assert matrix_outs(A, root) == dict.fromkeys(["to_scipy", "to_graphblas", "to_networkx", "to_edgelist"],
                                                 expected)
    assert A.to_networkx(root=root).number_of_nodes() == N
    assert pattern(A.T.to_scipy(root=root)) == {(b, a) for a, b in expected}


@pytest.mark.parametrize("root", [1, -1, True, 0.0, "0"])
def test_conversions_refuse_a_root_that_is_no_rank(root, tmp_path):
    A = ld.Matrix.from_edges(SRC, DST, N, backend="cpu")
    for convert in (A.to_scipy, A.to_graphblas, A.to_networkx, A.to_edgelist):
        with pytest.raises(ld.InvalidValue, match=r"root must be a rank in \[0, 1\) \(or None: on every rank\)"):
            convert(root=root)
    with pytest.raises(ld.InvalidValue, match=r"root must be a rank in \[0, 1\), got"):
        A.to_mtx(tmp_path / "g.mtx", root=root)


def test_to_mtx_writes_on_one_rank_only(tmp_path):
    with pytest.raises(ld.InvalidValue, match=r"root must be a rank in \[0, 1\), got None"):
        ld.Matrix.from_edges(SRC, DST, N, backend="cpu").to_mtx(tmp_path / "g.mtx", root=None)
    assert not (tmp_path / "g.mtx").exists()


def test_to_cupyx_without_cupy_says_so():
    try:
        import cupyx.scipy.sparse  # noqa: F401
        pytest.skip("CuPy is installed here")
    except ImportError:
        pass
    with pytest.raises(ld.Unsupported, match="to_cupyx needs the cupyx.scipy.sparse package"):
        ld.Matrix.from_edges(SRC, DST, N, backend="cpu").to_cupyx(root=None)


def test_vector_conversions_are_on_every_rank():
    v = ld.Vector.from_indices([4, 1, 3], N, values=np.array([7, -2, 5]), backend="cpu")
    ids, values = v.to_coo()
    assert ids.tolist() == [1, 3, 4] and values.tolist() == [-2, 5, 7]
    assert v.to_numpy().tolist() == [-1, -2, -1, 5, 7, -1] and v.indices().tolist() == [1, 3, 4]
    assert v.to_graphblas().isequal(gb.Vector.from_coo([1, 3, 4], [-2, 5, 7], size=N), check_dtype=True)


# -- networkx node labels -------------------------------------------------------------------------
def labelled_graph(directed, seed=5):
    """A random networkx graph whose nodes are strings, some isolated, in a shuffled order."""
    rng = np.random.default_rng(seed)
    names = [f"v{k}" for k in rng.permutation(30)]
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(names)
    G.add_edges_from((names[a], names[b]) for a, b in rng.integers(0, 25, size=(45, 2)))
    return G


def check_parents_by_label(G, source, levels, parents):
    """Parents by the BFS-tree rules, read off G itself: the source is its own parent, every
    other reached node's parent is an in-neighbour one level up."""
    assert set(parents) == set(levels) and parents[source] == source
    for node, parent in parents.items():
        if node != source:
            assert G.has_edge(parent, node) and levels[parent] == levels[node] - 1, (node, parent)


@pytest.mark.parametrize("directed", [False, True])
def test_labels_as_source_and_in_the_results(directed):
    G = labelled_graph(directed)
    A = ld.Matrix.from_networkx(G, backend="cpu")
    assert A.labels == tuple(G) and A.T.labels == tuple(G)
    for source in list(G)[:6]:
        res = ld.bfs(A, source)
        assert res.source == list(G).index(source)
        levels, parents = res.levels_by_label(A), res.parents_by_label(A)
        assert levels == nx.single_source_shortest_path_length(G, source)
        check_parents_by_label(G, source, levels, parents)
    assert nx.utils.graphs_equal(A.to_networkx(), G) and list(A.to_networkx()) == list(G)


def test_nodelist_orders_the_labels():
    G = labelled_graph(True, seed=8)
    order = sorted(G, reverse=True)
    A = ld.Matrix.from_networkx(G, nodelist=order, backend="cpu")
    assert A.labels == tuple(order) and [A.vertex_id(node) for node in order] == list(range(len(order)))
    source = order[3]
    assert ld.bfs(A, source).levels_by_label(A) == nx.single_source_shortest_path_length(G, source)


def test_a_networkx_graph_given_to_bfs_takes_a_label():
    G = labelled_graph(False, seed=3)
    source = list(G)[2]
    levels = ld.bfs(G, source).levels.to_numpy()          # vertex k is the k-th node of G
    expected = nx.single_source_shortest_path_length(G, source)
    assert levels.tolist() == [expected.get(node, -1) for node in G]


def test_integer_nodes_0_to_n_minus_1_stay_ids():
    G = nx.path_graph(6, create_using=nx.DiGraph)
    H = nx.DiGraph()
    H.add_nodes_from([4, 1, 5, 0, 3, 2])                  # the same nodes, inserted out of order
    H.add_edges_from(G.edges())
    for graph in (G, H):
        A = ld.Matrix.from_networkx(graph, backend="cpu")
        assert A.labels is None and A.vertex_id(4) == 4
        res = ld.bfs(A, 2)
        assert res.levels.to_numpy().tolist() == [-1, -1, 0, 1, 2, 3]
        assert res.levels_by_label(A) == nx.single_source_shortest_path_length(graph, 2)
        assert res.parents_by_label(A) == {2: 2, 3: 2, 4: 3, 5: 4}
    assert ld.Matrix.from_networkx(G, nodelist=range(6), backend="cpu").labels is None


def test_integer_labels_that_are_not_positions_are_labels():
    G = nx.Graph([(10, 20), (20, 30), (30, 40)])
    A = ld.Matrix.from_networkx(G, backend="cpu")
    assert A.labels == (10, 20, 30, 40)
    assert ld.bfs(A, 20).levels_by_label(A) == {10: 1, 20: 0, 30: 1, 40: 2}
    with pytest.raises(ld.IndexOutOfBound, match="source 1 is not a node of this graph"):
        ld.bfs(A, 1)
    P = ld.Matrix.from_networkx(nx.path_graph(4), nodelist=[3, 2, 1, 0], backend="cpu")
    assert P.labels == (3, 2, 1, 0)
    res = ld.bfs(P, 3)                                      # node 3 is vertex 0
    assert res.source == 0 and res.levels_by_label(P) == {3: 0, 2: 1, 1: 2, 0: 3}
    assert res.levels.to_numpy().tolist() == [0, 1, 2, 3]


def test_bad_labels_and_targets():
    G = nx.DiGraph([("a", "b"), ("b", "c")])
    A = ld.Matrix.from_networkx(G, backend="cpu")
    with pytest.raises(ld.IndexOutOfBound, match=r"source 'z' is not a node of this graph \(its nodes are "
                                                 r"labelled 'a', 'b', 'c'\)"):
        ld.bfs(A, "z")
    with pytest.raises(ld.DomainMismatch, match=r"source must be a node label.*unhashable list \['a'\]"):
        ld.bfs(A, ["a"])
    with pytest.raises(ld.IndexOutOfBound, match="node 'q' is not a node"):
        A.vertex_id("q")
    with pytest.raises(ld.DomainMismatch, match=r"target must be a vertex id, got 'c'; A.vertex_id"):
        ld.bfs(A, "a", target="c")
    stopped = ld.bfs(A, "a", target=A.vertex_id("b"))       # a target is an id, found by vertex_id
    assert stopped.levels_by_label(A) == {"a": 0, "b": 1}
    unlabelled = ld.Matrix.from_edges([0], [1], 2, backend="cpu")
    with pytest.raises(ld.IndexOutOfBound, match="node 2 is out of range for a graph of 2 vertices"):
        unlabelled.vertex_id(2)


def test_results_by_label_need_the_searched_matrix_and_the_output():
    G = nx.Graph([("a", "b")])
    A = ld.Matrix.from_networkx(G, backend="cpu")
    only_parents = ld.bfs(A, "a", levels=False)
    with pytest.raises(ld.InvalidValue, match="this result has no levels: run bfs with levels=True"):
        only_parents.levels_by_label(A)
    assert only_parents.parents_by_label(A) == {"a": "a", "b": "a"}
    with pytest.raises(ld.InvalidValue, match="no parents"):
        ld.bfs(A, "a", parents=False).parents_by_label(A)
    with pytest.raises(ld.DomainMismatch, match="needs the searched lagraph_dist.Matrix.*networkx"):
        only_parents.parents_by_label(G)
    with pytest.raises(ld.DimensionMismatch, match="graph of 2 vertices, A has 3"):
        only_parents.parents_by_label(ld.Matrix.from_edges([0], [1], 3, backend="cpu"))


def test_reference_compare_takes_a_label():
    G = labelled_graph(True, seed=2)
    A = ld.Matrix.from_networkx(G, backend="cpu")
    source = list(G)[4]
    report = ld.reference.compare(A, source)
    assert report.ok and report.source == A.vertex_id(source)
    assert report.reached == len(nx.single_source_shortest_path_length(G, source))


# -- docs/api.md ----------------------------------------------------------------------------------
API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


@pytest.fixture(scope="module")
def api_doc():
    return API_DOC.read_text()


def test_api_doc_names_every_public_name(api_doc):
    missing = [name for name in ld.__all__ if not re.search(rf"(`|\bld\.){re.escape(name)}\b", api_doc)]
    assert not missing, f"docs/api.md does not name {missing}"


@pytest.mark.parametrize("cls", [ld.Matrix, ld.Vector], ids=["Matrix", "Vector"])
def test_api_doc_lists_every_constructor_and_converter(api_doc, cls):
    names = [name for name in dir(cls) if name.startswith(("from_", "to_"))]
    assert len(names) >= 4
    missing = [name for name in names if not re.search(rf"\b{name}\(", api_doc)]
    assert not missing, f"docs/api.md does not show {cls.__name__}.{missing}"


def test_api_doc_errors_table_is_true(api_doc):
    """Every exception of the package has a row, and the builtins it says each also is are its
    bases (the nearest builtin base among them)."""
    for name in ld.__all__:
        cls = getattr(ld, name)
        if not (isinstance(cls, type) and issubclass(cls, ld.LagraphDistError)) or cls is ld.LagraphDistError:
            continue
        row = re.search(rf"^\| `{name}` \|([^|]*)\|", api_doc, flags=re.M)
        assert row, f"no row for {name}"
        said = re.findall(r"`(\w+)`", row.group(1))
        assert all(issubclass(cls, getattr(builtins, b, None) or getattr(ld, b)) for b in said), (name, said)
        nearest = next((k for k in cls.__mro__[1:] if k.__module__ == "builtins"), Exception)
        assert nearest is Exception or nearest.__name__ in said, (name, nearest, said)


def test_api_doc_says_bfs_takes_what_it_takes(api_doc):
    """The BFS section names every graph kind bfs converts, and bfs does take each of them."""
    section = api_doc.split("\n## BFS\n")[1].split("\n## ")[0]
    assert "is not an `ld.Matrix`" not in section
    for kind in ("scipy sparse matrix", "cupyx sparse matrix", "`graphblas.Matrix`", "networkx\ngraph"):
        assert kind in section, kind
    S = edges_to_scipy(SRC, DST, N)
    G = nx.DiGraph()
    G.add_nodes_from(range(N))
    G.add_edges_from(zip(SRC, DST))
    expected = [nx.single_source_shortest_path_length(G, 0).get(v, -1) for v in range(N)]
    for graph in (S, sp.coo_array(S), ld.Matrix.from_scipy(S, backend="cpu").to_graphblas(), G):
        assert ld.bfs(graph, 0).levels.to_numpy().tolist() == expected, type(graph)
