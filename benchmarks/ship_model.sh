#!/usr/bin/env bash
# Copies a training output directory into models/NAME: the weights and everything that documents
# them (model card, learning curve, per-epoch log, phases). Checkpoints stay behind. The new folder
# is assembled beside the old one and then replaces it, so weights and card always belong together.
#     bash benchmarks/ship_model.sh runs/tsp20-mix tsp20
set -euo pipefail
run="$1"; name="$2"
models="$(dirname "$0")/../models"
for file in model.pt config.json TRAINING.md train.jsonl phases.json; do
    [ -f "$run/$file" ] || { echo "ship_model: $run/$file is missing; nothing shipped" >&2; exit 2; }
done
staging="$models/.$name.new"
rm -rf "$staging"; mkdir -p "$staging"
for file in model.pt config.json TRAINING.md train.jsonl phases.json curve.png; do
    if [ -f "$run/$file" ]; then cp "$run/$file" "$staging/$file"; fi
done
chmod 644 "$staging"/*
rm -rf "$models/.$name.old"
if [ -d "$models/$name" ]; then mv "$models/$name" "$models/.$name.old"; fi
mv "$staging" "$models/$name"
rm -rf "$models/.$name.old"
echo "shipped $run as models/$name:"; ls -la "$models/$name"
