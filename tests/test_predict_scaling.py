"""benchmarks/multigpu_model.py predict: the exchange fit recovers a known price a level and a byte,
a search carried to a larger grid grows its levels with the graph (the source's level keeps one
vertex), and the script runs on the committed multi-GPU records."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "multigpu_model.py"


@pytest.fixture(scope="module")
def predict_scaling():
    return load_script(SCRIPT)


def level(number, direction, frontier, discovered, examined, *, expand=0.0, fold=0.0, sent=(0, 0), local=1e-3):
    return {"level": number, "direction": direction, "frontier": frontier, "discovered": discovered,
            "edges_examined": examined, "seconds": local + expand + fold,
            "stage_seconds": {"expand": expand, "fold": fold, "mask": 0.0, "local": local, "merge": 0.0},
            "bytes": {"expand": sent[0], "fold": sent[1], "mask": 0}}


def record(levels, grid=(1, 2), scale=10):
    run = {"levels_first_root": levels, "levels_first_root_stage_synced": levels, "harmonic_mean_teps": 1e9,
           "edges_per_root": [5000]}
    return {"grid": list(grid), "gpus": grid[0] * grid[1], "n": 1 << scale, "graph": {"scale": scale},
            "transport": "nccl", "lagraph_dist": {"auto": run}}


def test_the_fit_recovers_a_known_price(predict_scaling):
    a, b = 4e-4, 1 / 50e9                    # 0.4 ms a level, 50 GB/s
    levels = [level(k + 1, "push", 10, 10, 10, fold=a + b * sent, sent=(0, 2 * sent))   # 2 ranks: sent a rank
              for k, sent in enumerate([1e5, 4e6, 3e7, 1e8])]
    fitted_a, fitted_b, rms = predict_scaling.fit_exchange([record(levels)])
    assert fitted_a == pytest.approx(a, rel=1e-6)
    assert fitted_b == pytest.approx(b, rel=1e-6)
    assert rms < 1e-9


def test_a_search_grows_with_the_graph(predict_scaling):
    levels = [level(1, "push", 1, 7, 7), level(2, "push", 7, 300, 90), level(3, "pull", 300, 20, 5000)]
    grown = predict_scaling.grown_sizes(record(levels), 2)
    assert [s.frontier for s in grown] == [1, 14, 600]
    assert [s.discovered for s in grown] == [14, 600, 40]
    assert [s.frontier_edges for s in grown] == [14, 180, None]      # a pull's examined edges say nothing of them


def test_a_prediction_keeps_each_levels_compute_and_scales_its_exchange(predict_scaling):
    levels = [level(1, "push", 1, 7, 7, local=2e-3), level(2, "push", 7, 300, 90, local=5e-3, fold=1e-3,
                                                            sent=(0, 4000))]
    base = record(levels)
    row = predict_scaling.predict(base, (1, 2), (1e-4, 1e-9, 0.0))        # the base's own grid
    assert (row["gpus"], row["scale"]) == (2, 10)
    assert [r["compute_s"] for r in row["levels"]] == [2e-3, 5e-3]
    # on its own grid a level that exchanged keeps its measured exchange; one that did not
    # takes the fitted price of the model's bytes
    first, second = row["levels"]
    assert second["seconds_model"] == pytest.approx(levels[1]["seconds"])
    assert first["seconds_model"] == pytest.approx(2e-3 + 1e-4 + 1e-9 * first["bytes_per_rank_model"])
    bigger = predict_scaling.predict(base, (2, 2), (1e-4, 1e-9, 0.0))
    assert (bigger["gpus"], bigger["scale"]) == (4, 11)
    assert [r["compute_s"] for r in bigger["levels"]] == [2e-3, 5e-3]


def test_the_script_predicts_eight_gpus_from_the_committed_records(tmp_path):
    out = tmp_path / "prediction.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "predict", "--validate", "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert {tuple(row["grid"]) for row in result["predictions"]} == {(2, 4), (4, 2), (1, 8), (8, 1)}
    assert all(row["scale"] == 29 for row in result["predictions"])
    for row in result["predictions"] + result["validation"]:
        assert all(value > 0 for value in row["predicted_auto_gteps"].values())
    assert set(result["measured_auto_gteps"]) == set(result["validation_misses"]) == {"1x4", "2x2", "4x1"}
