"""Summarise an Nsight Compute CSV (one row per kernel and metric) of one search: every launch
in order with its grid, time and DRAM bytes, then totals per kernel name with the achieved
bandwidth. ncu_level.py's PROFILED/LEVEL lines found in the file are kept at the top.

    python3 benchmarks/probes/ncu_summary.py ncu-kron26-auto.csv
"""
import csv
import re
import sys
from collections import defaultdict

METRICS = {"gpu__time_duration.sum": "time", "dram__bytes_read.sum": "read", "dram__bytes_write.sum": "write"}
SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
         "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def short(name):
    name = re.sub(r"\(.*", "", name)          # drop the argument list
    return name.replace("void ", "").strip()


def launches(lines):
    rows = [line for line in lines if line.startswith('"ID"') or re.match(r'^"\d+"', line)]
    launch = {}
    for row in csv.DictReader(rows):
        metric = METRICS.get(row.get("Metric Name"))
        if metric is None:
            continue
        value = float(row["Metric Value"].replace(",", "")) * SCALE.get(row["Metric Unit"], 1.0)
        entry = launch.setdefault(int(row["ID"]), {"kernel": short(row["Kernel Name"]), "grid": row["Grid Size"],
                                                   "block": row["Block Size"]})
        entry[metric] = value
    return [launch[k] for k in sorted(launch)]


def main(path):
    with open(path, errors="replace") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        if line.startswith(("PROFILED", "LEVEL")):
            print(line)
    rows = launches(lines)
    print(f"{len(rows)} launches")
    print(f"{'#':>3} {'kernel':<44} {'grid':>14} {'us':>9} {'read MB':>9} {'write MB':>9} {'GB/s':>7}")
    totals = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for i, row in enumerate(rows):
        t, r, w = row.get("time", 0.0), row.get("read", 0.0), row.get("write", 0.0)
        print(f"{i:>3} {row['kernel'][:44]:<44} {row['grid']:>14} {1e6 * t:9.1f} {r / 1e6:9.2f} {w / 1e6:9.2f} "
              f"{(r + w) / t / 1e9 if t else 0:7.0f}")
        total = totals[row["kernel"]]
        total[0] += 1; total[1] += t; total[2] += r; total[3] += w
    print("per kernel:")
    for name, (count, t, r, w) in sorted(totals.items(), key=lambda item: -item[1][1]):
        print(f"  {name[:50]:<50} x{count:<3} {1e3 * t:8.3f} ms {(r + w) / 1e6:9.1f} MB {(r + w) / t / 1e9 if t else 0:6.0f} GB/s")
    print(f"total kernel time {1e3 * sum(row.get('time', 0.0) for row in rows):.3f} ms")


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(f"== {path}")
        main(path)
