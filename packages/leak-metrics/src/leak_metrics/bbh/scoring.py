"""BBH scoring: the answer a generation states, exact match after BBH normalisation, and the
macro average over tasks with a stratified bootstrap CI.

The generation is cut at the next ``Q:`` (a model continuing the few-shot pattern); the text after
the first "the answer is" (case-insensitive) up to the end of the line is the answer. Answer and
target are normalised like the BBH evaluation (strip, drop a trailing period, multiple-choice
letters as ``(X)`` whether written ``X``, ``(X)`` or ``(X) text``) and compared case-insensitively.
"""

from __future__ import annotations

import re

import numpy as np

from leak_metrics.bbh.prompting import ANSWER_CUE
from leak_metrics.datatypes import MetricValue
from leak_metrics.metrics import _percentile_ci

_MC_TARGET = re.compile(r"^\([A-R]\)$")
_MC_OPTION = re.compile(r"^\(?([A-R])\)?(?:$|[\s.:,)])")


def normalize_answer(text: str, *, multiple_choice: bool = False) -> str:
    """BBH-style normalisation: strip, drop a trailing period, casefold; with
    ``multiple_choice`` an option written ``B``, ``(B)`` or ``(B) text`` becomes ``(b)``."""
    text = text.strip()
    if text.endswith("."):
        text = text[:-1].strip()
    if multiple_choice:
        match = _MC_OPTION.match(text)
        if match:
            return f"({match.group(1)})".casefold()
    return text.casefold()


def extract_answer(generation: str, *, cot: bool = True) -> str | None:
    """The answer stated after "the answer is" (``None`` when the model never states one).

    With ``cot=False`` the prompt already ends with the cue, so the generation itself is the answer.
    """
    text = re.split(r"\n\s*Q:", generation, maxsplit=1)[0]
    if not cot:
        text = f"{ANSWER_CUE} {text.lstrip()}"
    match = re.search(r"the answer is\s*(.*)", text, flags=re.IGNORECASE)
    if match is None:
        return None
    answer = match.group(1).split("\n", 1)[0].strip()
    return answer or None


def is_correct(extracted: str | None, target: str) -> bool:
    """Exact match after normalisation; option letters are normalised only when the target is
    an option like ``(B)``, so a free-text answer such as "A tree" is never read as option A."""
    if extracted is None:
        return False
    multiple_choice = bool(_MC_TARGET.match(target.strip()))
    return normalize_answer(extracted, multiple_choice=multiple_choice) == normalize_answer(
        target, multiple_choice=multiple_choice
    )


def macro_average(
    per_task_values: dict[str, np.ndarray], seed: int, n_resamples: int
) -> MetricValue:
    """Mean of the task accuracies; CI from resampling within each task (stratified bootstrap)."""
    arrays = [a for a in per_task_values.values() if a.size]
    if not arrays:
        return MetricValue.undefined("no BBH examples scored")
    value = float(np.mean([a.mean() for a in arrays]))
    rng = np.random.default_rng(seed)
    samples = np.mean(
        [a[rng.integers(0, a.size, size=(n_resamples, a.size))].mean(axis=1) for a in arrays],
        axis=0,
    )
    low, high = _percentile_ci(samples)
    return MetricValue(value, low, high, int(sum(a.size for a in arrays)))
