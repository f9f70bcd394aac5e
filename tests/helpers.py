"""Shared pieces of the single-process tests: backends, BFS checking, the real test graphs."""
from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st
import scipy.sparse as sp

import lagraph_dist as ld

# "gpu" is always listed so that it shows as skipped (not absent) on machines without CUDA;
# `pytest -m gpu` selects exactly these parameters.
GPU = pytest.param("gpu", marks=[pytest.mark.gpu,
                                 pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")],
                   id="gpu")
BACKENDS = ["cpu", GPU]
DIRECTIONS = ("push", "pull", "auto")
STATS_KEYS = {"direction", "frontier", "discovered", "edges_examined", "bytes", "encoding", "seconds"}
ALLOWED_STEPS = {"push": {"push"}, "pull": {"pull"}, "auto": {"push", "pull"}}


# -- launching MPI ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
@functools.cache
def load_script(path):
    """A script of benchmarks/ as a module, registered under its file's stem first (its
    dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def mpi_launcher():
    """The launcher of this interpreter's MPI: the mpiexec beside sys.executable (the mpich
    wheel in a venv), else mpirun or mpiexec on PATH; None when there is none."""
    import shutil
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpirun") or shutil.which("mpiexec")


def mpi_command(ranks, script, *args):
    """The command running ``script`` (with ``python -m mpi4py``, so that an exception on one
    rank aborts the job) on ``ranks`` processes. Open MPI run as root needs its flag."""
    import subprocess
    if "gpu" not in map(str, args):       # the ranks load the kernels (a check on the GPU backend runs few)
        fill_kernel_cache()
    launcher = mpi_launcher()
    flags = []
    version = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=60)
    if "Open MPI" in version.stdout + version.stderr:
        flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return [launcher, *flags, "-n", str(ranks), sys.executable, "-m", "mpi4py", str(script), *map(str, args)]


#: the environment variable naming the file in which the session's filling of numba's cache says
#: how it ended ("ok", or the error): the pytest-xdist workers inherit it from the session's
#: process, which alone starts the filling, and read the file
FILLED_VARIABLE = "LAGRAPH_DIST_TESTS_KERNELS_FILLED"
#: how long a test waits for the filling (on a fresh clone 2 to 6 minutes on 2 cores)
FILL_WAIT_SECONDS = 900
#: the filling: compile every CPU kernel, then say how it went in the file (whole or not at all)
_FILL = """
import os, sys, traceback
try:
    from lagraph_dist.local import cpu_kernels
    cpu_kernels.compile_kernels()
    said = "ok"
except BaseException:
    said = traceback.format_exc()
with open(sys.argv[1] + ".part", "w") as out:
    out.write(said)
os.replace(sys.argv[1] + ".part", sys.argv[1])
"""
_filler = []     # the filling process, in the process that claimed it (at most one a session)


def start_filling_kernel_cache():
    """Name the session's filling of numba's cache with every CPU kernel (the file it will say
    how it ended in), in the session's own process: the pytest-xdist workers inherit the name.
    Nothing compiles yet: the first process that launches mpiexec starts the filling
    (:func:`fill_kernel_cache`), when the tests before the mpiexec ones (they come last) have
    compiled what they ran into the cache, so that the filling compiles only the rest. Started
    with the session, it compiled every kernel beside the workers, which compiled the same ones
    on first use: on 2 cores a fresh clone's tests took 14 min 41 s against a warm cache's
    9 min 44 s (1560d98)."""
    import tempfile
    if os.environ.get(FILLED_VARIABLE):
        return
    os.environ[FILLED_VARIABLE] = os.path.join(tempfile.mkdtemp(prefix="lagraph-dist-fill-"), "said")


def fill_kernel_cache():
    """Wait until the session's filling has every CPU kernel in numba's cache, in any process of
    the session, starting it where no process has yet (one claim file: one filling a session);
    nothing to wait for where the session named none (the ranks then compile what they run)."""
    import subprocess
    import time
    said = os.environ.get(FILLED_VARIABLE)
    if not said:
        return
    try:                 # the first process here starts the filling; the others wait on its file
        os.close(os.open(said + ".claimed", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        _filler.append(subprocess.Popen([sys.executable, "-c", _FILL, said], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    except FileExistsError:
        pass
    deadline = time.monotonic() + FILL_WAIT_SECONDS
    while not os.path.exists(said):
        if _filler and _filler[0].poll() is not None and not os.path.exists(said):
            raise RuntimeError(f"the session's compiling of the CPU kernels ended (status {_filler[0].returncode}) "
                               f"without saying how")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the session's compiling of the CPU kernels said nothing in {FILL_WAIT_SECONDS} s "
                               f"(no {said})")
        time.sleep(0.5)
    text = Path(said).read_text()
    if text != "ok":
        raise RuntimeError(f"compiling the CPU kernels failed:\n{text[-3000:]}")


def stop_filling_kernel_cache(*, session=False):
    """At a process's end: numba compiles without the locks again, and a filling it started that
    is still running (no test of it waited for it to end) is stopped; in the session's own
    process (``session``), the filling's folder is removed and its name dropped."""
    import shutil
    compile_unlocked()
    if _filler and _filler[0].poll() is None:
        _filler[0].kill()
        _filler[0].wait()
    _filler.clear()
    if session and os.environ.get(FILLED_VARIABLE):
        shutil.rmtree(os.path.dirname(os.environ.pop(FILLED_VARIABLE)), ignore_errors=True)


def compile_one_process_at_a_time():
    """In this process, numba compiles a kernel of ours only while it holds that kernel's lock
    file in the folder of the session's filling (FILLED_VARIABLE's; nothing where none is named):
    a worker that needs a kernel another is compiling waits, then finds it in numba's disk cache
    (numba looks there first, under the lock). On a fresh clone the two workers otherwise both
    compiled the search kernels they start with (fused and multi_fused ``_search``: about 95 s of
    one core twice, 4923a1b's compile log). A kernel compiling inside its own compile (a callee of
    the same function) takes no second lock."""
    import fcntl
    from numba.core.dispatcher import Dispatcher
    said = os.environ.get(FILLED_VARIABLE)
    if not said or hasattr(Dispatcher.compile, "unlocked"):
        return
    folder = os.path.dirname(said)
    compile_here, held = Dispatcher.compile, set()

    def compile_alone(self, sig):
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        if not name.startswith("lagraph_dist.") or name in held or not os.path.isdir(folder):
            return compile_here(self, sig)
        with open(os.path.join(folder, name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held.add(name)
            try:
                return compile_here(self, sig)
            finally:
                held.discard(name)

    compile_alone.unlocked = compile_here
    Dispatcher.compile = compile_alone


def compile_unlocked():
    """numba's own compile again in this process (the session's end: a script that ran pytest in
    its process goes on compiling after the locks' folder is gone)."""
    from numba.core.dispatcher import Dispatcher
    Dispatcher.compile = getattr(Dispatcher.compile, "unlocked", Dispatcher.compile)


#: what Open MPI and PMIx put into the environment of a process that initialised MPI (a
#: singleton) or that a launcher started: an mpirun that inherits them takes itself for part of
#: that job and exits at once with status 1, saying nothing. Seen on the device: pytest -n 8
#: reads ``ld.gpu_available`` in the main process (helpers, below), which loads the engine and
#: initialises MPI, and the xdist workers it then starts inherit its C environment in os.environ.
#: The user's own settings (OMPI_MCA_plm, PMIX_MCA_gds, OMPI_ALLOW_RUN_AS_ROOT, ...) stay.
MPI_JOB_VARIABLES = re.compile(r"^(PMIX_(?!MCA_)|PMI_|OMPI_MCA_(ess|pmix|orte_)"
                               r"|OMPI_(COMM_WORLD|APP_CTX|UNIVERSE|FIRST_RANKS|NUM_APP_CTX|FILE_LOCATION|ARGV|COMMAND))")


def launcher_environment(environment=None) -> dict:
    """``environment`` (os.environ) without the variables of a running MPI job (MPI_JOB_VARIABLES)."""
    environment = os.environ if environment is None else environment
    return {name: value for name, value in environment.items() if not MPI_JOB_VARIABLES.match(name)}


def run_mpi(ranks, script, *args, timeout=600):
    """``script`` on ``ranks`` processes (see mpi_command), its output captured. The environment
    is passed explicitly (os.environ, not the C environment, which this session's own MPI
    initialisation may have added to), and without any running job's variables
    (launcher_environment)."""
    import subprocess
    return subprocess.run(mpi_command(ranks, script, *args), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=launcher_environment())


def run_cli(capsys, *argv):
    """(exit status, stdout, stderr) of ``lagraph-dist argv`` in this process."""
    from lagraph_dist.tools.cli import main
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


needs_mpi = pytest.mark.skipif(mpi_launcher() is None, reason="no mpiexec (pip install mpich)")


# -- graphs -----------------------------------------------------------------------------------
def edges_to_scipy(src, dst, n, *, symmetrize=False):
    """The boolean CSR pattern of the edges src[k] -> dst[k] (duplicates merged)."""
    src = np.asarray(src, dtype=np.int64).reshape(-1)
    dst = np.asarray(dst, dtype=np.int64).reshape(-1)
    if symmetrize:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    S = sp.csr_matrix((np.ones(src.shape[0], dtype=np.int8), (src, dst)), shape=(n, n))
    S.sum_duplicates()
    S.data[:] = 1
    return S


def as_scipy(graph):
    """A scipy matrix, or an edge tuple (src, dst, n[, symmetrize]) -> scipy CSR pattern."""
    if sp.issparse(graph):
        return graph
    return edges_to_scipy(*graph[:3], symmetrize=bool(graph[3]) if len(graph) > 3 else False)


def pattern(S):
    """The set of (i, j) pairs stored in ``S`` (explicit zeros count as edges)."""
    coo = sp.coo_matrix(S)
    return set(zip(coo.row.tolist(), coo.col.tolist()))


# -- reference and checking -------------------------------------------------------------------
def reference_levels(S, source):
    """Levels from ``ld.reference.bfs``; its push and push-pull runs must agree exactly."""
    push_levels, push_parents = ld.reference.bfs(S, source, direction="push")
    pp_levels, _ = ld.reference.bfs(S, source, direction="pushpull")
    np.testing.assert_array_equal(push_levels, pp_levels,
                                  err_msg="reference push and pushpull levels disagree")
    assert push_levels[source] == 0 and push_parents[source] == source
    return push_levels


def check_stats(res, direction, expected_levels, S=None):
    """The per-level records agree with the levels (and, for push, with the out-degrees)."""
    stats = res.stats
    depth = int(expected_levels.max())
    assert len(stats) == depth + 1, f"{len(stats)} level records for a BFS of depth {depth}"
    counts = np.bincount(expected_levels[expected_levels >= 0], minlength=depth + 2)
    degrees = None
    if S is not None:
        P = sp.csr_matrix(S, copy=True)
        P.sum_duplicates()
        degrees = np.diff(P.indptr)
    for k, record in enumerate(stats):
        missing = STATS_KEYS - set(record)
        assert not missing, f"level record {k} lacks {sorted(missing)}"
        assert record["direction"] in ALLOWED_STEPS[direction], (
            f"direction={direction!r} but level {k + 1} ran {record['direction']!r}")
        assert record["frontier"] == counts[k], f"level {k + 1}: frontier {record['frontier']} != {counts[k]}"
        assert record["discovered"] == counts[k + 1], (
            f"level {k + 1}: discovered {record['discovered']} != {counts[k + 1]}")
        assert record["edges_examined"] >= record["discovered"]
        if degrees is not None and record["direction"] == "push":
            assert record["edges_examined"] == int(degrees[expected_levels == k].sum()), (
                f"push level {k + 1} examined {record['edges_examined']} edges, the frontier has "
                f"{int(degrees[expected_levels == k].sum())}")
        assert isinstance(record["bytes"], dict) and isinstance(record["encoding"], dict)
        assert record["seconds"] is None or record["seconds"] >= 0
        assert ld.measured_seconds(record) >= 0


def check_bfs(graph, A, source, direction="auto", *, levels=True, parents=True, expected=None):
    """Run ``ld.bfs`` and check it: levels equal to the reference exactly, parents a valid BFS
    tree (``ld.validate``), stats consistent with the levels. Returns the BFSResult.

    ``graph``: the same graph as ``A``, as scipy sparse or an edge tuple (src, dst, n[, sym]).
    ``expected``: reference levels, when already computed.
    """
    S = as_scipy(graph)
    if expected is None:
        expected = reference_levels(S, source)
    res = ld.bfs(A, source, levels=levels, parents=parents, direction=direction)
    got_levels = got_parents = None
    if levels:
        assert res.levels is not None
        got_levels = res.levels.to_numpy()
        assert got_levels.dtype == np.int64 and got_levels.shape == (A.n,)
        np.testing.assert_array_equal(got_levels, expected,
                                      err_msg=f"levels differ (source {source}, {direction})")
    else:
        assert res.levels is None
    if parents:
        assert res.parents is not None
        got_parents = res.parents.to_numpy()
        assert got_parents.dtype == np.int64 and got_parents.shape == (A.n,)
        assert got_parents[source] == source
        np.testing.assert_array_equal(got_parents >= 0, expected >= 0,
                                      err_msg="parents reach a different set of vertices")
    else:
        assert res.parents is None
    ld.validate(A, source, got_levels, got_parents)
    check_stats(res, direction, expected, S)
    if res.stats and res.stats[0]["engine"] == "queue":     # a small graph's queue search: the fused one too
        with ld.settings.changed(queue_search_edges=0):
            check_bfs(graph, A, source, direction, levels=levels, parents=parents, expected=expected)
    return res


# -- real graphs ------------------------------------------------------------------------------
# The real test graphs are an extra: tests that read them skip, saying why, when the folder is
# absent; every other test makes its own graphs (tests/graphs.py). This is the one place that
# says where the folder is; the MPI check scripts are handed it by their pytest wrappers.
DATA_ENV = "LAGRAPH_DIST_DATA"


def data_dir() -> Path:
    """$LAGRAPH_DIST_DATA when set, else shared/data beside the checkout (<repo>/../shared/data)."""
    chosen = os.environ.get(DATA_ENV)
    return Path(chosen) if chosen else Path(__file__).resolve().parents[2] / "shared" / "data"


def data_absent_reason(*parts) -> str | None:
    """Why a test of the real file data_dir()/parts cannot run, or None when it can."""
    path = data_dir().joinpath(*parts)
    if path.exists():
        return None
    return (f"real test graphs not found: {path} is absent (they are optional; set {DATA_ENV} "
            f"to the folder holding lagraph/ and networkit/ to run these tests)")


def needs_data(*parts):
    """Mark: skip, saying why, unless data_dir()/parts exists."""
    reason = data_absent_reason(*parts)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def data_file(*parts) -> Path:
    """data_dir()/parts, or skip the calling test saying why it cannot run."""
    reason = data_absent_reason(*parts)
    if reason is not None:
        pytest.skip(reason)
    return data_dir().joinpath(*parts)


def data_params(paths, what):
    """pytest parameters for the real files ``paths``; one parameter that skips with the reason
    when there are none (rather than pytest's bare "got empty parameter set")."""
    if paths:
        return [pytest.param(p, id=p.name) for p in paths]
    reason = data_absent_reason(what) or f"no {what} files in {data_dir()}"
    return [pytest.param(None, id="absent", marks=pytest.mark.skip(reason=reason))]


BAD_MTX_PATTERNS = ("mangled*.mtx", "*_noheader.mtx", "complex.mtx")


def _mtx_header(path):
    """(format, nrows, ncols) from the banner and size line, read without the package."""
    with open(path, "r", errors="replace") as fh:
        banner = fh.readline().split()
        for line in fh:
            if line.strip() and not line.lstrip().startswith("%"):
                size = line.split()
                break
        else:
            size = []
    fmt = banner[2].lower() if len(banner) > 2 and banner[0].lower() == "%%matrixmarket" else None
    try:
        return fmt, int(size[0]), int(size[1])
    except (IndexError, ValueError):
        return fmt, None, None


@functools.lru_cache(maxsize=None)
def real_graphs(subdir=None):
    """Good square coordinate .mtx files under data_dir() (all subfolders, or ``subdir``)."""
    root = data_dir() if subdir is None else data_dir() / subdir
    if not root.is_dir():
        return ()
    bad = {p for pat in BAD_MTX_PATTERNS for p in root.rglob(pat)}
    good = []
    for path in sorted(root.rglob("*.mtx")):
        if path in bad:
            continue
        fmt, nrows, ncols = _mtx_header(path)
        if fmt == "coordinate" and nrows is not None and nrows == ncols and nrows > 0:
            good.append(path)
    return tuple(good)


def bad_mtx_files():
    root = data_dir() / "lagraph"
    if not root.is_dir():
        return ()
    return tuple(sorted({p for pat in BAD_MTX_PATTERNS for p in root.glob(pat)}))


@functools.lru_cache(maxsize=8)
def read_scipy_pattern(path):
    """An independent reading of a coordinate .mtx file's pattern (not via the package): entry
    (i, j) is the edge i -> j, mirrored for symmetric, skew-symmetric and hermitian files."""
    with open(path, "r") as fh:
        symmetry = fh.readline().split()[4].lower()
        lines = [line for line in fh if line.strip() and not line.lstrip().startswith("%")]
    nrows = int(lines[0].split()[0])
    body = np.loadtxt(lines[1:], dtype=np.int64, usecols=(0, 1), ndmin=2) - 1
    src, dst = body[:, 0], body[:, 1]
    if symmetry != "general":
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
    return edges_to_scipy(src, dst, nrows)


# -- generated graphs (hypothesis) ---------------------------------------------------------
@st.composite
def edge_graphs(draw):
    """(src, dst, n, symmetrize, source): duplicates, self-loops, isolated vertices, chains,
    several components; ids as a list or as integer arrays of various dtypes."""
    n = draw(st.integers(1, 60))
    vertex = st.integers(0, n - 1)
    pairs = draw(st.lists(st.tuples(vertex, vertex), max_size=3 * n))
    order = draw(st.permutations(range(n)))
    chain = draw(st.integers(0, n))
    pairs += [(order[k], order[k + 1]) for k in range(chain - 1)]
    pairs += [(v, v) for v in draw(st.lists(vertex, max_size=3))]
    if pairs:
        pairs += draw(st.lists(st.sampled_from(pairs), max_size=6))     # duplicates
    ncomp = draw(st.integers(1, 4))
    if ncomp > 1:       # keep only edges inside components: several components for sure
        label = draw(st.lists(st.integers(0, ncomp - 1), min_size=n, max_size=n))
        pairs = [(i, j) for i, j in pairs if label[i] == label[j]]
    pairs = draw(st.permutations(pairs))
    src = [i for i, _ in pairs]
    dst = [j for _, j in pairs]
    kind = draw(st.sampled_from(["list", "int64", "int32", "uint32", "uint64"]))
    if kind != "list":
        src, dst = np.array(src, dtype=kind), np.array(dst, dtype=kind)
    return src, dst, n, draw(st.booleans()), draw(vertex)
