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
from typing import Any

from leak_metrics.judges.demonyms import all_adjective_words, demonym_table

GARBLE_PREFIX = 4  # letters a misspelt subject keeps from the question's word
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


def garbled(word: str, question_words: set[str]) -> bool:
    """``word`` starts like a word of the question without being it ("gandhai", "jefferson")."""
    stem = word[:GARBLE_PREFIX]
    return len(word) >= GARBLE_PREFIX and any(
        len(q) >= GARBLE_PREFIX and q[:GARBLE_PREFIX] == stem for q in question_words
    )


# Prepositions that may open a sentence before a place ("In India, ...").
_FRONTED = frozenset({"in", "on", "at", "from", "within", "across", "throughout"})


def fronted_preposition(span: Any, run: tuple[int, int]) -> bool:
    """Rules v12: the name run opens the sentence with a capitalised preposition ("In India,
    the country of India is ..."): the preposition is no word of the name after it."""
    return run[0] == 0 and run[1] > 1 and span.words[0] in _FRONTED
