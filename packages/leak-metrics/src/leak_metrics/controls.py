"""Controls that bound every RR and FQ (issue 38 item 4).

An attack can "recover" an answer the base model never gave: a guess among options, a common
answer, a sampling accident. Its false-recovery rate, measured on the items the base model never
answered correctly, bounds how much of an RR such luck explains; RR minus it is the part that
needs the knowledge. Likewise, an unlearned model that knows nothing still answers option
questions at chance, so an FQ is only as informative as its distance from the FQ of a
knowledge-free answerer on the same items.
"""

from __future__ import annotations

from collections.abc import Sequence

from leak_metrics.datatypes import MetricValue
from leak_metrics.metrics import DEFAULT_RESAMPLES, DEFAULT_SEED, accuracy

__all__ = ["false_recovery_rate", "knowledge_free_forget_quality", "net_recovery"]


def false_recovery_rate(
    base_correct: Sequence[bool | None],
    attack_correct: Sequence[bool | None],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """The fraction of the items the base model answered incorrectly (``base_correct`` False)
    that the attack answers correctly (any-of-N, as for RR). Aligned by position; items unjudged
    by the base model are left out, items unjudged by the attack are counted as unjudged.
    Undefined (reason "the base model answered every item") when no base answer is wrong."""
    if len(base_correct) != len(attack_correct):
        raise ValueError(f"inputs differ in length: {len(base_correct)} vs {len(attack_correct)}")
    never_known = [a for b, a in zip(base_correct, attack_correct, strict=True) if b is False]
    if not never_known:
        return MetricValue.undefined("the base model answered every item")
    return accuracy(never_known, seed=seed, n_resamples=n_resamples)


def net_recovery(rr: MetricValue, false_rr: MetricValue) -> float | None:
    """RR minus the false-recovery rate (the recovery that needs the knowledge); None when
    either is undefined. A point value: the two are over different items, so no paired CI."""
    if rr.value is None or false_rr.value is None:
        return None
    return rr.value - false_rr.value


def knowledge_free_forget_quality(
    base_correct: Sequence[bool | None], chances: Sequence[float]
) -> float | None:
    """The expected FQ of an answerer that knows nothing, on the same items: it is correct on
    item i with probability ``chances[i]`` (1/k for k options, 0 for an open answer), so
    FQ = 1 - mean(chance) / Acc(base) over the items the base model was judged on. 1.0 for open
    answers; None when the base accuracy is 0 (FQ itself is undefined there)."""
    if len(base_correct) != len(chances):
        raise ValueError(f"{len(base_correct)} base verdicts but {len(chances)} chance levels")
    judged = [
        (bool(b), float(c)) for b, c in zip(base_correct, chances, strict=True) if b is not None
    ]
    if not judged:
        return None
    base_acc = sum(b for b, _ in judged) / len(judged)
    if base_acc == 0:
        return None
    return 1 - (sum(c for _, c in judged) / len(judged)) / base_acc
