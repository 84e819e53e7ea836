"""Relation-slot rules of the alias judge: does the gold fill the slot the question asks?

- :func:`citizenship_slot`: for a citizenship question whose gold is a country, the gold must be
  the person's country (opening the answer, after a copula, "citizen of", "from", "President
  of", or the adjective of a person), not a modifier ("a United States state") nor a place
  ("based in the United States of America");
- :func:`role_mismatch`: the gold names where the subject was born, lives, is based or died
  while the question asks another of these relations;
- :func:`names_subject`: a gold that sits only in the subject phrase, as the argument of a
  relation the question does not ask ("The capital of the Republic of Poland is called Wo" for
  "Warsaw's country"), answers only if the response names something of the question.
"""

from __future__ import annotations

import re

from leak_metrics.judges.demonyms import demonym_table
from leak_metrics.judges.entity_rules import (
    OPENERS,
    PERSON_HEADS,
    Span,
    _leads_to_gold,
    describes,
    describes_ahead,
    indefinite,
    predicate_start,
)
from leak_metrics.judges.placement_rules import placed_in_gold, possessed_value
from leak_metrics.judges.subject_rules import subject_complement
from leak_metrics.normalize import tokenize, tokenize_spans

# Words right before a gold country that put it in the citizenship slot ("a citizen of the
# United States", "is France", "Prime Minister of France"); the sentence's first word is too.
CITIZENSHIP_LEADS = frozenset(
    {"is", "was", "are", "were", "be", "from", "citizen", "citizens", "national", "native"}
)
# "known as <gold>": verbs that, with "as", name what the subject is
NAMING_VERBS = frozenset({"known", "referred", "recognized", "recognised", "identified"})
# Nouns whose "of <gold>" names the person's country ("President of France").
CITIZENSHIP_OF = frozenset(
    {"citizen", "citizens", "native", "nationality", "people", "national", "nationals"}
    | {"member", "members"}  # rules v12: "both members of the United States" (membership)
)
PLACE_NOUNS = frozenset(
    {"state", "states", "city", "province", "region", "territory", "county", "organization"}
)


def citizenship_slot(
    span: Span,
    gold: list[tuple[int, int]],
    adjectives: set[tuple[str, ...]],
    question_words: frozenset[str] | set[str] = frozenset(),
) -> bool:
    """One gold mention fills the citizenship slot: the answer opens the sentence, follows a
    copula or "citizen of"/"from"/"President of", or is the country's adjective describing the
    person; and it is not itself a modifier ("a United States state", "the USA's 14th state")."""
    words = span.words
    gold_words = {w for lo, hi in gold for w in words[lo:hi]} | {w for a in adjectives for w in a}
    for lo, hi in gold:
        following = words[hi] if hi < len(words) else ""
        # rules v8: a possessive that owns nothing ("X's country is China's, and ...") is the
        # value itself, not a modifier
        owns = hi + 1 < len(words) and not set(",.;:!?") & set(span.gap(hi + 1))
        if (following == "s" and owns) or (
            following in PLACE_NOUNS and not set(",.;:") & set(span.gap(hi))
        ):
            continue
        if lo == 0:
            return True
        if tuple(words[lo:hi]) in adjectives:
            # the adjective must describe the person ("a French politician"), not a thing of the
            # country ("the British government", "American music")
            predicative = hi >= len(words) or not span.tight(hi)  # "He is British."
            if predicative or describes_ahead(span, hi, PERSON_HEADS, indefinite(span, lo)):
                return True
            if subject_complement(span, lo, predicate_start(span), question_words):
                return True  # rules v8: "X is a British monarch"
            continue
        if following in PERSON_HEADS and span.tight(hi):
            return True  # "a former U.S. President", "an American actor"
        previous = words[lo - 1]
        if previous in CITIZENSHIP_LEADS:
            return True
        # "is known as / called the United States of America": the copula's naming variants
        if previous in ("called", "named") or (
            previous == "as" and lo > 1 and words[lo - 2] in NAMING_VERBS
        ):
            return True
        if _citizenship_phrase(span, lo, question_words):
            return True
        if possessed_value(span, lo, question_words):
            return True  # rules v9: "Fidel Castro's country of Cuba"
        if placed_in_gold(span, lo, gold_words, question_words):
            return True  # rules v9: "X's citizenship countries are both in the United States"
    return False


# How far a citizenship noun may stand before the "of"/"in" of its country ("a national
# by-name of the United States"), and the words that join a copula to "of" ("both are (part)
# of the United States", "is of French descent").
CITIZENSHIP_NOUN_REACH = 3
COPULAS = frozenset({"is", "was", "are", "were", "be"})
COPULA_OF = frozenset({"part", "both", "all", "also"})


def _citizenship_phrase(span: Span, lo: int, question_words: frozenset[str] | set[str]) -> bool:
    """The gold at ``lo`` is the country of a citizenship noun ("a national (by-name) of",
    "citizenship in") or, when the clause's subject restates the question's, the complement of
    a copula through "of" ("both are (part) of"; not "The Chinese Communist Party is part of")."""
    words = span.words
    if lo < 2 or words[lo - 1] not in ("of", "in"):
        return False
    k = lo - 2
    while k >= 0 and lo - 2 - k < CITIZENSHIP_NOUN_REACH:
        if set(",.;:!?") & set(span.gap(k + 1)) or span.capitalised(k):
            return False  # a clause break, or a name ("the People's Republic of China")
        if words[k] in CITIZENSHIP_OF or words[k] == "citizenship":
            # "a national by-name of", not "a national leader of China" (an office: a title)
            return not any(describes(w, PERSON_HEADS) for w in words[k + 1 : lo - 1])
        if words[lo - 1] == "of" and words[k] in COPULAS:
            return all(w in COPULA_OF for w in words[k + 1 : lo - 1]) and _restated_subject(
                span, k, question_words
            )
        k -= 1
    return False


def _restated_subject(span: Span, verb: int, question_words: frozenset[str] | set[str]) -> bool:
    """The words of the clause before ``verb`` restate the question's subject (its words,
    pronouns and openers only)."""
    k = verb
    while k > 0 and not set(",.;:!?") & set(span.gap(k)):
        k -= 1
    subject = span.words[k:verb]
    # "Kentucky, which is a part of the United States": a relative clause is about a place
    return bool(subject) and all(
        w in question_words or (w in OPENERS and w not in RELATIVES) for w in subject
    )


# Words that open a clause about the noun before it, not about the question's subject.
RELATIVES = frozenset({"which", "that", "who", "whose", "where", "this", "these", "those", "it"})


def names_subject(span: Span, question: str, gold: list[tuple[int, int]]) -> bool:
    """The answer names the gold in its predicate or opens with it, or else mentions a name of
    the question: "The capital of Sweden is Stockholm" answers "the country of Stockholm", "The
    capital of the Republic of Poland is called Wo" does not answer "Warsaw's country"."""
    verb = predicate_start(span)
    if any(lo == 0 or lo > verb for lo, _ in gold):
        return True
    last = gold[-1]
    if verb == len(span.words) and last[1] == verb and "," in span.gap(last[0]):
        return True  # a verbless "<place>, <gold>" (an address: "Bismarck, Germany.")
    if placed_opening(span, gold, verb):
        return True  # rules v12: "Dorebin, the capital city of Ireland and ..."
    # The gold is the first name of the answer and not the argument of another relation:
    # "The poet Dante Alighieri is ...", "The continent of Asia is ..." (for "its continent"),
    # but not "The capital of the Republic of Poland is ..." (for "Warsaw's country").
    first = gold[0][0]
    runs_before = [r for r in span.name_runs() if r[1] <= first]
    question_words = set(tokenize(question))
    relations = [span.words[k - 1] for k in range(1, first) if span.words[k] == "of"]
    if not any(any(w not in OPENERS for w in span.words[lo:hi]) for lo, hi in runs_before) and all(
        r in question_words for r in relations
    ):
        return True
    names = {
        w
        for w, raw in zip(tokenize(question), question_name_flags(question), strict=True)
        if raw and w not in OPENERS
    }
    gold_tokens = {span.words[k] for lo, hi in gold for k in range(lo, hi)}
    return not (names - gold_tokens) or bool((names - gold_tokens) & set(span.words))


def placed_opening(span: Span, gold: list[tuple[int, int]], verb: int) -> bool:
    """Rules v12: a verbless answer whose opening name has an apposition that leads to the gold
    ("Dorebin, the capital city of Ireland and ..."): the subject, however garbled, is put in the
    gold, as in the address "<place>, <gold>"."""
    runs = span.name_runs()
    if verb < len(span.words) or not runs or runs[0][0] != 0 or runs[0] in gold:
        return False
    if runs[0][1] == len(
        span.words
    ):  # the name is the whole answer ("West Europe."): no apposition
        return False
    return "," in span.gap(runs[0][1]) and _leads_to_gold(span, runs[0][1], gold)


def question_name_flags(question: str) -> list[bool]:
    """For each token of ``question``, whether it is capitalised there (a name word)."""
    return [question[t.start].isupper() for t in tokenize_spans(question)]


def asks_citizenship(question: str, forms: list[list[str]]) -> bool:
    """A citizenship question whose gold is a country (a multi-hop question may pass through
    citizenship to ask something else: its gold is then not a country)."""
    table = demonym_table()
    if "continent" in tokenize(question):  # "on which continent does X hold a citizenship?"
        return False
    return _asked_role(question) == "citizenship" and any(tuple(f) in table for f in forms)


def asks_nationality(question: str) -> bool:
    """The question asks a person's citizenship or nationality (whatever its gold: a country, or
    a continent or currency further on)."""
    return _asked_role(question) == "citizenship"


def asks_person_role(question: str) -> str | None:
    """The relation of a person the question asks ("citizenship", "birth", "death"), if any."""
    return _asked_role(question)


def _asked_role(question: str) -> str | None:
    q = question.lower()
    if "citizen" in q or "nationality" in q or re.search(r"\bnationals?\b", q):
        return "citizenship"  # "Of which country is X a national?" too
    if any(w in q for w in (" die", "death", "pass away", "passed away")):
        return "death"
    if "born" in q or "birth" in q:
        return "birth"
    return None


# Role words before a gold mention (within its clause) and the asked roles they do not answer.
_ROLE_WORDS = {
    "born": ("citizenship", "death"),
    "based": ("citizenship",),
    "lives": ("citizenship",),
    "living": ("citizenship",),
    "lived": ("citizenship",),
    "resides": ("citizenship",),
    "headquartered": ("citizenship",),
    "works": ("citizenship",),
    "died": ("citizenship", "birth"),
}
ROLE_REACH = 4


def role_mismatch(span: Span, gold: list[tuple[int, int]], question: str) -> str | None:
    """The gold names another relation of the subject than the one asked: where a person was
    born, lives or is based for a citizenship question ("based in the United States of
    America"), the birthplace for a place of death, and so on. One mention in the asked role is
    enough."""
    asked = _asked_role(question)
    if asked is None or not gold:
        return None
    for lo, _ in gold:
        k, role = lo, None
        while role is None and k > 0 and lo - k < ROLE_REACH:
            if set(",.;:!?") & set(span.gap(k)):
                break
            k -= 1
            # "a Canadian-born American": the role word belongs to the word before it
            if span.words[k] in _ROLE_WORDS and span.gap(k).strip() != "-":
                role = span.words[k]
        if role is None or asked not in _ROLE_WORDS[role]:
            return None
    return " ".join(span.words[max(0, gold[0][0] - ROLE_REACH) : gold[0][1]])


def in_other_role(span: Span, lo: int, question: str) -> bool:
    """The name at ``lo`` names another relation of the subject than the one asked ("born in
    Tupelo" when the place of death is asked): it is not another answer to the question."""
    asked = _asked_role(question)
    if asked is None:
        return False
    k = lo
    while k > 0 and lo - k < ROLE_REACH and not set(",.;:!?") & set(span.gap(k)):
        k -= 1
        word = span.words[k]
        if word in _ROLE_WORDS and span.gap(k).strip() != "-":
            return asked in _ROLE_WORDS[word]
    return False
