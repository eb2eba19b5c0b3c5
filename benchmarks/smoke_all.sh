#!/usr/bin/env bash
# Every benchmark script run with the smallest arguments, to find the ones that no longer run
# (scripts call the package's internals, which tests do not hold still). About a minute on one
# core with numba's cache warm. Left out: the throughput scripts (a minute or more each at their
# smallest), local_alone.py (it fails by design when a run misses the issue's targets), the
# reference-set, recipe-data and training scripts. Needs ../shared beside the repository and `pip install '.[bench,plot]'`.
# Prints OK or FAIL with the last lines of the script's output; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
shared=../shared
d100=$shared/data/tsp100_uniform_seed2026.txt
d20=$shared/data/tsp20_uniform_seed2026.txt
[ -e "$d100" ] || { echo "smoke_all: $d100 is missing" >&2; exit 2; }
export OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1
log=$(mktemp -d)
failed=0
run() {
    local name=$1
    shift
    if python "$@" > "$log/$name.out" 2>&1; then
        echo "OK   $name"
    else
        echo "FAIL $name: $(tail -n 2 "$log/$name.out" | tr '\n' ' ' | cut -c1-300)"
        failed=1
    fi
}
run ascent_trace benchmarks/ascent_trace.py "$shared/tsplib/berlin52.tsp" --optima "$shared/tsplib/optimal.csv" --trees 30 --first-steps 2,0.25
run candidate_coverage benchmarks/candidate_coverage.py "$d100" --limit 2 --ascent 0.02
run first_city benchmarks/first_city.py "$d20" --model tsp20 --limit 4
run input_view benchmarks/input_view.py "$d20" --model tsp20 --limit 8
run kick_cost benchmarks/kick_cost.py --sizes 100 --instances 1 --kicks 200 --trees 5
run kick_outcomes benchmarks/kick_outcomes.py --size 100 --instances 1 --kicks 200
run order_ceiling benchmarks/order_ceiling.py --dataset "$d100" --limit 4 --budgets 0.02 --shares 0.5,1 --json "$log/order_ceiling.json"
run penalty_ceiling benchmarks/penalty_ceiling.py --dataset "$d100" --limit 4 --budgets 0.02 --ascent 0.5
run penalty_study benchmarks/penalty_study.py "$d100" --limit 4
run reversal_cost benchmarks/reversal_cost.py --cases 1000:68 --reversals 2000
run time_limits benchmarks/time_limits.py --sizes 200 --budgets 0.01 --metrics EUC_2D --instances 1
run trap_escape benchmarks/trap_escape.py --dataset "$d100" --instance 1 --seeds 2 --seconds 0.01
run wrong_edges benchmarks/wrong_edges.py --dataset "$d100" --limit 1 --seeds 1 --budget 0.02
run kick_network benchmarks/kick_network.py --dataset "$d100" --limit 4 --seeds 1 --budget 0.003 --epochs 1
run equal_time benchmarks/equal_time.py --dataset "$d100" --limit 4 --budgets 0.02 --solvers amsolve \
    --pipelines greedy-edge+lk@alphanet8,greedy-edge+lk@alpha8 --json "$log/equal_time.json"
run paired benchmarks/paired.py --network "$log/equal_time.json"
run paired_against benchmarks/paired.py --against "its lists and π given free, α order" "$log/order_ceiling.json"
run compare benchmarks/compare.py --limit 4 --large 0
run explicit benchmarks/explicit.py --parts default,equal-time --seeds 1 --times 0.05 --threads 1
run verify_bench benchmarks/verify_bench.py "$d20" --limit 8
run machine_stalls benchmarks/machine_stalls.py --seconds 1
run matrix_csv benchmarks/matrix_csv.py "$shared/tsplib/berlin52.tsp"
run large_uniform benchmarks/large_uniform.py --cities 2000 --time-limit 1
run train_throughput benchmarks/train_throughput.py --threads 1 --steps 1 --sizes 20
run readme_tables benchmarks/readme_tables.py
rm -rf "$log"
exit $failed
