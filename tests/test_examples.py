"""The examples run and say what they should."""
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def run(*args):
    done = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_bfs_basic():
    assert ", valid" in run(EXAMPLES / "bfs_basic.py", 10)


def test_algebra():
    out = run(EXAMPLES / "algebra.py")
    assert "level 1: [1, 2] with parents [0, 0]" in out
    assert "python-graphblas levels: [0, 1, 1, 2, -1]" in out


@pytest.mark.skipif(not (DATA / "lagraph" / "west0067.mtx").exists(), reason="shared/data is not beside the checkout")
def test_compare_reference():
    out = run(EXAMPLES / "compare_reference.py", DATA / "lagraph" / "west0067.mtx", 3)
    assert out.count("levels equal") == 3
