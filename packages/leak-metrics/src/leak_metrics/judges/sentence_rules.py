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
- :func:`possessive_values`: a possessive followed by a comma owns nothing and is the value
  itself ("X's country is China's, and ..."); the gold and another name each so, one right
  after the other ("The continent is Asia's, China's, ..."), are a list of values.
- :func:`possessive_owners`: a country the sentence names as the owner of the next word
  ("The United Kingdom's currency is the pound") lets the gold's bare noun stand for it, as a
  country the question names does ("the pound" for "British pound"); :func:`foreign_qualified`:
  that bare noun right after another country's adjective ("the French franc") is not the gold.
- :func:`other_agent`: for a question about who made a work (wrote, created, founded, ...),
  after a gold mention the work itself, named by the question's words, followed by "by
  <another name>" ('... is "On Growth" by Tom Lee') credits the work to someone else.
"""

from __future__ import annotations

import itertools
from typing import Any

from leak_metrics.judges.demonyms import all_adjective_words

_COPULAS = frozenset({"is", "was", "s", "are", "were"})
_PERSONAL = frozenset({"he", "she", "they"})
_ORIGIN_NOUNS = frozenset({"native", "citizen", "national"})
_ADVERBS = frozenset({"also", "actually", "really"})  # "she is actually a Canadian"
_CONTRASTS = frozenset({"but", "however", "yet", "though", "although"})
_REFERENTS = frozenset({"that", "this", "it"})
_DEGREES = frozenset({"entirely", "quite", "completely", "fully", "exactly", "strictly", "wholly"})
_TRUTH = frozenset({"accurate", "correct", "true", "right"})
# Words of a question that asks who made a work ("Who wrote X?", "the founder of X").
_MAKING = frozenset(
    {
        "wrote", "written", "write", "composed", "painted", "directed", "authored", "created",
        "designed", "invented", "founded", "author", "composer", "painter", "director",
        "creator", "designer", "inventor", "founder",
    }
)  # fmt: skip


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


def other_agent(span: Any, gold: list[tuple[int, int]], question_words: set[str]) -> str | None:
    """The work credited to another name after the gold (module docstring), else None."""
    if not gold or not _MAKING & question_words:
        return None
    words = span.words
    gold_tokens = {k for lo, hi in gold for k in range(lo, hi)}
    for k in range(gold[0][1] + 1, len(words) - 1):
        work = words[k - 1] in question_words and span.capitalised(k - 1)
        if words[k] != "by" or not work or k - 1 in gold_tokens:
            continue
        name = k + 1
        if span.capitalised(name) and name not in gold_tokens and words[name] not in question_words:
            return span.raw(k - 1, k + 2)
    return None


def possessive_values(
    span: Any, gold: list[tuple[int, int]], others: list[tuple[int, int]]
) -> str | None:
    """The gold among two or more possessives that own nothing, joined by commas (module
    docstring), else None."""
    words = span.words
    owning_nothing = [
        (lo, hi)
        for lo, hi in sorted(set(gold) | set(others))
        if hi + 1 < len(words) and words[hi] == "s" and "," in span.gap(hi + 1)
    ]
    for (lo, hi), (lo2, hi2) in itertools.pairwise(owning_nothing):
        pair = {(lo, hi), (lo2, hi2)}
        if lo2 == hi + 1 and pair & set(gold) and pair - set(gold):
            return span.raw(lo, hi2 + 1)
    return None


def possessive_owners(span: Any) -> set[str]:
    """Words of the capitalised names that own the word after them ("The United Kingdom's
    currency"): a country named so may be left out of its own currency's name, as when the
    question names it ("the pound" for "British pound", :func:`demonyms.gold_variants`)."""
    words = span.words
    return {
        w
        for lo, hi in span.name_runs()
        if hi + 1 < len(words) and words[hi] == "s" and not set(",.;:") & set(span.gap(hi + 1))
        for w in words[lo:hi]
    }


def foreign_qualified(
    span: Any, mention: tuple[int, int], variants: list[list[str]], adjectives: list[list[str]]
) -> bool:
    """A bare-noun variant of the gold ("franc" for "Swiss franc") right after another
    country's capitalised adjective ("the French franc") names that country's currency."""
    lo, hi = mention
    if lo == 0 or span.words[lo:hi] not in variants or not span.capitalised(lo - 1):
        return False
    before = span.words[lo - 1]
    own = {w for a in adjectives for w in a}
    return span.tight(lo) and before in all_adjective_words() and before not in own


def after_gold_rules(
    span: Any,
    hits: list[tuple[int, int]],
    others: list[tuple[int, int]],
    several: bool,
    question_words: set[str],
) -> list[tuple[str, str | None]]:
    """The rules here that read what follows the gold, each with what breaks it (or None), in
    the order the judge checks them (``gold_context.context_rule``); ``several``: the question
    asks a multi-valued relation, where a list is an answer."""
    return [
        ("takes the statement back after the gold", withdrawn(span, hits)),
        ("credits the work to another name", other_agent(span, hits, question_words)),
        (
            "lists the gold with another name",
            None if several else possessive_values(span, hits, others),
        ),
    ]
