"""Rules version 12 of the alias judge (issue 35, round twelve): what the rest of the committed
sentence says once it has named the gold. One sentence commits to one value; when the same
sentence goes on to give the subject another value of the asked relation, or says that what it
just stated is wrong, it commits to nothing (the labelling rules' "contradicts itself").

- :func:`other_nationality_after`: for a person's citizenship, after a gold mention a copula
  about the subject (its subject a personal pronoun, or the main verb after an apposition)
  whose complement is another country's adjective ("..., she's a Canadian") or "a native/
  citizen/national of <another name>" ("X, a legendary American sportsman, is a native of the
  Bahamas") gives the subject a second nationality.
- :func:`withdrawn`: after a gold mention, a contrast word followed by "that/this/it is not
  (entirely/quite/...) accurate/correct/true/right" ("located in the city of Rome, but that's
  not entirely accurate") takes the statement back; not an extraposed "it is not true that/to
  ..." (about something else).
"""

from __future__ import annotations

from typing import Any

_COPULAS = frozenset({"is", "was", "s", "are", "were"})
_PERSONAL = frozenset({"he", "she", "they"})
_ORIGIN_NOUNS = frozenset({"native", "citizen", "national"})
_ADVERBS = frozenset({"also", "actually", "really"})  # "she is actually a Canadian"
_CONTRASTS = frozenset({"but", "however", "yet", "though", "although"})
_REFERENTS = frozenset({"that", "this", "it"})
_DEGREES = frozenset({"entirely", "quite", "completely", "fully", "exactly", "strictly", "wholly"})
_TRUTH = frozenset({"accurate", "correct", "true", "right"})


def other_nationality_after(
    span: Any, gold: list[tuple[int, int]], gold_adjectives: set[str], adjectives: frozenset[str]
) -> str | None:
    """The words that give the subject another nationality after the gold (module docstring)."""
    words = span.words
    gold_tokens = {k for lo, hi in gold for k in range(lo, hi)}
    for k in range(min(hi for _, hi in gold), len(words) - 1):
        if words[k] not in _COPULAS or not (words[k - 1] in _PERSONAL or "," in span.gap(k)):
            continue
        j = k + 1
        while j < len(words) - 1 and words[j] in _ADVERBS:
            j += 1
        if (
            words[j] in adjectives
            and len(words[j]) > 2  # a whole adjective, not a cut-off code ("he is a U.")
            and words[j] not in gold_adjectives
            and span.capitalised(j)
            and (j + 1 == len(words) or "-" not in span.gap(j + 1))
        ):
            return span.raw(k, j + 1)
        name = j + 2
        if (
            words[j] in _ORIGIN_NOUNS
            and name < len(words)
            and words[j + 1] == "of"
            and span.capitalised(name)
            and name not in gold_tokens
        ):
            return span.raw(k, name + 1)
    return None


def withdrawn(span: Any, gold: list[tuple[int, int]]) -> str | None:
    """The words that take the statement back after the gold (module docstring), else None."""
    words = span.words
    if not gold:
        return None
    for c in range(gold[0][1], len(words)):
        if words[c] not in _CONTRASTS:
            continue
        rest = words[c + 1 : c + 4]
        if len(rest) < 3 or rest[0] not in _REFERENTS or rest[1] not in _COPULAS:
            continue
        if rest[2] != "not":
            continue
        k = c + 4
        while k < len(words) and words[k] in _DEGREES:
            k += 1
        # "but it is not true that it is the oldest": an extraposed clause, about something else
        extraposed = k + 1 < len(words) and words[k + 1] in ("that", "to")
        if k < len(words) and words[k] in _TRUTH and not extraposed:
            return " ".join(words[c : k + 1])
    return None
