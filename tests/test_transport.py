"""Transport selection and its errors, and the host channels under mpiexec. The device
transports (nccl, mpi-cuda) run in tests/test_multigpu.py on a machine with two GPUs."""
from pathlib import Path

import numpy as np
import pytest

import lagraph_dist as ld
from helpers import needs_mpi, run_mpi
from lagraph_dist.comm import transport

HERE = Path(__file__).resolve().parent


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(transport.TRANSPORT_ENV, raising=False)


def test_default_is_nccl_on_gpus_and_mpi_host_elsewhere(no_env):
    expected = "nccl" if ld.gpu_available() and transport._why_not("nccl") is None else "mpi-host"
    assert transport.resolve_transport(None) == expected
    assert ld.Grid().transport.name in transport.TRANSPORTS


def test_environment_variable_picks_the_transport(monkeypatch):
    monkeypatch.setenv(transport.TRANSPORT_ENV, "mpi-host")
    grid = ld.Grid()
    assert grid.transport.name == "mpi-host"
    assert "mpi-host" in repr(grid)


def test_unknown_transport_names_the_choices(no_env, monkeypatch):
    with pytest.raises(ld.InvalidValue, match="unknown transport transport='carrier-pigeon'.*nccl, mpi-cuda, mpi-host"):
        ld.Grid(transport="carrier-pigeon")
    monkeypatch.setenv(transport.TRANSPORT_ENV, "smoke-signals")
    with pytest.raises(ld.InvalidValue, match=r"\$LAGRAPH_DIST_TRANSPORT='smoke-signals'"):
        ld.Grid()


@pytest.mark.skipif(ld.gpu_available(), reason="checks the machine without GPUs")
@pytest.mark.parametrize("name", ["nccl", "mpi-cuda"])
def test_device_transports_fail_clearly_without_gpus(no_env, name):
    with pytest.raises(ld.InvalidValue, match=f"'{name}' cannot work here.*no CUDA device"):
        ld.Grid(transport=name)


def test_cuda_aware_detection_explains_itself():
    supported, detail = transport.cuda_aware_mpi()
    assert isinstance(supported, bool)
    assert "MPI" in detail and ("says yes" in detail or "says no" in detail or "exports no" in detail)
    if not ld.gpu_available():
        assert not supported


def test_records_name_the_transport(no_env):
    A = ld.kronecker(8, seed=1, backend="cpu", grid=ld.Grid(transport="mpi-host"))
    res = ld.bfs(A, int(np.flatnonzero(A.out_degree().to_numpy(fill=0))[0]))
    assert {r["transport"] for r in res.stats} == {"mpi-host"}
    from lagraph_dist.tools.bench import environment
    assert environment(A)["transport"]["name"] == "mpi-host"


def run(ranks, *args):
    done = run_mpi(ranks, *args)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return done.stdout


@pytest.mark.mpi
@needs_mpi
@pytest.mark.parametrize("rows,cols", [(1, 3), (3, 1)])
def test_host_channels_under_mpiexec(tmp_path, rows, cols):
    """check_grid.py's channel checks and high-diameter graphs on mpi-host, and a device
    transport asked for on a machine without GPUs failing alike on every rank. Without a GPU,
    mpi-host is the default transport, and test_mpi_grids runs check_grid.py on 1 x 3 already."""
    if ld.gpu_available() or (rows, cols) != (1, 3):
        out = run(rows * cols, HERE / "mpi" / "check_grid.py", rows, cols, "generated", tmp_path,
                  "--transport", "mpi-host")
        assert out.count(" ok") == rows * cols
    if not ld.gpu_available():
        out = run(rows * cols, HERE / "mpi" / "check_grid.py", rows, cols, "generated", tmp_path,
                  "--transport", "nccl")
        assert "transport nccl unavailable" in out and "no CUDA device" in out


def test_a_buffer_of_runs_is_sliced_and_laid_out_by_its_counts():
    from lagraph_dist.comm import transport
    counts = [3, 0, 2, 4]
    assert transport._slices(counts) == [(0, 3), (3, 3), (3, 5), (5, 9)]
    assert transport._layout(counts) == (counts, [0, 3, 3, 5])
    assert transport._slices([]) == []
