"""Every grid shape under mpiexec (oversubscribed on small machines), with a timeout: on graphs
the check writes itself, and on the real graphs when the shared data folder is present."""
import re
from pathlib import Path

import pytest

from helpers import data_file, needs_mpi, run_mpi

HERE = Path(__file__).resolve().parent
GRIDS = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (2, 3)]
GRID_IDS = [f"{r}x{c}" for r, c in GRIDS]


def run_check(rows, cols, which, folder):
    """tests/mpi/check_grid.py on a rows x cols grid; every rank must report ok."""
    ranks = rows * cols
    done = run_mpi(ranks, HERE / "mpi" / "check_grid.py", rows, cols, which, folder)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert sorted(re.findall(r"rank (\d+) ok", done.stdout)) == sorted(str(r) for r in range(ranks)), output[-4000:]




@pytest.mark.mpi
@needs_mpi
@pytest.mark.parametrize("rows,cols", GRIDS, ids=GRID_IDS)
def test_grid(tmp_path, rows, cols):
    run_check(rows, cols, "generated", tmp_path)


@pytest.mark.mpi
@needs_mpi
@pytest.mark.parametrize("rows,cols", GRIDS, ids=GRID_IDS)
def test_grid_real_graphs(rows, cols):
    data_file("lagraph")
    run_check(rows, cols, "real", data_file())
