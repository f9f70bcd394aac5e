"""benchmarks/harness.py: every kind of graph spec parses to the graph it names (its edges and
its Matrix checked against graphs made here by hand or by scipy), a bad spec says what a spec
is, and the peers' answers pass the checks ours pass."""
import argparse
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from helpers import edges_to_scipy, load_script

HARNESS = Path(__file__).resolve().parents[1] / "benchmarks" / "harness.py"


@pytest.fixture(scope="module")
def harness():
    return load_script(HARNESS)


def pattern(A):
    S = A.to_scipy().astype(bool).astype(np.int8)
    S.sort_indices()
    return S


def same_pattern(A, S):
    return (pattern(A) != S.astype(bool).astype(np.int8)).nnz == 0


def test_kron(harness):
    spec = harness.parse_spec("kron:6")
    assert (spec.kind, spec.scale, spec.n, spec.drawn_roots) == ("kron", 6, 64, True)
    assert harness.graph_name(spec) == "Kronecker 6"
    assert harness.graph_info(spec) == {"kind": "kronecker", "scale": 6, "edgefactor": 16, "seed": 0}
    src, dst, n = harness.edges(spec)
    assert n == 64 and src.shape == dst.shape and not (src == dst).any()
    # the edges made symmetric are ld.kronecker's graph
    A, roots = harness.build("kron:6", "cpu")
    assert roots is None and same_pattern(A, edges_to_scipy(src, dst, n, symmetrize=True))


def test_two_kronecker_copies(harness):
    """kron2: two disjoint copies of the Kronecker graph, the second's ids past the first's; a
    search from one reaches nothing of the other."""
    spec = harness.parse_spec("kron2:6")
    assert (spec.kind, spec.scale, spec.n, spec.drawn_roots) == ("kron2", 6, 128, True)
    assert harness.graph_name(spec) == "two Kronecker 6"
    assert harness.graph_info(spec) == {"kind": "kronecker", "scale": 6, "edgefactor": 16, "seed": 0, "copies": 2}
    one, _ = harness.build("kron:6", "cpu")
    both, roots = harness.build("kron2:6", "cpu")
    S, T = pattern(one), pattern(both)
    assert roots is None and (T[:64, :64] != S).nnz == 0 and (T[64:, 64:] != S).nnz == 0
    assert T[:64, 64:].nnz == 0 and T[64:, :64].nnz == 0


def mesh_by_hand(rows, cols):
    src, dst = [], []
    for r in range(rows):
        for c in range(cols):
            for r2, c2 in ((r, c + 1), (r + 1, c)):
                if r2 < rows and c2 < cols:
                    src.append(r * cols + c)
                    dst.append(r2 * cols + c2)
    return edges_to_scipy(src, dst, rows * cols, symmetrize=True)


def test_mesh(harness):
    spec = harness.parse_spec("mesh:3x5")
    assert (spec.rows, spec.cols, spec.n, spec.drawn_roots) == (3, 5, 15, False)
    assert harness.graph_name(spec) == "mesh 3x5"
    assert harness.graph_info(spec) == {"kind": "mesh", "rows": 3, "cols": 5}
    A, roots = harness.build("mesh:3x5", "cpu")
    assert roots == [0] and A.n == 15 and same_pattern(A, mesh_by_hand(3, 5))


def test_path(harness):
    spec = harness.parse_spec("path:1200")
    assert harness.graph_name(spec) == "path 1200" and harness.graph_name(spec, grouped=True) == "path 1,200"
    A, roots = harness.build("path:1200", "cpu")
    assert roots == [0]
    assert same_pattern(A, edges_to_scipy(np.arange(1199), np.arange(1, 1200), 1200, symmetrize=True))
    hops = csgraph.shortest_path(A.to_scipy(), unweighted=True, indices=0)
    assert np.array_equal(harness.scipy_levels(hops), np.arange(1200))


def test_road(harness):
    spec = harness.parse_spec("road:200")
    assert harness.graph_name(spec) == "road 200 (k=3)" and harness.graph_info(spec) == {"kind": "road", "k": 3}
    A, roots = harness.build("road:200", "cpu")
    degrees = np.diff(pattern(A).indptr)
    assert roots == [0] and A.n == 200 and degrees.min() >= 3      # each point joined to its 3 nearest


def test_mtx_with_and_without_sources(harness, tmp_path):
    S = mesh_by_hand(4, 4)
    file = tmp_path / "grid.mtx"
    scipy.io.mmwrite(str(file), sp.tril(S).astype(np.int8), symmetry="symmetric")
    spec = harness.parse_spec(f"mtx:{file}:16")
    assert (spec.file, spec.sources, spec.drawn_roots) == (str(file), 16, True)
    assert harness.graph_name(spec) == "grid"
    assert harness.graph_info(spec) == {"kind": "real", "file": "grid.mtx"}
    plain = harness.parse_spec(f"mtx:{file}")
    assert (plain.file, plain.sources) == (str(file), None)
    A = harness.matrix(plain, "cpu")
    assert same_pattern(A, S)
    src, dst, n = harness.edges(plain)
    assert n == 16 and same_pattern(ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="cpu"), S)


@pytest.mark.parametrize("text,says", [
    ("kron", "unknown graph 'kron'"),
    ("torus:5", "unknown graph 'torus:5'"),
    ("kron:", "unknown graph 'kron:'"),
    ("kron:eight", "'eight' is not a whole number of at least 1"),
    ("kron:0", "'0' is not a whole number of at least 1"),
    ("mesh:4by4", "a mesh is mesh:ROWSxCOLS with both at least 1"),
    ("mesh:0x5", "a mesh is mesh:ROWSxCOLS with both at least 1"),
    ("path:1", "'1' is not a whole number of at least 2"),
    ("road:3", "'3' is not a whole number of at least 4"),
    ("mtx:x.mtx:0", "'0' is not a whole number of at least 1")])
def test_a_bad_spec_says_what_a_spec_is(harness, text, says):
    with pytest.raises(harness.SpecError, match=says):
        harness.parse_spec(text)


def test_argparse_prints_a_bad_specs_message(harness, capsys):
    parser = argparse.ArgumentParser(prog="bench")
    parser.add_argument("--graph", type=harness.parse_spec)
    with pytest.raises(SystemExit):
        parser.parse_args(["--graph", "mesh:2x"])
    assert "a mesh is mesh:ROWSxCOLS" in capsys.readouterr().err


def test_timed_calls_warm_up_check_and_budget(harness):
    calls, checked = [], []

    def call():
        calls.append(len(calls))
        return len(calls)
    seconds, kept, last = harness.timed_calls(call, 3, check=lambda r: checked.append(r) or r * 10)
    assert len(calls) == 4 and len(seconds) == 3 and checked == [2, 3, 4]      # the first call untimed
    assert kept == [20, 30, 40] and last == 4
    calls.clear(), checked.clear()
    seconds, kept, last = harness.timed_calls(call, 2, check=lambda r: checked.append(r) or r, warmups=3)
    assert len(calls) == 5 and checked == [4, 5] and len(seconds) == 2        # three untimed, unchecked
    seconds, _, _ = harness.timed_calls(lambda: sum(range(10**5)), 50, budget=0.0)
    assert len(seconds) == 1                                                    # one at least
    with pytest.raises(ValueError, match="keep is 'all' or 'median'"):
        harness.timed_calls(call, 3, check=lambda r: r, keep="best")


def test_timed_calls_keep_one_call_nearest_the_median(harness, monkeypatch):
    """keep="median": what the check returned for the call nearest the median of the calls so
    far (times 5, 1, 3, 9, 2.9: the third's), and nothing of the others once the next call
    starts."""
    import weakref
    took = iter([5.0, 1.0, 3.0, 9.0, 2.9])
    monkeypatch.setattr(harness, "timed", lambda A, call: (call(), next(took)))

    class Figures:
        def __init__(self, index):
            self.index = index
    alive, made = [], []

    def call():
        alive[:] = [ref for ref in alive if ref() is not None]
        assert len(alive) <= 1, "a call started with more than one earlier call's figures kept"
        return len(made)

    def check(result):
        figures = Figures(result)
        made.append(result)
        alive.append(weakref.ref(figures))
        return figures
    seconds, kept, _ = harness.timed_calls(call, 5, check=check, keep="median")
    assert seconds == [5.0, 1.0, 3.0, 9.0, 2.9] and [f.index for f in kept] == [2]


def test_peers_pass_the_checks_and_a_wrong_answer_does_not(harness):
    S = mesh_by_hand(5, 6)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    expected = ld.bfs(A, 0).levels.to_numpy()
    made, skipped = harness.peers(S, list(harness.PEERS))
    names = [p.name for p in made] + list(skipped)
    assert sorted(names) == sorted(harness.PEERS) and made[0].name == "scipy"
    for peer in made:
        peer.check(A, 0, expected, peer.search(0))
    scipy_peer = made[0]
    order, predecessors = scipy_peer.search(0)
    predecessors = predecessors.copy()
    predecessors[29] = 0                   # the far corner's parent: the source, no neighbour of it
    with pytest.raises(ld.ValidationError):
        scipy_peer.check(A, 0, expected, (order, predecessors))


def test_table(harness):
    assert harness.table(["a", "b"], [["1", "2"]]) == ["| a | b |", "|---|---|", "| 1 | 2 |"]


def test_a_gpu_record_names_its_hosts_processor_where_it_has_one(harness):
    """The GPU's name, then its host's processor: two records of one GPU model may come from
    different hosts, whose host-side times (scipy's, the host twin's) differ. Older records
    name the GPU alone."""
    gpu = {"backend": "gpu", "device": "NVIDIA H100 80GB HBM3", "gpus_visible": 1}
    assert harness.device_of(gpu) == "NVIDIA H100 80GB HBM3"
    assert harness.device_of(gpu | {"host_cpu": "AMD EPYC 9454"}) == "NVIDIA H100 80GB HBM3, host AMD EPYC 9454"
    assert harness.device_of({"backend": "cpu", "device": "AMD EPYC 9454", "cpu_count": 2}) == "CPU AMD EPYC 9454, 2 cores"


def test_hub_first_indices_orders_each_row_by_degree_then_id(harness):
    """Each row's entries come out largest degree first, ties by id, and each row keeps its
    entries: checked against a sort of every row done here, one row at a time."""
    rng = np.random.default_rng(5)
    S = sp.random(60, 60, density=0.15, format="csr", random_state=rng)
    S.sort_indices()
    indptr, indices = S.indptr.astype(np.int64), S.indices.astype(np.int32)
    degrees = rng.integers(0, 4, size=60)          # small: many ties, broken by id
    got = harness.hub_first_indices(indptr, indices, np.argsort(-degrees, kind="stable"))
    assert got.dtype == indices.dtype
    for r in range(60):
        row = indices[indptr[r]:indptr[r + 1]].tolist()
        assert got[indptr[r]:indptr[r + 1]].tolist() == sorted(row, key=lambda v: (-degrees[v], v))
