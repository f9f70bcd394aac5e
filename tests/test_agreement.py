"""Collective calls agree (issue 50): every public collective checks that its ranks passed the
same arguments, and a difference raises InvalidValue on every rank naming the argument.

Under mpiexec, tests/mpi/check_agreement.py calls each public collective with one argument
that differs on the last rank (2 and 4 ranks, with a timeout: a hang fails the test). Here, in
one process: the walk over the public API that finds every collective checked, and what the
arguments' descriptions compare."""
import re
from pathlib import Path

import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.comm.agreement import describe, dtype_name, share_or_scalar, whole

from helpers import needs_mpi, run_mpi

HERE = Path(__file__).resolve().parent

# public callables that are not collective, each with the reason
LOCAL = {
    "get_backend": "picks this process's backend",
    "gpu_available": "asks this process's CuPy",
    "gpu_status": "asks this process's CuPy",
    "estimate_memory": "arithmetic on its arguments",
    "measured_seconds": "reads one level record",
}
LOCAL_METHODS = {
    "Matrix": {"agreement_text": "what the check compares", "vertex_id": "reads the labels every rank holds",
               "local_edges": "this rank's own edges",
               "local_edge_slices": "this rank's own edges",
               "local_edge_block": "this rank's own edges",
               "host_csr": "a one-rank matrix's own block (refused on a grid, alike on every rank)",
               "mxv": "builds an expression; writing it (w << ...) is the collective"},
    "Vector": {"agreement_text": "what the check compares", "single": "calls Vector.singles, which is checked",
               "dup": "copies this rank's part", "to_list": "re-encodes this rank's part",
               "to_bitmap": "re-encodes this rank's part", "local_entries": "this rank's part",
               "vxm": "builds an expression; writing it (w << ...) is the collective",
               "ewise_add": "builds an expression", "ewise_mult": "builds an expression",
               "apply": "builds an expression",
               "update": "is Output.update, which is checked", "S": "a view", "V": "a view"},
}


def _collectives_unchecked(owner, names, local):
    missing = []
    for name in names:
        member = getattr(owner, name)
        if name in local or isinstance(member, (type, property)) or not callable(member):
            continue
        if not hasattr(member, "agreed_arguments"):
            missing.append(name)
    return missing


def test_every_public_function_is_checked_or_known_local():
    functions = [name for name in ld.__all__ if name != "reference"]
    assert _collectives_unchecked(ld, functions, LOCAL) == []
    assert hasattr(ld.reference.compare, "agreed_arguments")


@pytest.mark.parametrize("cls", [ld.Matrix, ld.Vector], ids=["Matrix", "Vector"])
def test_every_public_method_is_checked_or_known_local(cls):
    names = [name for name in dir(cls) if not name.startswith("_")]
    assert _collectives_unchecked(cls, names, LOCAL_METHODS[cls.__name__]) == []


def test_the_grammar_and_grid_are_checked():
    from lagraph_dist.algebra import expr
    assert hasattr(expr.Output.update, "agreed_arguments")
    assert hasattr(ld.Vector.__setitem__, "agreed_arguments")
    assert "agree_on(comm" in Path(ld.Grid.__init__.__code__.co_filename).read_text()


def test_an_argument_named_that_the_function_lacks_is_refused_at_once():
    from lagraph_dist.comm.collective import collective
    with pytest.raises(TypeError, match="has no argument 'sauce'"):
        collective("sauce")(lambda A, source: None)


# -- what the descriptions compare ---------------------------------------------------------------
def test_equal_values_describe_alike_whatever_their_spelling():
    assert describe(np.int64(3)) == describe(3)
    assert describe([0, 3]) == describe((0, 3)) == describe(np.array([0, 3]))
    assert dtype_name(int) == dtype_name("int64") == dtype_name(np.int64) == "int64"
    assert describe(ld.semirings.any_pair) == "semirings.any_pair"
    assert share_or_scalar(np.arange(5)) == share_or_scalar(np.arange(7))      # each rank's own share
    assert share_or_scalar(2.0) != share_or_scalar(3.0)


def test_different_values_describe_differently():
    assert describe(0) != describe(1)
    assert describe(True) != describe(1)
    assert describe("push") != describe("pull")
    assert describe(None) != describe(0)
    big = np.arange(100_000)
    other = big.copy()
    other[50_000:] += 1
    assert describe(big) != describe(other)
    assert describe(big) != describe(big.astype(np.int32))


def test_whole_sees_one_element_that_a_sample_would_miss():
    order = np.arange(100_000)
    swapped = order.copy()
    swapped[[1, 2]] = swapped[[2, 1]]
    assert whole(order) != whole(swapped)


def test_objects_without_a_description_are_told_by_type_not_address():
    class Opaque:
        pass
    assert describe(Opaque()) == describe(Opaque())
    assert "0x" not in describe(Opaque())


# -- under mpiexec ------------------------------------------------------------------------------
def _check(tmp_path, rows, cols, *options, timeout=300):
    done = run_mpi(rows * cols, HERE / "mpi" / "check_agreement.py", rows, cols, tmp_path, *options,
                   timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    ranks = sorted(re.findall(r"rank (\d+) ok", done.stdout))
    assert ranks == sorted(str(r) for r in range(rows * cols)), output[-4000:]


@pytest.mark.mpi
@needs_mpi
@pytest.mark.parametrize("rows,cols", [(1, 2), (2, 2)], ids=["2 ranks", "4 ranks"])
def test_each_collective_with_a_differing_argument_raises_on_every_rank(tmp_path, rows, cols):
    _check(tmp_path, rows, cols)


@pytest.mark.mpi
@pytest.mark.gpu
@needs_mpi
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("rows,cols", [(1, 2), (2, 2)], ids=["2 ranks", "4 ranks"])
def test_gpu_ranks_sharing_a_device_raise_on_every_rank(tmp_path, rows, cols):
    _check(tmp_path, rows, cols, "--backend", "gpu", "--transport", "mpi-host", timeout=600)


def test_a_launcher_is_started_without_a_running_jobs_variables():
    """An mpirun that inherits what Open MPI and PMIx set in a process that initialised MPI
    exits at once with status 1 and no output (pytest -n on the device); the user's own
    settings pass through."""
    from helpers import launcher_environment
    inherited = {"OMPI_MCA_ess": "singleton", "OMPI_MCA_orte_launch": "1", "OMPI_MCA_pmix": "^s1",
                 "PMIX_SERVER_URI4": "pmix-server.1;tcp4://127.0.0.1:1", "PMIX_RANK": "0", "PMI_FD": "5",
                 "OMPI_COMM_WORLD_RANK": "0", "OMPI_APP_CTX_NUM_PROCS": "1",
                 "OMPI_MCA_plm": "isolated", "PMIX_MCA_gds": "hash", "OMPI_ALLOW_RUN_AS_ROOT": "1",
                 "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "PATH": "/bin", "HYDRA_LAUNCHER": "fork"}
    assert launcher_environment(inherited) == {
        "OMPI_MCA_plm": "isolated", "PMIX_MCA_gds": "hash", "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "PATH": "/bin", "HYDRA_LAUNCHER": "fork"}
