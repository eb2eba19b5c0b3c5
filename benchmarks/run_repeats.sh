#!/usr/bin/env bash
# How much one run of the peers' study says at 1,000 cities (about 13 minutes, both cores):
# amsolve's default with seeds 0..3 on core 0 while fast-tsp runs four times on core 1, 1 s and
# 5 s per instance, into benchmarks/results/peers_n1000_repeats.md. Needs ../shared and
# `pip install '.[peers]'`.
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/tsp1000_uniform_seed2026.txt
out=benchmarks/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 MKL_NUM_THREADS=1
taskset -c 0 python benchmarks/equal_time.py --dataset "$data" --budgets 1,5 --solvers amsolve --seeds 4 \
    --json "$tmp/amsolve.json" > "$tmp/amsolve.md" &
amsolve_run=$!
for run in 0 1 2 3; do
    taskset -c 1 python benchmarks/equal_time.py --dataset "$data" --budgets 1,5 --solvers fast-tsp \
        --json "$tmp/fast_tsp_$run.json" > "$tmp/fast_tsp_$run.md"
done
wait "$amsolve_run"  # fails the script when amsolve's run failed
{
    echo "Measured $(date -u +%F), commit $(git rev-parse --short HEAD): amsolve's default pipeline on core 0, seeds 0-3;"
    echo "fast-tsp on core 1, four runs; the 32 instances of $(basename "$data")."
    echo
    python benchmarks/repeats_table.py "$tmp/amsolve.json" "$tmp"/fast_tsp_*.json
} > "$out/peers_n1000_repeats.md"
