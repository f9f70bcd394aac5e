"""benchmarks/profile_grid_levels.py on a CPU grid of two ranks: its record holds as many levels
as scipy counts on the same mesh from the same corner, the fold's stage on a 1 x 2 grid (the
products fold along the grid row), and the profile printed by rank 0."""
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

from helpers import edges_to_scipy, needs_mpi, run_mpi
from lagraph_dist.io.generators import grid2d_edges

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "profile_grid_levels.py"


@pytest.mark.mpi
@needs_mpi
def test_a_two_rank_record_counts_the_mesh_levels_and_its_folds(tmp_path):
    side, out = 12, tmp_path / "levels.json"
    done = run_mpi(2, SCRIPT, "--grid", "1x2", "--backend", "cpu", "--mesh", side, "--searches", 2, "--lines", 5,
                   "--json", out, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads(out.read_text())
    assert (record["benchmark"], record["grid"], record["graph"]) == ("profile_grid_levels", [1, 2], "mesh:12x12")
    src, dst = grid2d_edges(side, side)
    depths = csgraph.shortest_path(edges_to_scipy(src, dst, side * side, symmetrize=True), unweighted=True, indices=0)
    assert record["levels"] == int(np.max(depths)) + 1
    assert len(record["search_seconds"]) == 2 and record["level_us"] > 0
    stages = record["synced_stage_us_per_level"]
    assert set(stages) == {"expand", "mask", "local", "fold", "merge"} and stages["fold"] > 0
    assert "cProfile of rank 0 by tottime" in done.stdout and "cProfile of rank 0 by cumtime" in done.stdout
