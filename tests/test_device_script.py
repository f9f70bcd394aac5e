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


def _function(name):
    """One shell function of device.sh, as its text (the script itself refuses to run off a GPU)."""
    lines = SCRIPT.read_text().splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(f"{name}() {{"))
    end = next(k for k in range(start, len(lines)) if lines[k] == "}")
    return "\n".join(lines[start:end + 1])


@pytest.mark.parametrize("status, says", [(124, True), (0, False), (1, False)])
def test_a_test_run_cut_by_its_timeout_says_so_in_its_log(tmp_path, status, says):
    """A pytest run that its timeout cut ends mid-line, with no summary: its log then says it was
    cut and is not a pass; a run that ended (passed or failed) gets no such line."""
    log = tmp_path / "pytest-gpu.log"
    log.write_text("....... [ 82%]\n.")
    script = f"{_function('say_if_cut')}\nTEST_TIMEOUT=230\nsay_if_cut {status} gpu-tests {log}\n"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    cut_line = "gpu-tests: cut at TEST_TIMEOUT=230 s, not a pass"
    assert (cut_line in log.read_text()) is says and (cut_line in done.stdout) is says
