"""benchmarks/cpu_scaling.py --small: the CPU strong-scaling run (issue 21, item 7) on scale 10, one
rank and 2x2 ranks under mpiexec, python-graphblas beside when it is installed. Its record must
name every configuration with validated searches, the stage breakdown from the level records,
the efficiency against one rank and the level check against python-graphblas; and its plot."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import fill_kernel_cache, mpi_launcher

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "cpu_scaling.py"
HAS_GRAPHBLAS = importlib.util.find_spec("graphblas") is not None
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(mpi_launcher() is None,
                                 reason="the scaling run launches its configurations with mpiexec, and there "
                                        "is none (pip install mpich)")]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """(record, stdout, plot path) of one --small run."""
    fill_kernel_cache()              # its own mpiexec launches find the kernels compiled
    folder = tmp_path_factory.mktemp("cpu_scaling")
    out, picture = folder / "small.json", folder / "small.png"          # the plot beside the record
    done = subprocess.run([sys.executable, str(SCRIPT), "--small", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads(out.read_text()), done.stdout, picture


def test_every_configuration_ran_and_was_validated(small):
    record, stdout, _ = small
    assert record["benchmark"] == "cpu-scaling" and record["problems"] == []
    scale = record["scales"][0]
    assert scale["scale"] == 10
    configs = scale["configurations"]
    assert set(configs) == {"1 rank", "4 ranks"}
    assert configs["1 rank"]["grid"] == [1, 1] and configs["4 ranks"]["grid"] == [2, 2]
    for config in configs.values():
        assert config["ranks"] * config["threads_per_rank"] <= max(record["cores"], config["ranks"])
        run = config["runs"]["auto"]
        assert run["roots"] == run["validated"] == len(run["searches"]) >= 1
        for search in run["searches"]:
            assert search["seconds"] > 0 and search["edges"] > 0 and search["levels"] >= 2
    assert "| 10 | 4 ranks auto | 4 x 1 |" in stdout


def test_the_same_roots_and_levels_in_every_configuration(small):
    record, _, _ = small
    configs = record["scales"][0]["configurations"]
    runs = [config["runs"]["auto"]["searches"] for config in configs.values()]
    first = {s["root"]: s["levels_digest"] for s in runs[0]}
    for searches in runs[1:]:
        for search in searches:
            assert first.get(search["root"], search["levels_digest"]) == search["levels_digest"]


def test_stage_breakdown_and_efficiency(small):
    record, _, _ = small
    configs = record["scales"][0]["configurations"]
    one, four = configs["1 rank"]["runs"]["auto"], configs["4 ranks"]["runs"]["auto"]
    assert one["efficiency_vs_1_rank"] == pytest.approx(1.0)
    assert four["efficiency_vs_1_rank"] > 0
    # one rank: the whole search in one compiled call; 2x2: the products' stages, with traffic
    assert one["median_stage_seconds_max"]["fused"] > 0 and one["median_bytes"]["fold"] == 0
    stages = four["median_stage_seconds_max"]
    assert all(stages[s] > 0 for s in ("expand", "local", "fold", "merge")) and stages["fused"] == 0
    assert four["median_bytes"]["expand"] > 0 and four["median_bytes"]["fold"] > 0
    search = four["searches"][0]
    assert search["stage_seconds_max"]["fold"] >= search["stage_seconds_mean"]["fold"]


@pytest.mark.skipif(not HAS_GRAPHBLAS, reason="python-graphblas is not installed (the reference extra)")
def test_python_graphblas_beside_and_levels_checked(small):
    record, stdout, _ = small
    scale = record["scales"][0]
    peer = scale["peer"]["runs"]["graphblas-pushpull"]
    assert peer["roots"] >= 1 and peer["median_ms"] > 0
    for config in scale["configurations"].values():
        run = config["runs"]["auto"]
        assert run["levels_checked"]["graphblas-pushpull"] >= 1 and "levels_differ" not in run
    assert "graphblas-pushpull" in stdout


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed (the plot extra)")
def test_plot_written(small):
    _, _, picture = small
    assert picture.stat().st_size > 10_000 and picture.read_bytes()[:4] == b"\x89PNG"


def test_a_wrong_level_is_a_problem(small):
    """The check itself: a peer digest that differs from ours is reported as a problem."""
    sys.path.insert(0, str(SCRIPT.parent))
    from cpu_scaling import summarize
    record, _, _ = small
    scale = json.loads(json.dumps(record["scales"][0]))
    search = scale["configurations"]["4 ranks"]["runs"]["auto"]["searches"][0]
    scale["peer"] = {"runs": {"graphblas-pushpull": {"levels_digests": {str(search["root"]): "0" * 64}}}}
    problems = summarize(scale)
    assert any("levels differ" in p and str(search["root"]) in p for p in problems)
