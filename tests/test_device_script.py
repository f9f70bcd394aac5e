"""benchmarks/device.sh moves its tree's .git aside (the device copy's is stale): on a machine
without a GPU it must refuse before touching anything, or it would take the repository's own."""
import pathlib
import shutil
import subprocess

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "device.sh"


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU machine: device.sh would run its stages")
def test_device_script_refuses_without_a_gpu_and_keeps_git(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    done = subprocess.run(["bash", str(SCRIPT), "quick"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "OUT": str(tmp_path / "out")})
    assert done.returncode == 1 and "runs on the device machine" in done.stdout
    assert (tmp_path / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
