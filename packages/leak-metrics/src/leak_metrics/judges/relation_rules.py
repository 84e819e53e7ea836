"""Relation rules of the alias judge (issue 35): the gold given as the value of another relation
than the asked one, or of another entity than the asked subject.

- :func:`other_relation_value`: the gold is the copula's value for a subject phrase that names
  a naming relation the question does not ask ("Mao's official name is China" for Mao's
  nationality);
- :func:`kind_mismatch`: the asked country or continent is said to be a smaller unit of the
  gold ("The country of citizenship of X is the former capital of the United Kingdom");
- :func:`echoed_relation` (rules v8): every gold mention is the argument of another relation
  whose value the same clause names ("the continent of France is Europe", "the capital of
  France is indeed Paris" for "Which of France or Peru is X's country?", the relation noun not
  in the asking sentence and the value given by a premise of the question: "... then that
  country's capital is Paris"): the answer restates that premise; "The capital of Sweden is
  Stockholm" for "What is the country of Stockholm?" still answers (no premise's value);
- :func:`premise_relation_value` (rules v8): the gold is the copula's value for a clause whose
  subject is a relation the question's premises use and its asking sentence does not ("The
  currency of X's country is France" after premises about currencies, asked "X's country:
  France or Peru?"): that premise relation's value, not the asked one (option questions only,
  whose asking sentence names the asked relation; "... What is it?" names none); rules v13: a
  mention in that clause's own subject does not save it ("The currency of the country of Italy
  is Italy");
- :func:`hint_owner`: the gold only owns the value of the relation the question names in its
  hint, and the answer's subject is that hint ("Dublin is the capital of the United States" for
  "Which ... is Atlanta's country, if whichever has Dublin as capital is not it?"; an echoed
  MT premise "Paris is the capital of France").
"""

from __future__ import annotations

import re

from leak_metrics.judges.entity_rules import OPENERS, Span, predicate_start
from leak_metrics.normalize import tokenize

COPULAS = frozenset({"is", "was", "are", "were", "be"})


def outermost(gold: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The mentions not inside a longer one ("America" inside "United States of America")."""
    return [g for g in gold if not any(o != g and o[0] <= g[0] and g[1] <= o[1] for o in gold)]


# Relations whose value a response may give instead of the asked one ("Mao's official name is
# China" for Mao's nationality).
RELATION_NOUNS = frozenset(
    {
        "name", "nickname", "title", "capital", "currency", "language", "religion", "motto",
        "anthem", "population", "founder", "leader", "president", "headquarters", "birthplace",
        "team", "spouse", "wife", "husband", "father", "mother", "party", "symbol",
    }
)  # fmt: skip
# The relations rule 9b's first part reads: naming relations only, which no question of the
# benchmark asks under another word (a question may ask "What money is used in X?" and the
# answer say "The currency of X is ...", or "Who founded X?" and "The founder of X is ...").
NAMING_NOUNS = frozenset({"name", "nickname", "title", "motto", "anthem", "symbol"})
COPULA_REACH = 2  # words between the copula and the gold ("is indeed China")
# Words by which a question names the relation it asks (the rule needs to know it asks another).
ASKED_RELATIONS = RELATION_NOUNS | frozenset(
    {
        "country", "citizen", "citizenship", "national", "nationality", "continent", "city",
        "sport", "occupation", "genre", "region", "state", "located", "born", "birth", "died",
        "death", "origin", "originate", "originates", "developer", "manufacturer", "author",
    }
)  # fmt: skip


def other_relation_value(
    span: Span, gold: list[tuple[int, int]], question_words: set[str]
) -> str | None:
    """The gold is the copula's value for a subject phrase that names another relation than
    the asked one ("Mao's official name is China", "The capital of X's country is ..."): the
    value of that relation, not the answer."""
    verb = predicate_start(span)
    words = span.words
    if verb >= len(words) or words[verb] not in COPULAS or not gold:
        return None
    if not ASKED_RELATIONS & question_words:
        return None  # the question names no relation: no other one to tell apart
    if any(lo <= verb for lo, _ in gold) or gold[0][0] - verb - 1 > COPULA_REACH:
        return None
    subject = words[:verb]
    if "of" in subject[1:]:
        noun = subject[subject.index("of", 1) - 1]
    elif "s" in subject[1:-1]:
        noun = subject[-1]
    else:
        return None
    # "The name of Putin's country is Russia", "The name of the country Virat Kohli is India":
    # the name of the asked thing (a relation word of the question after the relation noun)
    # is the asked value
    after = subject[subject.index(noun) + 1 :]
    owner_asked = any(w in question_words and w in ASKED_RELATIONS for w in after)
    if noun in NAMING_NOUNS and noun not in question_words and not owner_asked:
        return " ".join(subject)
    return None


# Asked kinds larger than every unit below ("The country of citizenship of X is ..."): for a
# city or capital question "the city of Paris" is the gold itself.
LARGER_KINDS = frozenset({"country", "citizenship", "nationality", "continent", "nation"})
# Units a response may call the asked value instead of the gold ("the capital of the UK").
UNIT_NOUNS = frozenset({"capital", "city", "province", "county", "town", "district"})
# Words that may stand between the copula and the unit noun ("is indeed the former capital").
UNIT_MODIFIERS = frozenset(
    {"indeed", "actually", "also", "former", "current", "largest", "main", "1", "that", "was"}
)


def kind_mismatch(span: Span, gold: list[tuple[int, int]], question_words: set[str]) -> str | None:
    """The subject phrase restates the asked relation (a relation word of the question: "The
    country of citizenship of X is") and every gold mention is the owner of another kind of
    unit in its complement ("... is the former capital of the United Kingdom", or the
    possessive "... is the UK's largest city"): the answer calls the value a unit of the gold,
    not the gold."""
    verb = predicate_start(span)
    words = span.words
    if verb >= len(words) or words[verb] not in COPULAS or not gold:
        return None
    asked = [w for w in words[:verb] if w in question_words and w in LARGER_KINDS]
    if not asked:
        return None
    gold = outermost(gold)
    owned = _owned_unit(words, verb, gold, asked)
    if owned is not None:
        return owned
    for lo, _ in gold:
        if lo < verb + 3 or words[lo - 1] != "of":
            return None
        unit = words[lo - 2]
        between = words[verb + 1 : lo - 2]
        if unit not in UNIT_NOUNS or unit in asked:
            return None
        if not all(w in UNIT_MODIFIERS for w in between):
            return None
    return " ".join(words[gold[0][0] - 2 : gold[0][1]])


def _owned_unit(
    words: list[str], verb: int, gold: list[tuple[int, int]], asked: list[str]
) -> str | None:
    """The possessive form of :func:`kind_mismatch`: the copula's complement is "<gold>'s
    <modifiers> <unit>" ("The country of Liverpool is the UK's largest city"), the only gold
    mention."""
    if len(set(gold)) != 1:
        return None
    lo, hi = gold[0]
    if not all(w in UNIT_MODIFIERS for w in words[verb + 1 : lo]) or words[hi : hi + 1] != ["s"]:
        return None
    for k in range(hi + 1, min(hi + 4, len(words))):
        if words[k] in UNIT_NOUNS and words[k] not in asked:
            if all(w in UNIT_MODIFIERS | {"biggest", "2", "3"} for w in words[hi + 1 : k]):
                return " ".join(words[lo : k + 1])
            return None
    return None


_SENTENCES = re.compile(r"[.;?!](?:\s|$)")
_CLAUSES = re.compile(r"[,:;]")
# A hint inside the asking sentence excludes or supposes ("..., if whichever has Dublin as
# capital is not it?"); an asking sentence without one of these words only asks ("Which country
# has Paris as its capital?"). Every sentence before the asking one is a premise.
HINT_MARKERS = frozenset(
    {
        "not", "never", "no", "if", "unless", "then", "whenever", "whichever", "suppose",
        "assuming", "provided", "event", "condition", "out", "excluded", "eliminated", "except",
    }
)  # fmt: skip


def hint_owner(span: Span, gold: list[tuple[int, int]], question: str) -> str | None:
    """The answer opens with a name of the question that a premise of the question ties to a
    relation (a sentence before the asking one: an MT conditional, "the one whose capital is
    Havana is ruled out"; or a hint inside the asking sentence that excludes or supposes,
    :data:`HINT_MARKERS`: "if whichever has Dublin as capital is not it"), and every gold
    mention owns that relation ("Dublin is the capital of the United States"): the hint
    restated, not the asked value."""
    words = span.words
    runs = span.name_runs()
    if not gold or not runs or runs[0][0] != 0:
        return None
    opener = [w for w in words[runs[0][0] : runs[0][1]] if w not in OPENERS]
    if not opener:
        return None
    gold = outermost(gold)
    for lo, _ in gold:
        if lo < 2 or words[lo - 1] != "of" or words[lo - 2] not in RELATION_NOUNS:
            return None
    relation = words[gold[0][0] - 2]
    raw = [x for x in _SENTENCES.split(question) if tokenize(x)]
    sentences = [tokenize(x) for x in raw]
    for index, tokens in enumerate(sentences):
        # rules v9: the hint ties the opener to the relation within one clause ("whichever has
        # Dublin as capital"); not "the one whose capital is Abuja, pick Cape Town's country"
        clauses = [tokenize(c) for c in _CLAUSES.split(raw[index])]
        if not any(relation in c and all(w in c for w in opener) for c in clauses):
            continue
        # a premise before the asking sentence, or a hint inside it; not the ask itself
        # ("Which country has Paris as its capital?")
        if index < len(sentences) - 1 or HINT_MARKERS & set(tokens):
            return f"{' '.join(opener)} ... {relation} of"
    return None


# Words a copula may carry around it ("is indeed", "is actually").
_VALUE_FILLERS = frozenset({"indeed", "actually", "also", "really", "in", "fact"})


def echoed_relation(span: Span, gold: list[tuple[int, int]], question: str) -> str | None:
    """Every gold mention is "<relation noun> of <gold> <copula> <Name>", the relation noun
    (:data:`ASKED_RELATIONS`) absent from the question's asking (last) sentence and the name a
    premise's value (after a copula of the question, outside the asking sentence): the words
    from the relation noun to the name, else None."""
    words = span.words
    sentences = [t for t in (tokenize(x) for x in _SENTENCES.split(question)) if t]
    asking = set(sentences[-1]) if sentences else set()
    q = tokenize(question)
    # a premise's value: a word right after a copula of the question ("... then that country's
    # continent is Europe")
    values = {w for i, w in enumerate(q) if i and q[i - 1] in COPULAS} - asking
    runs = span.name_runs()
    found = None
    for lo, hi in outermost(gold):
        if lo < 2 or words[lo - 1] != "of" or words[lo - 2] not in ASKED_RELATIONS:
            return None
        if words[lo - 2] in asking:
            return None
        k = hi
        while k < len(words) and words[k] in _VALUE_FILLERS:
            k += 1
        if k >= len(words) or words[k] not in COPULAS:
            return None
        k += 1
        while k < len(words) and words[k] in _VALUE_FILLERS:
            k += 1
        run = next((r for r in runs if r[0] == k), None)
        if run is None or any(a <= k < b for a, b in gold):
            return None
        name = [w for w in words[run[0] : run[1]] if w not in OPENERS]
        if not name or name[0] not in values:
            return None  # no premise's value ("The capital of Sweden is Stockholm")
        found = found or " ".join(words[lo - 2 : run[1]])
    return found


_CLAUSE_STARTS = frozenset({"that", "is", "was", "are", "were"})


def premise_relation_value(span: Span, gold: list[tuple[int, int]], question: str) -> str | None:
    """Every gold mention follows a copula (at most :data:`COPULA_REACH` words between) whose
    clause subject is "<relation noun> of ..." (:data:`RELATION_NOUNS`), the noun in a premise
    sentence of the question and not in its asking (last) sentence: the subject, else None."""
    sentences = [t for t in (tokenize(x) for x in _SENTENCES.split(question)) if t]
    if len(sentences) < 2:
        return None  # no premise
    asking = set(sentences[-1])
    premises = {w for t in sentences[:-1] for w in t}
    words = span.words
    found = None
    ends = {hi for _, hi in gold}
    for lo, _ in outermost(gold):
        if lo >= 1 and words[lo - 1] == "of" and lo - 1 in ends:
            continue  # the gold's own style ("the United Kingdom of Great Britain")
        copula = next(
            (k for k in range(lo - 1, max(lo - 2 - COPULA_REACH, 0), -1) if words[k] in COPULAS),
            None,
        )
        if copula is None:
            if _subject_of_premise_clause(span, lo, premises, asking):
                continue  # rules v13: the owner in such a clause's subject ("of the country of X")
            return None
        if any("," in span.gap(k) for k in range(copula + 1, lo + 1)):
            return None  # rules v13: "is Ottawa, Canada": the gold ends an address, no value
        start = copula
        while start > 0 and not set(",.;:") & set(span.gap(start)):
            if words[start - 1] in _CLAUSE_STARTS:
                break
            start -= 1
        subject = words[start:copula]
        if "of" not in subject[1:]:
            return None
        noun = subject[subject.index("of", 1) - 1]
        if noun not in RELATION_NOUNS or noun not in premises or noun in asking:
            return None
        found = found or " ".join(subject)
    return found


def _subject_of_premise_clause(span: Span, lo: int, premises: set[str], asking: set[str]) -> bool:
    """Rules v13: the mention at ``lo`` lies in the subject of a clause "<relation noun> of
    ... <copula>" whose noun is a premise's relation the asking sentence does not use ("The
    currency of the country of Italy is ..."): the owner in that subject is no answer."""
    words = span.words
    copula = next((k for k in range(lo, len(words)) if words[k] in COPULAS), None)
    if copula is None or any(set(",.;:") & set(span.gap(k)) for k in range(1, copula + 1)):
        return False
    subject = words[:copula]
    if "of" not in subject[1:lo]:
        return False
    noun = subject[subject.index("of", 1) - 1]
    return noun in RELATION_NOUNS and noun in premises and noun not in asking
