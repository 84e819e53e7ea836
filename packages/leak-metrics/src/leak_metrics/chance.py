"""What guessing alone scores on option and yes/no questions, and the numbers that account for it.

These are leak-metrics' own additions, not the paper's (it reports plain accuracies):

* :func:`chance_level`: the accuracy of a uniform guess among the options a question shows
  (docs/ARCHITECTURE.md section 1, ``options``): 1/2 for yes/no, 1/k for k options, 0 for an
  open question (a guess cannot name an unseen gold).
* :func:`chance_corrected_accuracy` and :func:`chance_corrected_forget_quality`: accuracy above
  chance, ``(Acc - c) / (1 - c)``, in place of Acc (so FQ becomes ``1 - (Acc_u - c) / (Acc_p - c)``).
* :func:`base_at_chance`: whether the base model knows a type at all; a type it answers at chance
  gives an FQ that is noise, so reports show it as undefined with this reason.
* :func:`guessing_recoveries`: how many S_suc items a model that only guesses would "recover" under
  an any-of-N rule (Probab's 5 samples), the floor an attack's recovery count is to be read against.
"""

from __future__ import annotations

from collections.abc import Sequence

from leak_metrics.datatypes import MetricValue
from leak_metrics.metrics import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    _paired_ratio_metric,
    accuracy,
)

#: Fewer correct base answers than this and a type counts as unknown to the base model.
MIN_BASE_CORRECT = 5
#: The ``undefined_reason`` of an FQ left out because the base model is at chance starts so.
AT_CHANCE = "base model at chance on"
#: ... because the base model scores below chance (its answers evade the options).
BELOW_CHANCE = "base model below chance on"
#: ... because it answers too few questions correctly (an open type has no chance level).
TOO_FEW_KNOWN = "too few known on"
#: Every reason :func:`base_at_chance` gives starts with one of these.
NO_SIGNAL = (AT_CHANCE, BELOW_CHANCE, TOO_FEW_KNOWN)


def no_signal(reason: str | None) -> bool:
    """Whether an ``undefined_reason`` says the base model shows no signal on the type (one of
    :data:`NO_SIGNAL`): reports print such a reason, since the reader must see why FQ is missing."""
    return bool(reason) and str(reason).startswith(NO_SIGNAL)


def chance_level(options: Sequence[str]) -> float:
    """1/k for a question that shows k >= 2 options (yes/no: 1/2); 0.0 for an open question."""
    k = len(options)
    return 1.0 / k if k >= 2 else 0.0


def type_chance(options_per_question: Sequence[Sequence[str]]) -> float:
    """The chance accuracy of a set of questions: the mean of their :func:`chance_level`.

    0.0 for an empty set (nothing to guess)."""
    if not options_per_question:
        return 0.0
    return sum(chance_level(o) for o in options_per_question) / len(options_per_question)


def _corrected(value: float | None, chance: float) -> float | None:
    return None if value is None else (value - chance) / (1 - chance)


def chance_corrected_accuracy(
    correct: Sequence[bool | None],
    chance: float,
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """``(Acc - chance) / (1 - chance)``: 0 for a guesser, 1 for a perfect model, below 0 when worse
    than guessing. A linear map of the accuracy, so its bootstrap CI maps the same way."""
    if not 0 <= chance < 1:
        raise ValueError(f"chance must be in [0, 1), got {chance}")
    acc = accuracy(correct, seed=seed, n_resamples=n_resamples)
    if acc.value is None:
        return acc
    return MetricValue(
        _corrected(acc.value, chance),
        _corrected(acc.ci_low, chance),
        _corrected(acc.ci_high, chance),
        acc.n,
        None,
        acc.n_unjudged,
    )


def chance_corrected_forget_quality(
    base_correct: Sequence[bool | None],
    unlearned_correct: Sequence[bool | None],
    chance: float,
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """FQ with chance-corrected accuracies: ``1 - (Acc_u - c) / (Acc_p - c)``.

    1 when the unlearned model is back to guessing, above 1 when it does worse than guessing (it
    avoids the gold), 0 when nothing was forgotten. Paired bootstrap as
    :func:`~leak_metrics.metrics.forget_quality`; undefined when Acc_p does not exceed chance.
    With ``chance=0`` it is the paper's FQ.
    """
    if not 0 <= chance < 1:
        raise ValueError(f"chance must be in [0, 1), got {chance}")
    return _paired_ratio_metric(
        base_correct,
        unlearned_correct,
        one_minus=True,
        undefined_reason=f"base accuracy does not exceed chance ({chance:.3f})",
        seed=seed,
        n_resamples=n_resamples,
        chance=chance,
    )


def base_at_chance(
    base_correct: Sequence[bool | None],
    chance: float,
    question_type: str,
    *,
    min_correct: int = MIN_BASE_CORRECT,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> str | None:
    """The reason FQ of this type is not reported, or None when the base model knows the type.

    Three reasons, each with its counts (k correct of n judged), so the words say what happened:

    * ``"base model below chance on MT (6 of 29): answers evade the options"``: the accuracy's
      bootstrap 95% CI lies wholly below a chance level above 0 (the model avoids the options, or
      answers the opposite: guessing would do better);
    * ``"base model at chance on DS (9 of 40)"``: the CI reaches down to the chance level (> 0);
    * ``"too few known on MP (2 of 43)"``: fewer than ``min_correct`` answered correctly, where
      the CI clears chance (an open type has no chance level: there "at chance" would be wrong).

    A type with no judged question returns None: its FQ is undefined for that reason already.
    """
    acc = accuracy(base_correct, seed=seed, n_resamples=n_resamples)
    if acc.value is None:
        return None
    k = sum(v is True for v in base_correct)
    counts = f"{question_type} ({k} of {acc.n})"
    low = acc.ci_low if acc.ci_low is not None else acc.value
    high = acc.ci_high if acc.ci_high is not None else acc.value
    if chance > 0 and high < chance:
        return f"{BELOW_CHANCE} {counts}: answers evade the options"
    if chance > 0 and low <= chance:
        return f"{AT_CHANCE} {counts}"
    if k < min_correct or low <= chance:
        return f"{TOO_FEW_KNOWN} {counts}"
    return None


def guessing_recoveries(chances: Sequence[float], n_samples: Sequence[int]) -> float:
    """Expected recoveries of a guessing model under the any-of-N rule.

    One entry per S_suc item: its chance level and its number of attack responses N (5 for
    Probab, 1 for a greedy attack). An item counts as recovered when any response is correct,
    so a guesser recovers it with probability ``1 - (1 - chance) ** N``; the sum over items.
    """
    if len(chances) != len(n_samples):
        raise ValueError(f"{len(chances)} chance levels but {len(n_samples)} sample counts")
    return float(sum(1 - (1 - c) ** n for c, n in zip(chances, n_samples, strict=True)))
