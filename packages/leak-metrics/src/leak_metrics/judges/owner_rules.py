"""Possessive owners in a committed answer (alias judge, rules version 5).

A name followed by "'s" and a noun owns that noun's value:

- :func:`possessive_owner`: another name owning a lowercase noun ("The UK's currency is the
  pound sterling", "the United States of America's official currency, ... the US dollar") says
  whose value is given; it is no other answer committed to before the gold (rule 6);
- :func:`gold_owns_name`: every gold mention owns another capitalised name ("the United States
  of America's National Basketball Association"): the gold is the owner of what the answer
  names, not the answer (rule 6c).
"""

from __future__ import annotations

from leak_metrics.judges.entity_rules import FUNCTION_WORDS, PREDICATE_VERBS, Span

_APOSTROPHES = frozenset({"'", "\u2019"})


def _owns(span: Span, hi: int) -> bool:
    """Token ``hi`` is the "s" of a possessive right after the name ending at ``hi`` and a
    word follows it in the same phrase."""
    words = span.words
    return (
        hi + 1 < len(words)
        and words[hi] == "s"
        and bool(set(span.gap(hi)) & _APOSTROPHES)
        and span.tight(hi + 1)
    )


def possessive_owner(span: Span, hi: int) -> bool:
    """The name ending at ``hi`` owns the lowercase noun after its "'s"."""
    if not _owns(span, hi) or span.capitalised(hi + 1):
        return False
    after = span.words[hi + 1]
    return after not in FUNCTION_WORDS and after not in PREDICATE_VERBS


def gold_owns_name(span: Span, gold: list[tuple[int, int]]) -> str | None:
    """Every gold mention owns a capitalised name after its "'s": the words, else None."""
    if not gold:
        return None
    for _, hi in gold:
        if not (_owns(span, hi) and span.capitalised(hi + 1)):
            return None
    lo, hi = gold[0]
    return span.raw(lo, hi + 2)
