#!/usr/bin/env bash
# Every measurement behind the README's tables, into benchmarks/results/ (about 30 minutes on
# 2 cores). Needs ../shared beside the repository and `pip install '.[bench,plot]'`.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
out=benchmarks/results
mkdir -p "$out"
md() { python benchmarks/rows_to_markdown.py; }

# Model decoders (every start for multi-start) on the uniform test sets, 1,280 instances each.
amsolve bench "$shared/data" --decode greedy,beam,sample,multistartx8 --starts 100 --json | md > "$out/model_uniform.md"
# Model decoders and the default pipeline on the 41 TSPLIB instances.
amsolve bench "$shared/tsplib" --optima "$shared/tsplib/optimal.csv" \
    --decode greedy,multistartx8,multistartx8+2opt+oropt --json | md > "$out/tsplib.md"
# The default pipeline on the uniform test sets.
amsolve bench "$shared/data" --decode multistartx8+2opt+oropt --json | md > "$out/pipeline_uniform.md"
# Against LKH-3 and nearest neighbour + 2-opt, in one run.
python benchmarks/compare.py > "$out/compare.md"
# Speed.
python benchmarks/decode_throughput.py --threads 2 > "$out/decode_throughput.md"
python benchmarks/train_throughput.py --threads 1 > "$out/train_throughput_1thread.md"
# 10,000 random cities from a CSV.
python - <<'PY'
import numpy as np
rng = np.random.default_rng(10_000)
np.savetxt("/tmp/amsolve_random10k.csv", rng.uniform(0, 1000, size=(10_000, 2)), delimiter=",", fmt="%.4f")
PY
/usr/bin/time -v amsolve solve /tmp/amsolve_random10k.csv --json 2> "$out/random10k_time.txt" \
    | python -c "import json,sys; d=json.load(sys.stdin)['instances'][0]; print(d['name'], d['n'], d['decode'], d['length'], d['seconds'])" \
    > "$out/random10k.txt"
# The default bench suite, timed.
/usr/bin/time -f "%e s wall" amsolve bench --json 2> "$out/default_bench_time.txt" | md > "$out/default_bench.md"
# bench against solve --json, recomputed.
python benchmarks/verify_bench.py "$shared/data/tsp100_uniform_seed2026.txt" --limit 1280 > "$out/verify_bench.txt"
echo "done: $out"
