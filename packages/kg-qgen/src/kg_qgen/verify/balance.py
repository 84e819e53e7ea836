"""Set-level checks: can the answer of a yes/no or option question be read off its wording?

**Short rules.** A rule of one or two words predicts the answer from the question text alone:

* one word: "yes when word w is present" (and its reverse, "no when present");
* two words: "yes when w1 is present, flipped when w2 is present" (w1 XOR w2, both polarities).

Words are the normalised words (:func:`kg_qgen.textnorm.normalize`) and, for one-word rules,
word bigrams too. :func:`best_short_rule` fits every such rule on a set and returns the best
accuracy with the rule; a set whose answers need the facts stays near 50 %. Main's first MT
wording scored 100 % with "is not"; the round-one wording 0.93 with "europe" flipped by "false".

**Options (DS).** :func:`option_rule_accuracy` asks whether the gold can be picked from the
option strings alone: a rule (a word present/absent in an option, or a word flipped by another)
selects the options it fires on; its score on an item is 1/|selected| when the gold is selected
(1/k when none is), and the best mean over the set is reported, with the gold's display position
as a rule too. Chance is 1/k.

``kg_qgen.verify.report`` fails a set where a rule is right on more than 65 % of at least 60
items (smaller sets are reported, not judged).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from kg_qgen.textnorm import normalize

__all__ = [
    "CueResult",
    "best_short_rule",
    "ds_option_balance",
    "one_cue_accuracy",
    "option_rule_accuracy",
]


@dataclass
class CueResult:
    accuracy: float
    cue: str  # the word or bigram ("w"), two words ("w1 ^ w2"), or "" (the majority answer)
    rule: str  # e.g. "present -> yes", "'a' flipped by 'b' -> yes"
    n: int

    def predicts(self, question: str) -> str | None:
        """The answer this yes/no rule gives for ``question`` (None for the constant guess)."""
        if not self.cue:
            return None
        fires = self.rule.endswith("-> yes")
        if " ^ " in self.cue:  # w1 XOR w2 (words)
            a, b = self.cue.split(" ^ ")
            words = set(_words(question))
            return "yes" if ((a in words) != (b in words)) == fires else "no"
        return "yes" if (self.cue in _cues(question)) == fires else "no"


def _words(question: str) -> list[str]:
    return normalize(question).split()


def _cues(question: str) -> set[str]:
    words = _words(question)
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


def _matrix(rows: Sequence[set[str]], min_count: int = 2) -> tuple[np.ndarray, list[str]]:
    counts: Counter[str] = Counter(w for r in rows for w in r)
    vocab = sorted(w for w, k in counts.items() if k >= min_count)
    col = {w: i for i, w in enumerate(vocab)}
    x = np.zeros((len(rows), len(vocab)), dtype=np.float64)
    for i, r in enumerate(rows):
        for w in r:
            j = col.get(w)
            if j is not None:
                x[i, j] = 1.0
    return x, vocab


def best_short_rule(questions: Sequence[str], answers: Sequence[str]) -> CueResult:
    """Best accuracy of any one- or two-word rule (module docs) predicting yes/no."""
    best = one_cue_accuracy(questions, answers)
    n = len(questions)
    if n < 2:
        return best
    x, vocab = _matrix([set(_words(q)) for q in questions])
    if not vocab:
        return best
    y = np.array([a == "yes" for a in answers], dtype=np.float64)
    # XOR rule (w1 ^ w2) -> yes is right where w1 ^ w2 ^ y == 0; with z = w1 ^ y,
    # |z ^ w2| = |z| + |w2| - 2 z.w2, so every pair's error count is one matrix product
    z = np.abs(x - y[:, None])
    wrong = z.sum(0)[:, None] + x.sum(0)[None, :] - 2.0 * (z.T @ x)
    acc = np.maximum(n - wrong, wrong) / n
    np.fill_diagonal(acc, 0.0)
    i, j = np.unravel_index(int(np.argmax(acc)), acc.shape)
    if acc[i, j] > best.accuracy:
        yes = n - wrong[i, j] >= wrong[i, j]
        rule = f"{vocab[i]!r} flipped by {vocab[j]!r} -> {'yes' if yes else 'no'}"
        best = CueResult(float(acc[i, j]), f"{vocab[i]} ^ {vocab[j]}", rule, n)
    return best


def option_rule_accuracy(option_sets: Sequence[Sequence[str]], golds: Sequence[int]) -> CueResult:
    """Best mean score of a rule picking the gold from the option strings alone (module docs)."""
    n = len(option_sets)
    if n == 0:
        return CueResult(0.0, "", "", 0)
    k_max = max(len(o) for o in option_sets)
    best = CueResult(float(np.mean([1 / len(o) for o in option_sets])), "", "chance", n)
    for pos in range(k_max):  # "the gold is the option at position pos"
        acc = float(np.mean([g == pos for g in golds]))
        if acc > best.accuracy:
            best = CueResult(acc, f"position {pos + 1}", "the option at this position", n)
    flat = [set(_words(o)) for opts in option_sets for o in opts]
    x, vocab = _matrix(flat)
    if not vocab:
        return best
    item = np.repeat(np.arange(n), [len(o) for o in option_sets])
    is_gold = np.zeros(len(flat))
    starts = np.cumsum([0, *[len(o) for o in option_sets[:-1]]])
    is_gold[starts + np.asarray(golds)] = 1.0
    k = np.array([len(o) for o in option_sets], dtype=np.float64)

    def score(fired: np.ndarray) -> np.ndarray:
        """Mean score per rule column of a (options x rules) 0/1 matrix of fired options."""
        sel = np.zeros((n, fired.shape[1]))
        np.add.at(sel, item, fired)
        hit = np.zeros((n, fired.shape[1]))
        np.add.at(hit, item, fired * is_gold[:, None])
        per = np.where(sel > 0, hit / np.maximum(sel, 1), 1 / k[:, None])
        return per.mean(0)

    for fired, name in ((x, "present"), (1 - x, "absent")):
        s = score(fired)
        j = int(np.argmax(s))
        if s[j] > best.accuracy:
            best = CueResult(float(s[j]), vocab[j], f"pick the option with {vocab[j]!r} {name}", n)
    top = np.argsort(-x.sum(0))[:60]  # XOR pairs over the 60 most frequent words
    for a in top:
        fired = np.abs(x[:, top] - x[:, [a]])
        for cols, name in ((fired, "flipped"), (1 - fired, "flipped, reversed")):
            s = score(cols)
            j = int(np.argmax(s))
            if s[j] > best.accuracy and top[j] != a:
                cue = f"{vocab[a]} ^ {vocab[top[j]]}"
                best = CueResult(float(s[j]), cue, f"pick the option with {cue} ({name})", n)
    return best


def ds_option_balance(records: Sequence[dict]) -> CueResult:
    """:func:`option_rule_accuracy` over the DS records among ``records``."""
    sets, golds = [], []
    for r in records:
        opts = r.get("options")
        if r.get("type") != "DS" or not isinstance(opts, list) or r.get("answer") not in opts:
            continue
        sets.append([str(o) for o in opts])
        golds.append(opts.index(r.get("answer")))
    return option_rule_accuracy(sets, golds)
