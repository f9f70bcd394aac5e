#!/usr/bin/env bash
# One device call: install the carried wheels and the package, run the GPU tests, then a
# quick GPU BFS timing. Writes logs under $OUT. Usage (device tool): bash benchmarks/device_smoke.sh
set -uo pipefail
export PYTHONUNBUFFERED=1
repo=$PWD
site=$(mktemp -d)   # the installed package; run from there, not from the checkout
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || exit 1
export PYTHONPATH="$site"
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --target "$site" . > $OUT/install.log 2>&1 || { cat $OUT/install.log; exit 1; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee $OUT/gpu.txt
cd "$site"
python3 -m pytest -q -m gpu -p no:cacheprovider --rootdir "$repo" "$repo/tests" "${@:1}" 2>&1 | tee $OUT/pytest-gpu.log | tail -25
python3 "$repo/benchmarks/gpu_quick.py" ${QUICK_SCALES:-18 20 22} 2>&1 | tee $OUT/timing.log
