"""A claim turned into its opposite, for contradictions the verifier can learn direction from.

The 6-layer verifier finds the text a claim is about, but not which way the text points: on SciFact's
dev pairs it called 38 of 138 supported claims contradicted. A supported claim's opposite against the
same premise is a contradiction that differs from a supported pair only in its direction, which is what
SciFact's annotators wrote by hand for its REFUTE claims. The rules are few and each keeps the sentence
grammatical; a claim none fits is left alone (None) rather than garbled.
"""
from __future__ import annotations

import re

# Opposites, each way; the first match in the claim is swapped.
_OPPOSITES = {
    "increase": "decrease", "increases": "decreases", "increased": "decreased", "increasing": "decreasing",
    "decrease": "increase", "decreases": "increases", "decreased": "increased", "decreasing": "increasing",
    "reduce": "increase", "reduces": "increases", "reduced": "increased", "reducing": "increasing",
    "higher": "lower", "lower": "higher", "greater": "smaller",
    "improve": "worsen", "improves": "worsens", "improved": "worsened", "improving": "worsening",
    "worsen": "improve", "worsens": "improves", "worsened": "improved",
    "promote": "inhibit", "promotes": "inhibits", "promoted": "inhibited",
    "inhibit": "promote", "inhibits": "promotes", "inhibited": "promoted",
    "upregulates": "downregulates", "downregulates": "upregulates",
    "upregulated": "downregulated", "downregulated": "upregulated",
    "positive": "negative", "negative": "positive", "positively": "negatively", "negatively": "positively",
    "more": "less", "less": "more",
}

# "is not" → "is", "does not" → "does" (emphatic, still grammatical), "cannot" → "can".
_NEGATED = re.compile(
    r"\b(is|are|was|were|do|does|did|can|could|may|might|will|would|should|must|has|have|had) not\b|\b(can)not\b",
    re.IGNORECASE,
)
# An auxiliary "not" can follow; has/have/had only as one (followed by a participle, not as "has a role").
_AUXILIARY = re.compile(
    r"\b(?:is|are|was|were|can|could|may|might|will|would|should|must)\b"
    r"|\b(?:has|have|had)\b(?= (?:been|[a-z]+(?:ed|en|wn))\b)",
    re.IGNORECASE,
)
# Verbs claims make in the present tense: "X induces Y" → "X does not induce Y".
_VERBS = (
    "activate affect alter associate block bind cause confer contribute control correlate delay depend drive "
    "elevate enhance express impair improve increase induce inhibit influence lead limit mediate modulate "
    "predict prevent produce promote protect reduce regulate require result stimulate suppress trigger"
).split()
_PRESENT = re.compile(r"\b(" + "|".join(_VERBS) + r")s\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


def negated(claim: str) -> str | None:
    """The claim's opposite by the first rule that fits, or None when none does."""
    for rule in (_without_negation, _opposite_word, _with_auxiliary_not, _with_does_not):
        result = rule(claim)
        if result is not None and result != claim:
            return result
    return None


def _without_negation(claim: str) -> str | None:
    match = _NEGATED.search(claim)
    if not match:
        return None
    return claim[: match.start()] + (match.group(1) or match.group(2)) + claim[match.end() :]


def _opposite_word(claim: str) -> str | None:
    for match in _WORD.finditer(claim):
        word = match.group(0)
        opposite = _OPPOSITES.get(word.lower())
        if opposite is not None:
            return claim[: match.start()] + _same_case(word, opposite) + claim[match.end() :]
    return None


def _with_auxiliary_not(claim: str) -> str | None:
    match = _AUXILIARY.search(claim)
    if not match:
        return None
    return claim[: match.end()] + " not" + claim[match.end() :]


def _with_does_not(claim: str) -> str | None:
    match = _PRESENT.search(claim)
    # Not the claim's first word: there a verb form is more likely a noun ("Causes of ...").
    if not match or match.start() == 0:
        return None
    return claim[: match.start()] + "does not " + match.group(1).lower() + claim[match.end() :]


def _same_case(model: str, word: str) -> str:
    return word.capitalize() if model[:1].isupper() else word
