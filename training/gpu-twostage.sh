#!/usr/bin/env bash
# The two-stage verifier on a GPU machine (the device tool's H200), in one command from the repository
# root, with training/.gpu carried (made here by `twostage prepare` then `twostage pack`, see README):
# stage 1 on every prepared pair, stage 2 from its end, the learning curve (stage 2 from the base and
# from the weights after 25k, 50k, 100k pairs) while BUDGET seconds allow, the export of the run best
# on dev. Back in $OUT: the model folder as a tar in parts under 16 MiB, its metrics, the curve, the log.
#   training/gpu-twostage.sh        (BUDGET=540 by default: the whole script, export included)
set -uo pipefail
cd "$(dirname "$0")"
started=$(date +%s)
BUDGET=${BUDGET:-540}
WORK=${WORK:-/tmp/attest-twostage}
OUT=${OUT:-/tmp/attest-twostage-out}
mkdir -p "$WORK" "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
export PYTHONUNBUFFERED=1
# Every carried file as it was packed, and the commit it was packed at (the copy has no git history).
python3 - <<'PY' || exit 1
import json, hashlib, pathlib
manifest = json.loads(pathlib.Path(".gpu/manifest.json").read_text())
for name, digest in manifest["files"].items():
    actual = hashlib.sha256(pathlib.Path(".gpu", name).read_bytes()).hexdigest()
    if actual != digest:
        raise SystemExit(f".gpu/{name}: SHA-256 {actual}, packed as {digest}")
print(f"checked {len(manifest['files'])} packed files; packed at {manifest['commit']}")
PY
export ATTEST_TRAINING_COMMIT=$(python3 -c 'import json; print(json.load(open(".gpu/manifest.json"))["commit"])')
[ -d "$WORK/inputs" ] || cp -r .gpu/inputs "$WORK/inputs"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
step() { python3 -m attest_training.twostage "$@" --work "$WORK" --base .gpu/base; }
left() { echo $(( BUDGET - ($(date +%s) - started) )); }
# Stage 1 in batches of 64 (a small model on a GPU is bound by launches, not arithmetic), then the model.
step stage1 --device cuda --batch-size 64 --learning-rate 1e-4 --checkpoint-every 1000 || exit 1
step stage2 --device cuda --init "$WORK/stage1/after-all" --name from-all || exit 1
# The curve with what is left, 90 s kept for the export; a row cut off is simply missing from it.
timeout $(( $(left) - 90 )) python3 -m attest_training.twostage curve --work "$WORK" --base .gpu/base --device cuda --stage2-epochs 2
step export --threads 16 --out "$WORK/attest-nli" || exit 1
cp "$WORK/attest-nli/metrics.json" "$WORK/curve.json" "$OUT/" 2>/dev/null
tar -C "$WORK" -cf - attest-nli attest-nli.dev-probabilities.npz | split -b 15M - "$OUT/attest-nli.tar.part-"
ls -l "$OUT"
echo "done in $(( $(date +%s) - started )) s"
