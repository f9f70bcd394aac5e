#!/usr/bin/env bash
# Device call for the big graphs: scale 27 built under a 78 GiB pool cap (an 80 GB H100's
# room), then the scale-26 benchmark with its peers, then an ncu kernel profile at scale 22.
set -uo pipefail
export PYTHONUNBUFFERED=1
repo=$PWD
site=$(mktemp -d)   # the installed package; run from there, not from the checkout
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || exit 1
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --target "$site" . > $OUT/install.log 2>&1 || exit 1
export PYTHONPATH="$site"
cd "$site"
timeout 200 python3 - <<'PY' 2>&1 | tee $OUT/scale27.log
import json, os, time, cupy as cp, lagraph_dist as ld
pool = cp.get_default_memory_pool(); pool.set_limit(size=78 * 2**30)
t = time.perf_counter(); A = ld.kronecker(27, backend="gpu"); cp.cuda.Device().synchronize()
info = {"scale": 27, "pool_limit_gib": 78, "build_seconds": time.perf_counter() - t,
        "peak_pool_gib": pool.total_bytes() / 2**30, "graph_gib": A.block.nbytes / 2**30, "nvals": A.nvals}
roots = [int(v) for v in A.out_degree().indices()[:2]]
r = ld.bfs(A, roots[0]); cp.cuda.Device().synchronize()
t = time.perf_counter(); r = ld.bfs(A, roots[1]); cp.cuda.Device().synchronize()
info["one_bfs_auto_ms"] = 1e3 * (time.perf_counter() - t)
print(json.dumps(info)); open(os.environ["OUT"] + "/gpu-build-scale27-capped.json", "w").write(json.dumps(info, indent=1))
PY
python3 - <<'PY'
import cupy as cp; cp.get_default_memory_pool().free_all_blocks()
PY
timeout 300 python3 "$repo/benchmarks/gpu_bench.py" --scales 26 --peer-roots 8 --out "$OUT" 2>&1 | grep -v "^    " | tee "$OUT/bench26.log"
timeout 150 ncu --clock-control none -k regex:ld_ --launch-skip 60 --launch-count 30 --metrics gpu__time_duration.sum,dram__bytes.sum python3 "$repo/benchmarks/gpu_quick.py" 22 > $OUT/ncu.txt 2>&1
grep -E "ld_[a-z_]+|gpu__time_duration|dram__bytes" $OUT/ncu.txt | head -90
