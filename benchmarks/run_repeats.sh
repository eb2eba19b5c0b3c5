#!/usr/bin/env bash
# How much one run of the peers' study says: amsolve's default pipeline with several seeds and
# fast-tsp run as many times, on the same instances and budgets, into
# benchmarks/results/peers_NAME_repeats.md. Two phases with the cores swapped, both cores busy in
# each (on this machine the same search measured 10-20 % worse on core 0 than on core 1).
# Needs ../shared and `pip install '.[peers]'`.
#
#   benchmarks/run_repeats.sh n1000 ../shared/data/tsp1000_uniform_seed2026.txt 1,5        # ~26 min
#   benchmarks/run_repeats.sh n100 ../shared/data/tsp100_uniform_seed2026.txt 0.02,0.05 256 # ~4 min
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1 data=$2 budgets=$3 limit=${4:-} runs=${5:-2}
out=benchmarks/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 MKL_NUM_THREADS=1
args=(--dataset "$data" --budgets "$budgets")
[ -n "$limit" ] && args+=(--limit "$limit")
for phase in 0 1; do  # amsolve on core $phase, fast-tsp on the other
    taskset -c "$phase" python benchmarks/equal_time.py "${args[@]}" --solvers amsolve --seeds "$runs" \
        --first-seed $((phase * runs)) --json "$tmp/amsolve_$phase.json" > /dev/null &
    amsolve_run=$!
    for run in $(seq 1 "$runs"); do
        taskset -c $((1 - phase)) python benchmarks/equal_time.py "${args[@]}" --solvers fast-tsp \
            --json "$tmp/fast_tsp_${phase}_$run.json" > /dev/null
    done
    wait "$amsolve_run"  # fails the script when amsolve's run failed
done
{
    echo "Measured $(date -u +%F), commit $(git rev-parse --short HEAD), $(basename "$data")${limit:+ (first $limit)}:"
    echo "amsolve's default pipeline with seeds 0-$((2 * runs - 1)), fast-tsp $((2 * runs)) runs, in two phases"
    echo "with the cores swapped (amsolve on core 0 with the first $runs seeds, then on core 1)."
    echo
    python benchmarks/repeats_table.py "$tmp"/amsolve_*.json "$tmp"/fast_tsp_*.json
} > "$out/peers_${name}_repeats.md"
