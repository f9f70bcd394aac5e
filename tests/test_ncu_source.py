"""benchmarks/ncu_source.py on a small export in Nsight Compute's source-page CSV layout: the kernel's
and a range's stall shares and instruction counts are the sums of the rows written, and --find
lists the matching rows by their numbers."""
import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "ncu_source.py"

COLUMNS = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_long_sb",
           "stall_wait", "stall_barrier", "stall_long_sb (Not Issued)"]
ROWS = [  # address, SASS, samples, executed, long_sb, wait, barrier
    ("0x10", "LDG.E R2, desc[UR4][R2.64]", 10, 100, 8, 2, 0),
    ("0x20", "ATOMS.OR R5, [R3], R5", 30, 1000, 0, 30, 0),
    ("0x30", "BAR.SYNC.DEFER_BLOCKING 0x0", 60, 50, 0, 0, 60),
]


def export(path):
    with open(path, "w", newline="") as f:
        f.write('"Kernel Name","void ld_bfs_fused<2, long long, 1>(ld_fused_args<T2>)",\n')
        writer = csv.writer(f, quoting=csv.QUOTE_ALL)
        writer.writerow(COLUMNS)
        for address, sass, samples, executed, long_sb, wait, barrier in ROWS:
            writer.writerow([address, "      " + sass, samples, f"{executed:,}", long_sb, wait, barrier, long_sb])
    return path


def run(*args):
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_kernel_and_a_range_sum_their_rows(tmp_path):
    out = run(export(tmp_path / "k.csv"), "--rows", "0:2", "--top", "2")
    lines = out.splitlines()
    # all three rows: 100 samples, of which 8 long_sb, 32 wait, 60 barrier (the Not Issued column is not a reason)
    assert lines[0] == "kernel: 3 instructions, 1,150 warp instructions executed, 100 stall samples"
    assert lines[1].split(", ") == ["    barrier 60.0%", "wait 32.0%", "long_sb 8.0%"]
    # rows 0 and 1: 40 samples, 1,100 executed; wait 32 of 40, long_sb 8 of 40
    assert lines[2] == "rows 0:2: 2 instructions, 1,100 warp instructions executed, 40 stall samples"
    assert lines[3].split(", ") == ["    wait 80.0%", "long_sb 20.0%"]
    # the two instructions of the range with most samples, in their order, each with its main reason
    assert "LDG.E" in lines[5] and lines[5].endswith("most long_sb")
    assert "ATOMS.OR" in lines[6] and lines[6].endswith("most wait")


def test_find_lists_the_matching_rows(tmp_path):
    out = run(export(tmp_path / "k.csv"), "--find", "ATOMS|BAR")
    numbers = [int(line.split()[0]) for line in out.splitlines()]
    assert numbers == [1, 2]
