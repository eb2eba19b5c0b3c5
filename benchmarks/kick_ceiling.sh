#!/usr/bin/env bash
# The most a network placing the kicks could buy (issue 34), and realistic placements beside it.
#
#   bash benchmarks/kick_ceiling.sh NAME "SETTINGS" [BUDGETS] [SEEDS] [FIRST_SEED] [DATASET]
#
# Builds a scratch worktree of commit 20e2170 with kick_ceiling.patch applied (an experiment, not
# the product: a hack through environment variables) and runs equal_time.py's default pipeline on
# DATASET twice at once, A (as shipped) on core 0 and B (with SETTINGS) on core 1, then with the
# cores swapped and the next SEEDS seeds; then paired.py compares them solve by solve. SETTINGS:
#   AMS_ORACLE=1                  the first cut of every local kick at a tour edge the reference
#                                 tour lacks (uniformly among them), the reference read from DATASET
#   AMS_ORACLE=1 AMS_TARGET=Q     the same for Q % of the kicks, the others as shipped
#   AMS_ORACLE=1 AMS_NOISE=F      an imperfect oracle: a share F of the edges the reference has
#                                 (the same edges all run long, by a hash of the pair) called wrong too
#   AMS_TARGET=K  (K > 0)         no oracle: the first cut at the tour edge, of K drawn at random,
#                                 whose ends rank each other lowest in their α-candidate lists
#   AMS_TARGET=-Q                 no oracle: for Q % of the kicks, the first cut drawn by rejection
#                                 with an acceptance that grows with that rank sum
# Results: benchmarks/results/kick_ceiling/NAME/{A,B}_c{0,1}.json and .log, and paired.txt.
# Defaults: budgets 0.3,1, 2 seeds a side from 700, ../shared/data/tsp1000_uniform_seed2026.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
settings=$2
budgets=${3:-0.3,1}
seeds=${4:-2}
first=${5:-700}
dataset=$(realpath "${6:-../shared/data/tsp1000_uniform_seed2026.txt}")
out=$PWD/benchmarks/results/kick_ceiling/$name
patch=$PWD/benchmarks/kick_ceiling.patch
tree=$(mktemp -d)/amsolve
git worktree add --detach -q "$tree" 20e2170
trap 'git worktree remove --force "$tree"' EXIT
git -C "$tree" apply "$patch"
mkdir -p "$out"
export OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 NUMBA_CACHE_DIR=$tree/.numba PYTHONPATH=$tree
common=(--solvers amsolve --dataset "$dataset" --budgets "$budgets" --seeds "$seeds" --name "$name")
run() { # side core first-seed settings...
    local side=$1 core=$2 seed=$3
    shift 3
    env "$@" taskset -c "$core" python "$tree/benchmarks/equal_time.py" "${common[@]}" \
        --first-seed "$seed" --json "$out/${side}_c$core.json" > "$out/${side}_c$core.log" 2>&1
}
# the first run compiles the patched kernels into the cache both sides then read
python "$tree/benchmarks/equal_time.py" --solvers amsolve --dataset "$dataset" --budgets 0.1 --limit 1 > /dev/null
run A 0 "$first" & run B 1 "$first" $settings & wait
run A 1 $((first + seeds)) & run B 0 $((first + seeds)) $settings & wait
python benchmarks/paired.py "$out" | tee "$out/paired.txt"
