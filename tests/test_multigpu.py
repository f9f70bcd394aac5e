"""Several GPUs, one MPI rank each: every transport on grids 1 x 2 and 2 x 1, and on 2 x 2, 1 x 4
and 4 x 1 where four GPUs are present, on generated graphs (random, Kronecker built on the
devices, meshes, paths, written files) and the real graphs when the data folder is present.
Run with ``pytest -m multigpu`` on a machine with two or more GPUs; a grid needing more GPUs than
the machine has is skipped, saying so."""
import re
from pathlib import Path

import pytest

import lagraph_dist as ld
from helpers import data_absent_reason, data_dir, mpi_launcher, run_mpi

HERE = Path(__file__).resolve().parent
GRIDS = [(1, 2), (2, 1), (2, 2), (1, 4), (4, 1)]


def gpus():
    if not ld.gpu_available():
        return 0
    import cupy
    return cupy.cuda.runtime.getDeviceCount()


pytestmark = [pytest.mark.multigpu,
              pytest.mark.skipif(gpus() < 2, reason="needs two CUDA devices"),
              pytest.mark.skipif(mpi_launcher() is None, reason="no mpirun/mpiexec")]


def skip_unless_gpus_for(rows, cols):
    if gpus() < rows * cols:
        pytest.skip(f"grid {rows}x{cols} needs {rows * cols} CUDA devices, this machine has {gpus()}")


def run_check(rows, cols, transport, which, folder):
    skip_unless_gpus_for(rows, cols)
    done = run_mpi(rows * cols, HERE / "mpi" / "check_grid.py", rows, cols, which, folder,
                   "--backend", "gpu", "--transport", transport, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    ranks_ok = sorted(int(rank) for rank in re.findall(r"rank (\d+) ok", done.stdout))
    assert ranks_ok == list(range(rows * cols)), output[-6000:]
    unavailable = re.findall(r"transport \S+ unavailable: (.*)", done.stdout)
    if unavailable:
        # the note of the run says so; the transport failed clearly and alike on every rank
        print(f"{transport} on {rows}x{cols}: {unavailable[0]}")
    return unavailable


@pytest.mark.parametrize("transport", ["nccl", "mpi-cuda", "mpi-host"])
@pytest.mark.parametrize("rows,cols", GRIDS, ids=[f"{r}x{c}" for r, c in GRIDS])
def test_generated_graphs(tmp_path, rows, cols, transport):
    unavailable = run_check(rows, cols, transport, "generated", tmp_path)
    assert not unavailable or transport == "mpi-cuda", unavailable


@pytest.mark.parametrize("transport", ["nccl", "mpi-cuda", "mpi-host"])
@pytest.mark.parametrize("rows,cols", GRIDS, ids=[f"{r}x{c}" for r, c in GRIDS])
def test_real_graphs(rows, cols, transport):
    reason = data_absent_reason("lagraph", "west0067.mtx")
    if reason:
        pytest.skip(reason)
    unavailable = run_check(rows, cols, transport, "real", data_dir())
    assert not unavailable or transport == "mpi-cuda", unavailable
