"""
Training against what the claim alone gives away (issue 34: `contradicted` must be precise at the top).
The verifiers' surest contradictions on dev are mostly negated claims, right or wrong ("CHEK2 is not
associated with breast cancer" ranks among the surest though its abstract supports it): a claim that
says "not" is a contradiction more often than not in the training pairs, and the model learns the word
instead of the abstract. Following Clark et al. (2019, "Don't take the easy way out") and He et al.
(2019), a claim-only model learns what the words of the claim alone say of the label, and the verifier
trains as a product of experts with it: its log-probabilities are added to the verifier's before the
loss, so the verifier is paid only for what the claim alone does not tell. At judging time the
verifier runs alone, as before: `twostage stage1 --claim-only-expert`, `twostage stage2 --claim-only-expert`.

The same claim-only model can instead be taken out at judging time, from a verifier trained as usual
(`twostage export --claim-only-correction WEIGHT`, after the question-only branch Niu et al. (2021,
"Counterfactual VQA") subtract at inference): the graph gives the verifier's log-probabilities less
WEIGHT times the claim-only model's, so a "not" in the claim no longer pushes a pair towards
contradiction by itself. It lives inside the ONNX graph, so Attest judges with it unchanged.

The claim-only model is a logistic regression on the claim's word pieces (a bag of them): what it can
learn is what words give away. Its probabilities for each training pair come from a model that did not
train on that pair's claim (five folds by claim), so they are what words say of unseen claims, not a
memory of the training labels.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from transformers.modeling_outputs import SequenceClassifierOutput

from .metrics import macro_f1
from .pairs import Pair
from .steps import log
from .verifier import Inputs, class_weights, with_gold

# As twostage.fit calls it: the batch's logits, gold labels and row numbers in the training inputs.
Loss = Callable[[torch.Tensor, torch.Tensor, list[int]], torch.Tensor]

FOLDS = 5


def claim_pieces(inputs: Inputs) -> list[list[int]]:
    """Each pair's claim: the second segment (token type 1), its closing separator left out."""
    return [[i for i, t in zip(ids, types) if t == 1][:-1] for ids, types, _ in inputs]


class ClaimOnly(torch.nn.Module):
    """A logistic regression on the mean of the claim's word-piece embeddings, each a row of label scores."""

    def __init__(self, vocabulary: int, labels: int = 3):
        super().__init__()
        self.scores = torch.nn.EmbeddingBag(vocabulary, labels, mode="mean")
        torch.nn.init.zeros_(self.scores.weight)
        self.bias = torch.nn.Parameter(torch.zeros(labels))

    def forward(self, pieces: list[list[int]]) -> torch.Tensor:
        flat = torch.tensor([p for claim in pieces for p in claim], dtype=torch.long)
        offsets = torch.tensor(np.cumsum([0] + [len(claim) for claim in pieces[:-1]]), dtype=torch.long)
        return self.scores(flat, offsets) + self.bias


def fit_claim_only(pieces: list[list[int]], labels: list[int], vocabulary: int, epochs: int = 40, seed: int = 13) -> ClaimOnly:
    """The claim-only model on these claims, with the verifier's balanced loss and a little weight decay (few claims, many words)."""
    torch.manual_seed(seed)
    model = ClaimOnly(vocabulary)
    optimiser = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-5)
    weights, gold = class_weights(labels), torch.tensor(labels)
    order = np.random.default_rng(seed)
    for _ in range(epochs):
        for batch in np.array_split(order.permutation(len(pieces)), max(1, len(pieces) // 256)):
            optimiser.zero_grad()
            loss = torch.nn.functional.cross_entropy(model([pieces[i] for i in batch]), gold[batch], weight=weights)
            loss.backward()
            optimiser.step()
    return model


@torch.no_grad()
def claim_only_probabilities(model: ClaimOnly, pieces: list[list[int]]) -> np.ndarray:
    return torch.softmax(model(pieces), dim=-1).numpy()


def cross_fitted(pieces: list[list[int]], labels: list[int], vocabulary: int, folds: int = FOLDS, seed: int = 13) -> np.ndarray:
    """Each pair's claim-only probabilities from a model fitted on the other folds; a claim's pairs (one per premise) share a fold."""
    claims = sorted({tuple(p) for p in pieces})
    fold_of = dict(zip(claims, np.random.default_rng(seed).permutation(len(claims)) % folds))
    fold = np.array([fold_of[tuple(p)] for p in pieces])
    out = np.zeros((len(pieces), 3), dtype=np.float32)
    for k in range(folds):
        train = np.flatnonzero(fold != k)
        model = fit_claim_only([pieces[i] for i in train], [labels[i] for i in train], vocabulary, seed=seed)
        held = np.flatnonzero(fold == k)
        out[held] = claim_only_probabilities(model, [pieces[i] for i in held])
    return out


def dev_macro_f1(claim_only: ClaimOnly, dev: dict[str, list[Pair]], dev_inputs: dict[str, Inputs]) -> dict[str, float]:
    """What the claim alone scores on each dev set, read from its words alone."""
    splits = with_gold(dev, {name: claim_only_probabilities(claim_only, claim_pieces(rows)) for name, rows in dev_inputs.items()})
    return {name: round(macro_f1(g, p.argmax(1)), 4) for name, (g, p) in splits.items()}


class ClaimCorrected(torch.nn.Module):
    """
    `model` with the claim-only model taken out: its logits are the verifier's log-probabilities less
    `weight` times the claim-only model's, whose claim is the pair's second segment (token type 1)
    without its separators, as `claim_pieces` reads it. Called as the verifier is, with its config.
    """

    def __init__(self, model, claim_only: ClaimOnly, weight: float, separator_id: int):
        super().__init__()
        self.model, self.config, self.weight, self.separator_id = model, model.config, weight, separator_id
        self.register_buffer("claim_scores", claim_only.scores.weight.detach().clone())
        self.register_buffer("claim_bias", claim_only.bias.detach().clone())

    def forward(self, input_ids, attention_mask, token_type_ids) -> SequenceClassifierOutput:
        logits = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits
        in_claim = ((token_type_ids == 1) & (input_ids != self.separator_id) & (attention_mask == 1)).unsqueeze(-1).to(logits.dtype)
        pieces = torch.nn.functional.embedding(input_ids, self.claim_scores) * in_claim
        claim_only = pieces.sum(dim=1) / in_claim.sum(dim=1).clamp(min=1.0) + self.claim_bias
        return SequenceClassifierOutput(logits=torch.log_softmax(logits, dim=-1) - self.weight * torch.log_softmax(claim_only, dim=-1))


def correction(inputs: Inputs, dev: dict[str, list[Pair]], dev_inputs: dict[str, Inputs], vocabulary: int, weight: float, seed: int) -> tuple[ClaimOnly, dict]:
    """The claim-only model to take out at `weight`, fitted on every training claim of `inputs`, and what to record of it."""
    fitted = fit_claim_only(claim_pieces(inputs), [label for *_, label in inputs], vocabulary, seed=seed)
    claim_only = dev_macro_f1(fitted, dev, dev_inputs)
    log(f"claim-only dev macro-F1 {claim_only}; taken out at weight {weight}")
    return fitted, {"weight": weight, "model": "logistic regression on the claim's word pieces, fitted on stage 2's training pairs", "seed": seed, "dev_macro_f1": claim_only}


def product_of_experts_loss(logits: torch.Tensor, bias_log_probabilities: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """The balanced cross-entropy of the verifier's and the claim-only model's log-probabilities added."""
    return torch.nn.functional.cross_entropy(torch.log_softmax(logits, dim=-1) + bias_log_probabilities, labels, weight=weights)


def claim_only_expert(inputs: Inputs, dev: dict[str, list[Pair]], dev_inputs: dict[str, Inputs], vocabulary: int, seed: int, device: torch.device) -> tuple[Loss, dict]:
    """
    The loss that trains a verifier on `inputs` as a product of experts with the claim-only model
    (cross-fitted on their claims), and what to record of it: what the claim alone scores on dev,
    from a model fitted on every training claim.
    """
    pieces, labels = claim_pieces(inputs), [label for *_, label in inputs]
    bias = torch.from_numpy(np.log(np.clip(cross_fitted(pieces, labels, vocabulary, seed=seed), 1e-6, 1.0)))
    claim_only = dev_macro_f1(fit_claim_only(pieces, labels, vocabulary, seed=seed), dev, dev_inputs)
    log(f"claim-only dev macro-F1 {claim_only}")
    weights = class_weights(labels).to(device)

    def loss(logits: torch.Tensor, batch_labels: torch.Tensor, indices: list[int]) -> torch.Tensor:
        return product_of_experts_loss(logits, bias[indices].to(device), batch_labels, weights)

    return loss, {"claim_only_expert": {"model": "logistic regression on the claim's word pieces", "folds": FOLDS, "dev_macro_f1": claim_only}}
