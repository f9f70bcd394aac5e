"""What a newcomer runs first: every example runs with no arguments, as one process and under
``mpiexec -n 2``, prints its report once (rank 0 only), and reports
what an independent computation (scipy.sparse.csgraph over the same edges) says about the
graph; given a bad argument (not a number, too many, a missing file, a source out of range) it
prints one line and exits with status 2, no traceback. The README and docs link only files
that are in the repository, and every Python block of the README runs as written."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse
import scipy.sparse.csgraph as csgraph

from helpers import data_file, edges_to_scipy, launcher_environment, mpi_command, needs_mpi
from lagraph_dist.io.generators import kronecker_edges

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TIMEOUT = 300       # seconds a run may take (ranks oversubscribed on a small machine)
RANKS = 2           # the examples on a 1 x 2 grid (test_mpi_grids runs every grid shape)


LAUNCHES = [
    pytest.param(1, id="1-process"),
    pytest.param(RANKS, id=f"mpiexec-{RANKS}", marks=[
        pytest.mark.mpi, needs_mpi]),
]


def run_example(ranks, name, *args):
    """stdout of ``examples/<name>`` run as one process or under mpiexec; fails on a nonzero exit."""
    return run_script(ranks, EXAMPLES / name, *args)


def run_script(ranks, path, *args):
    command = ([sys.executable, str(path), *map(str, args)] if ranks == 1 else
               mpi_command(ranks, path, *args))
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=launcher_environment())
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return done.stdout


def grid_of(ranks):
    return "1x1" if ranks == 1 else f"1x{ranks}"


# -- the independent side -----------------------------------------------------------------
def levels_by_scipy(S, source):
    """Hop distances from ``source`` by scipy's own BFS-based shortest paths; -1 unreached."""
    hops = csgraph.shortest_path(S, unweighted=True, directed=True, indices=source)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


def kronecker_scipy(scale):
    """The Graph500 graph ``ld.kronecker(scale, seed=0)`` stands for, built straight from the
    generator's edge list: self-loops dropped, symmetrized, duplicates merged."""
    src, dst = kronecker_edges(scale, 16, seed=0)
    keep = src != dst
    return edges_to_scipy(src[keep], dst[keep], 1 << scale, symmetrize=True)


def first_vertex_with_edges(S):
    return int(np.flatnonzero(np.diff(S.indptr))[0])


def level_sizes(levels):
    return np.bincount(levels[levels >= 0]).tolist()


@pytest.fixture(scope="module")
def small_mtx(tmp_path_factory):
    """A directed graph with unreachable parts, written by hand as Matrix Market (source 3)."""
    rng = np.random.default_rng(7)
    n = 60
    pairs = {(int(u), int(v)) for u, v in rng.integers(0, n, size=(90, 2)) if u != v}
    path = tmp_path_factory.mktemp("graphs") / "small.mtx"
    lines = [f"{u + 1} {v + 1}" for u, v in sorted(pairs)]
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    f"{n} {n} {len(lines)}\n" + "\n".join(lines) + "\n")
    return path, 3


def mtx_levels(path, source):
    """Hop distances on the file's pattern: its values (west0067's are partly negative, which
    scipy's shortest paths warn about) replaced by ones; a stored zero stays an edge."""
    S = scipy.io.mmread(path).tocsr()
    S.data = np.ones_like(S.data, dtype=np.float64)
    return levels_by_scipy(S, source)


# -- the examples -------------------------------------------------------------------------
@pytest.mark.parametrize("ranks", LAUNCHES)
def test_bfs_basic(ranks):
    out = run_example(ranks, "bfs_basic.py")
    S = kronecker_scipy(12)                       # the example's default graph
    source = first_vertex_with_edges(S)
    expected = levels_by_scipy(S, source)
    reports = re.findall(r"<Matrix n=(\d+) nvals=(\d+) on (\w+) \w+>: from (\d+), reached (\d+) "
                         r"vertices in (\d+) levels, [\d.]+ ms, valid", out)
    assert reports == [(str(S.shape[0]), str(S.nnz), grid_of(ranks), str(source),
                        str(int((expected >= 0).sum())), str(int(expected.max())))], out
    # per level: frontier -> discovered, which are the sizes of consecutive BFS levels
    steps = [(int(f), int(d)) for f, d in re.findall(r"level \d+: (?:push|pull) frontier\s+(\d+) ->\s+(\d+)", out)]
    sizes = level_sizes(expected) + [0]
    assert steps == list(zip(sizes[:-1], sizes[1:])), out


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_algebra(ranks):
    out = run_example(ranks, "algebra.py")
    # the graph drawn in the example: 0 -> 1 -> 2 -> 3, 0 -> 2, 4 isolated
    assert out.splitlines() == [
        "level 1: 2 vertices [1, 2] with parents [0, 0]",
        "level 2: 1 vertex [3] with parents [2]",
        "levels by the algebra: [0, 1, 1, 2, -1]",
        "python-graphblas levels: [0, 1, 1, 2, -1]",
        "levels equal, 4 reached",
    ]


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_algebra_on_a_file(ranks, small_mtx):
    path, source = small_mtx
    out = run_example(ranks, "algebra.py", path, source)
    expected = mtx_levels(path, source)
    found = [int(k) for k in re.findall(r"^level \d+: (\d+) vert(?:ex|ices) ", out, flags=re.M)]
    assert found == level_sizes(expected)[1:], out
    assert re.findall(r"^levels \w+, \d+ reached$", out, flags=re.M) == [
        f"levels equal, {int((expected >= 0).sum())} reached"], out


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_compare_reference(ranks):
    out = run_example(ranks, "compare_reference.py")
    S = kronecker_scipy(10)                       # the example's default graph
    reached = int((levels_by_scipy(S, first_vertex_with_edges(S)) >= 0).sum())
    assert re.findall(r"^(\w+)\s*: levels (\w+), parents valid, (\d+) reached$", out, flags=re.M) == [
        (direction, "equal", str(reached)) for direction in ("push", "pull", "auto")], out
    assert f" on {grid_of(ranks)} " in out


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_compare_reference_on_a_file(ranks, small_mtx):
    path, source = small_mtx
    out = run_example(ranks, "compare_reference.py", path, source)
    reached = int((mtx_levels(path, source) >= 0).sum())
    assert out.count(f"levels equal, parents valid, {reached} reached") == 3, out
    assert "DIFFER" not in out


def test_compare_reference_on_a_real_graph():
    west0067 = data_file("lagraph", "west0067.mtx")
    out = run_example(1, "compare_reference.py", west0067, 3)
    reached = int((mtx_levels(west0067, 3) >= 0).sum())
    assert out.count(f"levels equal, parents valid, {reached} reached") == 3, out


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_quickstart(ranks):
    out = run_example(ranks, "quickstart.py")
    S = scipy.sparse.random(1000, 1000, density=0.004, format="csr", random_state=0)    # the example's matrix
    expected = levels_by_scipy(S, 0)
    assert out.splitlines() == [f"reached {int((expected >= 0).sum())} of 1000 vertices in "
                                f"{int(expected.max())} levels"]


def test_quickstart_is_five_lines():
    code = [line for line in (EXAMPLES / "quickstart.py").read_text().split('"""')[2].splitlines()
            if line.strip() and not line.startswith(("import", "from"))]
    assert len(code) == 5, code


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_multi_source(ranks):
    out = run_example(ranks, "multi_source.py")
    S = kronecker_scipy(12)
    sources = np.flatnonzero(np.diff(S.indptr))[:16]
    reports = re.findall(r"^  source (\d+): reached (\d+) vertices in (\d+) levels$", out, flags=re.M)
    expected = []
    for source in sources:
        levels = levels_by_scipy(S, source)
        expected.append((str(source), str(int((levels >= 0).sum())), str(int(levels.max()))))
    assert reports == expected, out
    assert re.search(rf"on {grid_of(ranks)} \w+>: 16 searches in 1 batch: [\d.]+ ms together, "
                     r"[\d.]+ ms one at a time", out), out
    assert out.splitlines()[-1] == "rows equal single searches: True; parents valid"


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_depth_limit(ranks):
    out = run_example(ranks, "depth_limit.py")
    S = kronecker_scipy(12)
    source = first_vertex_with_edges(S)
    levels = levels_by_scipy(S, source)
    reached = re.findall(r"reached (\d+) vertices, (\d+) levels expanded, (\d+) edges examined", out)
    assert [r[:2] for r in reached] == [
        (str(int((levels >= 0).sum())), str(int(levels.max()) + 1)),       # the last level finds nothing
        (str(int(((levels >= 0) & (levels <= 2)).sum())), "2"),
        (str(int((levels >= 0).sum())), str(int(levels.max())))], out     # the target is on the last level
    full, limited, _ = (int(r[2]) for r in reached)
    assert limited < full
    target = int(re.search(r"target=(\d+) \(level (\d+)\)", out).group(1))
    assert levels[target] == levels.max()


@pytest.mark.parametrize("ranks", LAUNCHES)
def test_paths(ranks):
    out = run_example(ranks, "paths.py")
    S = kronecker_scipy(10)
    source = first_vertex_with_edges(S)
    levels = levels_by_scipy(S, source)
    lines = [line.strip() for line in out.splitlines() if line.startswith("  ")]
    assert len(lines) == 5 + int((levels < 0).any())
    for line in lines[:5]:
        path = [int(v) for v in line.split(" -> ")]
        assert path[0] == source and len(path) == levels[path[-1]] + 1 == levels.max() + 1, line
        assert all(S[a, b] for a, b in zip(path[:-1], path[1:])), line
    assert lines[5:] == ["unreached"] * int((levels < 0).any())
    assert out.splitlines()[-1] == f"the deepest target is {int(levels.max())} steps away"


# -- bad arguments: one line, status 2 -------------------------------------------------------
# (script, arguments, what the line must say); {mtx} is small_mtx (60 vertices), {missing} a
# file that is not there
BAD_ARGUMENTS = [
    ("bfs_basic.py", ["twelve"], "scale must be an integer, got 'twelve'"),
    ("bfs_basic.py", ["12", "3"], "too many arguments: expected at most 1 (scale), got 2"),
    ("bfs_basic.py", ["0"], "scale must be in [1, "),
    ("depth_limit.py", ["8", "-1"], "depth must be at least 0, got -1"),
    ("depth_limit.py", ["8", "2", "5"], "too many arguments: expected at most 2 (scale, depth), got 3"),
    ("multi_source.py", ["8.5"], "scale must be an integer, got '8.5'"),
    ("multi_source.py", ["8", "0"], "sources must be at least 1, got 0"),
    ("paths.py", ["8", "two"], "targets must be an integer, got 'two'"),
    ("algebra.py", ["{missing}"], "cannot read Matrix Market file {missing}: no such file or directory"),
    ("algebra.py", ["{mtx}", "60"], "source 60 is out of range for a graph of 60 vertices"),
    ("algebra.py", ["{mtx}", "3", "4"], "too many arguments: expected at most 2 (path, source), got 3"),
    ("compare_reference.py", ["{missing}"], "cannot read Matrix Market file {missing}: no such file"),
    ("compare_reference.py", ["{mtx}", "-1"], "source -1 is out of range for a graph of 60 vertices"),
    ("compare_reference.py", ["{mtx}", "first"], "source must be an integer, got 'first'"),
]


def run_bad(ranks, name, args, small_mtx, tmp_path):
    """An example run (one process, or under mpiexec) with bad arguments: the finished process,
    and the values of the placeholders."""
    places = {"mtx": small_mtx[0], "missing": tmp_path / "missing.mtx"}
    args = [a.format(**places) for a in args]
    command = ([sys.executable, str(EXAMPLES / name), *args] if ranks == 1 else
               mpi_command(ranks, EXAMPLES / name, *args))
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                          env=launcher_environment())
    return done, places


def said_one_line(done, name, says):
    """Status 2, nothing on stdout, and on stderr one line: ``NAME: error: ...`` saying ``says``."""
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.endswith("\n"), done.stderr
    assert done.stderr.startswith(f"{name}: error: ") and says in done.stderr, done.stderr


@pytest.mark.parametrize("name,args,says", BAD_ARGUMENTS,
                         ids=[f"{name}-{'-'.join(args)}" for name, args, _ in BAD_ARGUMENTS])
def test_bad_arguments_say_one_line(name, args, says, small_mtx, tmp_path):
    done, places = run_bad(1, name, args, small_mtx, tmp_path)
    said_one_line(done, name, says.format(**places))


@pytest.mark.mpi
@needs_mpi
@pytest.mark.parametrize("name,args,says", [BAD_ARGUMENTS[0], BAD_ARGUMENTS[8], BAD_ARGUMENTS[12]],
                         ids=["not-a-number", "missing-file", "source-out-of-range"])
def test_bad_arguments_say_one_line_under_mpiexec(name, args, says, small_mtx, tmp_path):
    """Every rank stops with status 2; rank 0 alone says why, and MPI adds nothing."""
    done, places = run_bad(RANKS, name, args, small_mtx, tmp_path)
    said_one_line(done, name, says.format(**places))


# -- the README ---------------------------------------------------------------------------
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]


def readme_blocks():
    """Every Python block of the README, in order."""
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def frontiers_printed(out):
    """The frontier sizes the README's first block prints, a line a level."""
    return [int(f) for f in re.findall(r"^\d+ (?:push|pull) (\d+) \{", out, flags=re.M)]


@pytest.mark.parametrize("index", range(len(readme_blocks())), ids=lambda i: f"block-{i + 1}")
def test_readme_block_runs_as_written(index, tmp_path):
    """Each block runs alone, as a newcomer pastes it into a file: a fresh process of the
    repository's python, on the CPU backend, every name defined in the block itself."""
    script = tmp_path / f"readme_block_{index + 1}.py"
    script.write_text(readme_blocks()[index])
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")         # no device: the CPU backend
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=tmp_path, env=env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    if index == 0:                                          # the first searches from vertex 0
        assert frontiers_printed(done.stdout) == level_sizes(levels_by_scipy(kronecker_scipy(16), 0)), done.stdout


@pytest.mark.mpi
@needs_mpi
def test_readme_snippet_under_mpiexec(tmp_path):
    """The README's first block, unchanged, on a 2 x 2 grid: rank 0 alone prints the levels."""
    script = tmp_path / "readme_snippet.py"
    script.write_text(readme_blocks()[0])
    out = run_script(RANKS, script)
    assert frontiers_printed(out) == level_sizes(levels_by_scipy(kronecker_scipy(16), 0)), out


def heading_anchors(path):
    """GitHub's anchors of a markdown file's headings: lower case, punctuation dropped, spaces -> '-'."""
    prose = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)     # a '#' in code is no heading
    headings = re.findall(r"^#+ (.+)$", prose, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_links_stay_in_the_repository(doc):
    for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
        assert "://" not in target and not target.startswith("/"), f"{doc.name} links outside: {target}"
        path, _, anchor = target.partition("#")
        linked = (doc.parent / path).resolve() if path else doc
        assert linked.is_file() and ROOT in linked.parents, f"{doc.name}: {target} is not a file of the repository"
        if anchor:
            assert anchor in heading_anchors(linked), f"{doc.name}: no heading #{anchor} in {linked.name}"
