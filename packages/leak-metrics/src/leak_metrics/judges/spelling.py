"""Rules version 12 of the alias judge (issue 35, round twelve): a name spelt another way is the
same name. A capitalised word of the response that differs from a long word of the question by a
letter or two ("Colosseum" for the question's "Coliseum", "Hemmingway" for "Hemingway") restates
the question's name: it is no other answer. Only long words (:data:`MIN_LENGTH` letters) with the
same first letter count, and the two spellings must share nearly all their letters in order
(:data:`MIN_RATIO` of :class:`difflib.SequenceMatcher`); a word that is itself a country's or
continent's name or adjective (``data/demonyms.tsv``) names that place ("Australia" is no
misspelt "Austria"), and short names ("Iran", "Iraq") are never misspellings.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import lru_cache

from leak_metrics.judges.demonyms import all_adjective_words, demonym_table

MIN_LENGTH = 6
MIN_RATIO = 0.8


@lru_cache(maxsize=4096)
def _alike(word: str, other: str) -> bool:
    if word[0] != other[0] or abs(len(word) - len(other)) > 2:
        return False
    return SequenceMatcher(None, word, other).ratio() >= MIN_RATIO


@lru_cache(maxsize=1)
def _places() -> frozenset[str]:
    """Words of the known country and continent names and adjectives."""
    return frozenset({w for name in demonym_table() for w in name} | all_adjective_words())


def spelt_like(word: str, question_words: set[str] | frozenset[str]) -> bool:
    """``word`` is a long word of the question spelt another way (module docstring)."""
    if len(word) < MIN_LENGTH or word in _places():
        return False
    return any(len(q) >= MIN_LENGTH and _alike(word, q) for q in question_words)
