"""Where a gold mention's clause does not assert it (rules of the alias judge, issue 35).

- :func:`in_condition`: the mention sits in a conditional clause ("If the country of X is
  France, then ...", "... is Paris provided that X's country is France"): a premise echoed, not
  an answer. The clause runs from its conditional word to a comma, "then" or the sentence end.
- :func:`negated_before_colon`: the mention opens what follows a colon whose clause is a negated
  copula ("The answer is not X's country of citizenship: France"): the colon spells out the
  negated complement.
- :func:`in_purpose` (rules v8): the mention sits in the purpose clause that opens the answer
  ("To determine which of X's countries is France, we need to ..."): the question echoed while
  setting out to answer it, not an answer, when the gold is a name the question itself gives
  ("To determine the location of X on the continent of Europe" presupposes a value the question
  does not name and still answers). The clause runs from the opening "to <verb>" or "in order
  to" to the first clause end.
- :func:`renamed`: a name followed by another name of it that restates the question ("Shaolin
  Chubu, also known as Shanghai and Beijing, are ..."): the subject, garbled, not an answer.

Each reads a span's ``words`` (normalised tokens) and ``gap(i)`` (the raw text before token
``i``): :class:`leak_metrics.judges.entity_rules.Span` or the alias judge's own response view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Words that open a conditional clause, alone or after the word given ("in the event that",
# "on (the) condition that", "as long as").
CONDITIONALS = frozenset({"if", "unless", "whether", "assuming", "suppose", "supposing"})
CONDITIONAL_PAIRS = frozenset(
    {
        ("event", "that"), ("condition", "that"), ("long", "as"), ("provided", "that"),
        ("providing", "that"),  # not "the map service provided by ..."
    }
)  # fmt: skip
_CLAUSE_END = frozenset(",.;:!?\n")
_SENTENCE_END = frozenset(".;!?\n")
COPULAS = frozenset({"is", "was", "are", "were"})
NEGATIONS = frozenset({"not", "never", "neither", "nor"})


def in_condition(span: Any, lo: int) -> str | None:
    """The conditional word whose clause holds the token at ``lo``, or None."""
    words = span.words
    k = lo
    while k > 0:
        if _CLAUSE_END & set(span.gap(k)) or words[k - 1] == "then":
            return None
        k -= 1
        if words[k] in CONDITIONALS:
            return words[k]
        if k > 0 and (words[k - 1], words[k]) in CONDITIONAL_PAIRS:
            return f"{words[k - 1]} {words[k]}"
    return None


def conditioned(span: Any, hits: list[tuple[int, int]]) -> list[str | None]:
    """For each gold mention, the conditional word of its clause (:func:`in_condition`), or
    (rules v9) for a mention in the consequent of a conditional whose own clause names the gold
    ("If X's country is the United Kingdom, then it means that the United Kingdom ..."), that
    conditional word: the consequent follows from the assumed value, it asserts nothing."""
    found = [in_condition(span, lo) for lo, _ in hits]
    for index, (lo, _) in enumerate(hits):
        for earlier in range(index):
            start = hits[earlier][1]
            same = not any(_SENTENCE_END & set(span.gap(k)) for k in range(start, lo + 1))
            if found[index] is None and found[earlier] is not None and same:
                found[index] = found[earlier]
    return found


def negated_before_colon(span: Any, lo: int) -> str | None:
    """The words of the negated copula before the colon that ends right before ``lo``."""
    if lo == 0 or ":" not in span.gap(lo):
        return None
    k = lo - 1
    while k > 0 and not _CLAUSE_END & set(span.gap(k)):
        k -= 1
    clause = span.words[k:lo]
    for i, word in enumerate(clause[:-1]):
        if word in COPULAS and clause[i + 1] in NEGATIONS:
            return " ".join(clause[i:])
    return None


# Words that give a name another name of the same thing ("X, also known as Y", "X (or Y)").
RENAMING = (("also", "known", "as"), ("known", "as"), ("aka",), ("also", "called"), ("or",))


def renamed(
    span: Any, hi: int, starts: dict[int, int], restates: Callable[[int, int], bool]
) -> bool:
    """The name ending at ``hi`` is followed by another name of it that restates the question."""
    for phrase in RENAMING:
        end = hi + len(phrase)
        if tuple(span.words[hi:end]) == phrase and end in starts and restates(end, starts[end]):
            return True
    return False


def in_purpose(span: Any, lo: int) -> str | None:
    """The opening purpose clause ("to <lowercase verb> ..." or "in order to ...", up to the
    first clause end) when it holds the token at ``lo``, else None."""
    words = span.words
    start = 3 if words[:3] == ["in", "order", "to"] else 1 if words[:1] == ["to"] else 0
    if not start or start >= len(words) or span.capitalised(start) or lo <= start:
        return None
    if any(_CLAUSE_END & set(span.gap(k)) for k in range(1, lo + 1)):
        return None
    return " ".join(words[: start + 1])
