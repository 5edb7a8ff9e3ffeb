#!/usr/bin/env bash
# The two-stage verifier on a GPU machine (the device tool's H200), in one command from the repository
# root, with training/.gpu carried (made here by `twostage prepare` then `twostage pack`, see README):
# stage 1 on every prepared pair; stage 2 from its end, then a sweep of stage 2 over SEEDS while BUDGET
# seconds allow; the learning curve (stage 2 from the base and from the weights after 25k, 50k, 100k
# pairs) with what is left; the run with the most contradictions right on dev chosen (`twostage
# choose`) and exported with the others as its rivals, so that its card counts what the choice costs;
# both judge with the claim-only model taken out at CLAIM_ONLY_CORRECTION (0.5; 0 for none), as the
# shipped model does. Back in $OUT: the model folder as a tar in parts under 16 MiB, its metrics, the
# choice, the curve, the log, and for a distillation's teacher (`pack --distil`) its probabilities on
# the student's pairs.
#   training/gpu-twostage.sh        (BUDGET=540 by default: the whole script, export included)
#   SEEDS="13 7" training/gpu-twostage.sh     (the sweep's seeds; default 13 7 21 29 5 1 2 3; SEEDS="" for none, as for a distillation's teacher)
# Chosen among many runs, `contradicted` holds less well on pairs nobody tuned on: among the CPU
# sessions' eight plain seeds, judged with the claim-only model taken out at 0.5 (this sweep's shape), a
# threshold chosen for 85% on dev was right 74.5% of the time on held-out halves, one chosen for 90%
# 80.2% (training/EXPERIMENTS.md). So this recipe asks 90% (CONTRADICTION_PRECISION); its card says what
# the choice cost.
# Made here, before the call (see training/README.md):
#   twostage prepare --data … --work W --stage1-pairs stage1.jsonl.gz; twostage pack --work W --into .gpu
set -uo pipefail
cd "$(dirname "$0")"
started=$(date +%s)
BUDGET=${BUDGET:-540}
# cuda on the device; DEVICE=cpu runs the same script here on a small prepared set, to check it.
DEVICE=${DEVICE:-cuda}
# Inside the ignored .gpu, which a warm machine keeps between calls: a call cut off is continued by the next.
WORK=${WORK:-.gpu/work}
OUT=${OUT:-/tmp/attest-twostage-out}
mkdir -p "$WORK" "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
export PYTHONUNBUFFERED=1
# A base cut into shards (`pack --shard-mib`) has each after the first in its own base-part-N, carried in its own call.
for shard in .gpu/base-part-*/*.safetensors; do [ -e "$shard" ] && ln -sf "$PWD/$shard" .gpu/base/; done
# Every carried file as it was packed (base/, its parts and inputs/ may have come in separate calls),
# and the commit it was packed at (the copy has no git history).
(cd .gpu/base && sha256sum -c --quiet SHA256SUMS) && (cd .gpu/inputs && sha256sum -c --quiet SHA256SUMS) || exit 1
export ATTEST_TRAINING_COMMIT=$(python3 -c 'import json; print(json.load(open(".gpu/inputs/packed.json"))["commit"])')
[ -d "$WORK/inputs" ] || cp -r .gpu/inputs "$WORK/inputs"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
step() { python3 -m attest_training.twostage "$@" --work "$WORK" --base .gpu/base; }
left() { echo $(( BUDGET - ($(date +%s) - started) )); }
# Stage 1 in batches of 64 (a small model on a GPU is bound by launches, not arithmetic), then the
# model; each under a limit that leaves the export its time. A step cut off keeps its last checkpoint:
# the same command, again on the same (warm) machine, continues it.
timeout $(( $(left) - 200 )) python3 -m attest_training.twostage stage1 --work "$WORK" --base .gpu/base --device "$DEVICE" --batch-size 64 --learning-rate 1e-4 --checkpoint-every 1000 \
  || { echo "stage 1 stopped; run this command again to continue it"; exit 3; }
timeout $(( $(left) - 100 )) python3 -m attest_training.twostage stage2 --work "$WORK" --base .gpu/base --device "$DEVICE" --init "$WORK/stage1/after-all" --name from-all \
  || { echo "stage 2 stopped; run this command again to continue it"; exit 3; }
# The sweep, while at least 150 s are left (about 20 for the premises and the choice, 90 for the export,
# the rest for the curve, which comes after it: the sweep can change the model shipped, the curve only
# reports): each run under a limit, a run cut off continued by the next call; only finished runs are
# chosen among. Estimated at half a minute a run on the H200, the default budget leaves the sweep about
# three minutes after stage 1 (about three) and from-all.
# Plain seeds only: judged with the claim-only model taken out, runs trained against the claim alone
# (--claim-only-expert) did worse than plain ones on the CPU (training/EXPERIMENTS.md, the seventeenth session).
sweep=from-all
for seed in ${SEEDS-13 7 21 29 5 1 2 3}; do
  name=seed$seed
  [ "$seed" = 13 ] && continue   # from-all is that run
  [ $(left) -gt 150 ] || break
  sweep="$sweep $name"
  timeout $(( $(left) - 120 )) python3 -m attest_training.twostage stage2 --work "$WORK" --base .gpu/base --device "$DEVICE" --init "$WORK/stage1/after-all" \
    --seed "$seed" --name "$name" || echo "stage 2 $name stopped; run this command again to continue it"
done
# A teacher for distillation (`pack --distil`): its probabilities on the student's pairs come back, and the student learns them elsewhere.
if [ -f .gpu/inputs/distil-teacher.npz ]; then
  mkdir -p "$WORK/distil/inputs" && cp .gpu/inputs/distil-teacher.npz "$WORK/distil/inputs/teacher.npz"
  teacher=$(python3 -c "from pathlib import Path; from attest_training.twostage import best_stage2; print(best_stage2(Path('$WORK')))")
  python3 -m attest_training.distil label --work "$WORK/distil" --teacher "$teacher" --device "$DEVICE" \
    && tar -C "$WORK/distil" -cf "$OUT/distil-teacher.tar" teacher.npy teacher.json   # one file: $OUT brings back eight
fi
# The curve: stage 1's weights alone at each point first (seconds), then stage 2 from each point with what
# is left, 110 s kept for the premises, the choice and the export; a cell not reached shows as "–".
step curve --device "$DEVICE" || true
if [ $(( $(left) - 110 )) -gt 10 ]; then
  timeout $(( $(left) - 110 )) python3 -m attest_training.twostage curve --work "$WORK" --base .gpu/base --device "$DEVICE" --stage2-epochs 2
fi
step premises --device "$DEVICE" || true
# The figures come back even when the choice or the export fails (the export's int8 check: MIN_AGREEMENT of the dev labels).
cp "$WORK/curve.json" "$WORK/premises.json" "$OUT/" 2>/dev/null
precision=${CONTRADICTION_PRECISION:-0.90}
correction=${CLAIM_ONLY_CORRECTION:-0.5}
# Among the sweep's finished runs alone, not the curve's, which start from other points than stage 1's end.
step choose --device "$DEVICE" --contradiction-precision "$precision" --claim-only-correction "$correction" --runs $sweep || exit 1
# The chosen run, then the others' dev probabilities, which `choose` kept beside their folders.
read -r chosen rivals < <(python3 -c "import json; c = json.load(open('$WORK/choice.json')); print(c['chosen'], *(f'$WORK/stage2/{run}.dev-probabilities.npz' for run in c['runs'] if run != c['chosen']))")
cp "$WORK/choice.json" "$OUT/"
step export --threads 16 --min-agreement "${MIN_AGREEMENT:-0.93}" --weights "$WORK/stage2/$chosen/best" --contradiction-precision "$precision" \
  --claim-only-correction "$correction" --rivals $rivals --out "$WORK/attest-nli" || exit 1
cp "$WORK/attest-nli/metrics.json" "$OUT/"
tar -C "$WORK" -cf - attest-nli attest-nli.dev-probabilities.npz | split -b 15M - "$OUT/attest-nli.tar.part-"
ls -l "$OUT"
echo "done in $(( $(date +%s) - started )) s"
