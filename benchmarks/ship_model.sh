#!/usr/bin/env bash
# Copies a training output directory into models/NAME: the weights and everything that documents
# them (model card, learning curve, per-epoch log, phases). Checkpoints stay behind.
#     bash benchmarks/ship_model.sh runs/tsp20-rl2 tsp20
set -euo pipefail
run="$1"; name="$2"
target="$(dirname "$0")/../models/$name"
mkdir -p "$target"
for file in model.pt config.json TRAINING.md train.jsonl phases.json curve.png; do
    if [ -f "$run/$file" ]; then cp "$run/$file" "$target/$file"; fi
done
echo "shipped $run as models/$name:"; ls -la "$target"
