#!/usr/bin/env bash
# One device call: install the carried wheels (.whl) and the package into a scratch folder,
# then run the stages named as arguments; logs and records go to $OUT.
#   bash benchmarks/device.sh gpu-tests quick
# Stages: gpu-tests (pytest -m gpu on $TESTS, default tests), multigpu-tests (pytest -m multigpu, -k $TEST_K), quick (gpu_quick.py on
# $QUICK, default kron:20 kron:22 kron:26 mesh:1000x1000), profile (probes/profile_level.py),
# multigpu-strong / multigpu-weak / multigpu-transports (benchmarks/multigpu_bench.py runs), multi
# (multi_source.py), multi-ab (probes/multi_batch.py at .old and at this commit), family (bench --algorithm cc|bc), nx-suite (networkx's tests on the GPU engine), small
# (small graphs against scipy), host-marked and host-kron (the host's 2 cores on deep graphs, on Kronecker). Real graphs travel as .data (a copy
# of ../shared/data named in carry); tests skip them when absent.
# Most other stages (each commented at its case below) run the probes of benchmarks/probes/ (its README.md).
# .whl holds python-graphblas and what it needs that the device lacks (suitesparse-graphblas,
# donfig, cffi, pycparser), downloaded with --no-deps for CPython 3.12 on manylinux x86_64; name
# the versions python-graphblas requires (suitesparse-graphblas<10 for python-graphblas 2025.2),
# as --no-deps takes the newest: a mismatched pair imports and then fails every reference call.
# The whole `pytest -m gpu` (about 2,000 tests at e25f293) outgrew one call's 600 s: with
# pytest-xdist and execnet also in .whl, PYTEST_ARGS="-n 10 --maxfail=8" runs it in ten processes
# that share the device (each its own context): 1,797 tests in 200 s on nvidia-h100-x1 at 395a7e6;
# else GPU_TESTS_PART=1/2 and 2/2 (or TESTS) split it over calls.
set -uo pipefail
# it moves the tree's .git aside (below): on a machine without a GPU that is the repository's own
nvidia-smi -L > /dev/null 2>&1 || { echo "device.sh runs on the device machine (no GPU here: nvidia-smi -L failed)"; exit 1; }
: "${OUT:?device.sh writes its logs and records under \$OUT}"
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=${CUPY_CACHE_DIR:-/tmp/cupy-cache}
repo=$PWD
site=$(mktemp -d)
# the copy's .git is the session's first checkout, not this working tree (seen: its HEAD was the
# session's starting commit): moved aside, so that the build writes no commit into the package
# and the records name $LAGRAPH_DIST_COMMIT (lagraph_dist.core.version.code_identity)
[ -d .git ] && mv .git "$(mktemp -d)/stale.git"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || exit 1
# (set-up logs stay in /tmp and are printed only on failure: a call brings back at most 8 files
# from $OUT, gpu.txt is one, and the stages' records need the rest)
# a warm machine keeps ignored build outputs between calls: a build/ folder left by an earlier install would
# lend this one its stamped commit, so the package is built from scratch
rm -rf build *.egg-info
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --target "$site" . > /tmp/install.log 2>&1 \
    || { cat /tmp/install.log; exit 1; }
# the reference must work before any stage spends device time on it
PYTHONPATH="$site" python3 -c "import graphblas as gb; gb.Vector.from_coo([0], [1], size=2)" > /tmp/graphblas.log 2>&1 \
    || { echo "the carried wheels give no working python-graphblas:"; tail -3 /tmp/graphblas.log; exit 1; }
# the commit the records name: pass it from the machine the call is made on (put
# LAGRAPH_DIST_COMMIT=<hash> in the command, the hash written out: git on the device reads the
# stale copy); the device copy's .git is not the working tree's
export PYTHONPATH="$site" LAGRAPH_DIST_COMMIT=${LAGRAPH_DIST_COMMIT:-unknown}
[ -d "$repo/.data" ] && export LAGRAPH_DIST_DATA="$repo/.data"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# the card's model in the records' names (h100, h200): the stages below run on whichever kind came
card=$(grep -oiE 'h100|h200|h20|b200|a100' "$OUT/gpu.txt" | head -1 | tr '[:upper:]' '[:lower:]')
card=${card:-gpu}
cd "$site"
run_cli="import sys; from lagraph_dist.tools.cli import main; sys.exit(main())"
cli=(python3 -c "$run_cli")     # lagraph-dist from the scratch install
say_if_cut() {      # a test run whose timeout (status 124) cut it ends mid-line, with no summary: say so in its log
    [ "$1" = 124 ] && echo "$2: cut at TEST_TIMEOUT=${TEST_TIMEOUT:-420} s, not a pass" | tee -a "$3"
    return 0
}
grid_ranks() { local g=${1,,}; echo $(( ${g%x*} * ${g#*x} )); }     # 2x2 -> 4
mgb() {     # one multigpu_bench.py run on $1 ranks (one a GPU), records under $OUT
    local ranks=$1; shift
    timeout ${RUN_TIMEOUT:-300} mpirun --allow-run-as-root -n $ranks python3 -m mpi4py \
        "$repo/benchmarks/multigpu_bench.py" --out "$OUT" "$@" 2>&1 | tee -a "$OUT/multigpu-full.log" \
        | grep -v "^\s*$" | tail -8 | tee -a "$OUT/multigpu.log"
}
cli_at() {          # lagraph-dist from the package on PYTHONPATH $1, under a timeout of $2 s, run from
                    # $OUT: python3 -c puts the working directory first on sys.path, and this script's ($site)
                    # holds this commit's package, which would shadow an older one
    local path=$1 limit=$2; shift 2
    (cd "$OUT" && PYTHONPATH=$path timeout "$limit" python3 -c "$run_cli" "$@")
}
side_env() {        # path and commit of one side of an A/B ($1): head (this commit) or old (the tree in
                    # $old_site from install_old, this commit's site behind it for what the old one lacks)
    if [ "$1" = head ]; then path=$site commit=$LAGRAPH_DIST_COMMIT
    else path=$old_site:$site commit=${OLD_COMMIT:-old}; fi
}
install_old() {     # the base commit's tree carried in $OLD_TREE (default .old), installed into a scratch folder it prints;
                    # the A/B stages run this tree's scripts over it, which import the package's layer folders
                    # (19f013d on): against an older base, run the old tree's own scripts ($repo/$OLD_TREE/benchmarks/)
    local into
    into=$(mktemp -d)
    python3 -m pip install -q --no-index --no-deps --no-build-isolation --target "$into" "$repo/${OLD_TREE:-.old}" \
        > /dev/null 2>&1
    echo "$into"
}
marked_cpus() {     # the host's CPUs of the 2-core stages: $MARKED_CPUS (default 0,1), or "cores": CPU 0 and the first
                    # CPU on another physical core (sysfs), where 0 and 1 may be one core's two hardware threads
    [ "${MARKED_CPUS:-0,1}" = cores ] || { echo "${MARKED_CPUS:-0,1}"; return; }
    local t=/sys/devices/system/cpu c first
    first=$(cat $t/cpu0/topology/{physical_package_id,core_id} | tr '\n' :)
    for c in $(seq 1 $(( $(nproc --all) - 1 ))); do
        [ "$(cat $t/cpu$c/topology/{physical_package_id,core_id} | tr '\n' :)" != "$first" ] && { echo "0,$c"; return; }
    done
    echo 0,1
}
gpu_test_part() {   # "i/m": the i-th of m runs of whole test files holding GPU tests, of about equal test counts
    python3 - "$1" "$repo" <<'PART'
import collections, subprocess, sys
part, parts = (int(x) for x in sys.argv[1].split("/"))
repo = sys.argv[2]
listed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "gpu", "--collect-only", "-p", "no:cacheprovider",
                         "--rootdir", repo, f"{repo}/tests"], capture_output=True, text=True, cwd=repo).stdout
counts = collections.Counter(line.split("::")[0] for line in listed.splitlines() if "::" in line)
total, so_far, chosen = sum(counts.values()), 0, []
for name, count in counts.items():          # (collection order: a file whose middle test falls in the part)
    if (part - 1) * total <= parts * (so_far + count / 2) < part * total:
        chosen.append(name)
    so_far += count
print(" ".join(chosen))
PART
}
for stage in "$@"; do
    echo "== $stage $(date +%T)"
    case $stage in
    gpu-tests)              # $TESTS (default tests), or with GPU_TESTS_PART=i/m the i-th of m parts of the
                            # files holding GPU tests (whole files, about equal test counts, in collection order)
        [ -n "${GPU_TESTS_PART:-}" ] && TESTS=$(gpu_test_part "$GPU_TESTS_PART") && echo "part $GPU_TESTS_PART: $TESTS"
        timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -m gpu -p no:cacheprovider --rootdir "$repo" \
            $(for t in ${TESTS:-tests}; do echo "$repo/$t"; done) ${PYTEST_ARGS:---maxfail=8} 2>&1 \
            | tee "$OUT/pytest-gpu.log" | tail -30
        say_if_cut "${PIPESTATUS[0]}" gpu-tests "$OUT/pytest-gpu.log" ;;
    multigpu-tests)
        timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -m multigpu -s -p no:cacheprovider --rootdir "$repo" \
            "$repo/tests" ${TEST_K:+-k "$TEST_K"} ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest-multigpu.log" | tail -40
        say_if_cut "${PIPESTATUS[0]}" multigpu-tests "$OUT/pytest-multigpu.log" ;;
    quick)
        timeout ${QUICK_TIMEOUT:-300} python3 "$repo/benchmarks/gpu_quick.py" ${QUICK:-kron:20 kron:22 kron:26 mesh:1000x1000} \
            --json "$OUT/quick.json" 2>&1 | tee "$OUT/quick.log" ;;
    profile)
        timeout ${PROFILE_TIMEOUT:-200} python3 "$repo/benchmarks/probes/profile_level.py" ${PROFILE_SCALE:-22} 2>&1 | tee "$OUT/profile.log" \
            | grep -v "^ *$" | head -${PROFILE_LINES:-120} ;;
    multigpu-strong)        # scale $SCALE (26) on 1 GPU, then on each grid of $STRONG_GRIDS (1x2 2x1) over nccl
        mgb 1 --scale ${SCALE:-26} --grid 1x1 --tag one-gpu
        for g in ${STRONG_GRIDS:-1x2 2x1}; do
            mgb $(grid_ranks $g) --scale ${SCALE:-26} --grid $g --transport nccl --tag strong
        done ;;
    multigpu-weak)          # each GRID:SCALE of $WEAK_RUNS (default: scale $SCALE+1 on 1x2 and 2x1) over nccl,
                            # $WEAK_ROOTS roots (16)
        up=$(( ${SCALE:-26} + 1 ))
        for run in ${WEAK_RUNS:-1x2:$up 2x1:$up}; do
            g=${run%%:*}
            mgb $(grid_ranks $g) --scale ${run##*:} --grid $g --transport nccl --roots ${WEAK_ROOTS:-16} --tag weak
        done ;;
    multigpu-transports)    # the other transports ($TRANSPORTS) on $TRANSPORT_GRIDS at scale $SCALE, auto only, fewer roots
        for t in ${TRANSPORTS:-mpi-cuda mpi-host}; do for g in ${TRANSPORT_GRIDS:-1x2 2x1}; do
            mgb $(grid_ranks $g) --scale ${SCALE:-26} --grid $g --transport $t --directions auto --roots ${ROOTS:-8} \
                --tag transport
        done; done ;;
    bench)                  # Graph500 protocol on one GPU at each of $BENCH_SCALES, validated; with BENCH_OLD=1
                            # also the commit in $OLD_TREE (.old; $OLD_COMMIT) on the same roots, before this one
        sides=(head); [ -n "${BENCH_OLD:-}" ] && { old_site=$(install_old); sides=(old head); }
        for s in ${BENCH_SCALES:-26 27}; do for side in "${sides[@]}"; do
            side_env $side; tag=""; [ $side = old ] && tag=-$commit
            echo "$side: lagraph_dist from $(cd "$OUT" && PYTHONPATH=$path python3 -c \
                'import os, lagraph_dist; print(os.path.dirname(lagraph_dist.__file__))')" | tee -a "$OUT/bench.log"
            LAGRAPH_DIST_COMMIT=$commit cli_at $path ${BENCH_TIMEOUT:-200} \
                bench --scale $s --roots ${BENCH_ROOTS:-16} --peers cupyx-naive --no-check-levels --no-progress \
                --json "$OUT/gpu-bench-scale$s$tag.json" 2>&1 | tail -12 | sed "s/^/$side: /" | tee -a "$OUT/bench.log"
        done; done ;;
    multi)                  # many searches at once (benchmarks/multi_source.py): $MULTI_GRAPHS (kron:22) from
                            # $MULTI_SOURCES (64 512) sources, beside the separate searches and scipy's;
                            # $MULTI_ORDER the degree orders, $MULTI_PARENTS (both, no, yes) the parents runs,
                            # $MULTI_HOST (auto) the settings.host_batches of each run, $MULTI_REPEATS (5)
        timeout ${MULTI_TIMEOUT:-300} python3 "$repo/benchmarks/multi_source.py" \
            $(for g in ${MULTI_GRAPHS:-kron:22}; do echo --graph $g; done) --sources ${MULTI_SOURCES:-64 512} \
            --backend gpu --scipy-sources ${MULTI_SCIPY_SOURCES:-4} --degree-order ${MULTI_ORDER:-auto} \
            --parents ${MULTI_PARENTS:-both} --host-batches ${MULTI_HOST:-auto} --repeats ${MULTI_REPEATS:-5} \
            --json "$OUT/multi-source${MULTI_NAME:+-$MULTI_NAME}.json" 2>&1 \
            | tee "$OUT/multi.log" ;;
    family)                 # the BFS family on one GPU (lagraph-dist bench --algorithm ...): each ALGO:GRAPH[:ROOTS]
                            # of $FAMILY_RUNS (cc:22 bc:22), GRAPH a Kronecker scale or the name of a Matrix
                            # Market file of .data/networkit (carried), ROOTS ($FAMILY_ROOTS, 64) sources or
                            # "all", $FAMILY_PEERS per algorithm
        for run in ${FAMILY_RUNS:-cc:22 bc:22}; do
            IFS=: read -r algo graph roots <<< "$run"
            roots=${roots:-${FAMILY_ROOTS:-64}}; [ "$roots" = all ] && roots=2000000000
            if [[ $graph =~ ^[0-9]+$ ]]; then source=(--scale $graph); name=kron$graph
            else source=(--mtx "$repo/.data/networkit/$graph.mtx"); name=$graph; fi
            peers=$([ $algo = cc ] && echo ${FAMILY_CC_PEERS:-scipy} || echo ${FAMILY_BC_PEERS:-none})
            timeout ${FAMILY_TIMEOUT:-200} "${cli[@]}" bench "${source[@]}" --backend gpu --algorithm $algo \
                --roots $roots --peers $peers --repeats ${FAMILY_REPEATS:-5} --no-progress \
                --json "$OUT/$card-family-$algo-$name-$LAGRAPH_DIST_COMMIT.json" 2>&1 | tail -6 | tee -a "$OUT/family.log"
        done ;;
    agreement-gpu)          # issue 50's agreement check on $AGREE_RANKS (2) GPU ranks sharing the device over mpi-host,
                            # run by hand (not under pytest), its whole output kept
        timeout ${AGREE_TIMEOUT:-120} mpirun --allow-run-as-root --oversubscribe -n ${AGREE_RANKS:-2} python3 -m mpi4py \
            "$repo/tests/mpi/check_agreement.py" 1 ${AGREE_RANKS:-2} "$(mktemp -d)" --backend gpu --transport mpi-host \
            > "$OUT/agreement-gpu.log" 2>&1
        echo "exit status $?" >> "$OUT/agreement-gpu.log"
        tail -25 "$OUT/agreement-gpu.log" ;;
    sweeps)                 # betweenness's GPU sweeps launch by launch (benchmarks/probes/sweep_launches.py) on
                            # $SWEEP_GRAPHS (kron:22 and wing from .data), $SWEEP_SOURCES (64) sources
        timeout ${SWEEP_TIMEOUT:-200} python3 "$repo/benchmarks/probes/sweep_launches.py" \
            ${SWEEP_GRAPHS:-kron:22 $repo/.data/networkit/wing.mtx} --sources ${SWEEP_SOURCES:-64} \
            --json "$OUT/sweep-launches.json" 2>&1 | tee "$OUT/sweeps.log" ;;
    nx-suite)               # networkx's tests of the dispatched functions with the backend on the GPU engine
        (cd "$OUT" && timeout ${NX_TIMEOUT:-300} python3 "$repo/benchmarks/networkx_suite.py" \
            --json "$OUT/$card-networkx-suite-$LAGRAPH_DIST_COMMIT.json" > "$OUT/nx-suite.log" 2>&1)
        tail -4 "$OUT/nx-suite.log" ;;
    hidiam)                 # meshes with every peer, then a long path with scipy, then a road graph and the
                            # real meshes (benchmarks/peer_bench.py --preset deep)
        deep=(python3 "$repo/benchmarks/peer_bench.py" --preset deep --backend gpu --peer-repeats 1)
        timeout ${HIDIAM_TIMEOUT:-150} "${deep[@]}" --graphs mesh:1000x1000 mesh:2000x2000 \
            --json "$OUT/high-diameter-meshes.json" 2>&1 | tail -14 | tee "$OUT/hidiam.log"
        timeout ${HIDIAM_TIMEOUT:-150} "${deep[@]}" --graphs path:${HIDIAM_PATH:-200000} --peers scipy \
            --json "$OUT/high-diameter-path.json" 2>&1 | tail -8 | tee -a "$OUT/hidiam.log"
        timeout ${HIDIAM_TIMEOUT:-150} "${deep[@]}" --graphs road:${HIDIAM_ROAD:-1000000} --real \
            --json "$OUT/high-diameter-road.json" 2>&1 | tail -16 | tee -a "$OUT/hidiam.log" ;;
    small)                  # issue 54 item 2: the small graphs on the GPU backend, each by the package's choice of
                            # engine, on the device and on the host's kernels, scipy beside (peer_bench.py --preset small-gpu;
                            # $SMALL_GRAPHS, harness specs, instead of the preset's and the real meshes, named $SMALL_NAME)
        timeout ${SMALL_TIMEOUT:-150} python3 "$repo/benchmarks/peer_bench.py" --preset small-gpu --backend gpu \
            $([ -n "${SMALL_GRAPHS:-}" ] && echo "--graphs $SMALL_GRAPHS" || echo --real) --peers scipy \
            --json "$OUT/$card-${SMALL_NAME:-small-graphs}-$LAGRAPH_DIST_COMMIT.json" 2>&1 | tail -40 | tee "$OUT/small.log" ;;
    small-cc)               # issue 54 item 2's family: a small graph's connected components by the policy, on the
                            # device and on the host twin, scipy beside (benchmarks/probes/small_components.py)
        timeout ${SMALL_TIMEOUT:-150} python3 "$repo/benchmarks/probes/small_components.py" \
            ${SMALL_CC_GRAPHS:-kron:10 kron:12 mesh:30x30 mesh:100x100 path:2000 path:10000 \
            mtx:$repo/.data/lagraph/jagmesh7.mtx mtx:$repo/.data/networkit/4elt.mtx} \
            --json "$OUT/$card-small-components-$LAGRAPH_DIST_COMMIT.json" 2>&1 | grep -v compiling | tee "$OUT/small-cc.log" ;;
    host-marked)            # issue 54 item 4 on this host: the CPU backend on 2 of its cores (taskset), the deep graphs
                            # $MARKED_GRAPHS with the single searches marked by policy, always and never, scipy beside
        (python3 -c "from lagraph_dist.local import fit; print('last-level cache', fit.last_level_cache(), 'bytes')"
            lscpu | grep -E 'Model name|L3|per core'; lscpu -e=CPU,CORE,SOCKET,NODE | head -5; echo "CPUs $(marked_cpus)") \
            | tee -a "$OUT/host-marked.log"
        NUMBA_NUM_THREADS=2 taskset -c $(marked_cpus) timeout ${MARKED_TIMEOUT:-200} python3 "$repo/benchmarks/peer_bench.py" \
            --preset deep --backend cpu --peers scipy --directions auto --marked auto always never --warmups ${MARKED_WARMUPS:-3} \
            --graphs ${MARKED_GRAPHS:-mesh:1000x1000 mesh:500x500 path:100000} --peer-repeats 5 \
            --json "$OUT/high-diameter-${card}host-2cores${MARKED_CPUS:+-cpus$(marked_cpus | tr , -)}-$LAGRAPH_DIST_COMMIT.json" 2>&1 | tail -14 | tee -a "$OUT/host-marked.log" ;;
    host-kron)              # issue 54 item 4's Kronecker rows on this host's 2 cores (taskset): the CPU backend on
                            # $KRON_GRAPHS (kron:16 kron:18 kron:20), scipy beside; GAP's figures are the issue's
        NUMBA_NUM_THREADS=2 taskset -c $(marked_cpus) timeout ${MARKED_TIMEOUT:-200} python3 "$repo/benchmarks/peer_bench.py" \
            --preset cpu --backend cpu --peers scipy --directions auto --warmups ${MARKED_WARMUPS:-3} \
            --graphs ${KRON_GRAPHS:-kron:16 kron:18 kron:20} \
            --json "$OUT/cpu-${card}host-2cores-$LAGRAPH_DIST_COMMIT.json" 2>&1 | tail -10 | tee -a "$OUT/host-marked.log" ;;
    deep-variants)          # issue 54 item 4 on this host's 2 cores (taskset): ld.bfs marked each way beside plain
                            # compiled loops and scipy on $MARKED_GRAPHS (benchmarks/probes/deep_variants.py)
        NUMBA_NUM_THREADS=2 taskset -c $(marked_cpus) timeout ${MARKED_TIMEOUT:-200} python3 "$repo/benchmarks/probes/deep_variants.py" \
            ${MARKED_GRAPHS:-mesh:1000x1000 path:100000} --json "$OUT/deep-variants-${card}host-2cores.json" 2>&1 \
            | grep -v "^\s*$" | tail -20 | tee -a "$OUT/host-marked.log" ;;
    deep-ab)                # deep_variants.py on $MARKED_GRAPHS (mesh:1000x1000) at the commit in $OLD_TREE (.old;
                            # $OLD_COMMIT) and at this one, on this host's 2 cores (taskset), each in its own process,
                            # alternating $ROUNDS (2) times; the runs in one record
        old_site=$(install_old)
        ab=$(mktemp -d)
        for round in $(seq ${ROUNDS:-2}); do
            for side in old head; do
                side_env $side
                LAGRAPH_DIST_COMMIT=$commit PYTHONPATH=$path NUMBA_NUM_THREADS=2 taskset -c $(marked_cpus) \
                    timeout ${MARKED_TIMEOUT:-200} python3 "$repo/benchmarks/probes/deep_variants.py" \
                    ${MARKED_GRAPHS:-mesh:1000x1000} --json "$ab/$side-$round.json" 2>&1 | grep -v "^\s*$" \
                    | sed "s/^/$side $round: /" | tee -a "$OUT/deep-ab.log"
            done
        done
        python3 -c "import json, sys; json.dump({f.rsplit('/', 1)[1][:-5]: json.load(open(f)) for f in sys.argv[2:]}, open(sys.argv[1], 'w'))" \
            "$OUT/deep-variants-ab-${card}host-2cores.json" "$ab"/*.json ;;
    ncu)                    # launches, time and DRAM bytes of every kernel of one search (summarised:
                            # a call brings back few files)
        for spec in ${NCU_GRAPHS:-kron:22}; do for d in ${NCU_DIRECTIONS:-push auto}; do
            csv=/tmp/ncu-${spec/:/}-$d.csv
            timeout ${NCU_TIMEOUT:-90} ncu --profile-from-start off --clock-control none --csv \
                --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
                python3 "$repo/benchmarks/probes/ncu_level.py" $spec $d > "$csv" 2>&1
            python3 "$repo/benchmarks/probes/ncu_summary.py" "$csv" >> "$OUT/ncu-summary.txt" 2>&1
        done; done
        grep -a -E "^(==|PROFILED|total|[0-9]+ launches)" "$OUT/ncu-summary.txt" ;;
    ncu-detail)             # Nsight Compute's sections (speed of light, memory, warp stalls, occupancy) for the
                            # first $NCU_COUNT (3) launches of kernel $NCU_KERNEL (ld_push_spmspv) in one search of each
                            # of $NCU_GRAPHS (kron:26) with $NCU_DIRECTIONS (push): where a big level's time goes
        for spec in ${NCU_GRAPHS:-kron:26}; do for d in ${NCU_DIRECTIONS:-push}; do
            timeout ${NCU_TIMEOUT:-200} ncu --profile-from-start off --clock-control none \
                --kernel-name "regex:${NCU_KERNEL:-ld_push_spmspv}" --launch-count ${NCU_COUNT:-3} \
                --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
                --section Occupancy --section LaunchStats \
                python3 "$repo/benchmarks/probes/ncu_level.py" $spec $d > "$OUT/ncu-detail-${spec/:/}-$d.txt" 2>&1
            grep -a -E "^(PROFILED|LEVEL)|Duration|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Achieved Occupancy|Stall" \
                "$OUT/ncu-detail-${spec/:/}-$d.txt" | head -${NCU_LINES:-60}
        done; done ;;
    ncu-source)             # per-instruction warp stall samples of the fused kernel in one search of each of
                            # $NCU_GRAPHS (mesh:1000x1000) with $NCU_DIRECTIONS (push), summarised by
                            # benchmarks/probes/ncu_source.py (the CSV, gzipped, comes back for --find / --rows)
        for spec in ${NCU_GRAPHS:-mesh:1000x1000}; do for d in ${NCU_DIRECTIONS:-push}; do
            name=ncu-source-${spec/:/}-$d
            timeout ${NCU_TIMEOUT:-200} ncu --profile-from-start off --clock-control none \
                --kernel-name "regex:${NCU_KERNEL:-ld_bfs_fused}" --launch-count 1 --section SourceCounters \
                --section WarpStateStats -o "/tmp/$name" -f python3 "$repo/benchmarks/probes/ncu_level.py" $spec $d 2>&1 \
                | grep -v "^LEVEL" > "$OUT/$name.log"
            ncu --import "/tmp/$name.ncu-rep" --page source --csv --print-source sass > "/tmp/$name.csv" 2>> "$OUT/$name.log"
            python3 "$repo/benchmarks/probes/ncu_source.py" "/tmp/$name.csv" --top ${NCU_LINES:-15} | tee -a "$OUT/$name.log"
            gzip -c "/tmp/$name.csv" > "$OUT/$name.csv.gz"
        done; done ;;
    mirror)                 # the kernel's cost of writing a deep search's records into the host's mirror
                            # (benchmarks/probes/mirror_records.py on $MIRROR_GRAPHS)
        timeout ${QUICK_TIMEOUT:-300} python3 "$repo/benchmarks/probes/mirror_records.py" \
            ${MIRROR_GRAPHS:-mesh:1000x1000 mesh:2000x2000} --json "$OUT/mirror-records.json" 2>&1 | tee "$OUT/mirror.log" ;;
    hub-labels)             # the Kronecker graph as generated against its hub-first renumbering, push and auto
                            # (benchmarks/probes/hub_labels.py at $HUB_SCALE, 25: both graphs fit an H100 at once)
        timeout ${HUB_TIMEOUT:-200} python3 "$repo/benchmarks/probes/hub_labels.py" --scale ${HUB_SCALE:-25} \
            --roots ${HUB_ROOTS:-8} --json "$OUT/hub-labels-scale${HUB_SCALE:-25}.json" 2>&1 | tail -6 ;;
    push-blocks)            # push.cu's blocks a multiprocessor ($PUSH_BLOCKS, 8,32,policy) on the big push levels
                            # of $PUSH_GRAPHS (kron:22 kron:26), push and auto, alternated $ROUNDS (2) times
        timeout ${QUICK_TIMEOUT:-300} python3 "$repo/benchmarks/probes/push_blocks.py" ${PUSH_GRAPHS:-kron:22 kron:26} \
            --blocks ${PUSH_BLOCKS:-8,32,policy} --rounds ${ROUNDS:-2} --json "$OUT/push-blocks.json" 2>&1 \
            | tee "$OUT/push-blocks.log" ;;
    blocks)                 # the fused search's shape (benchmarks/probes/fused_blocks.py): blocks a multiprocessor
                            # ($BLOCKS, e.g. 1,2,policy), one-block thresholds ($BLOCK_EDGES, e.g. 0,4096), block
                            # 0's visited copy ($CACHE_VISITED, e.g. on,off), the cluster levels ($CLUSTERS, e.g.
                            # on,off), alternated $ROUNDS times
        timeout ${QUICK_TIMEOUT:-300} python3 "$repo/benchmarks/probes/fused_blocks.py" ${QUICK:-kron:20 kron:22 kron:26 mesh:1000x1000} \
            --blocks ${BLOCKS:-policy} ${BLOCK_EDGES:+--block-edges $BLOCK_EDGES} ${CACHE_VISITED:+--cache-visited $CACHE_VISITED} \
            ${CLUSTERS:+--clusters $CLUSTERS} --rounds ${ROUNDS:-1} \
            --json "$OUT/fused-blocks.json" \
            2>&1 | tee "$OUT/blocks.log" ;;
    blocks-ab)              # fused_blocks.py on $QUICK at this commit against the one in $OLD_TREE (.old;
                            # $OLD_COMMIT), each in its own process, alternating $ROUNDS (2) times
        old_site=$(install_old)
        for round in $(seq ${ROUNDS:-2}); do
            for side in head old; do
                side_env $side
                LAGRAPH_DIST_COMMIT=$commit PYTHONPATH=$path timeout ${QUICK_TIMEOUT:-300} python3 \
                    "$repo/benchmarks/probes/fused_blocks.py" ${QUICK:-mesh:1000x1000 mesh:2000x2000} \
                    --json "$OUT/blocks-$side-$round.json" 2>&1 | sed "s/^/$side $round: /" | tee -a "$OUT/blocks-ab.log"
            done
        done ;;
    multi-ab)               # benchmarks/probes/multi_batch.py on $MULTI_AB_GRAPHS (kron:22) at the commit in $OLD_TREE
                            # (.old; $OLD_COMMIT) and at this one, each in its own process, alternating $ROUNDS (2)
                            # times ($MULTI_AB_ARGS: its options, e.g. --hubs-first); the runs in one record
        old_site=$(install_old)
        ab=$(mktemp -d)
        for round in $(seq ${ROUNDS:-2}); do
            for side in old head; do
                side_env $side
                LAGRAPH_DIST_COMMIT=$commit PYTHONPATH=$path timeout ${MULTI_AB_TIMEOUT:-150} python3 \
                    "$repo/benchmarks/probes/multi_batch.py" ${MULTI_AB_GRAPHS:-kron:22} --rounds 1 --label $side \
                    ${MULTI_AB_ARGS:-} --json "$ab/$side-$round.json" 2>&1 | grep -v "^\s*$" | tail -4 \
                    | tee -a "$OUT/multi-ab.log"
            done
        done
        python3 -c "import json, sys; json.dump([json.load(open(f)) for f in sys.argv[1:]], open('$OUT/multi-batch-ab.json', 'w'))" \
            "$ab"/*.json ;;
    host)                   # where one ld.bfs call's host time goes ($HOST_GRAPHS, default kron:20), or one
                            # bfs_multi batch's of $HOST_SOURCES sources, on the graph as given and then on its
                            # degree twin where $HOST_ORDERS says (default never)
        for spec in ${HOST_GRAPHS:-kron:20}; do
          for order in ${HOST_ORDERS:-never}; do
            timeout 150 python3 "$repo/benchmarks/probes/host_profile.py" $spec --lines ${HOST_LINES:-30} \
                ${HOST_SOURCES:+--sources $HOST_SOURCES --degree-order $order} \
                --calls ${HOST_CALLS:-50} \
                --json "$OUT/host-profile-${spec/:/}${HOST_SOURCES:+-${HOST_SOURCES}src-$order}.json" 2>&1 \
                | grep -v "^\s*$" | tee -a "$OUT/host.log" | head -${HOST_HEAD:-80}
          done
        done ;;
    host-ab)                # one call's host time at the commit in $OLD_TREE (.old; $OLD_COMMIT) against this one,
                            # alternating processes (benchmarks/probes/host_ab.py on $HOST_AB_GRAPH, default kron:12;
                            # $HOST_AB_CPUS: the CPUs every round runs on, e.g. 2,3)
        old_site=$(install_old)
        timeout ${HOST_AB_TIMEOUT:-300} python3 "$repo/benchmarks/probes/host_ab.py" ${HOST_AB_GRAPH:-kron:12} --backend gpu \
            --base-tree "$old_site" --base-name ${OLD_COMMIT:-old} --head-tree "$site" --rounds ${HOST_AB_ROUNDS:-5} \
            --calls ${HOST_AB_CALLS:-300} ${HOST_AB_CPUS:+--cpus $HOST_AB_CPUS} --json "$OUT/host-ab-$(echo ${HOST_AB_GRAPH:-kron:12} | tr -d :)-${OLD_COMMIT:-old}.json" 2>&1 | tail -12 \
            | tee -a "$OUT/host-ab.log" ;;
    ahead)                  # outputs made ahead against made in the call, alternating blocks in one process
                            # (benchmarks/probes/results_ahead.py on each of $AHEAD_GRAPHS, default kron:12 kron:16)
        for spec in ${AHEAD_GRAPHS:-kron:12 kron:16}; do
            timeout 150 python3 "$repo/benchmarks/probes/results_ahead.py" $spec --json "$OUT/results-ahead-${spec/:/}.json" \
                2>&1 | tail -3 | tee -a "$OUT/ahead.log"
        done ;;
    trace)                  # where a fused level's time goes (benchmarks/probes/fused_trace.py, a traced build of fused.cu)
        timeout ${TRACE_TIMEOUT:-200} python3 "$repo/benchmarks/probes/fused_trace.py" ${TRACE_GRAPHS:-path:200000 mesh:1000x1000 kron:20} \
            ${BLOCK_EDGES:+--block-edges $BLOCK_EDGES} --json "$OUT/fused-trace.json" 2>&1 | tee "$OUT/trace.log" ;;
    warp-clocks)            # what closes a fused grid level: every warp's clocks a level (benchmarks/probes/warp_clocks.py,
                            # a clocked build of fused.cu) on $CLOCK_GRAPHS, direction $CLOCK_DIRECTION (push);
                            # $CLOCK_ARGS: more of its options (--all-rows)
        timeout ${TRACE_TIMEOUT:-200} python3 "$repo/benchmarks/probes/warp_clocks.py" ${CLOCK_GRAPHS:-mesh:1000x1000 road:1000000 kron:20} \
            --direction ${CLOCK_DIRECTION:-push} ${CLOCK_ARGS:-} --json "$OUT/warp-clocks.json" 2>&1 | tee "$OUT/warp-clocks.log" ;;
    variants)               # compile-time variants of fused.cu against its plain build, each in processes of its own
                            # taken in turn (benchmarks/probes/fused_variants.py), on $VARIANT_GRAPHS (kron:20 kron:22):
                            # each of $VARIANTS (one variant's defines comma-separated, e.g. -DLD_ROW_GROUP=16)
        variant_args=()
        for v in ${VARIANTS:?the variants stage needs VARIANTS: each variant its -D defines, comma-separated}; do
            variant_args+=("--variant=$v")
        done
        timeout ${VARIANT_TIMEOUT:-560} python3 "$repo/benchmarks/probes/fused_variants.py" ${VARIANT_GRAPHS:-kron:20 kron:22} \
            "${variant_args[@]}" --rounds ${VARIANT_ROUNDS:-2} --json "$OUT/fused-variants.json" 2>&1 | tee "$OUT/variants.log" ;;
    direction-sweep)        # the direction rule's alpha and beta for the GPU's single search: ld.bfs from the same
                            # roots at each setting, taken in turn (benchmarks/probes/direction_sweep.py), on
                            # $SWEEP_GRAPHS (kron:20 kron:22) at $SWEEP_ALPHAS (4 8 16 32 64) x $SWEEP_BETAS (24)
        timeout ${SWEEP_TIMEOUT:-300} python3 "$repo/benchmarks/probes/direction_sweep.py" ${SWEEP_GRAPHS:-kron:20 kron:22} \
            --alpha ${SWEEP_ALPHAS:-4 8 16 32 64} --beta ${SWEEP_BETAS:-24} --json "$OUT/direction-sweep${SWEEP_NAME:+-$SWEEP_NAME}.json" 2>&1 \
            | tee -a "$OUT/direction-sweep.log" ;;
    launch-cost)            # the host's cost of a plain, a cooperative and a graph launch, and of a search's
                            # round (launch, report, wait) as driver calls against one graph (benchmarks/probes/launch_cost.py)
        timeout 120 python3 "$repo/benchmarks/probes/launch_cost.py" --json "$OUT/launch-cost.json" 2>&1 | tee "$OUT/launch-cost.log" ;;
    floor)                  # what a level costs with nothing but the level, beside the package's search
                            # (benchmarks/probes/level_floor.py on $FLOOR_MESHES, with $FLOOR_ARGS)
        timeout ${FLOOR_TIMEOUT:-300} python3 "$repo/benchmarks/probes/level_floor.py" --meshes ${FLOOR_MESHES:-1000x1000,2000x2000} ${FLOOR_ARGS:-} \
            --json "$OUT/level-floor.json" 2>&1 | tee "$OUT/floor.log" ;;
    big-level)              # a Kronecker search's third level with nothing but the level, beside the package's
                            # (benchmarks/probes/big_level_floor.py on $BIG_LEVEL_GRAPHS, with $BIG_LEVEL_ARGS)
        timeout ${FLOOR_TIMEOUT:-450} python3 "$repo/benchmarks/probes/big_level_floor.py" ${BIG_LEVEL_GRAPHS:-kron:20 kron:22} \
            ${BIG_LEVEL_ARGS:-} --json "$OUT/big-level-floor.json" 2>&1 | tee "$OUT/big-level.log" ;;
    idle-gap)               # the bench's roots searched back to back, after a host pause and after the bench's check
                            # (benchmarks/probes/idle_gap.py) on $GAP_GRAPHS (kron:26): what the gap between timed searches does
        for spec in ${GAP_GRAPHS:-kron:26}; do
            timeout ${GAP_TIMEOUT:-150} python3 "$repo/benchmarks/probes/idle_gap.py" $spec --roots ${GAP_ROOTS:-8} \
                --json "$OUT/idle-gap-${spec/:/}.json" 2>&1 | tee -a "$OUT/idle-gap.log"
        done ;;
    barrier)                # one grid barrier's and one block barrier's cost (benchmarks/probes/grid_barrier.py)
        timeout 120 python3 "$repo/benchmarks/probes/grid_barrier.py" --json "$OUT/grid-barrier.json" 2>&1 | tee "$OUT/barrier.log" ;;
    extras)                 # issue 10: the extras' GPU tests (EXTRAS_TESTS=0: none), then the depth limit's benchmark
        [ "${EXTRAS_TESTS:-1}" = 0 ] || timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -m gpu -p no:cacheprovider --rootdir "$repo" \
            "$repo/tests/test_bfs_multi.py" "$repo/tests/test_bfs_extras.py" "$repo/tests/test_paths.py" \
            ${PYTEST_ARGS:---maxfail=8} 2>&1 | tee "$OUT/pytest-extras.log" | tail -30
        timeout ${EXTRAS_TIMEOUT:-300} python3 "$repo/benchmarks/multi_source.py" --json "$OUT/bfs-extras.json" \
            ${EXTRAS_ARGS:---graph kron:26 --sources --depth-limit 2} 2>&1 | tail -30 | tee "$OUT/extras.log" ;;
    trust)                  # issue 18: a scale-22 bench with peers (per-root times, outliers named), one
                            # scale-26 search's level records, then the default bench at each of $TRUST_SCALES
        timeout ${BENCH_TIMEOUT:-300} "${cli[@]}" bench --scale 22 --roots 16 --peers graphblas-pushpull,scipy,cupyx-naive \
            --peer-roots 4 --json "$OUT/h100-bench-scale22-peers.json" 2>&1 | tail -16 | tee -a "$OUT/trust.log"
        timeout 120 "${cli[@]}" bfs --scale 26 --roots 1 --stage-timing 2>&1 | tail -14 | tee -a "$OUT/trust.log"
        for s in ${TRUST_SCALES:-26}; do
            timeout ${DEFAULT_TIMEOUT:-500} "${cli[@]}" bench --scale $s --json "$OUT/h100-bench-scale$s-defaults.json" \
                2>&1 | tail -24 | tee -a "$OUT/trust.log"
        done ;;
    old-outliers)           # the scale-22 bench with peers at the commit in .old (cold, then warm CuPy cache)
        old_site=$(install_old)
        for cache in cold warm; do
            CUPY_CACHE_DIR=/tmp/cupy-old cli_at "$old_site:$site" 300 bench \
                --scale 22 --roots 16 --peers graphblas-pushpull,scipy,cupyx-naive --peer-roots 4 --no-progress \
                --json "$OUT/old-scale22-$cache.json" 2>&1 | tail -9 | tee -a "$OUT/old.log"
        done ;;
    detach)                 # the stages of $DETACHED run by this script in the background, records in /tmp/bg, so
                            # that they outlive this call's 10 minutes (collect brings them back)
        mkdir -p /tmp/bg && rm -f /tmp/bg/done
        (cd "$repo" && OUT=/tmp/bg setsid nohup bash -c 'bash benchmarks/device.sh "$@" > /tmp/bg/detached.log 2>&1; \
            touch /tmp/bg/done' _ ${DETACHED:?name the stages} > /dev/null 2>&1 < /dev/null &)
        echo "started in the background: $DETACHED" ;;
    collect)                # wait (up to $WAIT s) for the background stages, then bring back what they wrote, as one
                            # archive (a call brings back few files)
        for ((waited = 0; waited < ${WAIT:-560}; waited += 10)); do [ -f /tmp/bg/done ] && break; sleep 10; done
        [ -f /tmp/bg/done ] && echo "background stages done" || echo "background stages still running"
        tar czf "$OUT/background.tar.gz" -C /tmp/bg --exclude done .
        tail -n 40 /tmp/bg/*.log ;;
    compare)                # gpu_quick.py on $QUICK at the commit carried in .old ($OLD_COMMIT) and at this one,
                            # one after the other in this call (records: quick-old.json, quick-new.json)
        old_site=$(install_old)
        LAGRAPH_DIST_COMMIT=${OLD_COMMIT:-old} PYTHONPATH="$old_site:$site" timeout ${QUICK_TIMEOUT:-300} python3 \
            "$repo/benchmarks/gpu_quick.py" ${QUICK:-kron:22 kron:26 mesh:1000x1000} --json "$OUT/quick-old.json" 2>&1 \
            | grep -v "^    " | tee "$OUT/compare.log"
        timeout ${QUICK_TIMEOUT:-300} python3 "$repo/benchmarks/gpu_quick.py" ${QUICK:-kron:22 kron:26 mesh:1000x1000} \
            --json "$OUT/quick-new.json" 2>&1 | grep -v "^    " | tee -a "$OUT/compare.log" ;;
    cpu-scaling)            # issue 21.7: CPU strong scaling on the host's cores, no GPU: Kronecker $SCALING_SCALES (22)
                            # on 1, 2x2 and 4x4 ranks (ranks x threads = cores), python-graphblas beside; JSON + PNG
        timeout ${SCALING_TIMEOUT:-580} python3 "$repo/benchmarks/cpu_scaling.py" --scales ${SCALING_SCALES:-22} \
            --launcher "mpirun --allow-run-as-root --oversubscribe --bind-to none" ${SCALING_ARGS:-} \
            --json "$OUT/cpu-scaling-$LAGRAPH_DIST_COMMIT.json" 2>&1 \
            | tee "$OUT/cpu-scaling.log" | tail -40 ;;
    *) echo "unknown stage $stage"; exit 2 ;;
    esac
done
