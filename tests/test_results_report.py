"""benchmarks/results_report.py: the committed results files are what it writes from the committed
JSON; a changed record makes --check fail naming the files it changes; a table holds a record's
numbers (checked against figures computed here from the record's per-root data); and replacing a
marked region leaves everything around it as it was."""
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "results_report.py"
TIMEOUT = 120
ROUNDING = 6e-3      # a table figure: three significant digits, or one decimal from 10 up


def run_check(*args):
    return subprocess.run([sys.executable, str(SCRIPT), "--check", *map(str, args)],
                          capture_output=True, text=True, timeout=TIMEOUT)


def table_rows(markdown):
    """{first cell: [cells]} of every table row (header and rule lines included, harmlessly)."""
    rows = {}
    for line in markdown.splitlines():
        if line.startswith("| "):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0]] = cells
    return rows


def number(cell):
    """The leading number of a table cell ('111.5', '2.34 GTEPS', '1.56x', '1,999')."""
    return float(re.match(r"[0-9.,]+", cell).group(0).replace(",", ""))


# -- the committed files -------------------------------------------------------------------------
def test_committed_results_are_what_the_script_writes():
    done = run_check()
    assert done.returncode == 0, f"results files out of date; run python benchmarks/results_report.py\n{done.stderr}"


def test_a_changed_record_fails_the_check_and_names_the_files(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "benchmarks" / "results", results)
    assert run_check("--results", results).returncode == 0

    record_path = results / "h100-bench-scale26.json"
    record = json.loads(record_path.read_text())
    record["lagraph_dist"]["auto"]["harmonic_mean_teps"] *= 2
    record_path.write_text(json.dumps(record))
    done = run_check("--results", results)
    assert done.returncode == 1
    assert str(results / "README.md") in done.stderr       # its tables, those moved from the top README too
    assert str(results / "h100-bench.md") in done.stderr
    assert str(results / "gpu-scale20.md") not in done.stderr


# -- a synthetic record ------------------------------------------------------------------------------
def per_root(edges, seconds):
    """The summary fields the bench writes for one run, from its per-root edges and seconds."""
    teps = [e / s for e, s in zip(edges, seconds)]
    return {"harmonic_mean_teps": len(teps) / sum(1 / t for t in teps), "min_teps": min(teps),
            "median_teps": statistics.median(teps), "max_teps": max(teps),
            "mean_ms": 1e3 * statistics.mean(seconds), "median_ms": 1e3 * statistics.median(seconds),
            "roots": len(seconds), "edges_per_root": edges, "seconds_per_root": seconds}


def synthetic_record():
    edges = [1_000_000, 1_200_000, 900_000, 1_100_000]
    push = dict(per_root(edges, [0.050, 0.061, 0.047, 0.052]), direction="push", validated=4)
    auto = dict(per_root(edges, [0.011, 0.014, 0.010, 0.012]), direction="auto", validated=4)
    scipy = dict(per_root(edges[:2], [0.020, 0.023]), agrees_with_ours=True)
    best = max(push["harmonic_mean_teps"], auto["harmonic_mean_teps"])
    return {
        "graph": {"kind": "kronecker", "scale": 12, "edgefactor": 16, "seed": 0, "build_seconds": 0.5},
        "n": 4096, "nvals": 120_000, "backend": "cpu",
        "environment": {"backend": "cpu", "grid": [1, 1], "ranks": 1, "cpu_count": 2,
                        "commit": "abc1234", "device": "Test CPU"},
        "lagraph_dist": {"push": push, "auto": auto},
        "peers": {"scipy": scipy, "graphblas-push": {"skipped": "not installed here"}},
        "ratios": {"lagraph_dist/scipy": best / scipy["harmonic_mean_teps"]},
        "peak_device_bytes": 0,
    }


@pytest.fixture
def record_file(tmp_path):
    path = tmp_path / "cpu-scale12-1x1.json"
    path.write_text(json.dumps(synthetic_record()))
    return path


def expected_from(path):
    """Harmonic-mean GTEPS and median ms of each run, computed here from the per-root lists."""
    record = json.loads(path.read_text())
    runs = dict(record["lagraph_dist"], scipy=record["peers"]["scipy"])
    expected = {}
    for name, run in runs.items():
        teps = [e / s for e, s in zip(run["edges_per_root"], run["seconds_per_root"])]
        expected[name] = {"gteps": len(teps) / sum(1 / t for t in teps) / 1e9,
                          "median_ms": 1e3 * statistics.median(run["seconds_per_root"])}
    return expected


def test_bench_summary_holds_the_record_numbers(record_file):
    report = load_script(SCRIPT)
    text = report.bench_summary(report.load(record_file.parent, record_file.name), record_file.name)
    rows = table_rows(text)
    expected = expected_from(record_file)
    for label, name in (("lagraph_dist cpu push", "push"), ("lagraph_dist cpu auto", "auto"), ("scipy", "scipy")):
        cells = rows[label]
        assert number(cells[1]) == pytest.approx(expected[name]["gteps"], rel=ROUNDING)
        assert number(cells[3]) == pytest.approx(expected[name]["median_ms"], rel=1e-3)
    assert rows["lagraph_dist cpu auto"][6] == "4/4 Graph500 rules"
    assert rows["graphblas-push"][6] == "skipped: not installed here"
    assert "commit `abc1234`" in text and "CPU Test CPU, 2 cores" in text and record_file.name in text


def test_comparison_table_holds_the_record_numbers(record_file):
    report = load_script(SCRIPT)
    text = report.comparison_table(record_file.parent, [record_file.name], 1e6, ("scipy",))
    cells = table_rows(text)["scale 12, 1 process"]
    expected = expected_from(record_file)
    mteps = {name: 1e3 * run["gteps"] for name, run in expected.items()}
    assert cells[1] == "`abc1234`"
    assert number(cells[2]) == pytest.approx(mteps["push"], rel=ROUNDING)
    assert number(cells[3]) == pytest.approx(mteps["auto"], rel=ROUNDING)
    assert number(cells[4]) == pytest.approx(expected["auto"]["median_ms"], rel=1e-3)
    header = table_rows(text)["run"]
    scipy_column = header.index("scipy csgraph MTEPS")
    assert number(cells[scipy_column]) == pytest.approx(mteps["scipy"], rel=ROUNDING)
    assert cells[header.index("graphblas push MTEPS")].startswith("skipped")
    ours_over_scipy = max(mteps["push"], mteps["auto"]) / mteps["scipy"]
    assert number(cells[header.index("ours / scipy csgraph")]) == pytest.approx(ours_over_scipy, rel=ROUNDING)


def test_fused_blocks_band_table_holds_each_runs_bands():
    """fused_blocks.py's per-band figures of two real CPU searches (a mesh and a path: the path
    has one band), a row a run and a column a band, '-' where a run had no level."""
    import lagraph_dist as ld
    from lagraph_dist.io.generators import grid2d_edges
    from lagraph_dist.tools.bench import frontier_bands
    report = load_script(SCRIPT)
    src, dst = grid2d_edges(20, 30)
    mesh = ld.bfs(ld.Matrix.from_edges(src, dst, 600, symmetrize=True, backend="cpu"), 0).stats
    ids = np.arange(99)
    path = ld.bfs(ld.Matrix.from_edges(ids, ids + 1, 100, symmetrize=True, backend="cpu"), 0).stats
    runs = [{"graph": name, "block_edges": edges, "cluster_levels": True,
             "cluster_counts_last": {"levels": 3, "spills": 0},
             "frontier_bands_last": frontier_bands(stats, bounds=(4, 16))}
            for name, stats, edges in (("mesh", mesh, "policy"), ("path", path, 1024))]
    text = report.fused_blocks_bands({"a.json": {"commit": "abc1234", "runs": runs}})
    rows = table_rows(text)
    assert rows["graph"][5:] == ["frontier 1-4: us a level (levels)", "frontier 5-16: us a level (levels)",
                                 "frontier 17+: us a level (levels)"]
    for run in runs:
        cells = rows[run["graph"]]
        threshold = {"policy": "policy", 1024: "1,024"}[run["block_edges"]]
        assert cells[1:5] == ["`abc1234`", threshold, "on", "3"]
        bands = {b["frontier_from"]: b for b in run["frontier_bands_last"]}
        for cell, low in zip(cells[5:], (1, 5, 17)):
            if low not in bands:
                assert cell == "-"
                continue
            assert number(cell) == pytest.approx(bands[low]["us_mean"], rel=ROUNDING)
            assert cell.endswith(f"({bands[low]['levels']:,})")
    assert rows["path"][6:] == ["-", "-"]          # every level of a path has one entry
    assert report.fused_blocks_bands({"a.json": {"commit": "x", "runs": [{"graph": "g"}]}}) == ""


# -- marked regions ----------------------------------------------------------------------------------
def marked(name, body):
    report = load_script(SCRIPT)
    return f"{report.open_marker(name)}\n{body}\n{report.close_marker(name)}"


def test_replacing_a_region_keeps_the_text_around_it():
    report = load_script(SCRIPT)
    before = "# Title\n\nProse with 12.5 ms that is not ours to touch.\n\n"
    between = "\n\nMore prose.\n\n"
    after = "\n\nThe end, | a | table | line |\n"
    text = before + marked("one", "| old | table |") + between + marked("two", "keep me") + after
    replaced = report.replace_region(text, "one", "| new | table |\n")
    assert replaced == before + marked("one", "| new | table |") + between + marked("two", "keep me") + after
    assert report.replace_region(replaced, "one", "| new | table |") == replaced


def test_a_region_without_its_markers_is_refused():
    report = load_script(SCRIPT)
    text = marked("one", "body")
    with pytest.raises(report.MarkerError, match="'other'"):
        report.replace_region(text, "other", "x")
    with pytest.raises(report.MarkerError, match="'one'"):
        report.replace_region(text + "\n" + marked("one", "again"), "one", "x")
    closed_first = f"{report.close_marker('one')}\n{report.open_marker('one')}\n"
    with pytest.raises(report.MarkerError, match="before"):
        report.replace_region(closed_first, "one", "x")
