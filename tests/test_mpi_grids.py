"""Every grid shape under mpiexec (oversubscribed on small machines), with a timeout: on graphs
the check writes itself, and on the real graphs when the shared data folder is present. All the
shapes run in one start of the ranks (tests/mpi/check_grid.py takes several shapes)."""
import re
from pathlib import Path

import pytest

from helpers import data_file, needs_mpi, run_mpi

HERE = Path(__file__).resolve().parent
GRIDS = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (2, 3)]
GRID_IDS = [f"{r}x{c}" for r, c in GRIDS]


def run_check(which, folder):
    """tests/mpi/check_grid.py on every grid of GRIDS in one start of as many ranks as the
    largest holds (each start of the ranks costs seconds on 2 cores): each grid runs on the
    first ranks while the others wait; every rank must report ok, and a failure names its grid."""
    ranks = max(rows * cols for rows, cols in GRIDS)
    done = run_mpi(ranks, HERE / "mpi" / "check_grid.py", *GRID_IDS, which, folder, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"grids {GRID_IDS} ({which}):\n" + output[-4000:]
    assert sorted(re.findall(r"rank (\d+) ok", done.stdout)) == sorted(str(r) for r in range(ranks)), \
        f"grids {GRID_IDS} ({which}): not every rank reported ok\n" + output[-4000:]


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(660)
def test_grid(tmp_path):
    run_check("generated", tmp_path)


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(660)
def test_grid_real_graphs():
    data_file("lagraph")
    run_check("real", data_file())
