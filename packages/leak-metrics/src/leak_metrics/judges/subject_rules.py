"""Rules version 8 of the alias judge (issue 35, round eight): where a committed answer names
the subject's value or only something around it.

- :func:`subject_complement` / :func:`complement_mentions`: for a question about a person's
  citizenship, a gold country's adjective that opens the first copula's complement ("The Queen
  is a British monarch", "X and Y are both British monarchs", "The Hugo family was a prominent
  French literary family") describes the answer's subject, whatever noun follows: it names the
  gold in the citizenship slot (the mention rules otherwise count an adjective only before a
  listed noun). Not the adjective of a noun further in ("members of the British monarch") nor
  of another name's apposition ("born to Prince X, a British monarch"); for a thing's country
  the adjective may describe another kind of thing ("X is a Spanish film franchise") and is
  left to the mention rules.
- :func:`address_chain`: a name that opens a comma-joined chain of names ending in the gold ("in
  the Colosseum, Rome, Italy": an address, narrowest first) leads to the gold and is no other
  answer committed to first, unless a chain name is itself a country or continent of the
  demonym table ("France, Spain, Italy" is a list).

Each function reads a span's ``words`` (normalised tokens), ``gap(i)`` (the raw text before
token ``i``) and ``capitalised(i)``: :class:`leak_metrics.judges.entity_rules.Span`.
"""

from __future__ import annotations

from typing import Any

from leak_metrics.judges.demonyms import demonym_table
from leak_metrics.judges.entity_rules import OFFICES

_COPULAS = frozenset({"is", "was", "are", "were"})
# Words that may stand between the copula and the adjective of its complement ("are both",
# "is indeed a prominent"); articles are no tokens.
_COMPLEMENT_FILLERS = frozenset(
    {
        "both", "all", "also", "indeed", "actually", "really", "truly", "former", "famous",
        "prominent", "renowned", "notable", "proud", "great", "well", "known", "legendary",
        "iconic", "celebrated", "influential",
    }
)  # fmt: skip
# Nouns of things a complement may call the subject instead of a person.
_THINGS = frozenset(
    {
        "series", "book", "film", "movie", "company", "brand", "franchise", "product", "term",
        "word", "show", "novel", "game", "band", "party", "organization", "organisation",
    }
)  # fmt: skip
_BREAKS = frozenset(",.;:!?\n\"'\u201c\u201d")
_OPENERS = frozenset({"the", "a", "an", "of", "and", "s", "what", "which", "is", "are"})


def subject_complement(
    span: Any, lo: int, verb: int, question_words: set[str] | frozenset[str]
) -> bool:
    """The adjective at token ``lo`` opens the complement of the answer's first verb ``verb``,
    a copula: only fillers stand between, no punctuation, and a lowercase word follows it
    within the clause (the noun it describes); the clause's subject restates the question's."""
    words = span.words
    if verb >= lo or words[verb] not in _COPULAS:
        return False
    if not subject_restated(words[:verb], question_words):
        return False  # "The Chinese Communist Party is a Chinese political party"
    if not all(w in _COMPLEMENT_FILLERS for w in words[verb + 1 : lo]):
        return False
    if any(_BREAKS & set(span.gap(k)) for k in range(verb + 1, lo + 1)):
        return False  # punctuation or a quote: '... is "American with ..."'
    following = lo + 1
    if _THINGS & set(words[following : following + 3]):
        return False  # "X is a famous British comic book series": a thing, not the person
    # rules v9: a capitalised office describes the subjects too ("both American Presidents")
    office = following < len(words) and words[following].removesuffix("s") in OFFICES
    return (
        following < len(words)
        and not set(span.gap(following)) - set(" ")  # not "French-speaking" (a language)
        and (office or not span.capitalised(following))
    )


def subject_restated(subject: list[str], question_words: set[str] | frozenset[str]) -> bool:
    """The clause subject before the copula shares a word with the question, other than an
    opener (the question's subject restated: "The Queen Elizabeth II", "The Hugo family")."""
    return any(w in question_words and w not in _OPENERS for w in subject)


def complement_mentions(
    span: Any, adjectives: list[list[str]], verb: int, question_words: set[str]
) -> list[tuple[int, int]]:
    """Spans of the gold's adjectives that open the first copula's complement
    (:func:`subject_complement`)."""
    words = span.words
    return [
        (lo, lo + len(adj))
        for adj in adjectives
        for lo in range(verb + 1, len(words) - len(adj) + 1)
        if words[lo : lo + len(adj)] == adj and subject_complement(span, lo, verb, question_words)
    ]


def address_chain(
    span: Any, name: tuple[int, int], runs: list[tuple[int, int]], gold: list[tuple[int, int]]
) -> bool:
    """The name ``name`` is followed, each after a bare comma, by further names (``runs``, the
    span's name runs) up to a gold mention, and no name of the chain before the gold is a place
    of the demonym table."""
    table = demonym_table()
    starts = {lo: hi for lo, hi in runs}
    gold_starts = {lo for lo, _ in gold}
    lo, hi = name
    while True:
        if tuple(span.words[lo:hi]) in table:
            return False  # a country or continent: a list, not an address
        if hi >= len(span.words) or span.gap(hi).strip() != ",":
            return False
        if hi in gold_starts:
            return True
        if hi not in starts:
            return False
        lo, hi = hi, starts[hi]
