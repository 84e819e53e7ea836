"""Shared-value rule of the alias judge (issue 35, round six): a question asking the value two
subjects share (CC: "Which citizenship country is common to both X and Y?") is answered by one
value; a committed answer that also names another country gives the subjects different values
or lists candidates, and picks no common one.

:func:`second_country`: for a shared-value question (a word of
:data:`list_rules.SHARED_ASKS` in the question, no options shown) whose gold is a country of
the demonym table, another country of the table named in the committed answer, by its name or
its adjective ("LeBron James is American, while Mark Twain is Canadian"; "The common country is
the United States, the United Kingdom and France"; "United States, Canada") -> incorrect. Not
another country: a form, adjective or part of the gold ("English" for the United Kingdom), a
name the question says, a continent ("European"), a name inside a longer capitalised name
("the European Union", "New Mexico") or a negated one ("not Canada").
"""

from __future__ import annotations

from functools import lru_cache

from leak_metrics.judges.demonyms import demonym_table, part_words
from leak_metrics.judges.entity_rules import Span, negated
from leak_metrics.judges.list_rules import SHARED_ASKS

CONTINENTS = frozenset(
    {
        ("europe",), ("asia",), ("africa",), ("north", "america"), ("south", "america"),
        ("oceania",), ("antarctica",), ("america",), ("americas",),
    }
)  # fmt: skip
_LONGEST = 4


@lru_cache(maxsize=1)
def _country_of() -> dict[tuple[str, ...], tuple[str, ...]]:
    """Every country name and adjective of the table -> the country's first listed name."""
    out: dict[tuple[str, ...], tuple[str, ...]] = {}
    for name, adjectives in demonym_table().items():
        if name in CONTINENTS:
            continue
        for key in (name, *adjectives):
            out.setdefault(key, name)
    return out


def _own_names(gold_forms: list[list[str]]) -> set[tuple[str, ...]]:
    table = demonym_table()
    own: set[tuple[str, ...]] = set()
    for form in gold_forms:
        own.add(tuple(form))
        own.update(table.get(tuple(form), []))
        own.update(part_words(form))
    return own


def second_country(
    span: Span,
    gold: list[tuple[int, int]],
    gold_forms: list[list[str]],
    question_words: set[str],
) -> str | None:
    """Another country named beside the gold in the answer to a shared-value question (see the
    module docstring): its words, else None."""
    countries = _country_of()
    if not SHARED_ASKS & question_words or not any(tuple(f) in countries for f in gold_forms):
        return None
    own = _own_names(gold_forms)
    taken = {k for lo, hi in gold for k in range(lo, hi)}
    words = span.words
    k = 0
    while k < len(words):
        for width in range(min(_LONGEST, len(words) - k), 0, -1):
            name = tuple(words[k : k + width])
            if name in countries and _is_other(span, k, k + width, own, taken, question_words):
                return span.raw(k, k + width)
        k += 1
    return None


def _is_other(
    span: Span,
    lo: int,
    hi: int,
    own: set[tuple[str, ...]],
    taken: set[int],
    question_words: set[str],
) -> bool:
    name = tuple(span.words[lo:hi])
    if name in own or set(name) <= question_words or taken & set(range(lo, hi)):
        return False
    if not span.capitalised(lo) or negated(span, lo):
        return False
    # the gold's own style: "the United Kingdom of Great Britain and Ireland"
    if lo >= 2 and span.words[lo - 1] == "and" and lo - 2 in taken and "of" in span.words[:lo]:
        return False
    # inside a longer capitalised name: "New Mexico", "the European Union"
    if lo > 0 and span.tight(lo) and span.capitalised(lo - 1) and span.words[lo - 1] != "and":
        return False
    return not (hi < len(span.words) and span.tight(hi) and span.capitalised(hi))
