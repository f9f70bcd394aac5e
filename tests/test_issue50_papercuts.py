"""Issue 50's papercuts, one section each: a Matrix Market file with a duplicate entry through
``bfs`` and ``bench`` (``--merge-duplicates``, and an error that names it); ``from_scipy``'s
``symmetric`` (an undirected graph comes back undirected); plot titles that name the scale,
grid, ranks and backend; a plot written into a missing folder; ranks that outnumber the host's
cores; what ``get_backend`` returns; no scipy negative-weights warning; what docs/api.md says of
``bfs_multi``'s speed."""
import json
import re
import os
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from helpers import data_dir, edges_to_scipy, needs_mpi, run_mpi
from lagraph_dist.tools import cli

ROOT = Path(__file__).resolve().parents[1]
API = (ROOT / "docs" / "api.md").read_text()


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``lagraph-dist argv`` in this process."""
    try:
        status = cli.main([str(arg) for arg in argv])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def hop_levels(S, source):
    """scipy's unweighted shortest paths from ``source`` (on positive unit data): -1 unreached."""
    P = sp.csr_matrix(S, dtype=np.float64, copy=True)
    P.data[:] = 1.0
    hops = csgraph.shortest_path(P, unweighted=True, directed=True, indices=source)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


# -- 1. a Matrix Market file with a duplicate entry -------------------------------------------
@pytest.fixture
def duplicated_mtx(tmp_path):
    """A directed graph of 7 vertices whose file stores the edge 2 -> 3 (1-based) twice."""
    entries = [(1, 2), (2, 3), (3, 4), (2, 3), (4, 1), (4, 5), (6, 7), (5, 2)]
    path = tmp_path / "twice.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    f"7 7 {len(entries)}\n" + "".join(f"{i} {j}\n" for i, j in entries))
    return path


def test_a_duplicate_entry_error_says_how_to_accept_the_file(duplicated_mtx):
    with pytest.raises(ld.MatrixMarketError) as info:
        ld.Matrix.from_mtx(duplicated_mtx, backend="cpu")
    message = str(info.value)
    assert f"{duplicated_mtx}:6: duplicate entry (2, 3), already stored on line 4" in message
    assert "merge_duplicates=True" in message and "ld.Matrix.from_mtx" in message
    assert "--merge-duplicates" in message


@pytest.mark.parametrize("command", [["bfs", "--root", "0"],
                                     ["bench", "--roots", "2", "--peers", "none", "--no-progress"]])
def test_bfs_and_bench_refuse_a_duplicate_entry_naming_the_flag(capsys, duplicated_mtx, command):
    status, out, err = run(capsys, *command, "--mtx", duplicated_mtx, "--backend", "cpu")
    assert status == 2 and out == ""
    assert err.startswith("lagraph-dist: error: ") and "duplicate entry (2, 3)" in err
    assert "--merge-duplicates" in err


def test_bfs_merges_duplicates_when_asked(capsys, duplicated_mtx, tmp_path):
    saved = tmp_path / "levels.npz"
    status, out, err = run(capsys, "bfs", "--mtx", duplicated_mtx, "--merge-duplicates", "--root", "0",
                           "--root", "5", "--backend", "cpu", "--out", saved)
    assert status == 0, err
    merged = scipy.io.mmread(duplicated_mtx).tocsr()     # scipy reads the file, its copies summed
    assert merged.nnz == 7
    with np.load(saved) as arrays:
        for root in (0, 5):
            np.testing.assert_array_equal(arrays[f"levels_{root}"], hop_levels(merged, root))
    assert "7 stored (directed) edges" in out


def test_bench_merges_duplicates_when_asked(capsys, duplicated_mtx, tmp_path):
    record_file = tmp_path / "bench.json"
    status, out, err = run(capsys, "bench", "--mtx", duplicated_mtx, "--merge-duplicates", "--roots", "3",
                           "--peers", "none", "--backend", "cpu", "--no-progress", "--json", record_file)
    assert status == 0, err
    record = json.loads(record_file.read_text())
    assert record["graph"]["merge_duplicates"] is True and record["nvals"] == 7
    for run_ in record["lagraph_dist"].values():
        # every search validated, and its levels equal python-graphblas's on the merged graph
        assert run_["validated"] == run_["roots"] == 3 and run_["levels_checked"] == 3


def test_merge_duplicates_is_refused_for_a_generated_graph(capsys):
    status, _, err = run(capsys, "bfs", "--scale", "5", "--merge-duplicates", "--backend", "cpu")
    assert status == 2 and "--merge-duplicates applies to a --mtx file" in err


# -- 2. from_scipy's symmetric ------------------------------------------------------------------
def test_an_undirected_graph_comes_back_undirected_through_scipy():
    A = ld.kronecker(6, backend="cpu")
    B = ld.Matrix.from_scipy(A.to_scipy(), backend="cpu")
    assert B.symmetric
    G = B.to_networkx()
    assert type(G) is nx.Graph
    assert G.number_of_nodes() == A.n and 2 * G.number_of_edges() == A.nvals   # no self-loops
    assert {frozenset(e) for e in G.edges()} == {frozenset(e) for e in A.to_networkx().edges()}
    # every scipy format, and through the constructor's other path (not a canonical CSR)
    for S in (A.to_scipy().tocoo(), A.to_scipy().tocsc(), sp.coo_array(A.to_scipy()).tolil()):
        assert ld.Matrix.from_scipy(S, backend="cpu").symmetric


def test_a_directed_scipy_matrix_stays_directed():
    S = edges_to_scipy([0, 1, 2, 2], [1, 2, 0, 2], 4)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    assert not A.symmetric and type(A.to_networkx()) is nx.DiGraph
    assert set(A.to_networkx().edges()) == {(0, 1), (1, 2), (2, 0), (2, 2)}
    # a symmetric pattern told to stay directed stays directed
    U = edges_to_scipy([0, 1], [1, 2], 3, symmetrize=True)
    assert type(ld.Matrix.from_scipy(U, symmetric=False, backend="cpu").to_networkx()) is nx.DiGraph
    assert ld.Matrix.from_scipy(U, symmetric=True, backend="cpu").symmetric


def test_explicit_zeros_count_when_symmetry_is_found():
    """(1, 0) stored as an explicit zero is an edge: the pattern is symmetric."""
    S = sp.csr_matrix((np.array([1.0, 0.0]), (np.array([0, 1]), np.array([1, 0]))), shape=(2, 2))
    assert S.nnz == 2 and ld.Matrix.from_scipy(S, backend="cpu").symmetric


def test_a_wrong_symmetric_claim_is_refused():
    S = edges_to_scipy([0, 1], [1, 2], 3)
    for given in (S, S.tocoo(), S.tolil()):
        with pytest.raises(ld.InvalidValue, match="symmetric=True, but the matrix's pattern is not symmetric"):
            ld.Matrix.from_scipy(given, symmetric=True, backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="symmetric must be None, True or False, got 'yes'"):
        ld.Matrix.from_scipy(S, symmetric="yes", backend="cpu")


def test_a_symmetric_scipy_matrix_searches_as_the_directed_one_does():
    """Found symmetric, the graph gives the levels its directed reading gives, both directions."""
    S = edges_to_scipy(*ld.kronecker(7, seed=3, backend="cpu").to_edgelist().T, 128)
    sym, directed = (ld.Matrix.from_scipy(S, symmetric=s, backend="cpu") for s in (None, False))
    assert sym.symmetric and not directed.symmetric
    for direction in ("push", "pull"):
        np.testing.assert_array_equal(ld.bfs(sym, 1, direction=direction).levels.to_numpy(),
                                      ld.bfs(directed, 1, direction=direction).levels.to_numpy())


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_a_cupyx_matrix_is_found_symmetric_on_the_device():
    import cupy
    import cupyx.scipy.sparse as csp
    A = ld.kronecker(8, backend="cpu")
    C = csp.csr_matrix(A.to_scipy().astype(np.float32))
    assert ld.Matrix.from_scipy(C, backend="gpu").symmetric
    D = csp.csr_matrix(edges_to_scipy([0, 1, 2], [1, 2, 0], 4).astype(np.float32))
    assert not ld.Matrix.from_scipy(D, backend="gpu").symmetric
    with pytest.raises(ld.InvalidValue, match="not symmetric"):
        ld.Matrix.from_scipy(D, symmetric=True, backend="gpu")
    twice = csp.coo_matrix((cupy.ones(4, cupy.float32), (cupy.array([0, 1, 0, 1], cupy.int32),
                                                          cupy.array([1, 0, 1, 0], cupy.int32))), shape=(3, 3))
    assert ld.Matrix.from_scipy(twice, backend="gpu").symmetric      # duplicates merged first


def test_api_docs_describe_from_scipys_symmetric():
    assert 'ld.Matrix.from_scipy(S, *, symmetric=None, grid=None, backend="auto", root=0)' in API
    assert "`symmetric=True` is checked" in API and "`symmetric=False` keeps the graph directed" in API


# -- 3. plot titles name the graph, grid, ranks and backend --------------------------------------
@pytest.fixture(scope="module")
def bench_record():
    """A real record of a small run (1x1 grid, one rank, the CPU backend)."""
    from lagraph_dist.tools.bench import BenchConfig, run_bench
    A = ld.kronecker(7, seed=1, backend="cpu")
    info = {"kind": "kronecker", "scale": 7, "edgefactor": 16, "seed": 1, "build_seconds": 0.0}
    return run_bench(A, info, BenchConfig(roots=2, peers=("scipy",), progress=False))


def figure_title(record):
    """The title text of the figure drawn for ``record`` (matplotlib, Agg backend)."""
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from lagraph_dist.tools.plot import draw_record, pyplot
    fig = draw_record(record)
    try:
        return fig._suptitle.get_text()
    finally:
        pyplot().close(fig)


def test_plot_titles_tell_a_1x1_run_from_a_2x2_run(bench_record):
    one = figure_title(bench_record)
    four = json.loads(json.dumps(bench_record, default=str))        # the same record, as on 2x2
    four["environment"].update(grid=[2, 2], ranks=4)
    four["graph"]["scale"] = 9
    wide = figure_title(four)
    assert one != wide
    assert "Kronecker scale 7" in one and "grid 1x1 (1 rank)" in one and "cpu backend" in one
    assert "Kronecker scale 9" in wide and "grid 2x2 (4 ranks)" in wide and "cpu backend" in wide
    assert bench_record["environment"]["device"] in one


def test_plot_title_of_a_file_graph_names_the_file():
    from lagraph_dist.tools.plot import record_title
    record = {"graph": {"kind": "mtx", "path": "/data/west0067.mtx"}, "backend": "gpu",
              "environment": {"grid": [1, 2], "ranks": 2, "device": "NVIDIA H200"}}
    assert record_title(record) == ("Matrix Market file west0067.mtx; grid 1x2 (2 ranks); gpu backend, "
                                    "NVIDIA H200")


# -- 4. a plot written into a missing folder ------------------------------------------------------
def test_plot_into_a_missing_folder_names_the_folder(bench_record, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from lagraph_dist.tools.bench import write_json
    write_json(bench_record, tmp_path / "bench.json")
    folder = tmp_path / "missing" / "dir"
    status, out, err = run(capsys, "plot", tmp_path / "bench.json", "-o", folder / "x.png")
    assert status != 0 and out == ""
    assert err.strip() == (f"lagraph-dist: error: cannot write the plot {folder / 'x.png'} (the folder "
                           f"{folder} does not exist): no such file or directory")
    assert "Errno" not in err and not (tmp_path / "missing").exists()
    # the library call raises the package's MissingFile, which is also the OSError
    from lagraph_dist.tools.plot import plot_record
    with pytest.raises(ld.MissingFile) as info:
        plot_record(bench_record, folder / "x.png")
    assert isinstance(info.value, FileNotFoundError) and str(folder) in str(info.value)


# -- 5. ranks that outnumber the host's cores -----------------------------------------------------
@pytest.mark.parametrize("ranks,cores,crowded", [(1, 1, False), (2, 2, False), (1, 64, False),
                                                 (3, 2, True), (4, 2, True), (128, 64, True)])
def test_oversubscription_arithmetic(ranks, cores, crowded):
    from lagraph_dist.tools.bench import oversubscription
    assert oversubscription(ranks, cores) == {"oversubscribed": crowded, "ranks_on_host": ranks,
                                              "usable_cores": cores}


def test_one_process_is_not_oversubscribed():
    from mpi4py import MPI
    from lagraph_dist.tools.bench import host_load
    assert host_load(MPI.COMM_SELF) == {"oversubscribed": False, "ranks_on_host": 1,
                                        "usable_cores": len(os.sched_getaffinity(0))}


def test_bench_warns_once_and_records_oversubscription(monkeypatch, capsys, tmp_path):
    """A host of 4 ranks and 2 usable cores (as host_load would find it): one warning, the
    record and the table say so."""
    from lagraph_dist.tools import bench
    monkeypatch.setattr(bench, "host_load", lambda comm: bench.oversubscription(4, 2))
    record_file = tmp_path / "bench.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, out, err = run(capsys, "bench", "--scale", "6", "--roots", "2", "--peers", "none",
                               "--no-check-levels", "--no-progress", "--backend", "cpu", "--json", record_file)
    assert status == 0, err
    crowded = [w for w in caught if issubclass(w.category, bench.OversubscribedWarning)]
    assert len(crowded) == 1 and issubclass(crowded[0].category, RuntimeWarning)
    assert "4 MPI ranks share the 2 usable cores of a host" in str(crowded[0].message)
    record = json.loads(record_file.read_text())
    assert (record["oversubscribed"], record["ranks_on_host"], record["usable_cores"]) == (True, 4, 2)
    assert "Oversubscribed: 4 ranks on a host of 2 usable cores" in out


def test_bench_on_enough_cores_does_not_warn(capsys, tmp_path):
    from lagraph_dist.tools import bench
    record_file = tmp_path / "bench.json"
    with warnings.catch_warnings():
        warnings.simplefilter("error", bench.OversubscribedWarning)
        status, out, err = run(capsys, "bench", "--scale", "6", "--roots", "2", "--peers", "none",
                               "--no-check-levels", "--no-progress", "--backend", "cpu", "--json", record_file)
    assert status == 0, err
    record = json.loads(record_file.read_text())
    assert record["oversubscribed"] is False and record["ranks_on_host"] == 1
    assert "Oversubscribed" not in out


HOST_LOAD = """
from mpi4py import MPI
from lagraph_dist.tools.bench import host_load
load = host_load(MPI.COMM_WORLD)
if MPI.COMM_WORLD.Get_rank() == 0:
    print("LOAD", load["oversubscribed"], load["ranks_on_host"], load["usable_cores"], flush=True)
"""


@pytest.mark.mpi
@needs_mpi
def test_host_load_counts_the_ranks_of_this_host(tmp_path):
    """More ranks than this machine's cores under mpiexec: host_load finds them all on one host."""
    cores = len(os.sched_getaffinity(0))
    ranks = cores + 1
    if ranks > 8:
        pytest.skip(f"{ranks} ranks would be too many to start here")
    script = tmp_path / "load.py"
    script.write_text(HOST_LOAD)
    done = run_mpi(ranks, script, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("LOAD")]
    found, on_host, usable = line.split()[1:]
    assert found == "True" and int(on_host) == ranks and int(usable) <= cores


# -- 6. what get_backend returns --------------------------------------------------------------------
def test_get_backend_returns_the_backend_object():
    from lagraph_dist.local.backend import Backend
    backend = ld.get_backend("auto")
    assert isinstance(backend, Backend) and backend.name in {"cpu", "gpu"}
    assert ld.get_backend(backend) is backend and ld.get_backend("cpu").name == "cpu"
    line = next(line for line in API.splitlines() if line.startswith('ld.get_backend("auto")'))
    assert "a Backend object, whose .name is" in line and '# "gpu" when' not in line
    assert '`ld.get_backend("auto").name` is `"cpu"`' in " ".join(API.split())
    assert "The :class:`Backend` object (not its name)" in ld.get_backend.__doc__


# -- 7. no scipy negative-weights warning -----------------------------------------------------------
def test_levels_of_a_valued_file_raise_no_warning(tmp_path):
    """test_examples' scipy levels of a Matrix Market file with negative values (west0067 has
    them) went through csgraph's shortest paths on those values, which warns; on the pattern
    they raise nothing, and a stored zero is still an edge."""
    from test_examples import mtx_levels
    path = tmp_path / "valued.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n5 5 4\n"
                    "1 2 -1.5\n2 3 0.0\n3 4 2.0\n5 1 -3.0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        levels = mtx_levels(path, 0)
    np.testing.assert_array_equal(levels, [0, 1, 2, 3, -1])
    west0067 = data_dir() / "lagraph" / "west0067.mtx"
    if west0067.exists():                       # the real file, when the data folder is there
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            reached = int((mtx_levels(west0067, 3) >= 0).sum())
        assert reached == int((ld.reference.bfs_levels_scipy(scipy.io.mmread(west0067), 3) >= 0).sum())


# -- 8. what the docs say of bfs_multi's speed ------------------------------------------------------
def test_docs_say_what_bfs_multi_is_for_and_how_fast_it_is():
    """The section says what bfs_multi is for, and every figure it gives is the record's it
    names: searches a second and the ratio to separate calls, per machine and graph."""
    section = API[API.index("## Multi-source BFS"):API.index("## Paths")]
    text = " ".join(section.split())
    assert "all the searches' outputs together, as (k, n) arrays from one call" in text
    assert "the searches' waves rarely meet" in text and "one at a time" in text
    claims = re.findall(r"\(`([\w.-]+\.json)`\):(.*?)(?=\(`[\w.-]+\.json`\)|$)", text)
    assert {name.split("-multi-source")[0] for name, _ in claims} == {"h200", "cpu"}
    for name, claim in claims:
        runs = json.loads((ROOT / "benchmarks" / "results" / name).read_text())["runs"]
        figures = re.findall(r"(Kronecker \d+|4elt), (\d+) sources: ([\d,]+) searches/s[^,;.]*, ([\d.]+)x", claim)
        assert figures, claim
        for graph, k, rate, ratio in figures:
            run = next(r for r in runs if r["graph"] == graph and r["sources"] == int(k) and not r["parents"])
            assert round(run["batch_searches_per_second"]) == int(rate.replace(",", "")), (name, graph, k)
            assert f"{run['ratio_to_separate']:.1f}" == ratio, (name, graph, k)
    doc = " ".join(ld.bfs_multi.__doc__.split())
    assert "one at a time" in doc and "names the records" in doc