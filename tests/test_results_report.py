"""benchmarks/results_report.py: the committed results files are what it writes from the committed
JSON; a changed record makes --check fail naming the files it changes; a table shows the records
present by their names' patterns, a row a record, so that a new record adds its row and a record
that leaves takes its row with it; a table holds a record's numbers (checked against figures
computed here from the record's per-root data); and replacing a marked region leaves everything
around it as it was."""
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

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


@pytest.fixture
def results_copy(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "benchmarks" / "results", results)
    return results


def region(text, name):
    """What lies between a region's markers."""
    report = load_script(SCRIPT)
    return text.split(report.open_marker(name))[1].split(report.close_marker(name))[0]


def test_a_changed_record_fails_the_check_and_names_the_files(results_copy):
    results = results_copy
    assert run_check("--results", results).returncode == 0

    record_path = sorted(results.glob("h100-bench-scale26-*.json"))[0]
    record = json.loads(record_path.read_text())
    record["lagraph_dist"]["auto"]["harmonic_mean_teps"] *= 2
    record_path.write_text(json.dumps(record))
    done = run_check("--results", results)
    assert done.returncode == 1
    assert str(results / "README.md") in done.stderr       # its tables, those moved from the top README too
    assert str(results / "h100-bench.md") in done.stderr
    assert str(results / "gpu-scale20.md") not in done.stderr


def test_a_new_record_adds_its_row_and_a_record_that_leaves_takes_its_own(results_copy):
    """A whole-call record under a new commit's name shows in the H200 table of whole calls (and
    the index) with its commit; removed, its row and its name leave with it, the other rows kept."""
    report = load_script(SCRIPT)
    results = results_copy
    current = sorted(results.glob("h200-quick-*.json"))
    assert current, "the H200 whole-call table has a record"
    record = json.loads(current[-1].read_text())
    record["commit"] = "fedcba9"
    first_graph = next(iter(record["graphs"]))
    record["graphs"][first_graph]["auto"]["median_ms"] = 123.456
    (results / "h200-quick-fedcba9.json").write_text(json.dumps(record))

    readme = report.generated_files(results)[results / "README.md"]
    quick = region(readme, "h200-quick")
    new_rows = [line for line in quick.splitlines() if line.startswith("| ") and "`fedcba9`" in line]
    assert len(new_rows) == sum(direction in runs for runs in record["graphs"].values()
                                for direction in ("auto", "push", "pull"))
    assert f"| {first_graph} | `fedcba9` | auto | 123 |" in quick
    assert "`h200-quick-fedcba9.json`" in region(readme, "index")
    for old in current:
        assert f"`{old.name}`" in quick

    current[0].unlink()
    readme = report.generated_files(results)[results / "README.md"]
    quick = region(readme, "h200-quick")
    assert f"`{current[0].name}`" not in readme
    assert "`h200-quick-fedcba9.json`" in quick


def test_names_match_their_patterns_in_name_order(tmp_path):
    report = load_script(SCRIPT)
    for name in ("cpu-scale18-2x2.json", "cpu-scale16-1x1.json", "cpu-scaling-host-abc1234.json",
                 "sub/cpu-scale16-1x1.json", "cpu-scale16-1x1.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    assert list(report.records(tmp_path, report.CPU_BENCH)) == ["cpu-scale16-1x1.json", "cpu-scale18-2x2.json"]
    assert list(report.records(tmp_path, ("sub/*.json", "cpu-scaling-*.json"))) == ["cpu-scaling-host-abc1234.json",
                                                                                    "sub/cpu-scale16-1x1.json"]
    assert report.records(tmp_path / "absent", report.CPU_BENCH) == {}


def test_a_record_table_has_a_row_a_record_item_and_names_its_records(tmp_path):
    """record_table over two whole-call records: a row per graph and direction of each, in name
    order, each with its own commit, and the sentence under it naming both with their devices."""
    report = load_script(SCRIPT)
    run = {"median_ms": 2.5, "ms": [2.0, 2.5, 3.0], "levels": 7, "level_ms_last": 1.25}
    records = {"h100-quick-bbbbbbb.json": {"commit": "bbbbbbb", "device": "GPU B", "graphs": {"kron:20": {"auto": run}}},
               "h100-quick-aaaaaaa.json": {"commit": "aaaaaaa", "device": "GPU A",
                                           "graphs": {"mesh:10x10": {"push": run, "auto": run}}}}
    for name, record in records.items():
        (tmp_path / name).write_text(json.dumps(record))
    text = report.record_table(tmp_path, report.H100_QUICK, report.QUICK_HEADER, report.quick_rows)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    assert rows == ["| mesh:10x10 | `aaaaaaa` | auto | 2.50 | 2.00, 2.50, 3.00 | 7 | 1.25 |",
                    "| mesh:10x10 | `aaaaaaa` | push | 2.50 | 2.00, 2.50, 3.00 | 7 | 1.25 |",
                    "| kron:20 | `bbbbbbb` | auto | 2.50 | 2.00, 2.50, 3.00 | 7 | 1.25 |"]
    assert text.endswith("JSON `h100-quick-aaaaaaa.json`: commit `aaaaaaa`, GPU A; "
                         "`h100-quick-bbbbbbb.json`: commit `bbbbbbb`, GPU B.")


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
    text = report.gpu_bench.summary(json.loads(record_file.read_text()), record_file.name)
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
    text = report.comparison_table({record_file.name: json.loads(record_file.read_text())}, 1e6, ("scipy",))
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


def test_sources_name_a_records_host_processor_where_it_has_one():
    """A quick or probe record's sentence names its GPU, then its host's processor where the
    record has one (its host part runs there); older records name the GPU alone."""
    report = load_script(SCRIPT)
    chosen = {"old.json": {"commit": "1234567", "device": "NVIDIA H100 80GB HBM3"},
              "new.json": {"commit": "89abcde", "device": "NVIDIA H200", "host_cpu": "Intel Xeon Platinum 8480C"}}
    assert report.top_sources(chosen) == ("JSON `old.json`: commit `1234567`, NVIDIA H100 80GB HBM3; `new.json`: "
                                          "commit `89abcde`, NVIDIA H200, host Intel Xeon Platinum 8480C.")
