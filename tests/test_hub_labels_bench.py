"""benchmarks/hub_labels.py on the CPU: the renumbered graph is the same graph (its degrees are
the original's, sorted; an independent BFS of it from scipy gives the original's levels,
renumbered), and the script's record times both searches from the same roots."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "hub_labels.py"


def test_the_renumbered_graph_is_the_same_graph_hubs_first():
    hub_labels = load_script(SCRIPT)
    A = ld.kronecker(9, seed=4, backend="cpu")
    new_id = hub_labels.hub_first_ids(A, np)
    assert np.array_equal(np.sort(new_id), np.arange(A.n))            # a permutation
    B = hub_labels.renumbered(A, new_id, "cpu")
    degrees = A.out_degree().to_numpy(fill=0)
    moved = B.out_degree().to_numpy(fill=0)
    assert np.array_equal(moved[new_id], degrees)                       # each vertex keeps its degree
    assert np.all(np.diff(moved) <= 0)                                  # hubs first
    S = B.to_scipy()
    root = int(np.argmax(degrees))
    hops = csgraph.shortest_path(S, indices=int(new_id[root]), unweighted=True)
    expected = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    assert np.array_equal(expected[new_id], ld.bfs(A, root).levels.to_numpy())


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
