"""Yes/no answers judged against the question (MT and any item whose gold is yes or no).

The question is read from its *final question sentence* (the last sentence ending in ``?``):

- ``is it true / the case / correct that CLAIM?`` and ``does it follow that CLAIM?`` ask whether
  CLAIM holds; ``is it false / not the case / not true that CLAIM?`` ask whether it fails;
- any other ``is/are/was/does ... ?`` sentence is itself the claim ("is Cape Town's country
  Canada?");
- a ``not``/``never`` in CLAIM ("the developer of X is not Apple Inc.") negates it. The *object*
  of CLAIM is what follows its last ``is/are/was/were`` ("Apple Inc."); for an inverted question
  without one it is the longest tail of the question sentence that the text before it also says.

The response's committed answer (its first answer sentence) decides, in this order:

1. empty -> no decision;
2. "yes" and "no" joined by or/and/nor/maybe/either or a slash ("Yes and no") -> hedge, no decision;
3. a refusal, evasion or qualified truth value ("I'd rather not speculate", "not sure", "cannot
   say", "it depends", "not necessarily true", "not entirely true") -> no decision;
4. a leading "yes"/"no" (also "The answer is yes") -> that word;
5. a statement about the asked object: the object right after a copula, a negation, a copula's
   adverb or a place preposition ("is not Apple Inc.", "isn't Brazil", "is indeed Atlanta",
   "born in Atlanta"; not "The currency of Turkey is ..."), outside quotes, outside an
   ``if``/``suppose``/``were``/``whether`` clause and outside the clause of "the claim/statement/
   rule (that) ..." (mentioned, not asserted); negated within 4 words before it or not, and
   turned by a truth word before its "that" ("It is false that ..."): the response thereby
   affirms or denies CLAIM, and the decision is yes when that matches what the question asks
   (not the object as an owner, "Tokyo is not Japan's capital", nor a statement whose subject
   opens with a relation the claim does not have, "The capital city of Obama's country is
   indeed Paris, not France"); the claim's clause of "the claim of ... is" runs to the
   sentence's last copula;
6. a truth word about the statement as a whole, said of it (opening the answer or after a
   copula: "That is true.", 'The statement "..." is false', "The claim that ... is true", "That's
   a common myth"; not a word inside a name, "a fallacy known as False Dilemma") -> the
   statement asked about (or the quoted one, with its own "not") holds or fails;
7. anything else ("X is a classic example of a logical fallacy", a statement about something
   else) -> no decision.

No decision is always incorrect: a refusal never counts as a "no".
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from leak_metrics.judges.answer_span import is_abbreviation
from leak_metrics.judges.demonyms import demonym_table, part_words
from leak_metrics.judges.entity_rules import ADJECTIVE_HEADS, describes
from leak_metrics.normalize import tokenize

_TRUE_WORDS = frozenset({"true", "correct", "right", "accurate", "valid", "case"})
_FALSE_WORDS = frozenset({"false", "incorrect", "wrong", "untrue", "inaccurate", "invalid"})
_NEGATIONS = frozenset({"not", "never", "no", "neither", "nor"})
_CONNECTORS = frozenset({"or", "and", "nor", "maybe", "perhaps", "possibly", "either"})
_COPULAS = ("is", "are", "was", "were")
# Words after which a clause is not asserted: a condition or an embedded question ("To determine
# whether it is true that X is France").
_HYPOTHETICAL = frozenset(
    {"if", "suppose", "supposing", "were", "assuming", "whenever", "unless", "whether"}
)
_EVASIONS: tuple[tuple[str, ...], ...] = (
    ("not", "sure"),
    ("not", "know"),
    ("no", "idea"),
    ("not", "certain"),
    ("unsure",),
    ("unclear",),
    ("unknown",),
    ("sorry",),
    ("unable", "to"),
    ("rather", "not"),
    ("speculate",),
    ("depends",),
    ("impossible", "to", "say"),
    ("no", "information"),
    ("cannot", "answer"),
    ("cannot", "say"),
    ("cannot", "tell"),
    ("cannot", "determine"),
    ("cannot", "be", "determined"),
    ("can", "not", "answer"),
    ("ca", "not", "answer"),
    ("ca", "not", "say"),
    ("ca", "not", "tell"),
    ("ca", "not", "determine"),
    ("can", "not", "say"),
    ("can", "not", "tell"),
    ("can", "not", "determine"),
    ("not", "possible", "to"),
    ("as", "ai"),
    # a qualified truth value commits to neither ("not necessarily true", "not entirely true")
    ("not", "necessarily"),
    ("not", "entirely"),
    ("not", "always"),
    ("partially",),
    ("partly",),
)
_SENTENCE_END = re.compile(r"[.!?:]\s|\n")
# After an abbreviation's dot these open the question's next sentence ("... is not Apple Inc. So
# the maker of X is Apple Inc.?"): the answer-span openers plus the words kg-qgen's asks begin with.
_QUESTION_OPENER = re.compile(
    r"\s+(?:He|She|It|They|The|This|That|There|These|His|Her|Its|In|We|I|So|Then|Hence|Therefore|"
    r"Thus|Is|Does|Did|Was|Are|Were|Given|If|Suppose|Assume|Based|Judging)\b"
)
# Nouns whose "that" clause is mentioned, not asserted ("The claim that Belgrade is Serbia is a
# logical fallacy"): the clause is read like a quotation.
_CONTENT_NOUNS = frozenset(
    {
        "claim", "statement", "idea", "notion", "assertion", "assumption", "belief", "question",
        "rule", "premise", "hypothesis", "proposition", "suggestion", "argument", "view",
    }
)  # fmt: skip
# the clause runs through its own copula up to the sentence's copula (or the end)
_CONTENT_CLAUSE = re.compile(
    r"\b(?:"
    + "|".join(sorted(_CONTENT_NOUNS))
    + r")\s+(?:(?:that|of|about)\s+)?\w[^.;!?]*?\b(?:is|was|are|were|being)\b[^.;!?]*"
    + r"(?=\s(?:is|was|are|were)\b|[.;!?]|$)",
    re.IGNORECASE,
)
# Words right before the asked object when a statement asserts it: a copula, a negation, an
# adverb of a copula or a place preposition ("is not Brazil", "is indeed Atlanta", "born in
# Atlanta"); "The currency of Turkey is ..." says something else about the object.
_PREDICATE_LEADS = frozenset(
    {
        "is", "was", "are", "were", "be", "been", "not", "never", "in", "from", "indeed",
        "actually", "definitely", "certainly", "truly", "also", "still", "really", "always",
    }
)  # fmt: skip
# One or two words and a comma or "!" before a yes/no that stands alone ("Vamos, no!").
_INTERJECTED = re.compile(r"^\W*\w+(?:\s+\w+)?\s*[,!]\s*(yes|no)\s*(?:[,.!;]|$)", re.IGNORECASE)
_OBJECT_PREPOSITIONS = frozenset({"in", "on", "at", "of", "from", "by"})
_QUOTES = re.compile(r"[\"“”«»]([^\"“”«»]*)[\"“”«»]")


@dataclass(frozen=True)
class AskedClaim:
    """What a yes/no question asks: whether ``core`` (a claim about ``obj``) holds (``asks_true``)
    or fails; ``negated`` when the claim itself carries a ``not``."""

    obj: list[str]
    negated: bool
    asks_true: bool
    subject: tuple[str, ...] = ()
    """The claim's words other than its object ("citizenship country of barack obama")."""


def _find(words: list[str], needle: list[str]) -> list[int]:
    w = len(needle)
    return [i for i in range(len(words) - w + 1) if w and words[i : i + w] == needle]


def asked_claim(question: str) -> AskedClaim | None:
    """Parse the final question sentence; ``None`` when no claim object can be found."""
    text = question.strip()
    end = text.rfind("?")
    if end < 0:
        return None
    body = text[:end]
    start = max(
        (
            m.start()
            for m in _SENTENCE_END.finditer(body)
            if m.group(0)[0] != "."
            or not is_abbreviation(body, m.start())
            or _QUESTION_OPENER.match(body, m.start() + 1)
        ),
        default=-1,
    )
    sentence = body[start + 1 :] if start >= 0 else body
    words = tokenize(sentence)
    before = tokenize(body[: start + 1]) if start >= 0 else []
    asks_true = True
    claim = words
    for i in range(len(words)):
        if words[i] == "that" and i > 0:
            head = words[:i]
            if any(w in _FALSE_WORDS for w in head[-3:]) or ("not" in head[-3:]):
                asks_true = False
            elif not any(w in _TRUE_WORDS or w == "follow" for w in head[-3:]):
                continue
            claim = words[i + 1 :]
            break
    else:
        # "Judging by what is actually true, is X Y?": the claim is after the last comma.
        comma = sentence.rfind(",")
        claim = tokenize(sentence[comma + 1 :]) if comma >= 0 else words
    negated = any(w in ("not", "never") for w in claim)
    core = [w for w in claim if w not in ("not", "never")]
    copula = max((i for i, w in enumerate(core) if w in _COPULAS), default=-1)
    if 0 <= copula < len(core) - 1 and copula > 0:
        obj = core[copula + 1 :]
    else:
        # inverted "is Cape Town's country Canada": the longest tail the premise also says
        obj = []
        for k in range(1, len(core)):
            tail = core[k:]
            if _find(before, tail) or _find(core[:k], tail):
                obj = tail
                break
        if not obj and core:
            obj = core[-1:]
    # "a citizen of France", "created in Japan", "a creation of Brazil": the place is the object
    cut = max((i for i, w in enumerate(obj[:-1]) if w in _OBJECT_PREPOSITIONS), default=-1)
    obj = obj[cut + 1 :]
    subject = tuple(w for w in core if w not in obj and w not in _COPULAS)
    return AskedClaim(obj, negated, asks_true, subject) if obj else None


def _polar_hedge(words: list[str]) -> bool:
    polar = [i for i, w in enumerate(words) if w in ("yes", "no")]
    for a, b in itertools.pairwise(polar):
        between = words[a + 1 : b]
        if (
            words[a] != words[b]
            and 0 < len(between) <= 3
            and all(w in _CONNECTORS for w in between)
        ):
            return True
    return False


def decide(
    question: str, committed: str, obj_forms: list[list[str]] | None = None
) -> tuple[str | None, str]:
    """The decision (``"yes"``, ``"no"`` or ``None``) of the committed answer and why."""
    words = tokenize(committed)
    if not words:
        return None, "empty response"
    direct = _direct_answer(words, committed)
    if direct is not None:
        return direct
    claim = asked_claim(question)
    if claim is None:
        return None, "no yes/no and the question's claim could not be read"
    # quoted text, and the clause of "the claim that ...", is mentioned, not asserted
    content = _CONTENT_CLAUSE.search(committed)
    if content is not None:
        committed = (
            committed[: content.start()] + '"' + content.group(0) + '"' + committed[content.end() :]
        )
    unquoted = _QUOTES.sub(" ", committed)
    quoted = " ".join(_QUOTES.findall(committed))
    uwords = tokenize(unquoted)
    asked = "holds" if claim.asks_true else "fails"
    adjectives = [list(a) for a in demonym_table().get(tuple(claim.obj), [])]
    forms = [claim.obj, *(obj_forms or []), *adjectives]
    stated = _stated_claim(uwords, [claim.obj, *(obj_forms or [])], claim, asked)
    if stated is None:  # the object's adjective, describing a person or place ("Austrian city")
        stated = _stated_claim(uwords, adjectives, claim, asked, adjective=True)
    if stated is not None:
        return stated
    # another value counts only in a statement that opens with the claim's subject ("Sydney is
    # a city in Australia"), not in a side clause ("While ... have their roots in Japan")
    other = _other_value(uwords, forms, claim) if _opens_with_subject(uwords, claim) else None
    if other is not None:
        holds = claim.negated  # another value: "X is <obj>" fails, "X is not <obj>" holds
        decision = "yes" if holds == claim.asks_true else "no"
        return decision, f"states another value '{other}'; question asks whether the claim {asked}"
    verdict = _statement_verdict(uwords, quoted, claim, asked)
    if verdict is not None:
        return verdict
    return None, "neither yes nor no, nor a statement about the asked claim"


def _direct_answer(words: list[str], committed: str) -> tuple[str | None, str] | None:
    """A hedge, an evasion or a plain yes/no (first word, or after "the answer is")."""
    slashed = re.search(r"\byes\s*/\s*no\b|\bno\s*/\s*yes\b", committed, re.IGNORECASE)
    if _polar_hedge(words) or slashed:
        return None, "hedges between yes and no"
    for phrase in _EVASIONS:
        if _find(words, list(phrase)):
            return None, f"refusal or evasion ('{' '.join(phrase)}')"
    if words[0] in ("yes", "no"):
        return words[0], f"answers '{words[0]}'"
    interjected = _INTERJECTED.match(committed)
    if interjected is not None:  # "Vamos, no!", "Well, yes."
        word = interjected.group(1).lower()
        return word, f"answers '{word}' after an interjection"
    for lead in (["answer", "is"], ["answer", "would", "be"], ["answer"]):
        at = _find(words, lead)
        if at and at[0] + len(lead) < len(words) and words[at[0] + len(lead)] in ("yes", "no"):
            word = words[at[0] + len(lead)]
            return word, f"answers '{word}'"
    return None


def _stated_claim(
    uwords: list[str],
    forms: list[list[str]],
    claim: AskedClaim,
    asked: str,
    adjective: bool = False,
) -> tuple[str, str] | None:
    """The decision when the (unquoted) response states the asked claim, held or not (with
    ``adjective``, ``forms`` are adjectives: they must describe a person or place)."""
    for form in forms:
        for at in _find(uwords, form):
            if adjective and not _describing(uwords, at + len(form)):
                continue
            if uwords[at + len(form) : at + len(form) + 1] == ["s"]:
                continue  # "Tokyo is not Japan's capital": an owner, not the stated value
            head = uwords[:at]
            if _other_relation(head, claim):
                continue
            clause_start = max((i + 1 for i, w in enumerate(head) if w in ("that",)), default=0)
            if any(w in _HYPOTHETICAL for w in head) or not _asserted(head, adjective):
                continue
            window = head[max(clause_start, at - 4) :]
            sign = -1 if any(w in _NEGATIONS for w in window) else 1
            truth = head[:clause_start]
            if any(w in _FALSE_WORDS for w in truth) or "not" in truth[-4:]:
                sign = -sign
            holds = (sign == 1) != claim.negated
            decision = "yes" if holds == claim.asks_true else "no"
            return decision, (
                f"states the claim about '{' '.join(form)}' "
                f"{'holds' if holds else 'fails'}; question asks whether it {asked}"
            )
    return None


def _other_relation(head: list[str], claim: AskedClaim) -> bool:
    """The statement before the object is about another relation than the claim's: its subject
    opens with a relation noun the claim does not have ("The capital city of Obama's country is
    indeed Paris, not France" for "Obama's country is not France?")."""
    copula = max((i for i, w in enumerate(head) if w in _COPULAS), default=-1)
    clause = max((i + 1 for i, w in enumerate(head[:copula]) if w in ("that", "which")), default=0)
    subject = head[clause:copula] if copula > 0 else []
    of = subject.index("of") if "of" in subject else -1
    if of <= 0 or not claim.subject:
        return False
    return not set(subject[:of]) & set(claim.subject)


def _statement_verdict(
    uwords: list[str], quoted: str, claim: AskedClaim, asked: str
) -> tuple[str, str] | None:
    """A verdict on the statement as a whole ("That is true.", 'The statement "..." is false')."""
    truth_at = [k for k, w in enumerate(uwords) if _predicative_truth(uwords, k)]
    if not (truth_at and (quoted or len(uwords) <= 8)):
        return None
    k = truth_at[0]
    truth_words = [uwords[k]]
    sign = 1 if truth_words[0] in _TRUE_WORDS else -1
    if any(w in _NEGATIONS for w in uwords[max(0, k - 3) : k]):
        sign = -sign
    # "That is true" judges the claim as asked; a quoted statement carries its own "not"
    stated_negated = any(w in ("not", "never") for w in tokenize(quoted)) if quoted else None
    stated_true = sign == 1
    same_polarity = stated_negated is None or stated_negated == claim.negated
    holds = stated_true == same_polarity
    decision = "yes" if holds == claim.asks_true else "no"
    return decision, f"calls the statement {truth_words[0]}; question asks whether it {asked}"


# Nouns that call a statement false when they are its predicate ("That's a common myth").
_FALSE_NOUNS = frozenset({"myth", "misconception", "falsehood", "fiction"})
_TRUTH_ADVERBS = frozenset({"not", "entirely", "completely", "absolutely", "quite", "also"})


def _predicative_truth(uwords: list[str], k: int) -> bool:
    """``uwords[k]`` is a truth word said of the statement: opening the answer ("True.") or
    after a copula, maybe with an adverb ("That is not true"; "is a common myth" for a false
    noun), not a modifier inside another name ("a logical fallacy known as False Dilemma")."""
    word = uwords[k]
    copulas = {*_COPULAS, "s", "be", "sounds", "seems"}
    if word in _FALSE_NOUNS:
        return any(w in copulas for w in uwords[max(0, k - 3) : k])
    if word not in _TRUE_WORDS - {"case"} and word not in _FALSE_WORDS:
        return False
    before = [w for w in uwords[max(0, k - 3) : k] if w not in _TRUTH_ADVERBS]
    return k == 0 or (bool(before) and before[-1] in copulas)


_NOT_SUBJECT_WORDS = frozenset({"it", "so", "that", "s", "of", "is", "this", "true", "case"})


def _opens_with_subject(uwords: list[str], claim: AskedClaim) -> bool:
    """The answer's first word is a content word of the asked claim's subject."""
    return bool(uwords) and uwords[0] in set(claim.subject) - _NOT_SUBJECT_WORDS


def _other_value(uwords: list[str], forms: list[list[str]], claim: AskedClaim) -> str | None:
    """When the asked object is a country or continent, the response asserts another one (or its
    adjective) as the subject's value: "Sydney is a city in Australia" for "is Sydney's country
    Germany?". Only a place of the demonym table counts, asserted (after a copula, "in", "from"),
    not negated and not inside a condition."""
    table = demonym_table()
    if tuple(claim.obj) not in table:
        return None
    own = {tuple(f) for f in forms}
    parts = part_words(claim.obj)
    places = {name for name in table} | {a for adjs in table.values() for a in adjs}
    for width in (3, 2, 1):
        for at in range(len(uwords) - width + 1):
            value = tuple(uwords[at : at + width])
            if value not in places or value in own or any(w in claim.obj for w in value):
                continue
            if value in parts:
                continue  # "an English city" does not deny the United Kingdom
            if value not in table and not _describing(uwords, at + width):
                continue  # "the Turkish lira": an adjective of a thing
            head = uwords[:at]
            if not _asserted(head, value not in table) or _HYPOTHETICAL & set(head):
                continue
            if _NEGATIONS & set(head[-4:]):
                continue
            return " ".join(value)
    return None


def _describing(words: list[str], after: int) -> bool:
    """An adjective ending before ``after`` describes a person or place (or ends the clause)."""
    return after >= len(words) or describes(words[after], ADJECTIVE_HEADS)


_PLACE_LEADS = frozenset({"in", "from"})


def _asserted(head: list[str], adjective: bool) -> bool:
    """The words before a value assert it: a predicate lead right before it ("is Austria", "in
    Austria"), a place after "in"/"from" that it refines ("in Sydney, Australia"), or, for an
    adjective, one describing word after a copula ("is an iconic Australian landmark")."""
    if not head:
        return False
    if head[-1] in _PREDICATE_LEADS:
        return True
    if len(head) < 2:
        return False
    if adjective:
        return head[-2] in _COPULAS and head[-1] not in _PREDICATE_LEADS | _PLACE_LEADS
    return head[-2] in _PLACE_LEADS
