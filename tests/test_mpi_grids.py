"""Every grid shape under mpiexec (oversubscribed on small machines), with a timeout."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GRIDS = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (2, 3)]


def mpiexec():
    beside = Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


@pytest.mark.mpi
@pytest.mark.skipif(mpiexec() is None, reason="no mpiexec (pip install mpich)")
@pytest.mark.parametrize("rows,cols", GRIDS, ids=[f"{r}x{c}" for r, c in GRIDS])
def test_grid(rows, cols):
    ranks = rows * cols
    command = [mpiexec(), "-n", str(ranks), sys.executable, "-m", "mpi4py",
               str(HERE / "mpi" / "check_grid.py"), str(rows), str(cols)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert sorted(re.findall(r"rank (\d+) ok", done.stdout)) == sorted(str(r) for r in range(ranks)), output[-4000:]
