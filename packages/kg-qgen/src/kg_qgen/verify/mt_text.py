"""The MT set check: can a text-only classifier read the gold, and is the set spread?

**Classifier.** Features of a question (text only, never the graph): its normalised word
unigrams and bigrams (seen in at least two training items), its count of negations ("not",
"never", "n't", "false") and their parity, and for option items which option the text names
first (a stated order that put the gold's conditional first would show there). Label: the gold's
option slot (options items), or the answer (yes/no items, the design of rounds one to three).
An L2 logistic regression (numpy, full-batch gradient descent, :func:`_fit`) is trained on a
seeded half of the set and tested on the other half, for :data:`SPLITS` seeded splits; the mean
test accuracy is compared with chance (1/k for k options, 0.5 for yes/no). The set passes when the
accuracy is at most chance + 0.10 (options) or 0.60 (yes/no): at most what a guess does plus
the noise of a half of a few hundred items. That bound holds from :data:`FULL_N` (200) items; from
:data:`MIN_N` (100) to 199 it is 0.05 looser, since with random golds the classifier's mean
accuracy on 100 items has a standard deviation of 0.04 and passed 0.60 in 1-2 % of 100 draws
(MQuAKE-hard-dev and built-in KB MT sets, seed 0), which would refuse a sound build that often.
On round three's yes/no MT it reads the gold at 1.00 from the negation parity
(``tests/test_mt_options.py``).

**Spread and wording.** Also reported (and judged): distinct target facts per 100 items (at least
40), the largest share of one gold (at most 0.3 where the set has at least 4 distinct golds and
the share is not forced), the largest share of one template frame (at most 0.2), repeated
(type, premises) pairs (none) and items that say something "follows" (none:
:data:`kg_qgen.verify.mt_logic.FOLLOWS_WORDS`). Judged from :data:`MIN_N` items; smaller sets are
reported, not judged.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from kg_qgen.textnorm import contains_phrase, normalize
from kg_qgen.verify.mt_logic import FOLLOWS_WORDS

__all__ = ["MIN_N", "classifier_accuracy", "mt_set_check"]

MIN_N = 100
FULL_N = 200  # the size for the classifier's bound; from MIN_N a looser one (below)
SPLITS = 10
MARGIN = 0.10
SMALL_SLACK = 0.05  # added to the bound for MIN_N <= n < FULL_N (module docs)
YES_NO_BOUND = 0.60
MIN_FACTS_PER_100 = 40.0
MAX_GOLD_SHARE = 0.30
MAX_FRAME_SHARE = 0.20
_NEGATION = re.compile(r"\b(?:not|never|false|no)\b|\b\w+n t\b")


def _features(question: str, options: Sequence[str]) -> tuple[set[str], list[float]]:
    """(word unigrams and bigrams, numeric features) of one question (module docs)."""
    text = normalize(question)
    words = text.split()
    grams = set(words) | {f"{a} {b}" for a, b in pairwise(words)}
    n_neg = len(_NEGATION.findall(text))
    first = [0.0] * len(options)
    if len(options) > 1 and options[0] not in ("yes", "no"):
        padded = f" {text} "
        pos = [padded.find(f" {normalize(o)} ") for o in options]
        pos = [p if p >= 0 else len(padded) for p in pos]
        first[pos.index(min(pos))] = 1.0
    return grams, [float(n_neg), float(n_neg % 2), *first]


def _options(r: dict) -> list[str]:
    """The record's options as strings ([] when the field is not a list)."""
    opts = r.get("options")
    return [str(o) for o in opts] if isinstance(opts, list) else []


def _key(value: Any) -> str:
    """A hashable, order-free key of any JSON value (records may hold anything)."""
    return json.dumps(value, sort_keys=True, default=str)


def _label(r: dict) -> int | None:
    """The class of a record: the gold's index among its options (yes/no: 0 for yes), or None."""
    opts = _options(r)
    ans = str(r.get("answer"))
    if not opts or ans not in opts:
        return None
    return opts.index(ans)


def _fit(x: np.ndarray, y: np.ndarray, k: int, steps: int = 300, l2: float = 1e-2) -> np.ndarray:
    """Multinomial logistic regression weights (gradient descent, L2, seeded by nothing)."""
    w = np.zeros((x.shape[1], k))
    onehot = np.eye(k)[y]
    lr = 0.5
    for _ in range(steps):
        z = x @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        w -= lr * (x.T @ (p - onehot) / len(y) + l2 * w)
    return w


def classifier_accuracy(records: Sequence[dict], seed: int = 0) -> dict[str, Any]:
    """Mean held-out accuracy of the text-only classifier over :data:`SPLITS` seeded halves,
    with chance and the number of items used (records without a readable gold are skipped)."""
    rows = [(r, _label(r)) for r in records]
    rows = [(r, y) for r, y in rows if y is not None]
    k = max((len(_options(r)) for r, _ in rows), default=2)
    chance = 1.0 / k if k else 0.5
    if len(rows) < 4:
        return {"accuracy": None, "chance": chance, "n": len(rows), "k": k}
    feats = [_features(str(r.get("question", "")), _options(r)) for r, _ in rows]
    y = np.array([lab for _, lab in rows])
    accs = []
    for split in range(SPLITS):
        idx = list(range(len(rows)))
        random.Random(f"{seed}:mt-text:{split}").shuffle(idx)
        train, test = idx[: len(idx) // 2], idx[len(idx) // 2 :]
        counts = Counter(g for i in train for g in feats[i][0])
        vocab = {g: j for j, g in enumerate(sorted(g for g, c in counts.items() if c >= 2))}

        def matrix(ids: list[int], vocab: dict[str, int] = vocab) -> np.ndarray:
            m = np.zeros((len(ids), len(vocab) + 3 + k))  # grams, bias, negations, parity, first
            for row, i in enumerate(ids):
                for g in feats[i][0]:
                    if g in vocab:
                        m[row, vocab[g]] = 1.0
                m[row, len(vocab)] = 1.0  # bias
                nums = feats[i][1][: 2 + k]
                m[row, len(vocab) + 1 : len(vocab) + 1 + len(nums)] = nums
            return m

        w = _fit(matrix(train), y[train], k)
        pred = (matrix(test) @ w).argmax(axis=1)
        accs.append(float((pred == y[test]).mean()))
    return {"accuracy": float(np.mean(accs)), "chance": chance, "n": len(rows), "k": k}


def _spread(mt: Sequence[dict]) -> dict[str, Any]:
    """Distinct target facts per 100 items, top gold and frame shares, repeats, "follows"."""
    n = len(mt)
    targets = {_key(r.get("target_ids") or r.get("target")) for r in mt}
    golds = Counter(str(r.get("answer")) for r in mt)
    frames = Counter(str(r.get("template")) for r in mt if r.get("template"))
    facts = Counter(_key(r.get("premise_ids") or r.get("premises")) for r in mt)
    follows = [
        r.get("id")
        for r in mt
        if any(contains_phrase(normalize(str(r.get("question", ""))), w) for w in FOLLOWS_WORDS)
    ]
    return {
        "facts_per_100": 100.0 * len(targets) / n if n else 0.0,
        "distinct_golds": len(golds),
        "top_gold": golds.most_common(1)[0] if golds else None,
        "top_gold_share": golds.most_common(1)[0][1] / n if n else 0.0,
        "top_frame": frames.most_common(1)[0] if frames else None,
        "top_frame_share": frames.most_common(1)[0][1] / n if frames else 0.0,
        "repeated_facts": sum(c - 1 for c in facts.values()),
        "says_follows": follows,
    }


def mt_set_check(records: Sequence[dict], min_n: int = MIN_N, seed: int = 0) -> dict | None:
    """The MT set check (module docs) as a ``set_checks`` entry, None without MT records."""
    mt = [r for r in records if r.get("type") == "MT"]
    if not mt:
        return None
    clf = classifier_accuracy(mt, seed)
    sp = _spread(mt)
    judged = len(mt) >= min_n
    yes_no = clf["k"] == 2 and all(_options(r) == ["yes", "no"] for r in mt)
    bound = YES_NO_BOUND if yes_no else clf["chance"] + MARGIN
    if len(mt) < FULL_N:
        bound += SMALL_SLACK
    problems = []
    if sp["says_follows"]:  # judged at any size: a single item is wrong
        problems.append(f"{len(sp['says_follows'])} item(s) say something follows")
    if sp["repeated_facts"]:
        problems.append(f"{sp['repeated_facts']} repeated (type, premises) item(s)")
    if judged:
        if clf["accuracy"] is not None and clf["accuracy"] > bound:
            problems.append(f"text-only classifier {clf['accuracy']:.3f} > {bound:.2f}")
        if sp["facts_per_100"] < MIN_FACTS_PER_100:
            problems.append(f"{sp['facts_per_100']:.0f} distinct facts per 100 items < 40")
        if sp["distinct_golds"] >= 4 and sp["top_gold_share"] > MAX_GOLD_SHARE:
            problems.append(f"one gold on {sp['top_gold_share']:.2f} of the items > 0.30")
        if sp["top_frame_share"] > MAX_FRAME_SHARE:
            problems.append(f"one frame on {sp['top_frame_share']:.2f} of the items > 0.20")
    acc = "n/a" if clf["accuracy"] is None else f"{clf['accuracy']:.3f}"
    detail = (
        f"n={len(mt)}, text-only classifier {acc} (chance {clf['chance']:.2f}, bound "
        f"{bound:.2f}), distinct facts per 100 {sp['facts_per_100']:.0f}, top gold share "
        f"{sp['top_gold_share']:.2f}, top frame share {sp['top_frame_share']:.2f}, repeated "
        f"{sp['repeated_facts']}, 'follows' {len(sp['says_follows'])}"
        + ("" if judged else f" (not judged: n < {min_n})")
    )
    return {
        "ok": not problems,
        "judged": judged,
        "detail": detail + ("; " + "; ".join(problems) if problems else ""),
        "classifier": clf,
        **sp,
    }
