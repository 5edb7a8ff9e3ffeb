#!/usr/bin/env bash
# The two-stage verifier on a 2-core CPU within 2.5 hours: a sample of stage 1 at 64 tokens (the first
# PAIRS of the seeded order, so its curve points are the GPU run's), stage 2 as the one-stage recipe
# trains (2 epochs at 128 tokens), the export. Each step continues from its last checkpoint: run the
# same command again after a cut-off. The curve here is stage 1's weights alone (dev macro-F1 at 0 and
# 25k and 50k pairs and at the end); stage 2 from each point is the GPU recipe's. The export judges with
# the claim-only model taken out at CLAIM_ONLY_CORRECTION (0.5, as the shipped model; 0 for none).
#   DATA=../../shared/data WORK=~/attest-twostage OUT=../models/attest-nli-twostage training/cpu-twostage.sh
set -euo pipefail
cd "$(dirname "$0")"
PAIRS=${PAIRS:-60000}
CURVE=${CURVE:-25000 50000}
THREADS=${THREADS:-2}
CORRECTION=${CLAIM_ONLY_CORRECTION:-0.5}
step() { .venv/bin/python -m attest_training.twostage "$@" --work "$WORK" --threads "$THREADS"; }
[ -f "$WORK/inputs/meta.json" ] || step prepare --data "$DATA" --max-pairs "$PAIRS" --stage1-length 64 --stage2-length 128
# shellcheck disable=SC2086 # CURVE is a list of numbers
step stage1 --batch-size 32 --curve-points $CURVE
step stage2 --init "$WORK/stage1/after-all" --name from-all
[ -f "$WORK/premises.json" ] || step premises
# The curve is a report: the model comes first on a CPU whose session may end; the export again then puts it in the card.
[ -f "$WORK/exported" ] || { step export --out "$OUT" --claim-only-correction "$CORRECTION" && touch "$WORK/exported"; }
[ -f "$WORK/curve.json" ] || { step curve && step export --out "$OUT" --claim-only-correction "$CORRECTION"; }
