"""Option rules of the alias judge (issue 35, round six): which option the committed answer
*picks*, read as an explicit choice rather than a mention.

A question that shows options (DS: "Which of France, Italy or Germany ...?"; MT's two-option
form: "Of the United Kingdom and Russia, which is ...?") is answered by picking one. The entity
rules already make a wrong option named beside the gold incorrect (rules 3 and 5); this module
decides what counts as naming an option:

- :func:`rejected`: an option named only to be rejected, the negation right before it ("not
  Lyon", "rather than Lyon", "instead of Lyon", rules v8: "not in Lyon"; not "not the capital
  of Lyon's country", which
  still names it) is not picked, so "It is Paris, not Lyon" and "not
  Paris, Lyon" each pick one option; "Paris or Lyon" picks none (rule 5 / rule 3);
- :func:`gold_in_longer_name`: the gold's name inside a longer name of something else is no
  pick of the gold: "<gold> of (the) <Capitalised name>" that is no form of the gold ("the United
  Kingdom of the United Nations", "the United Kingdom of the United Kingdom of China"; not "the
  United Kingdom of Great Britain", the gold's own style), "<gold> of" cut off at the end ("the
  capital city of the United Kingdom of") or "<a country of the table> of (the) <gold>" ("the
  United Kingdom of the Netherlands" for the Netherlands); rules v8: a title "<Office> of (the)
  <gold>" ("the President of the United States", a person);
- :func:`other_relation_subject`: the gold opens the answer as the copula's subject and the
  complement calls it another relation's value of something else ("The United Kingdom is the
  currency of Alan Turing's country of citizenship ...": a relation noun the asking sentence
  of the question does not use), an echoed premise, not a pick.

- :func:`non_option_pick` (rules v7): the answer's explicit pick ("The correct option is X",
  "the right answer is X") names something that is neither the gold nor an option ("The correct
  option is New York City, the capital of ..."): it picked a non-option, whatever it names after;
  rules v8: not a possessive owner ("The correct answer is X's country: Peru"), and, for any
  question, also an answer opening "The answer is <another name>, ..." (a question's own name
  given as the answer: "The answer is Lyon, which lies in France" for Lyon's country);
- :func:`between_pair`: the gold as one end of "between <A> and <B>" restates the choice;
- :func:`option_by_number`: an option picked by its place ("The correct option is 2", "the
  second option") when the answer names no option.

The longer-name and other-relation rules apply to option questions only (the development labels accept a garbled tail
after a gold named as the answer of an open question: "a national of the United States of
America of the Republic of LeBron"; and an HS currency called "a currency of Canada").
"""

from __future__ import annotations

import re

from leak_metrics.judges.demonyms import demonym_table
from leak_metrics.judges.entity_rules import OFFICES, Span, predicate_start
from leak_metrics.judges.owner_rules import possessive_owner
from leak_metrics.judges.relation_rules import COPULAS, RELATION_NOUNS, outermost
from leak_metrics.normalize import tokenize

# Words before an option that reject it ("not Lyon", "rather than Lyon", "instead of Lyon").
_NEGATIONS = frozenset({"not", "never", "neither", "nor"})
_REJECT_PAIRS = (("rather", "than"), ("instead", "of"))
# A preposition the negation may carry before the rejected place ("located in Paris, not in
# Lyon").
_PLACE_PREPOSITIONS = frozenset({"in", "at", "from", "to", "on"})
_CLAUSE = frozenset(",.;:!?\n")
# Words a copula may carry before the relation noun ("is indeed the official currency of").
_COMPLEMENT_FILLERS = frozenset(
    {"indeed", "actually", "also", "really", "official", "national", "main", "1", "only"}
)
_ASK = re.compile(r"[^.?!]*\?\s*$")
_QUOTES = frozenset('"\u201c\u201d')
# Rules v13: kinds of place an option may be miscalled ("The United Kingdom is the continent of
# Alan's country"), read like the relation nouns when the asking sentence does not use them.
_KIND_NOUNS = frozenset({"continent", "country", "city"})


def rejected(span: Span, lo: int) -> bool:
    """The option mention starting at token ``lo`` is rejected as the value itself: a negation
    right before it ("not Lyon", "never Lyon"; articles are no tokens) or "rather than" /
    "instead of" right before it; rules v8: a negation with a place preposition ("not in
    Lyon", "not from Lyon"). A negation of something else that names the option ("not the
    capital of Germany") rejects nothing: the option is still named."""
    words = span.words
    if lo >= 2 and (words[lo - 2], words[lo - 1]) in _REJECT_PAIRS:
        return True
    if lo >= 2 and words[lo - 2] in _NEGATIONS and words[lo - 1] in _PLACE_PREPOSITIONS:
        return not _CLAUSE & set(span.gap(lo - 1) + span.gap(lo))  # rules v8: "not in Lyon"
    return lo >= 1 and words[lo - 1] in _NEGATIONS and not _CLAUSE & set(span.gap(lo))


def _gold_at(words: list[str], k: int, gold_forms: list[list[str]]) -> int:
    """Length of the longest gold form starting at token ``k`` (0 when none)."""
    return max((len(f) for f in gold_forms if f and words[k : k + len(f)] == f), default=0)


def _longer_after(span: Span, hi: int, gold_forms: list[list[str]]) -> bool:
    """'<gold> of (the) <Capitalised word>' that is no gold form, with no punctuation between,
    or '<gold> of' cut off at the end; through a stutter of gold forms ("the United Kingdom of
    the United Kingdom of China")."""
    words = span.words
    if hi >= len(words) or words[hi] != "of" or not span.tight(hi):
        return False
    k = hi + 1  # articles are no tokens: "of the United Nations" reads "of united nations"
    if k == len(words):
        return True  # "the capital city of the United Kingdom of": the name is cut off
    if not span.tight(k) or not span.capitalised(k):
        return False
    width = _gold_at(words, k, gold_forms)
    return _longer_after(span, k + width, gold_forms) if width else True


def _longer_before(span: Span, lo: int, gold_forms: list[list[str]]) -> bool:
    """'<a country of the table> of (the) <gold>' ("the United Kingdom of the Netherlands"), or
    (rules v8) a capitalised office's title '<Office> of (the) <gold>' ("the President of the
    United States": a person, no pick of the country)."""
    words = span.words
    if lo < 2 or words[lo - 1] != "of" or not span.tight(lo) or not span.tight(lo - 1):
        return False
    if words[lo - 2] in OFFICES and span.capitalised(lo - 2):
        return True  # rules v8: a title, "the President of the United States"
    table = demonym_table()
    gold_names = {tuple(f) for f in gold_forms}
    for width in (3, 2, 1):
        start = lo - 1 - width
        if start < 0 or not all(span.capitalised(k) for k in range(start, lo - 1)):
            continue
        name = tuple(words[start : lo - 1])
        if name in table and name not in gold_names:
            return all(span.tight(k) for k in range(start + 1, lo - 1))
    return False


def gold_in_longer_name(
    span: Span, gold: list[tuple[int, int]], gold_forms: list[list[str]]
) -> str | None:
    """Every gold mention is inside a longer name of something else (see the module
    docstring): the first such name's words, else None."""
    # a gold code in brackets right after a name abbreviates that name ("... Nations (UK)")
    gold = [(lo, hi) for lo, hi in outermost(gold) if not span.gap(lo).rstrip().endswith("(")]
    if not gold:
        return None
    for lo, hi in gold:
        if not (_longer_after(span, hi, gold_forms) or _longer_before(span, lo, gold_forms)):
            return None
    lo, hi = gold[0]
    return span.raw(max(0, lo - 2), min(len(span.words), hi + 2))


def other_relation_subject(
    span: Span, gold: list[tuple[int, int]], gold_forms: list[list[str]], question: str
) -> str | None:
    """The gold opens the answer as the copula's subject and the complement is "(the)
    <relation noun> of <not the gold>" for a relation noun the question's asking sentence
    does not use: the gold called another relation's value, not the answer."""
    words = span.words
    start = _quoted_statement(span)
    verb = predicate_start(span) if start == 0 else gold[0][1] if gold else 0
    if not gold or verb >= len(words) or words[verb] not in COPULAS:
        return None
    if not start <= gold[0][0] <= start + 1 or gold[0][1] != verb:
        return None  # the subject is exactly the gold (after an article or opener at most)
    k = verb + 1
    while k < len(words) and words[k] in _COMPLEMENT_FILLERS:
        k += 1
    nouns = RELATION_NOUNS | _KIND_NOUNS
    if k + 2 > len(words) or words[k] not in nouns or words[k + 1] != "of":
        return None
    asking = _ASK.search(question)
    asked = set(tokenize(asking.group(0) if asking else question))
    if words[k] in asked or _gold_at(words, k + 2, gold_forms):
        return None  # "is indeed the capital of the United States": the gold's own relation
    return " ".join(words[: k + 2])


def _quoted_statement(span: Span) -> int:
    """Rules v13: where the statement a pick frame quotes starts ('The correct answer is, "X is
    ..."'), else 0 (the answer itself). A statement after a colon is not read ("The correct
    answer is: X is the currency of ..." picks X as its topic, the round-nine labels)."""
    words = span.words
    for k in (1, 2):
        if (
            k + 1 < len(words)
            and words[k - 1] in _PICK_NOUNS
            and words[k] == "is"
            and _QUOTES & set(span.gap(k + 1))
            and ":" not in span.gap(k + 1)
        ):
            return k + 1
    return 0


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3}
_BY_NUMBER = re.compile(
    r"\boption\s+(?:is\s+|number\s+|no\.?\s*)?#?([1-9])\b(?![.,]\d)"
    r"|\b(first|second|third|fourth|1st|2nd|3rd)\s+option\b",
    re.IGNORECASE,
)


def option_by_number(text: str, options: tuple[str, ...] | list[str]) -> str | None:
    """The option the committed answer picks by its place in the question's list ("The correct
    option is 2", "the second option"), when it names exactly one place that exists; else
    None. Several places named ("option 1 or option 2") pick nothing."""
    places = set()
    for match in _BY_NUMBER.finditer(text):
        number, ordinal = match.groups()
        places.add(int(number) if number else _ORDINALS[ordinal.lower()])
    if len(places) != 1:
        return None
    place = places.pop()
    return options[place - 1] if 1 <= place <= len(options) else None


_BETWEEN_REACH = 8  # words from "between" to the gold ("between the United Kingdom of X and")


def between_pair(span: Span, gold: list[tuple[int, int]]) -> str | None:
    """Every gold mention is one of the two ends of "between <A> and <B>" in its clause (the
    question's choice restated, "between the United Kingdom of the Netherlands and the
    Netherlands"): no pick. The words from "between" to the gold, else None."""
    words = span.words
    found = None
    for lo, hi in outermost(gold):
        k, start = lo, None
        while k > 0 and lo - k < _BETWEEN_REACH and not _CLAUSE & set(span.gap(k)):
            k -= 1
            if words[k] == "between":
                start = k
                break
        if start is None:
            return None
        after = words[hi : hi + 1] == ["and"] and span.tight(hi)
        if "and" not in words[start + 1 : lo] and not after:
            return None
        found = found or span.raw(start, hi)
    return found


_PICK_NOUNS = frozenset({"option", "answer", "choice"})
_PICK_ADJECTIVES = frozenset({"correct", "right"})


def non_option_pick(span: Span, gold: list[tuple[int, int]], bare: bool = False) -> str | None:
    """The name an explicit pick frame ("correct/right option/answer/choice is (would be)")
    names first, when no gold mention lies in the picked phrase (up to the next punctuation):
    a pick of a non-option (only called
    for a question that shows options, after the wrong options were checked). None when the
    frame is absent or is followed by the gold or by lowercase words ("The correct option is:
    the currency of ...") or by a possessive owner ("The correct answer is X's country: Peru",
    rules v8). With ``bare`` (rules v8, any question) the frame may also be "answer is" opening
    the answer, the name right after it ("The answer is Lyon, which lies in France"; not after a
    colon or quote: "The answer is: Lyon lies in France")."""
    words = span.words
    for k in range(len(words) - 2):
        adjective = k > 0 and words[k - 1] in _PICK_ADJECTIVES
        if words[k] not in _PICK_NOUNS or not (adjective or (bare and k == 0)):
            continue
        j = k + 1
        if words[j] in ("would", "will") and words[j + 1] == "be":
            j += 1
        elif words[j] != "is":
            continue
        j += 1
        if j >= len(words) or not span.capitalised(j):
            return None
        if not adjective and span.gap(j).strip():
            return None  # 'The answer is: X holds ...', 'The answer is "X, ..."': a statement
        run = next((r for r in span.name_runs() if r[0] <= j < r[1]), (j, j + 1))
        # rules v13: a name quoted right after the frame ends at its closing quote ('is
        # "Europe" of ... Spain'); after a colon the quote opens a statement ('is: "X" is ...')
        opening = set(span.gap(j))
        stops = _CLAUSE | _QUOTES if _QUOTES & opening and ":" not in opening else _CLAUSE
        end = next((m for m in range(j + 1, len(words)) if stops & set(span.gap(m))), len(words))
        if any(j <= lo < end for lo, _ in gold):
            return None  # the gold in the picked phrase ("Agra's Country of India, ...")
        if possessive_owner(span, run[1]):
            return None  # rules v8: an owner says whose value follows ("X's country: Peru")
        return span.raw(*run)
    return None
