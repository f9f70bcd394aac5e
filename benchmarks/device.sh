#!/usr/bin/env bash
# One device call: install the carried wheels (.whl) and the package into a scratch folder,
# then run the stages named as arguments; logs and records go to $OUT.
#   bash benchmarks/device.sh gpu-tests quick
# Stages: gpu-tests (pytest -m gpu), multigpu-tests (pytest -m multigpu), quick (gpu_quick.py on
# $QUICK, default kron:20 kron:22 kron:26 mesh:1000x1000), profile (profile_level.py). Real graphs travel as .data (a copy
# of ../shared/data named in carry); tests skip them when absent.
set -uo pipefail
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=${CUPY_CACHE_DIR:-/tmp/cupy-cache}
repo=$PWD
site=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || exit 1
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --target "$site" . > "$OUT/install.log" 2>&1 \
    || { cat "$OUT/install.log"; exit 1; }
export PYTHONPATH="$site" LAGRAPH_DIST_COMMIT=${LAGRAPH_DIST_COMMIT:-unknown}
[ -d "$repo/.data" ] && export LAGRAPH_DIST_DATA="$repo/.data"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
cd "$site"
for stage in "$@"; do
    echo "== $stage $(date +%T)"
    case $stage in
    gpu-tests)
        timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -m gpu -p no:cacheprovider --rootdir "$repo" "$repo/tests" \
            ${PYTEST_ARGS:---maxfail=8} 2>&1 | tee "$OUT/pytest-gpu.log" | tail -30 ;;
    multigpu-tests)
        timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -m multigpu -s -p no:cacheprovider --rootdir "$repo" \
            "$repo/tests" ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest-multigpu.log" | tail -40 ;;
    quick)
        timeout ${QUICK_TIMEOUT:-300} python3 "$repo/benchmarks/gpu_quick.py" ${QUICK:-kron:20 kron:22 kron:26 mesh:1000x1000} \
            2>&1 | tee "$OUT/quick.log" ;;
    profile)
        timeout ${PROFILE_TIMEOUT:-200} python3 "$repo/benchmarks/profile_level.py" ${PROFILE_SCALE:-22} 2>&1 | tee "$OUT/profile.log" \
            | grep -v "^ *$" | head -${PROFILE_LINES:-120} ;;
    *) echo "unknown stage $stage"; exit 2 ;;
    esac
done
