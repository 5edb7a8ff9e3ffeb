#!/usr/bin/env bash
# A 12-layer teacher taught to the 6-layer student on a 2-core CPU (issue 34), after the student's own
# two-stage run (cpu-twostage.sh with WORK=$STUDENT): the teacher's two stages from TEACHER_BASE (a 12-layer
# encoder npm run models:fetch laid out: bge-small-en-v1.5, the default, or e5-small-v2) on
# the first PAIRS pairs of stage 1 as cpu-twostage.sh trains them (so that it is measured beside the
# 6-layer run of as many pairs), its probabilities on the student's pairs and CLAIM_SENTENCES claims
# against one sentence, the student's distillation, and the export of the student's run best on dev,
# judging with the claim-only model taken out at CLAIM_ONLY_CORRECTION (0.5, as the shipped model; 0 for none).
# Each step continues from its last checkpoint: run the same command again after a cut-off.
#   DATA=../../shared/data TEACHER=~/attest-twostage/teacher-bge STUDENT=~/attest-twostage/run60k OUT=/work/candidates/attest-nli-distilled training/cpu-distil.sh
set -euo pipefail
cd "$(dirname "$0")"
PAIRS=${PAIRS:-20000}
CLAIM_SENTENCES=${CLAIM_SENTENCES:-4000}
THREADS=${THREADS:-2}
CACHE=${CACHE:-$HOME/.cache/attest-training}
TEACHER_BASE=${TEACHER_BASE:-bge-small-en-v1.5}
BASE=$CACHE/$TEACHER_BASE
DISTIL=$TEACHER/distil
[ -f "$BASE/model.safetensors" ] || .venv/bin/python -m attest_training.onnx_base ~/.cache/attest/encoders/"$TEACHER_BASE" "$BASE"
teacher() { .venv/bin/python -m attest_training.twostage "$@" --work "$TEACHER" --base "$BASE" --threads "$THREADS"; }
[ -f "$TEACHER/inputs/meta.json" ] || teacher prepare --data "$DATA" --max-pairs "$PAIRS" --stage1-length 64 --stage2-length 128
teacher stage1 --batch-size 32 --curve-points
teacher stage2 --init "$TEACHER/stage1/after-all" --name from-all
distil() { .venv/bin/python -m attest_training.distil "$@" --work "$DISTIL"; }
[ -f "$DISTIL/inputs/meta.json" ] || distil prepare --data "$DATA" --teacher-work "$TEACHER" --teacher-base "$BASE" \
  --student-work "$STUDENT" --student-base "$CACHE/all-MiniLM-L6-v2" --max-pairs "$CLAIM_SENTENCES"
[ -f "$DISTIL/teacher.npy" ] || distil label --teacher "$TEACHER/stage2/from-all/best" --threads "$THREADS"
distil train --student-work "$STUDENT" --init "$STUDENT/stage1/after-all" --threads "$THREADS"
.venv/bin/python -m attest_training.twostage export --work "$STUDENT" --out "$OUT" --threads "$THREADS" --claim-only-correction "${CLAIM_ONLY_CORRECTION:-0.5}"
