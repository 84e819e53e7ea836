"""Round-ten clause rules of the alias judge (rules version 10, issue 35).

- :func:`concessive_only`: every gold mention sits in an opening concessive clause ("While X
  is often called a <gold adjective> hero, he is actually ...") before its comma: a concession
  grants a view, the main clause commits (guide 6, "(A) a demonym only in a concessive");
- :func:`other_citizen_first`: for a citizenship question, another country's adjective right
  before "citizen"/"national"/"nationality" ahead of the gold ("X is a Canadian citizen, and
  ... American") commits to that other nationality first (guide 3);
- :func:`other_value_after`: for a citizenship question, after the gold, a clause whose subject
  names the citizenship ("the country he is a national of", "her nationality") and whose value
  after "is/was" is another name ("a Dutch painter, and the country he is a national of is
  Belgium") states another value for the asked relation (guide 3, contradiction);
- :func:`denied_as_value`: the gold followed by ", not the <noun of the question> of <the
  question's names>" with no other name in the denied phrase ("<gold>, not the country of <subject>") denies that the
  gold is the asked value (guide 3, negation).
"""

from __future__ import annotations

from leak_metrics.judges.entity_rules import FUNCTION_WORDS, Span

_CONCESSIVES = frozenset({"while", "whilst", "although", "though"})
_CITIZEN_NOUNS = frozenset({"citizen", "citizens", "national", "nationals", "nationality"})
_PRONOUNS = frozenset({"one", "1", "ones", "it", "that", "this", "answer", "option"})
_CLAUSE_END = frozenset(",.;:!?\n")


def concessive_only(span: Span, hits: list[tuple[int, int]]) -> str | None:
    """All gold mentions lie in an opening concessive clause (up to its first comma)."""
    words = span.words
    if not words or not hits:
        return None
    start = 1 if words[0] in _CONCESSIVES else 2 if words[:2] == ["even", "though"] else 0
    if not start:
        return None
    end = next((k for k in range(start, len(words)) if "," in span.gap(k)), None)
    if end is None or any(hi > end for _, hi in hits):
        return None
    return span.raw(0, end)


def other_citizen_first(
    span: Span, hits: list[tuple[int, int]], gold_adjectives: set[str], adjectives: frozenset[str]
) -> str | None:
    """Another nationality adjective directly before a citizen noun, ahead of the gold."""
    words = span.words
    first = min(lo for lo, _ in hits)
    for k in range(first - 1):
        if (
            words[k] in adjectives
            and words[k] not in gold_adjectives
            and words[k + 1] in _CITIZEN_NOUNS
            and span.capitalised(k)
            and span.tight(k + 1)
        ):
            return span.raw(k, k + 2)
    return None


def denied_as_value(
    span: Span, hits: list[tuple[int, int]], question_words: set[str]
) -> str | None:
    """Every gold mention is followed by ", not <the question's noun> ..." naming no other
    name: the gold is denied as the asked value."""
    words = span.words
    found = None
    for _, hi in hits:
        if hi + 1 >= len(words) or words[hi] != "not" or "," not in span.gap(hi):
            return None
        end = hi + 1
        while end < len(words) and not _CLAUSE_END & set(span.gap(end)):
            end += 1
        phrase = range(hi + 1, end)
        nouns = [k for k in phrase if not span.capitalised(k) and words[k] not in FUNCTION_WORDS]
        # "not the one whose capital is X" sets another option aside, it denies nothing
        if not nouns or words[nouns[0]] in _PRONOUNS or words[nouns[0]] not in question_words:
            return None
        names = [k for k in phrase if span.capitalised(k)]
        # the subject must be named there, and nothing else ("not the one whose capital is X")
        if not names or any(words[k] not in question_words for k in names):
            return None
        found = found or span.raw(hi, end)
    return found


def other_value_after(
    span: Span, hits: list[tuple[int, int]], others: list[tuple[int, int]]
) -> str | None:
    """Another name after the gold, right after "is/was", whose clause names the citizenship."""
    words = span.words
    first_end = min(hi for _, hi in hits)
    for lo, hi in others:
        if lo <= first_end or words[lo - 1] not in ("is", "was"):
            continue
        k = lo - 1
        while k > first_end and not _CLAUSE_END & set(span.gap(k)):
            k -= 1
        if _CITIZEN_NOUNS & set(words[k : lo - 1]) or "citizenship" in words[k : lo - 1]:
            return span.raw(k, hi)
    return None
