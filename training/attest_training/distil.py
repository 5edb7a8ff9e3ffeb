"""
A 12-layer teacher's judgement taught to the 6-layer student Attest can ship (issue 34: a 12-layer
verifier puts the VSIX over 50 MB). The teacher is a two-stage run from a 12-layer base (`twostage
--base`), the student one from all-MiniLM-L6-v2, both prepared from the same data and seed, so that
their scientific pairs are the same pairs in the same order. The student learns the teacher's
probabilities, softened by a temperature, on those pairs and on every train claim against each single
sentence of the texts it cites (which have no gold label), and the gold labels where there are some:

    python -m attest_training.distil prepare --data D --teacher-work TW --teacher-base TB --student-work SW --student-base SB --work DW
    python -m attest_training.distil label   --work DW --teacher TW/stage2/from-all/best [TW2/...] [--device cuda]
    python -m attest_training.distil train   --work DW --student-work SW --init SW/stage1/after-all [--device cuda]

`train` writes SW/stage2/distilled as a stage-2 run: `twostage export --work SW` takes it when it is the
run best on the dev pairs. Each step can run alone; `train` continues from its last checkpoint.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
import torch
from transformers import AutoTokenizer

from .pairs import DATASETS, LABELS, Pair
from .steps import log
from .twostage import load_inputs, save_inputs, scientific_options, scientific_run
from .verifier import Encoder, Inputs, class_weights, classifier, commit, predict

# The label of a claim–sentence pair, which only the teacher's probabilities describe.
UNLABELLED = len(LABELS)
# Probabilities are stored; their logarithm is the teacher's logits up to a constant, which the softmax ignores.
FLOOR = 1e-8


def claim_sentences(data: Path, datasets: list[str], seed: int, limit: int) -> list[Pair]:
    """Each train claim against each sentence of each text it cites, once, in a seeded order (`limit`: the first N)."""
    seen: set[tuple[str, str]] = set()
    pairs: list[Pair] = []
    for name in datasets:
        for cited in DATASETS[name](data, "train"):
            for sentence in cited.sentences:
                if (cited.claim, sentence) not in seen:
                    seen.add((cited.claim, sentence))
                    pairs.append(Pair(cited.dataset, cited.claim, (sentence,), "neutral", kind="claim-sentence"))
    random.Random(seed).shuffle(pairs)
    return pairs[: limit or None]


def run_inputs(work: Path) -> tuple[dict, Inputs]:
    return json.loads((work / "inputs" / "meta.json").read_text()), load_inputs(work / "inputs" / "stage2.npz")


def tokenised(pairs: list[Pair], tokenizer: Path, max_length: int) -> Inputs:
    """The pairs as a run reads its own (the tokenizer of its base, its stage-2 length), with no gold label."""
    encode = Encoder(AutoTokenizer.from_pretrained(str(tokenizer)), max_length)
    return [(ids, types, UNLABELLED) for ids, types, _ in (encode.pair(p, training=False) for p in pairs)]


def prepare(args) -> None:
    """DW/inputs/teacher.npz and student.npz: the runs' scientific pairs, then the claim–sentence pairs, each tokenised by its own model."""
    teacher_work, student_work, folder = Path(args.teacher_work), Path(args.student_work), Path(args.work) / "inputs"
    (teacher_meta, teacher_rows), (student_meta, student_rows) = run_inputs(teacher_work), run_inputs(student_work)
    for key in ("seed", "stage2", "dev"):
        if teacher_meta[key] != student_meta[key]:
            raise SystemExit(f"the teacher's and the student's runs were prepared differently ({key}): their pairs are not the same pairs")
    if [label for *_, label in teacher_rows] != [label for *_, label in student_rows]:
        raise SystemExit("the teacher's and the student's scientific pairs differ in their labels")
    extra = claim_sentences(Path(args.data), student_meta["stage2"]["datasets"], student_meta["seed"], args.max_pairs)
    length = student_meta["stage2"]["max_length"]
    folder.mkdir(parents=True, exist_ok=True)
    save_inputs(folder / "teacher.npz", teacher_rows + tokenised(extra, Path(args.teacher_base), length))
    save_inputs(folder / "student.npz", student_rows + tokenised(extra, Path(args.student_base), length))
    meta = {"teacher_work": str(teacher_work), "student_work": str(student_work), "scientific_pairs": len(student_rows), "claim_sentences": len(extra),
            "max_length": length, "seed": student_meta["seed"], "prepared_at": commit()}
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"wrote {folder}: {len(student_rows)} scientific pairs and {len(extra)} claim–sentence pairs")


def label(args) -> None:
    """
    DW/teacher.npy: the teacher's probabilities for every pair of DW/inputs/teacher.npz, or with several
    teachers their average (Hinton et al. 2015 distilled an ensemble so). Which contradictions one run ranks
    at the top moves with its seed; two e5 teachers' average ranked more of them right at the top on dev
    than either (EXPERIMENTS.md).
    """
    work = Path(args.work)
    device, teachers = torch.device(args.device), [Path(teacher) for teacher in args.teacher]
    if args.threads:
        torch.set_num_threads(args.threads)
    inputs = load_inputs(work / "inputs" / "teacher.npz")
    probabilities = averaged([predict(classifier(teacher, device), AutoTokenizer.from_pretrained(str(teacher)), inputs, device) for teacher in teachers])
    partial = work / "teacher.partial.npy"
    np.save(partial, probabilities.astype(np.float32))
    partial.replace(work / "teacher.npy")
    (work / "teacher.json").write_text(json.dumps(teacher_record(teachers, len(inputs)), indent=2) + "\n")
    log(f"labelled {len(inputs)} pairs with {' and '.join(map(str, teachers))}")


def averaged(probabilities: list[np.ndarray]) -> np.ndarray:
    """The teachers' probabilities averaged pair by pair (one teacher's as they are)."""
    return np.mean(np.stack(probabilities), axis=0)


def teacher_record(teachers: list[Path], pairs: int) -> dict:
    """What DW/teacher.json says of the teachers (one, or `teachers` for an average), as the card reads it."""
    def one(teacher: Path) -> dict:
        run = json.loads((teacher.parent / "done.json").read_text()) if (teacher.parent / "done.json").exists() else {}
        return {"teacher": str(teacher), "dev_mean_macro_f1": run.get("best_score")}
    records = [one(teacher) for teacher in teachers]
    return {**records[0], "pairs": pairs} if len(records) == 1 else {"teachers": records, "pairs": pairs}


def distillation_loss(logits: torch.Tensor, teacher: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor, temperature: float, soft_weight: float) -> torch.Tensor:
    """
    Hinton et al.'s loss: the KL divergence from the teacher's probabilities at `temperature` (scaled by
    its square, so its gradients keep their size), weighed `soft_weight` against the balanced
    cross-entropy of the gold label on the pairs that have one.
    """
    soft = torch.nn.functional.kl_div(
        torch.log_softmax(logits / temperature, dim=-1), torch.log_softmax(teacher / temperature, dim=-1), log_target=True, reduction="batchmean"
    ) * temperature**2
    gold = labels != UNLABELLED
    if not gold.any():
        return soft_weight * soft
    hard = torch.nn.functional.cross_entropy(logits[gold], labels[gold], weight=weights)
    return soft_weight * soft + (1 - soft_weight) * hard


def train(args) -> dict:
    """The student from `--init` on DW's pairs and the teacher's probabilities, as the stage-2 run SW/stage2/NAME."""
    work, student_work = Path(args.work), Path(args.student_work)
    inputs = load_inputs(work / "inputs" / "student.npz")
    teacher = torch.from_numpy(np.log(np.clip(np.load(work / "teacher.npy"), FLOOR, 1.0)))
    if len(teacher) != len(inputs):
        raise SystemExit(f"the teacher labelled {len(teacher)} pairs, the student has {len(inputs)}: run `distil label` again")
    device = torch.device(args.device)
    weights = class_weights([label for *_, label in inputs if label != UNLABELLED]).to(device)

    def loss(logits: torch.Tensor, labels: torch.Tensor, indices: list[int]) -> torch.Tensor:
        return distillation_loss(logits, teacher[indices].to(device), labels, weights, args.temperature, args.soft_weight)

    # As the export carries it into metrics.json and the card reads it there.
    record = {"distilled_from": {"teacher": json.loads((work / "teacher.json").read_text()), "temperature": args.temperature, "soft_weight": args.soft_weight,
                                 "claim_sentences": json.loads((work / "inputs" / "meta.json").read_text())["claim_sentences"]}}
    return scientific_run(args, student_work, student_work / "stage2" / args.name, Path(args.init), inputs, loss, record, args.stop_after_epochs)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    step = steps.add_parser("prepare", help="the pairs both models read, each tokenised by its own")
    step.add_argument("--work", required=True)
    step.add_argument("--data", required=True)
    step.add_argument("--teacher-work", required=True, help="the teacher's two-stage run folder")
    step.add_argument("--student-work", required=True, help="the student's two-stage run folder, prepared from the same data and seed")
    step.add_argument("--teacher-base", required=True, help="the base the teacher's run started from (its tokenizer made the teacher's pairs)")
    step.add_argument("--student-base", required=True, help="the base the student's run started from")
    step.add_argument("--max-pairs", type=int, default=0, help="the first N claim–sentence pairs of the seeded order (0: all)")
    step = steps.add_parser("label", help="the teacher's probabilities for every pair")
    step.add_argument("--work", required=True)
    step.add_argument("--teacher", required=True, nargs="+", help="the teacher's weights (a stage-2 run's best/); several: their probabilities averaged")
    step.add_argument("--device", default="cpu")
    step.add_argument("--threads", type=int, default=0)
    step = steps.add_parser("train", help="the student on the teacher's probabilities and the gold labels")
    step.add_argument("--work", required=True)
    step.add_argument("--student-work", required=True)
    step.add_argument("--temperature", type=float, default=2.0)
    step.add_argument("--soft-weight", type=float, default=0.5, help="the teacher's share of the loss; the gold labels have the rest")
    step.add_argument("--init", required=True, help="the student's weights to start from (its stage 1's after-all)")
    step.add_argument("--name", default="distilled", help="SW/stage2/NAME holds this run")
    step.add_argument("--threads", type=int, default=0, help="torch's CPU threads (0: its default)")
    step.add_argument("--seed", type=int, default=13)
    scientific_options(step)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    {"prepare": prepare, "label": label, "train": train}[args.step](args)


if __name__ == "__main__":
    main()
