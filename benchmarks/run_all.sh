#!/usr/bin/env bash
# Every measurement behind the README's tables, into benchmarks/results/, and its pictures, into
# docs/ (about 30 minutes on 2 cores; the equal-time studies of the search are in run_search.sh). Needs ../shared beside the repository,
# `pip install '.[bench,plot]'` and GNU time (/usr/bin/time). Each table is written to a temporary
# file and moved into place only when its command succeeded, and PROVENANCE.txt records the commit,
# the weights and the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
out=benchmarks/results
for needed in "$shared/data" "$shared/tsplib/optimal.csv" "$shared/tsplib_explicit" "$shared/tsplib_large/d2103.tsp" /usr/bin/time; do
    [ -e "$needed" ] || { echo "run_all: $needed is missing" >&2; exit 2; }
done
python -c "import elkai, matplotlib" || { echo "run_all: pip install '.[bench,plot]' first" >&2; exit 2; }
mkdir -p "$out"
md() { python benchmarks/rows_to_markdown.py; }
# A table goes to `$(tmp FILE)` first; `publish FILE` moves it into place. With `set -e` and
# pipefail a failed command stops the script before its publish, so no committed table is lost.
tmp() { echo "$out/.$1.tmp"; }
publish() { mv "$out/.$1.tmp" "$out/$1"; }

{
    echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- amsolve models || echo ' (with uncommitted changes)')"
    echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    python -c "from amsolve.machine import machine_description; print('machine:', machine_description())"
    sha256sum models/*/model.pt
} > "$(tmp PROVENANCE.txt)"
publish PROVENANCE.txt

# Model decoders (every start for multi-start) on the uniform test sets, 1,280 instances each.
amsolve bench "$shared/data" --decode greedy,beam,sample,multistartx8 --starts 100 --json | md > "$(tmp model_uniform.md)"
publish model_uniform.md
# Model decoders and the default pipeline on the 41 TSPLIB instances.
amsolve bench "$shared/tsplib" --optima "$shared/tsplib/optimal.csv" \
    --decode greedy,multistartx8,greedy-edge+lk@alpha8 --json | md > "$(tmp tsplib.md)"
publish tsplib.md
# The default pipeline on the uniform test sets.
amsolve bench "$shared/data/tsp20_uniform_seed2026.txt" "$shared/data/tsp50_uniform_seed2026.txt" \
    "$shared/data/tsp100_uniform_seed2026.txt" --decode greedy-edge+lk@alpha8 --json | md > "$(tmp pipeline_uniform.md)"
publish pipeline_uniform.md
# Against LKH-3 and nearest neighbour + 2-opt, in one run, with the README's time–quality chart.
python benchmarks/compare.py --plot docs/time_quality.png > "$(tmp compare.md)"
publish compare.md
# The README's drawn tour: the default pipeline on dsj1000.
amsolve solve "$shared/tsplib/dsj1000.tsp" --plot docs/tour_dsj1000.png --force --json \
    | python -c "import json,sys; d=json.load(sys.stdin)['instances'][0]; print(d['name'], d['n'], d['decode'], d['length'], d['seconds'])" \
    > "$(tmp tour_dsj1000.txt)"
publish tour_dsj1000.txt
# Speed.
python benchmarks/decode_throughput.py --threads 2 > "$(tmp decode_throughput.md)"
publish decode_throughput.md
python benchmarks/train_throughput.py --threads 1 > "$(tmp train_throughput_1thread.md)"
publish train_throughput_1thread.md
python benchmarks/ddp_throughput.py > "$(tmp ddp_throughput.md)"
publish ddp_throughput.md
# 10,000 random cities from a CSV.
python - <<'PY'
import numpy as np
rng = np.random.default_rng(10_000)
np.savetxt("/tmp/amsolve_random10k.csv", rng.uniform(0, 1000, size=(10_000, 2)), delimiter=",", fmt="%.4f")
PY
/usr/bin/time -v amsolve solve /tmp/amsolve_random10k.csv --json 2> "$(tmp random10k_time.txt)" \
    | python -c "import json,sys; d=json.load(sys.stdin)['instances'][0]; print(d['name'], d['n'], d['decode'], d['length'], d['seconds'])" \
    > "$(tmp random10k.txt)"
publish random10k.txt
publish random10k_time.txt
# The default bench suite, timed.
/usr/bin/time -f "%e s wall" amsolve bench --json 2> "$(tmp default_bench_time.txt)" | md > "$(tmp default_bench.md)"
publish default_bench.md
publish default_bench_time.txt
# bench against solve --json, recomputed independently.
python benchmarks/verify_bench.py "$shared/data/tsp100_uniform_seed2026.txt" --limit 1280 > "$(tmp verify_bench.txt)"
publish verify_bench.txt
# Distance matrices: ../shared/tsplib_explicit, the model's input, equal time, EUC_3D; a 2,103-city CSV.
# One torch thread: with two, a process busy on the other core made torch's workers wait (hk48: 4 s, not 0.1 s).
python benchmarks/explicit.py --threads 1 > "$(tmp explicit.md)"
publish explicit.md
OMP_NUM_THREADS=1 python benchmarks/matrix_csv.py "$shared/tsplib_large/d2103.tsp" > "$(tmp matrix_csv_d2103.txt)"
publish matrix_csv_d2103.txt
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out/PROVENANCE.txt"
echo "done: $out"
