"""Non-answer rules of the alias judge (issue 35, round six): a committed answer that names the
gold but says the asked thing is not real, or uses the gold's adjective as a language.

- :func:`fictional_subject`: the first copula's complement calls the subject fictional ("The
  country of JK Rowling is a fictional world created by ... a British author", "The Mark Twain
  is a fictional character from the famous American author"): the answer denies that a real
  value exists, whatever it names after; "known for his fictional works" (no copula's
  complement) says nothing of the kind, and "Sherlock Holmes is a fictional British detective"
  (the gold describes the fiction itself) still answers;
- :func:`language_use`: a gold country's adjective right after "in" (no article: "a city in the
  Austrian", cut off, is still the country) and closing its phrase
  (punctuation or the end follows: 'The answer is "Bamberg" in German.') names a language, not
  the country; "in American politics" (a noun follows) is the adjective of a thing, judged by
  the mention rules.
"""

from __future__ import annotations

from leak_metrics.judges.entity_rules import Span, predicate_start

# Words a copula may carry before "fictional" ("is indeed a purely fictional").
_FILLERS = frozenset({"indeed", "actually", "just", "merely", "simply", "purely", "entirely"})
_COPULAS = frozenset({"is", "was", "are", "were"})


def fictional_subject(span: Span, gold: list[tuple[int, int]]) -> str | None:
    """The words "<copula> ... fictional" when the first copula's complement opens with
    "fictional" (articles are no tokens; fillers such as "indeed" may stand between), unless a
    gold mention describes that fiction itself within two words ("a fictional British
    detective" for a fictional subject's country)."""
    words = span.words
    verb = predicate_start(span)
    if verb >= len(words) or words[verb] not in _COPULAS:
        return None
    k = verb + 1
    while k < len(words) and words[k] in _FILLERS:
        k += 1
    if k < len(words) and words[k] == "fictional":
        if any(k < lo <= k + 2 for lo, _ in gold):
            return None
        return " ".join(words[verb : k + 2])
    return None


def language_use(span: Span, lo: int, hi: int, adjectives: list[list[str]]) -> bool:
    """The mention ``lo:hi`` is an adjective of the gold after "in" that closes its phrase."""
    words = span.words
    if words[lo:hi] not in adjectives or lo == 0 or words[lo - 1] != "in":
        return False
    if span.gap(lo).strip():
        return False  # "in the Austrian" (cut off) is no language: a language takes no article
    return hi == len(words) or not span.tight(hi)
