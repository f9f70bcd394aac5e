"""Summarise Nsight Compute's per-instruction (SASS) source counters of one kernel: the warp
stall samples by reason and the instructions executed, for the whole kernel and for a range of
its instructions, with the instructions that gathered the most samples. It tells a latency chain
(long and short scoreboard, fixed-latency "wait") from a shortage of issue slots ("not
selected", "dispatch") or barriers, instruction by instruction.

    ncu --profile-from-start off --clock-control none --section SourceCounters -o mesh \\
        python3 benchmarks/probes/ncu_level.py mesh:1000x1000 push
    ncu --import mesh.ncu-rep --page source --csv --print-source sass > mesh-sass.csv
    python3 benchmarks/probes/ncu_source.py mesh-sass.csv [--find ATOMS] [--rows 7550:8400] [--top 20]

``--find`` lists the rows whose SASS matches a regular expression (to choose a range: a
function's atomics, barriers or sleeps mark where its code lies); ``--rows`` sums that range.
A kernel that only one block runs at a time (fused.cu's block levels) gets its samples from
that block's warps alone, so compare reasons within a range, not samples across ranges.
"""
import argparse
import csv
import re
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def read_rows(path):
    """The CSV's instruction rows (the export starts with a line naming the kernel)."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    return list(csv.DictReader(lines[header:]))


def count(row, key):
    value = row.get(key) or "0"
    return int(value.replace(",", "")) if value.replace(",", "").isdigit() else 0


def stall_reasons(rows):
    return [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]


def summary(rows, reasons, label):
    samples = sum(count(r, SAMPLES) for r in rows)
    executed = sum(count(r, EXECUTED) for r in rows)
    by_reason = sorted(((sum(count(r, k) for r in rows), k) for k in reasons), reverse=True)
    shares = ", ".join(f"{k[len('stall_'):]} {100.0 * v / max(samples, 1):.1f}%" for v, k in by_reason[:8] if v)
    print(f"{label}: {len(rows)} instructions, {executed:,} warp instructions executed, {samples:,} stall samples")
    print(f"    {shares}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--find", help="list the rows whose SASS matches this regular expression")
    parser.add_argument("--rows", help="a range of rows to sum, first:last (as --find numbers them)")
    parser.add_argument("--top", type=int, default=15, help="instructions with the most samples to list")
    args = parser.parse_args(argv)
    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"{args.csv}: no instruction rows")
    reasons = stall_reasons(rows)
    if args.find:
        pattern = re.compile(args.find)
        for i, r in enumerate(rows):
            if pattern.search(r["Source"]):
                print(f"{i:6d} {r['Source'].strip()[:60]:60s} samples {count(r, SAMPLES):7d} "
                      f"executed {count(r, EXECUTED):10d}")
        return
    summary(rows, reasons, "kernel")
    chosen, label = rows, "kernel"
    if args.rows:
        first, last = (int(x) for x in args.rows.split(":"))
        chosen, label = rows[first:last], f"rows {first}:{last}"
        summary(chosen, reasons, label)
    print(f"the {args.top} instructions of {label} with the most samples:")
    ranked = sorted(range(len(chosen)), key=lambda i: -count(chosen[i], SAMPLES))[:args.top]
    for i in sorted(ranked):
        r = chosen[i]
        top = max(reasons, key=lambda k: count(r, k))
        print(f"    {r['Source'].strip()[:58]:58s} {count(r, SAMPLES):7d} samples, "
              f"{count(r, EXECUTED):10d} executed, most {top[len('stall_'):]}")


if __name__ == "__main__":
    main()
