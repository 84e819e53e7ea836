"""Set-level checks of yes/no questions: can the answer be read off the wording?

**One-cue classifier.** For every word and word bigram of the (normalised) questions, the rule
"answer yes when the cue is present, no otherwise" and its reverse are scored on the set; the
best accuracy over all cues is reported with the cue. A set whose answers need the facts scores
close to 50 %; main's MT questions scored 100 % with the cue "is not". :func:`mt_balance` also
reports the yes share, the true-antecedent share and whether every MT pair is complete.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise

from kg_qgen.textnorm import normalize

__all__ = ["CueResult", "MTBalance", "mt_balance", "one_cue_accuracy"]


@dataclass
class CueResult:
    accuracy: float
    cue: str
    rule: str  # "present -> yes" or "present -> no"
    n: int


def _cues(question: str) -> set[str]:
    words = normalize(question).split()
    return set(words) | {f"{a} {b}" for a, b in pairwise(words)}


def one_cue_accuracy(questions: Sequence[str], answers: Sequence[str]) -> CueResult:
    """Best accuracy of predicting yes/no from the presence of a single word or bigram."""
    if len(questions) != len(answers):
        raise ValueError("questions and answers differ in length")
    n = len(questions)
    if n == 0:
        return CueResult(0.0, "", "", 0)
    n_yes = sum(a == "yes" for a in answers)
    present: Counter[str] = Counter()
    present_yes: Counter[str] = Counter()
    for q, a in zip(questions, answers, strict=True):
        for cue in _cues(q):
            present[cue] += 1
            present_yes[cue] += a == "yes"
    # the constant guess is the baseline: no cue, the majority answer
    best = CueResult(max(n_yes, n - n_yes) / n, "", "always the majority answer", n)
    for cue, k in sorted(present.items()):
        y = present_yes[cue]
        correct = y + (n - n_yes - (k - y))  # present -> yes, absent -> no
        for acc, rule in ((correct / n, "present -> yes"), ((n - correct) / n, "present -> no")):
            if acc > best.accuracy:
                best = CueResult(acc, cue, rule, n)
    return best


@dataclass
class MTBalance:
    n: int
    yes_share: float | None
    true_antecedent_share: float | None
    cue: CueResult
    incomplete_pairs: list[int]

    def to_dict(self) -> dict:
        return asdict(self)


def mt_balance(records: Sequence[dict]) -> MTBalance:
    """Balance figures of the MT records among ``records``."""
    mt = [r for r in records if r.get("type") == "MT"]
    n = len(mt)
    pairs: Counter[int] = Counter(r.get("pair") for r in mt if isinstance(r.get("pair"), int))
    incomplete = sorted(p for p, k in pairs.items() if k != 2)
    incomplete += [-1] * sum(not isinstance(r.get("pair"), int) for r in mt)
    return MTBalance(
        n=n,
        yes_share=sum(r.get("answer") == "yes" for r in mt) / n if n else None,
        true_antecedent_share=sum(r.get("antecedent") == "true" for r in mt) / n if n else None,
        cue=one_cue_accuracy(
            [str(r.get("question", "")) for r in mt], [r.get("answer") for r in mt]
        ),
        incomplete_pairs=incomplete,
    )
