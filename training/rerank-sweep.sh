#!/usr/bin/env bash
# The measurements behind the reranker's epochs, length, group and learning rate: each configuration
# trained from the same base, seed and held-out claims, side by side, on a GPU machine (the same
# command runs on a CPU, one configuration at a time, at about 22 minutes an epoch at 128 tokens).
# Every configuration reorders the top 20, the depth Find Evidence uses.
#   DATA=… BASE=… CANDIDATES=… WORK=… training/rerank-sweep.sh          the first sweep: epochs, length, group
#   SWEEP=depth DATA=… BASE=… CANDIDATES=… WORK=… training/rerank-sweep.sh   how many of the base's layers
set -uo pipefail
cd "$(dirname "$0")"
if [ "${SWEEP:-}" = depth ]; then configs=(
  "L6-E8 --max-length 128 --epochs 8"
  "L4-E8 --max-length 128 --epochs 8 --layers 4"
  "L3-E8 --max-length 128 --epochs 8 --layers 3"
  "L3-E12 --max-length 128 --epochs 12 --layers 3"
  "L2-E12 --max-length 128 --epochs 12 --layers 2"
); else configs=(
  "L128-E2 --max-length 128 --epochs 2"
  "L128-E4 --max-length 128 --epochs 4"
  "L128-E6 --max-length 128 --epochs 6"
  "L128-E8 --max-length 128 --epochs 8"
  "L128-E4-g16 --max-length 128 --epochs 4 --group 16 --groups-per-batch 1"
  "L128-E4-b8 --max-length 128 --epochs 4 --groups-per-batch 8"
  "L128-E4-lr1e4 --max-length 128 --epochs 4 --learning-rate 1e-4"
  "L192-E4 --max-length 192 --epochs 4"
  "L256-E4 --max-length 256 --epochs 4"
); fi
for config in "${configs[@]}"; do
  set -- $config
  name=$1; shift
  OMP_NUM_THREADS=${THREADS:-1} timeout "${LIMIT:-0}" python3 -m attest_training.rerank --data "$DATA" --candidates "$CANDIDATES" --base "$BASE" \
    --out "$WORK/$name" --depth 20 --device "${DEVICE:-cuda}" "$@" > "$WORK/$name.log" 2>&1 &
done
wait
for config in "${configs[@]}"; do
  set -- $config
  python3 - "$WORK/$1" <<'PY'
import json, sys, pathlib
folder = pathlib.Path(sys.argv[1])
try:
    m = json.loads((folder / "metrics.json").read_text())
except OSError:
    print(f"{folder.name}: no metrics (see its log)"); sys.exit()
q = m["int8_held_out_ndcg10_by_weight"]
print(f"{folder.name}: best {max(q.values()):.4f} at weight {m['weight']} | hybrid {q['0.0']:.4f} | reranker alone {q['1.0']:.4f} | best epoch {m['best_epoch']} | per-epoch best mix "
      + ", ".join(f"{h['epoch']}:{max(h['held_out_ndcg10_by_reranker_weight'].values()):.4f}" for h in m["history"]))
PY
done
