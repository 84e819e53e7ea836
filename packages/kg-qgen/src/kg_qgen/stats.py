"""Richness statistics (paper table 7): self-BLEU (lower = more diverse) and answer entropy.

**Self-BLEU** as Texygen defines it (Zhu et al. 2018, ``utils/metrics/SelfBleu.py``, the form
the field reports): every sampled question is the hypothesis once, scored with NLTK's
``nltk.translate.bleu_score.sentence_bleu`` against ALL the other sampled questions as
references, with uniform 4-gram weights ``(0.25, 0.25, 0.25, 0.25)`` and
``SmoothingFunction().method1`` (epsilon 0.1 added to zero n-gram matches); the scores are
averaged. Tokens: NLTK's word tokenizer (``NLTKWordTokenizer``, the tokenizer inside
``nltk.word_tokenize``) on each sentence, sentences split at ``.``/``?``/``!`` followed by white
space (``nltk.word_tokenize`` would split them with the Punkt model, whose data NLTK does not
ship); case is kept, as in Texygen. At most ``sample`` questions (default 500, seeded) are
used. :func:`self_bleu` computes exactly what NLTK computes, but in time linear in the sample
(per n-gram it keeps the two largest counts and who holds the largest) instead of quadratic;
``backend="nltk"`` calls NLTK itself for every hypothesis, and the tests check both agree.

**Answer entropy**: Shannon entropy in bits of the distribution of normalised answer strings.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from kg_qgen.textnorm import normalize

__all__ = [
    "SELF_BLEU_DEFINITION",
    "answer_entropy",
    "dataset_stats",
    "self_bleu",
    "sentence_bleu",
    "tokenize",
]

SELF_BLEU_DEFINITION = (
    "Texygen self-BLEU: nltk sentence_bleu of each question against all other sampled "
    "questions, weights (0.25, 0.25, 0.25, 0.25), SmoothingFunction().method1, NLTK word tokens"
)
WEIGHTS = (0.25, 0.25, 0.25, 0.25)
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


@lru_cache(maxsize=1)
def _word_tokenizer():  # type: ignore[no-untyped-def]
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def tokenize(text: str) -> list[str]:
    """NLTK word tokens of ``text``, sentence by sentence (see the module docs)."""
    tok = _word_tokenizer()
    return [t for sentence in _SENTENCE_END.split(text.strip()) for t in tok.tokenize(sentence)]


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _bleu_method1(
    matches: list[int], totals: list[int], hyp_len: int, ref_len: int, weights: Sequence[float]
) -> float:
    """NLTK's corpus_bleu arithmetic for one hypothesis with smoothing method1."""
    if matches[0] == 0:
        return 0.0
    if hyp_len > ref_len:
        bp = 1.0
    elif hyp_len == 0:
        bp = 0.0
    else:
        bp = math.exp(1 - ref_len / hyp_len)
    p_n = [
        (0.1 / den) if num == 0 else Fraction(num, den)
        for num, den in zip(matches, totals, strict=True)
    ]
    return bp * math.exp(
        math.fsum(w * math.log(p) for w, p in zip(weights, p_n, strict=True) if p > 0)
    )


def _closest(lengths: Sequence[int], hyp_len: int) -> int:
    return min(lengths, key=lambda r: (abs(r - hyp_len), r))


def sentence_bleu(hypothesis: str, references: Sequence[str]) -> float:
    """NLTK's smoothed (method1) 4-gram sentence BLEU of one text against references."""
    from nltk.translate.bleu_score import SmoothingFunction
    from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

    if not references:
        raise ValueError("sentence_bleu needs at least one reference")
    return float(
        nltk_sentence_bleu(
            [tokenize(r) for r in references],
            tokenize(hypothesis),
            WEIGHTS,
            smoothing_function=SmoothingFunction().method1,
        )
    )


def _sample(texts: Sequence[str], sample: int, seed: int) -> list[str]:
    texts = list(texts)
    if len(texts) > sample:
        texts = random.Random(seed).sample(texts, sample)
    return texts


def self_bleu(
    texts: Sequence[str], sample: int = 500, seed: int = 0, backend: str = "fast"
) -> float | None:
    """Texygen self-BLEU of ``texts`` (module docs); None for fewer than 2 texts.

    ``backend="nltk"`` scores every hypothesis with NLTK's ``sentence_bleu`` (quadratic, slow);
    ``"fast"`` (default) gives the same numbers in linear time.
    """
    texts = _sample(texts, sample, seed)
    if len(texts) < 2:
        return None
    toks = [tokenize(t) for t in texts]
    if backend == "nltk":
        from nltk.translate.bleu_score import SmoothingFunction
        from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

        smooth = SmoothingFunction().method1
        scores = [
            nltk_sentence_bleu(toks[:i] + toks[i + 1 :], h, WEIGHTS, smoothing_function=smooth)
            for i, h in enumerate(toks)
        ]
        return sum(scores) / len(scores)
    if backend != "fast":
        raise ValueError(f"unknown self-BLEU backend {backend!r} (fast, nltk)")
    max_n = len(WEIGHTS)
    grams = [[_ngrams(t, n) for n in range(1, max_n + 1)] for t in toks]
    # per n-gram: [largest count, index holding it, second largest count]
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
            totals.append(max(1, lengths[i] - n))
        others = lengths[:i] + lengths[i + 1 :]
        scores.append(
            _bleu_method1(matches, totals, lengths[i], _closest(others, lengths[i]), WEIGHTS)
        )
    return sum(scores) / len(scores)


def answer_entropy(answers: Sequence[str]) -> float | None:
    """Shannon entropy (bits) of normalised answers; None when there are none."""
    counts = Counter(normalize(a) for a in answers)
    total = sum(counts.values())
    if total == 0:
        return None
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def _rule_pair(q: dict) -> str:
    """ "position played on team / speciality -> sport": an MP record's relation pair, by the
    labels of its two premises (the rule_pair ids when the premises are missing)."""
    prem = q.get("premises") or []
    if len(prem) >= 2 and all(isinstance(p, dict) for p in prem[:2]):
        return f"{prem[0].get('relation')} -> {prem[1].get('relation')}"
    pair = q.get("rule_pair")
    return " -> ".join(map(str, pair)) if isinstance(pair, list | tuple) else str(pair)


def dataset_stats(questions: Sequence[dict], sample: int = 500, seed: int = 0) -> dict:
    """Per type and overall: count, self-BLEU, answer entropy (and the definitions used)."""
    out: dict = {
        "self_bleu_definition": f"{SELF_BLEU_DEFINITION}; at most {sample} questions (seed {seed})",
        "per_type": {},
    }
    types = sorted({q["type"] for q in questions})
    for t in types:
        qs = [q for q in questions if q["type"] == t]
        out["per_type"][t] = {
            "n": len(qs),
            "self_bleu": self_bleu([q["question"] for q in qs], sample=sample, seed=seed),
            "answer_entropy_bits": answer_entropy([q["answer"] for q in qs]),
        }
    mp = [q for q in questions if q["type"] == "MP"]
    if mp:  # issue 21: the relation-pair spread of MP, reported with the set size
        out["per_type"]["MP"]["rule_pairs"] = dict(Counter(map(_rule_pair, mp)).most_common())
    out["all"] = {
        "n": len(questions),
        "self_bleu_sample": min(sample, len(questions)),
        "self_bleu": self_bleu([q["question"] for q in questions], sample=sample, seed=seed),
        "answer_entropy_bits": answer_entropy([q["answer"] for q in questions]),
    }
    return out
