"""Rules version 11 of the alias judge (issue 35, round eleven): how the committed sentence
states the gold as the asked value, or takes it back. The labelling guide's standard (section
6, round eleven): within one sentence, the gold then "but the correct answer is <other>" is a
contradiction; "<gold>'s <name>" said to be the asked value is a possessive naming the gold;
the gold or its adjective on a thing of another kind is not the value.

- :func:`corrected_answer`: after a gold mention, a contrast word ("but", "however", "yet")
  followed within a few words by "answer is/was" and by a word that is no gold mention ("...,
  but the correct answer is the other one") takes the gold back.
- :func:`possessive_place`: the gold followed by "'s <Name>" as the complement of a copula whose
  subject restates the question ("X's citizenship country is <gold>'s People's Republic",
  "The country of origin of Y is <gold>'s Sarcena") names the gold: the owned name is the
  gold's own style or a place in it. Not when the owned name's head (its last word before any
  "of") is an organisation noun ("the United States' National Basketball Association") or holds another place's name
  ("Austria's Kingdom of the Netherlands").
- :func:`nation_phrase`: "[a/the] [adjectives] <nation noun> of <gold>" ("the Afro-Cuban nation
  of Cuba", "the Republic of Cuba"; the adjectives: a place's, a hyphened word's part, or
  "sovereign"/"independent"/"island"/"modern"/"present-day"; not "the 2017 home country of"):
  the gold named through its own kind of unit; right after a copula (no punctuation between) it
  fills the citizenship slot, at the answer's opening the gold opens the answer.
- :func:`narrowed_answer`: an answer whose subject is "the (correct) answer" narrowed to the
  gold by "specifically"/"namely"/... ("The answer lies in ..., specifically in India") gives
  the gold as the answer.
- :func:`thing_kind`: for a question about a person's citizenship or nationality, the subject
  restates the asked relation ("The citizenship of X is", "X's nationality was") and its
  complement is the gold's adjective on a noun that is no
  place, country or person ("a classic Japanese dish", "an American nationality law"): the
  asked value is called a thing of another kind; unless a gold mention stands elsewhere
  outside the subject.
"""

from __future__ import annotations

from typing import Any

from leak_metrics.judges.demonyms import all_adjective_words, demonym_table
from leak_metrics.judges.entity_rules import (
    FUNCTION_WORDS,
    PERSON_HEADS,
    PREDICATE_VERBS,
    describes,
    predicate_start,
)
from leak_metrics.judges.placement_rules import GEOGRAPHIC_NOUNS
from leak_metrics.judges.region_rules import ORGANISATION_HEADS

_CONTRASTS = frozenset({"but", "however", "yet"})
_COPULAS = frozenset({"is", "was", "are", "were"})
_CORRECTION_REACH = 5  # words between the contrast and "answer"
_BREAKS = frozenset(".;:!?()\n")
_APOSTROPHES = frozenset({"'", "\u2019"})
NATION_NOUNS = frozenset(
    {"nation", "country", "republic", "kingdom", "state", "federation", "commonwealth"}
)
_NATION_MODIFIERS = 2  # words that may describe the nation noun ("the sovereign island nation")
# Descriptive words a nation noun may take besides a place's adjective or a hyphened word.
_NATION_ADJECTIVES = frozenset({"sovereign", "independent", "island", "modern", "present", "day"})
_NARROWING = frozenset({"specifically", "namely", "precisely", "particularly"})
_NARROW_REACH = 5
# Nouns the asked country or nationality may be called by ("a Chinese citizen", "the French
# state"), besides places and persons.
_VALUE_HEADS = (
    GEOGRAPHIC_NOUNS
    | NATION_NOUNS
    | frozenset({"land", "citizen", "citizens", "national", "nationals", "citizenship"})
    | frozenset({"nationality", "passport", "identity", "heritage", "ancestry", "descent"})
)
_NOT_PERSONS = frozenset({"cuisine", "dish", "food", "sport", "game", "dance", "origin"})
# Nouns by which a question asks a person's country (a thing's origin may be "a Mexican dish").
_PERSON_ASKED = frozenset({"citizenship", "nationality", "citizen", "national"})
# Nouns by which a question asks a country-valued relation.
_ASKED_NOUNS = frozenset({"country", "citizenship", "nationality", "nation", "origin"})


def corrected_answer(span: Any, gold: list[tuple[int, int]]) -> str | None:
    """The words that take the gold back (see the module docstring), else None."""
    if not gold:
        return None
    words = span.words
    gold_tokens = {k for lo, hi in gold for k in range(lo, hi)}
    for c in range(gold[0][1], len(words)):
        if words[c] not in _CONTRASTS:
            continue
        for k in range(c + 1, min(c + 1 + _CORRECTION_REACH, len(words) - 2)):
            if _BREAKS & set(span.gap(k)):
                break
            if words[k] == "answer" and words[k + 1] in _COPULAS:
                after = [j for j in range(k + 2, min(k + 5, len(words)))]
                if after and after[0] not in gold_tokens:
                    return " ".join(words[c : k + 3])
                break
    return None


def _restated(span: Any, verb: int, question_words: set[str]) -> bool:
    """The clause before the copula at ``verb`` opens with two of the question's words and
    names a country-valued relation ("The country of origin of ...", "X's nationality")."""
    k = verb
    while k > 0 and not _BREAKS & set(span.gap(k)) and '"' not in span.gap(k):
        k -= 1
    subject = span.words[k:verb]
    return (
        len(subject) >= 2
        and bool(_ASKED_NOUNS & set(subject))
        and all(w in question_words for w in subject[:2])
    )


def possessive_place(span: Any, gold: list[tuple[int, int]], question_words: set[str]) -> bool:
    """One gold mention is the possessive named in the module docstring."""
    words = span.words
    gold_words = {w for lo, hi in gold for w in words[lo:hi]}
    for lo, hi in gold:
        if lo < 1 or words[lo - 1] not in _COPULAS or not _restated(span, lo - 1, question_words):
            continue
        if hi + 1 >= len(words) or words[hi] != "s" or not set(span.gap(hi)) & _APOSTROPHES:
            continue
        owned_words = [words[k] for k in _name_after(span, hi + 1)]
        # the name's head: its word before "of" ("People's Republic of ...", "Bank of ...")
        head = owned_words[: owned_words.index("of")] if "of" in owned_words else owned_words
        if not head or head[-1] in ORGANISATION_HEADS:
            continue
        if any(
            tuple(owned_words[i : i + len(p)]) == p and not set(p) <= gold_words
            for p in demonym_table()
            for i in range(len(owned_words))
        ):
            continue  # another place's name ("Austria's Kingdom of the Netherlands")
        return True
    return False


def _name_after(span: Any, k: int) -> list[int]:
    """Indices of the capitalised name starting at ``k`` (joined by "of" and "'s")."""
    words = span.words
    out: list[int] = []
    while k < len(words) and span.tight(k):
        if span.capitalised(k) or (out and words[k] in ("of", "s")):
            out.append(k)
            k += 1
            continue
        break
    while out and not span.capitalised(out[-1]):
        out.pop()
    return out


def nation_phrase(span: Any, lo: int) -> int | None:
    """Start of "[adjectives] <nation noun> of" ending right before the gold at ``lo``."""
    words = span.words
    if lo < 2 or words[lo - 1] != "of" or words[lo - 2] not in NATION_NOUNS:
        return None
    start = lo - 2
    adjective_words = all_adjective_words()
    while start > 0 and lo - 2 - start < _NATION_MODIFIERS and span.tight(start):
        word = words[start - 1]
        hyphened = span.gap(start) == "-"
        if not (word in adjective_words or word in _NATION_ADJECTIVES or hyphened):
            break
        start -= 1
    return start


def narrowed_answer(span: Any, lo: int) -> bool:
    """The gold at ``lo`` narrows an answer whose subject is "(the) (correct) answer"."""
    words = span.words
    if words[:1] != ["answer"] and words[:2] != ["correct", "answer"]:
        return False
    if predicate_start(span) >= lo:
        return False
    for k in range(lo - 1, max(lo - 1 - _NARROW_REACH, -1), -1):
        if _BREAKS & set(span.gap(k + 1)):
            return False
        if words[k] in _NARROWING:
            return True
    return False


def thing_kind(
    span: Any, gold: list[tuple[int, int]], adjectives: list[list[str]], question_words: set[str]
) -> str | None:
    """The adjective phrase that calls the asked value a thing (see the module docstring)."""
    verb = predicate_start(span)
    words = span.words
    if verb >= len(words) or words[verb] not in _COPULAS or not gold:
        return None
    if not _PERSON_ASKED & question_words or not _restated(span, verb, question_words):
        return None
    found = None
    for lo, hi in gold:
        if lo < verb:
            continue  # inside the restated subject ("the foods in Japan")
        head = _head(span, hi) if words[lo:hi] in adjectives else None
        if head is None or _value_head(words[head]):
            return None
        found = found or " ".join(words[lo : head + 1])
    return found


def _value_head(word: str) -> bool:
    return describes(word, _VALUE_HEADS, by_ending=False) or (
        word not in _NOT_PERSONS and describes(word, PERSON_HEADS - _NOT_PERSONS)
    )


def _head(span: Any, hi: int) -> int | None:
    """The last noun of the lowercase phrase right after the adjective ending at ``hi``."""
    words = span.words
    k = hi
    while k < len(words) and span.tight(k) and not span.capitalised(k):
        word = words[k]
        if word in FUNCTION_WORDS or word in PREDICATE_VERBS or word.endswith("ed"):
            break
        k += 1
    return k - 1 if k > hi else None
