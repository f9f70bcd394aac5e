"""``lagraph-dist bench --algorithm msbfs|bc|cc``: each runs ours beside its own peers on the
same graph and sources, checks our answer against the first peer's (a wrong answer raises), and
writes a record with every timing and ratio; options that do not apply are refused."""
import json

import numpy as np
import pytest

from lagraph_dist.core.errors import ValidationError
from lagraph_dist.tools import family_bench
from helpers import run_cli as run


@pytest.mark.parametrize("algorithm, unit, peers", [("msbfs", "searches", ["scipy"]),
                                                    ("bc", "sources", ["networkx", "graphblas"]),
                                                    ("cc", "calls", ["scipy", "networkx"])])
def test_record_and_table(capsys, tmp_path, algorithm, unit, peers):
    record_file = tmp_path / f"{algorithm}.json"
    status, out, err = run(capsys, "bench", "--algorithm", algorithm, "--scale", "8", "--roots", "4",
                           "--repeats", "2", "--json", str(record_file))
    assert status == 0, err
    record = json.loads(record_file.read_text())
    assert record["algorithm"] == algorithm and record["unit"] == unit and record["n"] == 256
    assert len(record["seconds"]) == 2 and record["rate"] > 0
    assert len(record["sources"]) == (0 if algorithm == "cc" else 4)
    assert list(record["peers"]) == peers and record["checked_against"] == peers[0]
    for peer in record["peers"].values():
        assert peer["done"] >= 1 and peer["ratio"] == pytest.approx(record["rate"] / peer["rate"])
    assert record["environment"]["backend"] == "cpu"
    # per-level records: the multi-source search's own, the others' products traced
    assert record["levels"] and {"direction", "seconds", "edges_examined", "launches", "host_reads"} <= set(
        record["levels"][0])
    if algorithm == "bc":             # on one CPU process: each batch's levels, then its sweeps in one call
        assert {r["op"] for r in record["levels"]} == {"searches", "sweeps"}
    if algorithm == "cc":             # on one process: the kernel set's union-find, one record
        assert [r["op"] for r in record["levels"]] == ["components"]
        assert record["levels"][0]["direction"] == "union-find" and record["levels"][0]["edges_examined"] > 0
    assert f"our answer equals {peers[0]}'s" in out


def test_wrong_answers_are_caught():
    import lagraph_dist as ld
    A = ld.Matrix.from_edges([0, 1, 3], [1, 2, 4], 5, symmetrize=True, backend="cpu")
    result = ld.bfs_multi(A, [0], parents=False)
    hops = np.array([[0, 1, 2, -1, -1]])
    family_bench._check_msbfs(A, None, result, hops, 1)
    with pytest.raises(ValidationError, match="scipy"):
        family_bench._check_msbfs(A, None, result, hops + 1, 1)
    labels = ld.connected_components(A)
    family_bench._check_cc(A, None, labels, np.array([7, 7, 7, 3, 3]), 1)
    with pytest.raises(ValidationError, match="partition"):
        family_bench._check_cc(A, None, labels, np.array([7, 7, 3, 3, 3]), 1)


def test_betweenness_is_checked_against_graphblas_values():
    """With python-graphblas first, ours is checked against the dependencies it summed (scaled as
    networkx scales a sample), not by running networkx; a wrong value is caught."""
    import lagraph_dist as ld
    graphblas = pytest.importorskip("graphblas", reason="python-graphblas is not installed")
    del graphblas
    for directed in (False, True):
        rng = np.random.default_rng(4)
        A = ld.Matrix.from_edges(rng.integers(0, 40, 90), rng.integers(0, 40, 90), 40, symmetrize=not directed,
                                 backend="cpu")
        S, ran = A.to_scipy(), [3, 7, 11, 20]
        answer, done, _ = family_bench._graphblas_betweenness(S, ran, directed, 10.0)
        assert done == 4 and answer[0] == ran
        result, _ = family_bench._bc(A, ran)
        family_bench._check_bc(A, S, result, answer, done)
        wrong = np.array(answer[1], dtype=np.float64)
        wrong[np.argmax(wrong)] *= 1.001
        with pytest.raises(ValidationError, match="peer's"):
            family_bench._check_bc(A, S, result, (ran, wrong), done)


def test_the_peers_run_the_first_peer_roots(capsys, tmp_path):
    record_file = tmp_path / "bc.json"
    status, out, err = run(capsys, "bench", "--algorithm", "bc", "--scale", "8", "--roots", "6", "--peer-roots",
                           "2", "--peers", "graphblas", "--repeats", "1", "--json", str(record_file))
    assert status == 0, err
    record = json.loads(record_file.read_text())
    assert len(record["sources"]) == 6 and record["peer_roots"] == 2
    assert record["peers"]["graphblas"]["done"] == 2 and record["checked_against"] == "graphblas"


@pytest.mark.parametrize("argv, message", [
    (["--algorithm", "bc", "--peers", "scipy"], "not a peer of --algorithm bc"),
    (["--peers", "networkx"], "not a peer of the search"),
    (["--algorithm", "cc", "--peer-roots", "2"], "cc takes no roots"),
])
def test_options_that_do_not_apply_are_refused(capsys, argv, message):
    status, out, err = run(capsys, "bench", "--scale", "6", "--roots", "2", *argv)
    assert status != 0 and message in err


@pytest.mark.parametrize("algorithm", ["bc", "cc"])
def test_the_plot_of_a_family_record(capsys, tmp_path, algorithm):
    """bench --algorithm ... --plot draws ours beside the peers and the per-level records; the
    plot command draws the same from the JSON."""
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    png, record_file = tmp_path / "family.png", tmp_path / "family.json"
    status, out, err = run(capsys, "bench", "--algorithm", algorithm, "--scale", "7", "--roots", "3",
                           "--repeats", "1", "--json", str(record_file), "--plot", str(png))
    assert status == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    status, out, err = run(capsys, "plot", str(record_file), "-o", str(tmp_path / "again.png"))
    assert status == 0 and (tmp_path / "again.png").stat().st_size > 20_000, err
