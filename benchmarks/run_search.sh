#!/usr/bin/env bash
# The equal-time studies of the search, into benchmarks/results/ and docs/ (about 3.5 hours): amsolve
# against fast-tsp and LKH-3, the latter both with its ascent on top of the budget and fitted to it
# (peers_*.md, docs/peers.png), the network's pipelines against those without it (equal_time_*.md,
# docs/equal_time.png), what a perfect penalty network could buy (penalty_ceiling_*.md) and a
# perfect ranking of the candidates (order_ceiling_*.md), 100,000 cities, candidate coverage and
# the penalty network. Every solver runs on core 1 with one thread, one after another; run it on an
# otherwise idle machine. Needs ../shared and `pip install '.[peers,plot]'`.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
out=benchmarks/results
export OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 MKL_NUM_THREADS=1
one_core="taskset -c 1"
large=$(for f in "$shared"/tsplib_large/*.tsp; do echo --dataset "$f"; done)
mkdir -p "$out"

# Issue 33: the search against fast-tsp and LKH-3, the same budget per instance.
$one_core python benchmarks/equal_time.py --dataset "$shared/data/tsp100_uniform_seed2026.txt" --limit 256 \
    --budgets 0.02,0.05 --pipelines greedy-edge+lk@alphanet8,greedy-edge+lk@alpha8,random+lk@alpha8 \
    --json "$out/peers_n100.json" > "$out/peers_n100.md"
$one_core python benchmarks/equal_time.py --dataset "$shared/data/tsp1000_uniform_seed2026.txt" \
    --budgets 1,5 --pipelines greedy-edge+lk@alphanet8,greedy-edge+lk@alpha8 --json "$out/peers_n1000.json" > "$out/peers_n1000.md"
$one_core python benchmarks/equal_time.py $large --optima "$shared/tsplib_large/optimal.csv" \
    --budgets 10,60 --pipelines greedy-edge+lk@alphanet8,greedy-edge+lk@alpha8 \
    --json "$out/peers_large.json" > "$out/peers_large.md"
python benchmarks/equal_time.py --solvers none --merge "$out/peers_n100.json" --merge "$out/peers_n1000.json" \
    --merge "$out/peers_large.json=TSPLIB 2,103-15,112 (6)" --plot docs/peers.png > /dev/null

# Issue 34: the network's pipelines against those without it, at equal time (several seeds where
# one pipeline's mean varies between runs by more than the differences between pipelines).
study="$one_core python benchmarks/equal_time.py --solvers amsolve"
$study --dataset "$shared/data/tsp100_uniform_seed2026.txt" --name "100 uniform (1,280)" --budgets 0.005,0.0075,0.01,0.015,0.02 \
    --pipelines greedy-edge+lk@alpha8,random+lk@alpha8,greedy-edge+lk@nearest10,greedy+lk@alpha8,greedy-edge+lk@model8,greedy-edge+lk@alphanet8,random+lk@alphanet8 \
    --json "$out/equal_time_n100.json" > "$out/equal_time_n100.md"
$study --dataset "$shared/data/tsp1000_uniform_seed2026.txt" --name "1,000 uniform (32)" --budgets 0.3,1 --seeds 3 \
    --pipelines greedy-edge+lk@alpha8,random+lk@alpha8,greedy-edge+lk@nearest10,local+lk@alpha8,greedy+lk@alpha8,greedy-edge+lk@model8,greedy-edge+lk@alphanet8,random+lk@alphanet8 \
    --json "$out/equal_time_n1000.json" > "$out/equal_time_n1000.md"
$study $large --name "TSPLIB 2,103-15,112 (6)" --optima "$shared/tsplib_large/optimal.csv" --budgets 5,30 \
    --pipelines greedy-edge+lk@alpha8,random+lk@alpha8,local+lk@alpha8,greedy-edge+lk@alphanet8 \
    --json "$out/equal_time_large.json" > "$out/equal_time_large.md"
$study --dataset "$shared/data/tsp100_uniform_seed2026.txt" --name "100 uniform (1,280)" --budgets 0.0125 --seeds 2 \
    --pipelines greedy-edge+lk@alpha8,random+lk@alpha8,greedy-edge+lk@nearest10,greedy-edge+lk@alphanet8,random+lk@alphanet8 \
    --json "$out/equal_time_n100_0125.json" > "$out/equal_time_n100_0125.md"
python benchmarks/equal_time.py --solvers none --merge "$out/equal_time_n100.json" \
    --merge "$out/equal_time_n1000.json" --merge "$out/equal_time_large.json" --plot docs/equal_time.png \
    --title "The network inside the search, at equal time per instance, one core" > "$out/equal_time_all.md"

# 100,000 cities: the default solve, and 120 s per instance with and without the network.
$one_core python benchmarks/large_uniform.py --cities 100000 > "$out/uniform100k_default.md"
$one_core python benchmarks/large_uniform.py --cities 100000 --time-limit 120 --candidates alpha > "$out/uniform100k_120.md"
$one_core python benchmarks/large_uniform.py --cities 100000 --time-limit 120 --candidates alphanet > "$out/uniform100k_120_alphanet.md"
$one_core python benchmarks/large_uniform.py --cities 100000 --time-limit 120 --decode local > "$out/uniform100k_120_local.md"
$one_core python benchmarks/large_uniform.py --cities 100000 --time-limit 120 --candidates model > "$out/uniform100k_120_model.md"

# What a perfect penalty network could buy: the default against a converged ascent's π given free.
ceiling="$one_core python benchmarks/penalty_ceiling.py"
$ceiling --dataset "$shared/data/tsp100_uniform_seed2026.txt" --name "100 uniform (1,280)" --budgets 0.0125,0.02 --ascent 1 --seeds 4 > "$out/penalty_ceiling_n100.md"
$ceiling --dataset "$shared/data/tsp1000_uniform_seed2026.txt" --name "1,000 uniform (32)" --budgets 0.3,1 --seeds 3 --ascent 5 > "$out/penalty_ceiling_n1000.md"
$ceiling $large --optima "$shared/tsplib_large/optimal.csv" --name "TSPLIB 2,103-15,112 (6)" --budgets 5,30 > "$out/penalty_ceiling_large.md"

# What a perfect ranking of the candidate edges could buy: reference-tour edges first against α order.
order="$one_core python benchmarks/order_ceiling.py"
$order --dataset "$shared/data/tsp100_uniform_seed2026.txt" --name "100 uniform (1,280)" --budgets 0.0125,0.02 --seeds 4 > "$out/order_ceiling_n100.md"
$order --dataset "$shared/data/tsp1000_uniform_seed2026.txt" --name "1,000 uniform (32)" --budgets 0.3,1 --seeds 6 > "$out/order_ceiling_n1000.md"

# The network alone, candidate coverage, the penalty network.
$one_core python benchmarks/local_alone.py > "$out/local_alone.md"
$one_core python benchmarks/candidate_coverage.py "$shared/data/tsp100_uniform_seed2026.txt" --limit 64 > "$out/coverage_n100.md"
$one_core python benchmarks/candidate_coverage.py "$shared/data/tsp1000_uniform_seed2026.txt" --limit 8 --models tsp100 > "$out/coverage_n1000.md"
$one_core python benchmarks/penalty_study.py "$shared/data/tsp1000_uniform_seed2026.txt" > "$out/penalties_n1000.md"
echo "done: $out"
