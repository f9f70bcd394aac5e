"""Run tests/mpi/check_validate.py on 3 MPI ranks and require every rank to report ok: on graphs
it makes itself, and on a real graph when the shared data folder is present."""

from pathlib import Path

import pytest

from helpers import data_file, needs_mpi, run_mpi

NPROCS = 3
SCRIPT = Path(__file__).resolve().parent / "mpi" / "check_validate.py"





def run_on_three_ranks(*args):
    proc = run_mpi(NPROCS, SCRIPT, *args, timeout=120)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    for rank in range(NPROCS):
        assert f"rank {rank} ok" in proc.stdout, report


@pytest.mark.mpi
@needs_mpi
def test_validate_on_three_ranks():
    run_on_three_ranks("generated")


@pytest.mark.mpi
@needs_mpi
def test_validate_real_graph_on_three_ranks():
    data_file("lagraph", "jagmesh7.mtx")
    run_on_three_ranks("real", data_file())
