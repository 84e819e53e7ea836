"""Rules version 11 of the alias judge (issue 35, round eleven): mentions of the gold that stand
inside a larger name and so state no country of the subject, and the gold's name owned by the
subject, which does. The labelling guide's standard (section 6, round eleven): the subject put
only in a larger region named after the gold, or the gold's adjective only inside an
organisation's name, is not the gold; "<the gold's name> of <the subject>" said to be the
country is a possessive naming the gold.

- :func:`larger_region`: a mention of a country followed by "subcontinent"/"continent" ("a city
  in the Indian subcontinent") names a region larger than the country; not when the gold is a
  continent or the question asks for a continent ("the European continent").
- :func:`organisation_name`: a mention followed, in the same run of capitalised words, by a
  name ending in an organisation noun ("the US Supreme Court", "a Chinese Communist Party
  leader", "the French Football Federation") names that organisation, not the subject's
  country (offices and the state's own bodies stay: "U.S. President", "the British Army").
- :func:`language_name`: a country's adjective followed by "language(s)" ("a Chinese language
  model") names a language, not the country.
- :func:`longer_adjective`: an adjective right after a word that makes with it the adjective of
  another place ("South African" for Africa) names that place.
- :func:`subject_styled`: extra mentions: a gold name followed by "of <a whole name of the
  question>" ("the French Republic of <subject>") is the gold with its owner, not a longer
  name of another entity.

Each function reads a span's ``words``, ``gap(i)``, ``tight(i)`` and ``capitalised(i)``
(:class:`leak_metrics.judges.entity_rules.Span`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from leak_metrics.judges.demonyms import demonym_table
from leak_metrics.normalize import tokenize_spans

# Regions larger than any one country that a country's adjective may name.
REGION_NOUNS = frozenset({"subcontinent", "continent"})
CONTINENTS = frozenset(
    {("africa",), ("asia",), ("europe",), ("north", "america"), ("south", "america"),
     ("oceania",), ("antarctica",), ("australia",), ("america",)}
)  # fmt: skip
# Last words of an organisation's or institution's name.
ORGANISATION_HEADS = frozenset(
    {"court", "party", "company", "corporation", "council", "league", "association", "church",
     "academy", "university", "college", "institute", "bank", "museum", "society", "committee",
     "agency", "bureau", "department", "ministry", "club", "foundation", "airlines", "airways",
     "senate", "congress", "assembly", "commission", "organization", "organisation",
     "federation", "network", "corps", "judiciary", "inc", "ltd", "team", "orchestra"}
)  # fmt: skip
_NAME_REACH = 4  # capitalised words an organisation's name may add after the gold
LANGUAGE_NOUNS = frozenset({"language", "languages"})


def larger_region(
    span: Any, lo: int, hi: int, gold_forms: list[list[str]], question_words: set[str]
) -> bool:
    """The mention ``lo:hi`` of a country names a larger region (see the module docstring)."""
    if "continent" in question_words or any(tuple(f) in CONTINENTS for f in gold_forms):
        return False
    words = span.words
    return hi < len(words) and words[hi] in REGION_NOUNS and span.tight(hi)


def organisation_name(span: Any, hi: int) -> bool:
    """Capitalised words after the mention ending at ``hi`` close an organisation's name."""
    words = span.words
    k = hi
    while k < len(words) and k - hi < _NAME_REACH and span.tight(k) and span.capitalised(k):
        k += 1
    return k > hi and words[k - 1] in ORGANISATION_HEADS


def language_name(span: Any, lo: int, hi: int, adjectives: list[list[str]]) -> bool:
    """The adjective at ``lo:hi`` is followed by "language(s)" in the same phrase."""
    words = span.words
    return (
        words[lo:hi] in adjectives
        and hi < len(words)
        and words[hi] in LANGUAGE_NOUNS
        and span.tight(hi)
    )


def longer_adjective(span: Any, lo: int, hi: int, adjectives: list[list[str]]) -> bool:
    """The adjective at ``lo:hi`` and the word before it are another place's adjective."""
    if lo == 0 or span.words[lo:hi] not in adjectives or not span.tight(lo):
        return False
    longer = (span.words[lo - 1], *span.words[lo:hi])
    return any(longer in adjs for adjs in demonym_table().values())


def subject_styled(span: Any, forms: list[list[str]], question: str) -> list[tuple[int, int]]:
    """Spans "<gold name> of <a whole name of the question>" (see the module docstring)."""
    words = span.words
    out = []
    for form in forms:
        width = len(form)
        for lo in range(len(words) - width):
            hi = lo + width
            if words[hi] != "of" or words[lo:hi] != form or not span.capitalised(lo):
                continue
            if any(words[hi + 1 : hi + 1 + len(n)] == list(n) for n in _question_names(question)):
                out.append((lo, hi))
    return out


@lru_cache(maxsize=256)
def _question_names(question: str) -> tuple[tuple[str, ...], ...]:
    """The question's runs of two or more capitalised words ("Emmanuel Macron")."""
    runs: list[list[str]] = []
    current: list[str] = []
    for token in tokenize_spans(question):
        if question[token.start].isupper():
            current.append(token.text)
            continue
        if len(current) > 1:
            runs.append(current)
        current = []
    if len(current) > 1:
        runs.append(current)
    return tuple(tuple(r) for r in runs)
