"""benchmarks/hub_labels.py on the CPU: its record times both numberings' searches from the same
roots and says their levels agree (the renumbering itself: tests/test_ordering.py)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "hub_labels.py"


def test_the_script_records_both_numberings(tmp_path):
    out = tmp_path / "hub.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--backend", "cpu", "--scale", "8", "--roots", "3",
                           "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads(out.read_text())
    assert record["levels_equal"] is True and len(record["roots"]) == 3
    for direction in ("push", "auto"):
        run = record["runs"][direction]
        assert len(run["generated_ms"]) == len(run["hub_first_ms"]) == 3
        assert run["speedup"] == run["generated_median_ms"] / run["hub_first_median_ms"]
