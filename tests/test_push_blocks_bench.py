"""benchmarks/push_blocks.py on one GPU: its record holds a run per setting, direction and round,
each with its searches' times and the last search's levels (the script itself checks the
depths between settings and validates the last search, and exits non-zero on a mismatch)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import lagraph_dist as ld

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "push_blocks.py"


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_the_script_records_each_setting(tmp_path):
    out = tmp_path / "push.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "kron:12", "--blocks", "1,policy", "--rounds", "2",
                           "--roots", "3", "--json", str(out)], capture_output=True, text=True, timeout=300,
                          cwd=ROOT / "benchmarks")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads(out.read_text())
    runs = record["runs"]
    assert [(r["direction"], r["round"], r["push_blocks_per_sm"]) for r in runs] == [
        (d, k, b) for d in ("push", "auto") for k in (0, 1) for b in (1, "policy")]
    for run in runs:
        assert len(run["ms"]) == 2 and run["median_ms"] > 0      # (the first root's search is the warm-up)
        assert run["levels_last"] and run["level_ms_last"] > 0
        assert all(level["seconds"] >= 0 for level in run["levels_last"])
