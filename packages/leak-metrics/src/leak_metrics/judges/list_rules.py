"""List, contradiction and denial rules of the alias judge (see ``alias.py`` for the order).

- :func:`contradiction`: a contrast ("but", "however", ...) after the gold followed by another
  name, or by "also"/"another";
- :func:`joined_list`: every gold mention is one item of a list (joined to another name by
  "and"/"&", or after mix/blend/including/...). When the question asks a *multi-valued*
  relation (:func:`multi_valued`: occupation, language, genre, ...), a list of values joined by
  "and"/"&"/commas is a committed answer and only the mix/blend/including markers count;
- :func:`denies_value`: the answer denies that the asked value exists ("X and Y do not have a
  single citizenship country in common", "there is no common language"), or, for a value two
  subjects share, says their values differ ("their occupations are distinct").
"""

from __future__ import annotations

import itertools

from leak_metrics.judges.entity_rules import Span, negated
from leak_metrics.normalize import tokenize

# Words before the gold in its clause that make it one item of a list ("a blend of Chinese and
# English", "multiple languages, including English", "such as the peso").
LIST_MARKERS = frozenset(
    {
        "mix", "mixture", "blend", "combination", "including", "includes", "multiple", "several",
        "composed", "consisting", "consists", "comprising", "comprises", "hybrid", "fusion",
        "such",  # "such as the peso or ...": an example, not the answer
    }
)  # fmt: skip
LIST_REACH = 6
CONTRASTS = frozenset({"but", "however", "although", "though", "whereas", "yet", "instead"})


def _said_of(span: Span, c: int, others: list[tuple[int, int]]) -> bool:
    """Rules v8: the "also" after the contrast word at ``c`` opens a participle and no other
    name follows ("..., but they are also connected by a border"): something more is said of
    the subject, no second value."""
    k = span.words.index("also", c) if "also" in span.words[c + 1 : c + 5] else None
    if k is None or k + 1 >= len(span.words) or not span.words[k + 1].endswith("ed"):
        return False
    return not any(lo > c for lo, _ in others)


def contradiction(
    span: Span,
    others: list[tuple[int, int]],
    gold: list[tuple[int, int]],
    question_words: set[str] | frozenset[str] = frozenset(),
) -> str | None:
    """A contrast word after the gold followed by another (not negated) name, by "also"/
    "another" (not "also <participle>" with no name after: :func:`_said_of`), or by a word
    saying the gold differs ("separate", "different")."""
    if not gold:
        return None
    contrasts = [k for k in range(gold[0][1], len(span.words)) if span.words[k] in CONTRASTS]
    for c in contrasts:
        if span.words[c] == "but" and "only" in span.words[max(0, c - 8) : c]:
            continue  # "not only the capital but also the largest city": no contrast
        # "Europe, but it is also a member of the continent of ...": a second answer follows
        if {"also", "another"} & set(span.words[c + 1 : c + 5]) and not _said_of(span, c, others):
            return " ".join(span.words[c : c + 5])
        # "Dublin is the capital of Ireland, but Ireland is a separate country from Dublin"
        # (not "..., but they have different cultures": another thing differs)
        if _values_differ(span, question_words, c + 1, c + 7) is not None:
            return " ".join(span.words[c : c + 7])
        for lo, hi in others:
            if lo > c and not negated(span, lo):
                return f"{span.words[c]} ... {span.raw(lo, hi)}"
    return None


def _listed(
    span: Span,
    lo: int,
    hi: int,
    starts: dict[int, int],
    ends: dict[int, int],
    several: bool = False,
) -> str | None:
    """The list the gold mention ``[lo, hi)`` is one item of, if any (with ``several``, only a
    list marker counts: the relation has several values)."""
    k = lo
    while k > 0 and lo - k < LIST_REACH and not set(".;:!?") & set(span.gap(k)):
        k -= 1
        if span.words[k] in LIST_MARKERS:
            return " ".join(span.words[k:hi])
    if several:
        return None
    words = span.words
    if hi < len(words) and words[hi] == "and" and hi + 1 in starts:  # gold and X
        return span.raw(lo, starts[hi + 1])
    if hi < len(words) and "&" in span.gap(hi) and hi in starts:
        return span.raw(lo, starts[hi])
    if lo > 0 and words[lo - 1] == "and" and lo - 1 in ends:  # X and gold, X, Y and gold
        return span.raw(ends[lo - 1], hi)
    if lo > 0 and "&" in span.gap(lo) and lo in ends:
        return span.raw(ends[lo], hi)
    return None


def joined_list(
    span: Span, others: list[tuple[int, int]], gold: list[tuple[int, int]], several: bool = False
) -> str | None:
    """Every gold mention is one item of a list (joined to another name by "and"/"&", or after
    mix/blend/including/...): a list commits to none of its items. One mention outside a list
    is a commitment ("The Japanese martial art of Judo is a blend of Japanese and Western ...")."""
    starts = {lo: hi for lo, hi in others}
    ends = {hi: lo for lo, hi in others}
    found = [
        _listed(span, lo, hi, starts, ends, several) for lo, hi in with_abbreviations(span, gold)
    ]
    return found[0] if found and all(found) else None


def with_abbreviations(span: Span, gold: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Rules v7: a gold mention followed by another in parentheses ("the United States of
    America (US)") is one mention, so the list it opens ("... (US) and the United Kingdom") is
    seen from its end."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(set(gold)):
        if merged and merged[-1][0] <= lo and hi <= merged[-1][1]:
            continue  # "America" inside "United States of America"
        if merged and merged[-1][1] == lo and "(" in span.gap(lo):
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return merged


# Relations a subject may have several values of: a list of them is an answer.
MULTI_VALUED = frozenset(
    {
        "occupation", "occupations", "profession", "professions", "job", "jobs", "living",
        "career", "language", "languages", "genre", "genres", "instrument", "instruments",
        "position", "positions", "field", "fields", "role", "roles", "founder", "founders",
        "founded", "cofounder", "cofounders",
    }
)  # fmt: skip


def multi_valued(question_words: set[str]) -> bool:
    """The question asks a relation that may have several values (occupation, language, founders,
    ...)."""
    return bool(MULTI_VALUED & question_words)


# A negation, then (within DENIAL_REACH words) a word that says the asked value exists.
DENIAL_NEGATIONS = frozenset({"not", "no", "never", "neither", "none"})
EXISTENCE_WORDS = frozenset({"have", "has", "had", "share", "shares", "shared", "common"})
DENIAL_REACH = 4


# For a question about a value two subjects share, words saying their values differ.
SHARED_ASKS = frozenset({"common", "share", "shares", "shared", "same", "both", "matches"})
DIFFER_WORDS = frozenset({"distinct", "different", "differ", "differs", "separate"})


def denies_value(
    span: Span, gold: list[tuple[int, int]], question_words: set[str] = frozenset()
) -> str | None:
    """Before the first gold mention, the answer denies that the asked value exists ("do not
    have a single citizenship country in common", "share no common language"); for a shared
    value, anywhere it says the values differ ("their occupations are distinct")."""
    first = gold[0][0] if gold else len(span.words)
    words = span.words
    if SHARED_ASKS & question_words:
        differ = _values_differ(span, question_words)
        if differ is not None:
            return differ
    for k in range(first):
        if words[k] not in DENIAL_NEGATIONS or negated_twice(words, k):
            continue
        window = words[k + 1 : min(first, k + 1 + DENIAL_REACH)]
        if words[k - 1 : k] and words[k - 1] in EXISTENCE_WORDS and words[k] in ("no", "none"):
            return " ".join(words[k - 1 : k + 3])
        if EXISTENCE_WORDS & set(window):
            return " ".join(words[k : k + 1 + DENIAL_REACH])
    return None


# Words that count several things ("two countries", "several languages").
COUNT_WORDS = frozenset({"several", "multiple", "many", "various"})


def asked_noun(question: str) -> str | None:
    """The noun the question asks for: the word after its which/what (past a copula): "Which
    country ...", "What is the country of ..."; with rules v7 a compound's head too, space-joined
    ("Which citizenship country ..." -> "citizenship country"); None when there is none."""
    words = tokenize(question)
    for k, word in enumerate(words):
        if word in ("which", "what"):
            rest = [w for w in words[k + 1 : k + 4] if w not in ("is", "are", "was", "were", "s")]
            if not rest:
                return None
            if len(rest) > 1 and rest[1] not in ("of", "do", "does", "did", "has", "have"):
                return " ".join(rest[:2])
            return rest[0]
    return None


def several_values(span: Span, gold: list[tuple[int, int]], noun_asked: str | None) -> str | None:
    """Before the first gold mention the answer announces several values of the asked noun
    ("The two countries that are associated with both X and Y are the United States ...",
    rules v7: also with up to two lowercase words between, "the two most prominent countries"):
    for a relation with one value, a list announced is no commitment to its first item. Only
    the noun the question asks for counts ("The two countries are in Europe" announces no list
    of continents); ``noun_asked`` may hold two words ("citizenship country")."""
    if noun_asked is None:
        return None
    asked = set(noun_asked.split())
    words = span.words
    first = gold[0][0] if gold else len(words)
    for k in range(min(first, len(words) - 1)):
        if not (words[k] in COUNT_WORDS or (words[k].isdigit() and int(words[k]) >= 2)):
            continue
        for n in range(k + 1, min(k + 4, first, len(words))):
            if not span.tight(n) or span.capitalised(n):
                break
            if asked & _singulars(words[n]):
                return " ".join(words[k : n + 1])
    return None


def _singulars(noun: str) -> set[str]:
    """The singular forms a plural noun may have ("countries" -> "country"); empty when the
    noun does not end in s."""
    if not noun.endswith("s"):
        return set()
    singular = {noun[:-1], noun.removesuffix("es")}
    if noun.endswith("ies"):
        singular.add(noun[:-3] + "y")
    return singular


def _values_differ(
    span: Span, question_words: set[str] | frozenset[str], lo: int = 0, hi: int | None = None
) -> str | None:
    """A differ word (or a negated "same") in ``words[lo:hi]`` about the asked values:
    predicative ("their occupations are distinct", "they differ") or on the asked noun
    ("different countries", "not in the same country"; a bare "not the same" says nothing of
    the asked noun); on another noun
    ("they have different cultures") it says nothing of the asked relation."""
    words = span.words
    for k in range(lo, min(len(words), len(words) if hi is None else hi)):
        # rules v7: "not (in) the same country" says the values differ too
        same = words[k] == "same" and "not" in words[max(lo, k - 3) : k]
        if words[k] not in DIFFER_WORDS and not same:
            continue
        noun = words[k + 1] if k + 1 < len(words) and span.tight(k + 1) else ""
        if same and (not noun or noun in DIFFER_LINKS):
            continue  # "they are not the same": not said of the asked noun
        if noun and noun not in DIFFER_LINKS:
            singular = {noun, noun.removesuffix("s"), noun.removesuffix("es")}
            if noun.endswith("ies"):
                singular.add(noun[:-3] + "y")
            if not singular & question_words:
                continue
        return " ".join(words[k : k + 2])
    return None


DIFFER_LINKS = frozenset({"from", "than", "to", "and", "or", "but", "in", "of", "for"})


def negated_twice(words: list[str], k: int) -> bool:
    """ "not only", "no doubt": a negation that does not deny."""
    after = words[k + 1] if k + 1 < len(words) else ""
    return after in ("only", "doubt", "matter", "wonder")


def list_partners(
    span: Span, others: list[tuple[int, int]], gold: list[tuple[int, int]]
) -> set[tuple[int, int]]:
    """The other names joined to a gold mention, directly or through each other, by commas,
    "and" or "&" ("Hindi and English", "German, French and Italian"): one list with the gold."""
    items = sorted([*others, *gold])
    joined: set[tuple[int, int]] = set(gold)
    changed = True
    while changed:
        changed = False
        for left, right in itertools.pairwise(items):
            between = span.words[left[1] : right[0]]
            gap = span.gap(right[0]) if right[0] < len(span.words) else ""
            link = between in ([], ["and"]) and (bool(between) or "," in gap or "&" in gap)
            if link and (left in joined) != (right in joined):
                joined |= {left, right}
                changed = True
    return joined - set(gold)
