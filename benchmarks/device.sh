#!/usr/bin/env bash
# One device call: install the carried wheels (.whl) and the package into a scratch folder,
# then run the stages named as arguments; logs and records go to $OUT.
#   bash benchmarks/device.sh gpu-tests quick
# Stages: gpu-tests (pytest -m gpu), multigpu-tests (pytest -m multigpu), quick (gpu_quick.py on
# $QUICK, default kron:20 kron:22 kron:26 mesh:1000x1000), profile (profile_level.py),
# multigpu-strong / multigpu-weak / multigpu-transports (benchmarks/multigpu_bench.py runs). Real graphs travel as .data (a copy
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
mgb() {     # one multigpu_bench.py run on $1 ranks (one a GPU), records under $OUT
    local ranks=$1; shift
    timeout ${RUN_TIMEOUT:-300} mpirun --allow-run-as-root -n $ranks python3 -m mpi4py \
        "$repo/benchmarks/multigpu_bench.py" --out "$OUT" "$@" 2>&1 | grep -v "^\s*$" | tail -8 | tee -a "$OUT/multigpu.log"
}
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
    multigpu-strong)        # scale $SCALE (26) on 1 GPU, then on 2 GPUs as 1x2 and 2x1 over nccl
        mgb 1 --scale ${SCALE:-26} --grid 1x1 --tag one-gpu
        for g in 1x2 2x1; do mgb 2 --scale ${SCALE:-26} --grid $g --transport nccl --tag strong; done ;;
    multigpu-weak)          # scale $SCALE+1 (27) on 2 GPUs
        for g in 1x2 2x1; do mgb 2 --scale $(( ${SCALE:-26} + 1 )) --grid $g --transport nccl --tag weak; done ;;
    multigpu-transports)    # the other transports at scale $SCALE, auto only, fewer roots
        for t in mpi-cuda mpi-host; do for g in 1x2 2x1; do
            mgb 2 --scale ${SCALE:-26} --grid $g --transport $t --directions auto --roots ${ROOTS:-8} --tag transport
        done; done ;;
    *) echo "unknown stage $stage"; exit 2 ;;
    esac
done
