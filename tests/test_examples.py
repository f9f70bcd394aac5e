"""The examples run and say what they should."""
import subprocess
import sys
from pathlib import Path

from graphs import west_like_digraph, write_real_general
from helpers import data_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


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


def test_compare_reference_on_a_written_file(tmp_path):
    (src, dst), n = west_like_digraph()
    path = tmp_path / "west_like.mtx"
    write_real_general(path, src, dst, n)
    out = run(EXAMPLES / "compare_reference.py", path, 3)
    assert out.count("levels equal") == 3


def test_compare_reference_on_a_real_file():
    out = run(EXAMPLES / "compare_reference.py", data_file("lagraph", "west0067.mtx"), 3)
    assert out.count("levels equal") == 3
