"""Wordings of MT (modus tollens) questions: the conditional, then the ask in the last sentence.

A positive conditional (candidate d) reads "if the r1 of s is d, then the r2 of the r1 of s is v";
a negative one (candidate b) "if the r1 of s is not b, then the r2 of the r1 of s is not o2"
(:mod:`kg_qgen.match.mt`). The last sentence asks about the antecedent's proposition in the form
"... the r1 of s is c?" (plain) or "... the r1 of s is not c?" (negated), so a reader (and the
judge) can compare a response with it directly.

Why these wordings: the answer is yes exactly when (negative form) != (negated ask), so a word
that marked the negative conditionals and the "not" of the negated ask would together read the
answer (a two-word rule, ``kg_qgen.verify.balance``). Each line of :data:`_WORDINGS` therefore
words the negative and the positive conditional with the SAME words, only where "not" stands
differs ("if X is not c, then Y is anything other than v" / "if X is c, then Y is not anything
other than v"), so no template word marks the form.

Every question draws its own wording (its RNG, seeded by the generator with the seed and the
question's position). In round three a mirror pair (a negative question and the positive one
whose distractor is its candidate) shared every draw, so a word was in a pair's yes item exactly
when it was in its no item; that held the two-word rule at chance by construction but kept MT's
self-BLEU at 0.83 (each item's mate repeated its wording). Independent draws alone would fail
verify's 0.65 bound most of the time at 60-100 items (the bound sits at the permutation null:
``benchmarks/kgqgen_short_rule_null.py``), so the build filters them adversarially: it redraws the
kept MT set's wordings until no one- or two-word rule passes the bound (:mod:`kg_qgen.wording_filter`).
"""

from __future__ import annotations

import random

from kg_qgen.generate.phrasing import RelationPhrase

__all__ = ["mt_question"]

# leads before the conditional and asks of the last sentence: short and many (never
# "false"/"not": the ask's polarity is its proposition's "is not" alone)
_LEADS = (
    "",
    "",
    "",
    "",
    "",
    "",
    "Given: ",
    "Known: ",
    "Premise: ",
    "Consider this: ",
    "Fact: ",
    "Take as given: ",
    "Here is a conditional. ",
    "Accept this: ",
    "Note: ",
    "Start from this. ",
)
_ASKS = (
    "Is it the case that {p}?",
    "Is it true that {p}?",
    "Does it follow that {p}?",
    "So {p}?",
    "Then {p}?",
    "Is it correct that {p}?",
    "Hence, {p}?",
    "Therefore, {p}?",
    "Thus {p}?",
    "So is it true that {p}?",
    "Then does it follow that {p}?",
    "Can we conclude that {p}?",
    "Does this mean that {p}?",
    "Yes or no: {p}?",
    "Is it so that {p}?",
    "Can one infer that {p}?",
    "Does it hold that {p}?",
    "From this, is it the case that {p}?",
    "Given that, {p}?",
    "Answer yes or no: {p}?",
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# (negative antecedent, negative consequent, positive antecedent, positive consequent): each
# line's two conditionals use the SAME words, only where "not" stands differs, so no word marks
# a form: "if {t} is not {c}, then {n} is anything other than {v}" (= if not c then not v) and
# "if {t} is {c}, then {n} is not anything other than {v}" (= if c then v)
_WORDINGS = (
    (
        "{t} is not {c}",
        "{n} is anything other than {v}",
        "{t} is {c}",
        "{n} is not anything other than {v}",
    ),
    (
        "{t} is not {c}",
        "{n} is something other than {v}",
        "{t} is {c}",
        "{n} is not something other than {v}",
    ),
    ("{t} is not {c}", "{n} is different from {v}", "{t} is {c}", "{n} is not different from {v}"),
    ("{t} is anything but {c}", "{n} is not {v}", "{t} is not anything but {c}", "{n} is {v}"),
    ("{t} is other than {c}", "{n} is not {v}", "{t} is not other than {c}", "{n} is {v}"),
    ("{t} is not {c}", "{n} is distinct from {v}", "{t} is {c}", "{n} is not distinct from {v}"),
    ("{t} is distinct from {c}", "{n} is not {v}", "{t} is not distinct from {c}", "{n} is {v}"),
    (
        "{t} is not the same as {c}",
        "{n} is different from {v}",
        "{t} is the same as {c}",
        "{n} is not different from {v}",
    ),
    # the consequent with its value first ("Tim Cook is not the CEO of ...")
    ("{t} is anything but {c}", "{v} is not {n}", "{t} is not anything but {c}", "{v} is {n}"),
    ("{t} is other than {c}", "{v} is not {n}", "{t} is not other than {c}", "{v} is {n}"),
    (
        "{t} is not identical to {c}",
        "{n} is other than {v}",
        "{t} is identical to {c}",
        "{n} is not other than {v}",
    ),
)
# the conditional A -> B, the same frames for both forms
_FRAMES = (
    "if {a}, then {b}",
    "{b} if {a}",
    "provided that {a}, {b}",
    "in case {a}, it follows that {b}",
    "{a} only if {b}",
    "whenever {a}, {b}",
    "{b} whenever {a}",
    "assuming {a}, {b}",
    "{b} provided that {a}",
    "if {a}, {b}",
    "{b} as long as {a}",
    "suppose {a}; then {b}",
    "it holds that {b} if {a}",
    "in the event that {a}, {b}",
    "{b} in the event that {a}",
    "on the assumption that {a}, {b}",
    "granted that {a}, {b}",
    "when {a}, {b}",
    "if it is the case that {a}, then {b}",
    "{b}, on condition that {a}",
    "under the condition that {a}, {b}",
)


def mt_question(
    *,
    p1: RelationPhrase,
    p2: RelationPhrase,
    subject: str,
    candidate: str,
    consequent: str,
    form: str,
    polarity: str,
    candidate_pronoun: str | None,
    rng: random.Random,
) -> tuple[str, int]:
    """(question, frame) for one MT cell (module docs); ``rng`` draws every wording choice."""
    wording = rng.randrange(len(_WORDINGS))
    frame = rng.randrange(len(_FRAMES))
    ask = rng.choice(_ASKS)
    # the ask names the relation with its own draw of the noun (same relation, other words)
    asked_p1 = p1.varied(rng)
    p1, p2 = p1.varied(rng), p2.varied(rng)
    thing = p1.np(subject)
    if not p1.inverse and not subject.startswith("the ") and rng.random() < 0.5:
        thing = p1.possessive(subject)  # the conditional's wording; the ask keeps p1.np
    then = _consequent_subject(p1, p2, thing, candidate_pronoun, frame, rng)
    c = candidate
    a, b = _clauses(p1, p2, subject, thing, then, c, consequent, form, wording, rng)
    possessive_ask = rng.random() < 0.5
    verb_ask = rng.choice(p1.verbs) if p1.verbs and rng.random() < 0.5 else None
    cond = _FRAMES[frame].format(a=a, b=b)
    lead = rng.choice(_LEADS)
    proposition = _proposition(asked_p1, p1, subject, c, polarity, possessive_ask, verb_ask)
    cond = cond.replace("that that ", "that the ")  # "it follows that that developer's ..."
    return f"{lead}{_cap(cond)}. {ask.format(p=proposition)}", frame


def _consequent_subject(
    p1: RelationPhrase,
    p2: RelationPhrase,
    thing: str,
    candidate_pronoun: str | None,
    frame: int,
    rng: random.Random,
) -> str:
    """How the consequent names the bridge: its noun phrase again, the candidate's pronoun or
    "that r1" (two draws always, then one only where a choice is open)."""
    ref = rng.randrange(4)
    that = rng.choice((f"the {p2.noun} of that {p1.noun}", f"that {p1.noun}'s {p2.noun}"))
    b_first = _FRAMES[frame].index("{b}") < _FRAMES[frame].index("{a}")
    if not p2.plain or not p1.plain or b_first:
        # the consequent comes first (no pronoun before its antecedent), or a relation whose
        # object is named by a phrase ("the city where X is located"): no "its <noun>" reads
        return p2.np(thing)
    if ref == 0 and candidate_pronoun is not None and rng.random() < 0.5:
        return f"{candidate_pronoun} {p2.noun}"
    if ref == 1 and rng.random() < 0.5:
        return that
    # the subject named again: fewer words shared with other questions than "that r1"
    return p2.np(thing)


def _clauses(
    p1: RelationPhrase,
    p2: RelationPhrase,
    subject: str,
    thing: str,
    then: str,
    c: str,
    v: str,
    form: str,
    wording: int,
    rng: random.Random,
) -> tuple[str, str]:
    """The antecedent and consequent of the conditional, in the cell's form."""
    neg_a, neg_b, pos_a, pos_b = _WORDINGS[wording]
    # the fact as a clause ("System 7 was not developed by Apple Inc.") where the line says
    # plainly "is" / "is not": the same words in both forms, "not" where the line has it
    verb_a = rng.choice(p1.verbs) if p1.verbs and rng.random() < 0.5 else None
    verb_b = rng.choice(p2.verbs) if p2.verbs and rng.random() < 0.5 else None
    if verb_a is not None and (neg_a, pos_a) == ("{t} is not {c}", "{t} is {c}"):
        neg_a = verb_a.format(s=subject, o="{c}", **{"not": " not"})
        pos_a = verb_a.format(s=subject, o="{c}", **{"not": ""})
    if verb_b is not None and (neg_b, pos_b) == ("{n} is not {v}", "{n} is {v}"):
        neg_b = verb_b.format(s=thing, o="{v}", **{"not": " not"})
        pos_b = verb_b.format(s=thing, o="{v}", **{"not": ""})
    if form == "positive":
        return pos_a.format(t=thing, c=c), pos_b.format(n=then, v=v)
    return neg_a.format(t=thing, c=c), neg_b.format(n=then, v=v)


def _proposition(
    asked_p1: RelationPhrase,
    p1: RelationPhrase,
    subject: str,
    c: str,
    polarity: str,
    possessive_ask: bool,
    verb_ask: str | None,
) -> str:
    """What the question asks about: the candidate as the subject's r1, plain or negated."""
    asked = asked_p1.np(subject)
    if not p1.inverse and not subject.startswith("the ") and possessive_ask:
        asked = asked_p1.possessive(subject)
    if verb_ask is not None:
        return verb_ask.format(s=subject, o=c, **{"not": " not" if polarity == "negated" else ""})
    return f"{asked} {'is not' if polarity == 'negated' else 'is'} {c}"
