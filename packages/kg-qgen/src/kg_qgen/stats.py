"""Richness statistics (paper table 7): self-BLEU (lower = more diverse) and answer entropy.

Self-BLEU: every sampled question is scored with sentence BLEU-4 against all the other sampled
questions as references, and the scores are averaged (Zhu et al. 2018, Texygen). Our BLEU:
tokens = lower-cased ``\\w+`` runs and single punctuation marks; modified n-gram precision with
counts clipped by the maximum count in any one reference; uniform weights 1/4 over n = 1..4;
smoothing: p_1 unsmoothed, p_n for n >= 2 is (matches + 1) / (total + 1) (Lin & Och 2004 add-one
on higher orders, so one missing 4-gram does not zero the score); brevity penalty with the
reference length closest to the hypothesis length (ties -> shorter). At most ``sample`` questions
(seeded) are used, since the cost grows with the square of the sample in the naive form (ours is
linear: per n-gram we keep the two largest counts and who holds the largest).

Answer entropy: Shannon entropy in bits of the distribution of normalised answer strings.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence

from kg_qgen.textnorm import normalize

__all__ = ["answer_entropy", "dataset_stats", "self_bleu", "sentence_bleu", "tokenize"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _bleu_from_stats(
    matches: list[int], totals: list[int], hyp_len: int, ref_len: int, max_n: int
) -> float:
    if hyp_len == 0 or totals[0] == 0 or matches[0] == 0:
        return 0.0
    log_p = math.log(matches[0] / totals[0])
    for n in range(1, max_n):
        log_p += math.log((matches[n] + 1) / (totals[n] + 1))
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return bp * math.exp(log_p / max_n)


def _closest(lengths: Sequence[int], hyp_len: int) -> int:
    return min(lengths, key=lambda r: (abs(r - hyp_len), r))


def sentence_bleu(hypothesis: str, references: Sequence[str], max_n: int = 4) -> float:
    """Smoothed sentence BLEU of one hypothesis against references (see module docs)."""
    hyp = tokenize(hypothesis)
    refs = [tokenize(r) for r in references]
    if not refs:
        raise ValueError("sentence_bleu needs at least one reference")
    matches, totals = [], []
    for n in range(1, max_n + 1):
        h = _ngrams(hyp, n)
        ref_max: Counter = Counter()
        for r in refs:
            for g, c in _ngrams(r, n).items():
                ref_max[g] = max(ref_max[g], c)
        matches.append(sum(min(c, ref_max[g]) for g, c in h.items()))
        totals.append(max(0, len(hyp) - n + 1))
    return _bleu_from_stats(
        matches, totals, len(hyp), _closest([len(r) for r in refs], len(hyp)), max_n
    )


def self_bleu(
    texts: Sequence[str], max_n: int = 4, sample: int = 500, seed: int = 0
) -> float | None:
    """Mean BLEU of each text against all the others; None for fewer than 2 texts."""
    texts = list(texts)
    if len(texts) > sample:
        texts = random.Random(seed).sample(texts, sample)
    if len(texts) < 2:
        return None
    toks = [tokenize(t) for t in texts]
    grams = [[_ngrams(t, n) for n in range(1, max_n + 1)] for t in toks]
    # per n-gram: (largest count, index holding it, second largest count)
    top: list[dict[tuple, list[int]]] = [{} for _ in range(max_n)]
    for i, per_n in enumerate(grams):
        for n in range(max_n):
            table = top[n]
            for g, c in per_n[n].items():
                best = table.get(g)
                if best is None:
                    table[g] = [c, i, 0]
                elif c > best[0]:
                    table[g] = [c, i, best[0]]
                elif c > best[2]:
                    best[2] = c
    lengths = [len(t) for t in toks]
    scores = []
    for i, per_n in enumerate(grams):
        matches, totals = [], []
        for n in range(max_n):
            m = 0
            for g, c in per_n[n].items():
                best_c, holder, second = top[n][g]
                m += min(c, second if holder == i else best_c)
            matches.append(m)
            totals.append(max(0, lengths[i] - n))
        others = lengths[:i] + lengths[i + 1 :]
        scores.append(
            _bleu_from_stats(matches, totals, lengths[i], _closest(others, lengths[i]), max_n)
        )
    return sum(scores) / len(scores)


def answer_entropy(answers: Sequence[str]) -> float | None:
    """Shannon entropy (bits) of normalised answers; None when there are none."""
    counts = Counter(normalize(a) for a in answers)
    total = sum(counts.values())
    if total == 0:
        return None
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def dataset_stats(questions: Sequence[dict], sample: int = 500, seed: int = 0) -> dict:
    """Per type and overall: count, self-BLEU, answer entropy."""
    out: dict = {"per_type": {}}
    types = sorted({q["type"] for q in questions})
    for t in types:
        qs = [q for q in questions if q["type"] == t]
        out["per_type"][t] = {
            "n": len(qs),
            "self_bleu": self_bleu([q["question"] for q in qs], sample=sample, seed=seed),
            "answer_entropy_bits": answer_entropy([q["answer"] for q in qs]),
        }
    out["all"] = {
        "n": len(questions),
        "self_bleu": self_bleu([q["question"] for q in questions], sample=sample, seed=seed),
        "answer_entropy_bits": answer_entropy([q["answer"] for q in questions]),
    }
    return out
