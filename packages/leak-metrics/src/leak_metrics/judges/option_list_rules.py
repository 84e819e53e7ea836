"""Rules v13: an answer that describes the options instead of picking one (questions that show
options only).

Contract of :func:`option_description`: given the committed answer and its gold mentions, it
returns the words that describe the options when *every* gold mention sits in such a
description, else None. A mention is in a description when

- the answer opens by announcing the options ("The two options are:", "The given choices
  are:") and no pick frame ("the correct/right option/answer/choice is", "I choose") comes
  before the mention: what follows lists or explains the options one by one; or
- the mention is the value of an ordinal option ("The first option is South Africa, ...",
  "The second choice is Japan"): that says which place an option holds in the question, not
  which one is right.

A pick by place ("The correct option is the first one") is :func:`option_rules.option_by_number`'s
and is not read here.
"""

from __future__ import annotations

from leak_metrics.judges.entity_rules import Span
from leak_metrics.judges.relation_rules import COPULAS

_OPTION_NOUNS = frozenset({"option", "options", "choice", "choices", "alternative", "alternatives"})
_PLURAL_NOUNS = frozenset({"options", "choices", "alternatives"})
_ORDINALS = frozenset({"first", "second", "third", "fourth", "1st", "2nd", "3rd", "4th", "last"})
_PICK_WORDS = frozenset({"correct", "right", "choose", "pick", "select", "answer"})
_HEADING_REACH = 4  # words before "options are" ("The two given options are")


def _announces_options(span: Span) -> int | None:
    """Index after "options/choices are" when the answer opens with it (at most
    :data:`_HEADING_REACH` words before the noun) and a colon follows, else None."""
    words = span.words
    for k in range(min(_HEADING_REACH + 1, len(words) - 1)):
        if words[k] in _PLURAL_NOUNS and words[k + 1] in COPULAS:
            after = k + 2
            if after < len(words) and ":" in span.gap(after):
                return after
            return None
    return None


def _ordinal_value(span: Span, lo: int) -> bool:
    """The mention at ``lo`` follows "<ordinal> option/choice <copula>" (an article at most
    between the copula and the mention)."""
    words = span.words
    return (
        lo >= 3
        and words[lo - 1] in COPULAS
        and words[lo - 2] in _OPTION_NOUNS
        and words[lo - 3] in _ORDINALS
    )


def option_description(span: Span, gold: list[tuple[int, int]]) -> str | None:
    """The describing words when every gold mention describes the options (module docstring),
    else None."""
    if not gold:
        return None
    words = span.words
    heading = _announces_options(span)
    found: str | None = None
    for lo, _ in gold:
        if _ordinal_value(span, lo):
            found = found or " ".join(words[lo - 3 : lo])
            continue
        if heading is not None and not _PICK_WORDS & set(words[heading:lo]):
            found = found or " ".join(words[:heading])
            continue
        return None
    return found
