"""benchmarks/results_ahead.py on one GPU: both modes timed over the blocks asked for, and the
backend's cap restored after the run (the mechanism itself: tests/test_search_start.py)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import lagraph_dist as ld

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "results_ahead.py"


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_the_script_times_both_modes(tmp_path):
    out = tmp_path / "ahead.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "kron:7", "--blocks", "4", "--calls", "3", "--json", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT / "benchmarks")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads(out.read_text())
    assert [record["summary"][mode]["calls"] for mode in ("off", "on")] == [6, 6]
    assert [len(record["summary"][mode]["block_medians_us"]) for mode in ("off", "on")] == [2, 2]
    assert record["on_over_off"] == record["summary"]["on"]["median_us"] / record["summary"]["off"]["median_us"]
    assert record["environment"]["backend"] == "gpu"


def test_the_script_imports_without_a_gpu():
    """Its imports need no CuPy (the gpu_kernels package imports it lazily): --help runs anywhere."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120,
                          cwd=ROOT / "benchmarks")
    assert done.returncode == 0 and "outputs ahead" in done.stdout
