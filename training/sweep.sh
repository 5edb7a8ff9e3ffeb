#!/usr/bin/env bash
# The measurements behind the verifier's sequence length, epochs and learning rate: each
# configuration trained from the same base and seed, side by side, on a GPU machine (the same
# command runs on a CPU, one configuration at a time). Then the CPU cost of a training step on
# 2 threads, the figure that bounds the configuration training/README.md recommends.
#   DATA=… BASE=… OUT=… training/sweep.sh
set -uo pipefail
cd "$(dirname "$0")"
configs=(
  "L128-E6 --max-length 128 --epochs 6"
  "L128-E6-bal --max-length 128 --epochs 6 --balance-labels"
  "L128-E6-lr1e4 --max-length 128 --epochs 6 --learning-rate 1e-4"
  "L128-E10-b32-lr1e4 --max-length 128 --epochs 10 --batch-size 32 --learning-rate 1e-4"
  "L128-E10-b32-lr1e4-bal --max-length 128 --epochs 10 --batch-size 32 --learning-rate 1e-4 --balance-labels"
  "L192-E6-bal --max-length 192 --epochs 6 --balance-labels"
)
for config in "${configs[@]}"; do
  set -- $config
  name=$1; shift
  timeout "${LIMIT:-0}" python3 -m attest_training.nli --data "$DATA" --base "$BASE" --out "$WORK/$name" --keep-weights "$WORK/$name.weights" --min-agreement 0.9 --device "${DEVICE:-cuda}" --threads 2 "$@" > "$WORK/$name.log" 2>&1 &
done
# The CPU cost of training on 2 threads (pinned to 2 cores), 120 annotated claims' pairs, one epoch at 128 tokens.
taskset -c 0,1 python3 -m attest_training.nli --data "$DATA" --base "$BASE" --out "$WORK/cpu-probe" --device cpu --threads 2 \
  --max-length 128 --epochs 1 --limit 120 --min-agreement 0 > "$WORK/cpu-probe.log" 2>&1 &
wait
for config in "${configs[@]}" "cpu-probe"; do
  set -- $config
  python3 - "$WORK/$1" <<'PY'
import json, sys, pathlib
folder = pathlib.Path(sys.argv[1])
try:
    m = json.loads((folder / "metrics.json").read_text())
except OSError:
    print(f"{folder.name}: no metrics (see its log)"); sys.exit()
d = m["dev_int8_thresholds"]; t = m["training"]
print(f"{folder.name}: mean {d['pooled']['mean_macro_f1']:.3f} | " + " ".join(f"{k} {v['macro_f1']:.3f}" for k, v in d.items() if k != 'pooled')
      + f" | contra-prec {d['pooled']['contradiction_precision']} ({d['pooled']['contradicted_said']}) | thr {m['thresholds']} | best epoch {t['best_epoch']} | {t['seconds']} s {t['pairs']} pairs"
      + " | per-epoch " + ", ".join(f"{h['epoch']}:{h['dev_argmax']['pooled']['mean_macro_f1']:.3f}/{h['seconds']}s" for h in m["history"]))
PY
done
