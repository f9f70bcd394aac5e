#!/usr/bin/env bash
# Device call: install carried wheels + the package, then gpu_bench.py with the given args,
# results under $OUT. Usage: bash benchmarks/device_bench.sh --scales 20 22
set -uo pipefail
export PYTHONUNBUFFERED=1
repo=$PWD
site=$(mktemp -d)   # the installed package; run from there, not from the checkout
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || exit 1
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --target "$site" . > $OUT/install.log 2>&1 || { cat $OUT/install.log; exit 1; }
export PYTHONPATH="$site"
cd "$site" && python3 "$repo/benchmarks/gpu_bench.py" --out "$OUT" "$@" 2>&1 | tee "$OUT/bench.log"
