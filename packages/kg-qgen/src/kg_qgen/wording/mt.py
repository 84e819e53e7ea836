"""Wordings of MT (modus tollens) questions: two conditionals in one shape, then a two-way ask.

An MT item (:mod:`kg_qgen.match.mt`) states, for each option x (the gold k and the distractor m)
in a seeded order, "if the r1 of s is x, then the r2 of the r1 of s is n_x", and asks which of
the two options (in their own seeded order) is the r1 of s. Every wording choice is drawn ONCE
per item and used for both conditionals (frame, verb, noun, how the consequent names the
bridge), so the two conditionals differ only in their names: no word, negation or position
tells the gold from the distractor (``kg_qgen.verify.mt_text`` trains a text classifier to make
sure). No wording says "it follows", "therefore" or "hence": nothing follows from the stated
premises alone; the false consequent is known only from the world.
"""

from __future__ import annotations

import random

from kg_qgen.wording.phrasing import RelationPhrase

__all__ = ["FRAMES", "mt_question"]

# the conditional A -> B; the frame of an item is its index here (verify's spread check)
FRAMES = (
    "if {a}, then {b}",
    "{b} if {a}",
    "provided that {a}, {b}",
    "if we assume that {a}, then {b}",
    "assuming {a}, {b}",
    "{b} provided that {a}",
    "if {a}, {b}",
    "suppose {a}; then {b}",
    "it holds that {b} if {a}",
    "in the event that {a}, {b}",
    "{b} in the event that {a}",
    "on the assumption that {a}, {b}",
    "if it is the case that {a}, then {b}",
    "{b}, on condition that {a}",
    "under the condition that {a}, {b}",
)
# between the two conditionals
_JOINS = (". ", ". ", "; and ", ". Also, ", ". Likewise, ", ". In the same way, ", ". And ")
_LEADS = (
    "",
    "",
    "",
    "",
    "Consider two conditionals. ",
    "Here are two conditionals. ",
    "Take both of these as given: ",
    "Two statements: ",
    "Both of the following hold. ",
    "Read the following. ",
    "Premises: ",
    "Note: ",
)
# the ask: {np} the r1 of s, {x} and {y} the options in display order
_ASKS = (
    "Which of {x} and {y} is {np}?",
    "Is {np} {x} or {y}?",
    "Which one is {np}, {x} or {y}?",
    "Of {x} and {y}, which is {np}?",
    "Between {x} and {y}, which one is {np}?",
    "So which is {np}: {x} or {y}?",
    "Which of the two, {x} or {y}, is {np}?",
    "{Np}: {x} or {y}?",
    "Which is {np}, {x} or {y}?",
    "Which is it, {x} or {y}, that is {np}?",
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def mt_question(
    *,
    p1: RelationPhrase,
    p2: RelationPhrase,
    subject: str,
    conditionals: list[tuple[str, str]],
    options: list[str],
    rng: random.Random,
) -> tuple[str, int]:
    """(question, frame) of one MT item (module docs); ``rng`` draws every wording choice.

    ``conditionals``: (candidate, consequent) names in stated order; ``options``: the two
    candidate names in display order."""
    frame = rng.randrange(len(FRAMES))
    p1, p2, asked = p1.varied(rng), p2.varied(rng), p1.varied(rng)
    thing = p1.np(subject)
    if p1.plain and not subject.startswith("the ") and rng.random() < 0.5:
        thing = p1.possessive(subject)
    then = _consequent_subject(p1, p2, thing, frame, rng)
    a_first = FRAMES[frame].index("{a}") < FRAMES[frame].index("{b}")
    bridge = f"that {p1.noun}" if a_first and p1.plain and rng.random() < 0.4 else thing
    verb_a = rng.choice(p1.verbs) if p1.verbs and rng.random() < 0.5 else None
    verb_b = rng.choice(p2.verbs) if p2.verbs and rng.random() < 0.5 else None
    value_first = verb_b is None and rng.random() < 0.25  # "N is the CEO of ..." (same for both)
    parts = []
    for c, v in conditionals:
        a = verb_a.format(s=subject, o=c, **{"not": ""}) if verb_a else f"{thing} is {c}"
        if verb_b:  # the verb's subject is the bridge ("that director is a citizen of ...")
            b = verb_b.format(s=bridge, o=v, **{"not": ""})
        else:
            b = f"{v} is {then}" if value_first else f"{then} is {v}"
        parts.append(FRAMES[frame].format(a=a, b=b))
    join = rng.choice(_JOINS)
    # a new sentence after ". " starts with a capital; the frames start with a lower-case word
    # or a name (never lowered: parts are built without capitals)
    body = _cap(parts[0]) + join + (_cap(parts[1]) if join == ". " else parts[1])
    np_ = asked.np(subject)
    if asked.plain and not subject.startswith("the ") and rng.random() < 0.5:
        np_ = asked.possessive(subject)
    ask = rng.choice(_ASKS).format(np=np_, Np=_cap(np_), x=options[0], y=options[1])
    return f"{rng.choice(_LEADS)}{body}. {ask}", frame


def _consequent_subject(
    p1: RelationPhrase, p2: RelationPhrase, thing: str, frame: int, rng: random.Random
) -> str:
    """How the consequent names the bridge: its noun phrase again or "that r1" (the latter only
    where the antecedent comes first, so "that" has something to point back to)."""
    a_first = FRAMES[frame].index("{a}") < FRAMES[frame].index("{b}")
    if a_first and p1.plain and p2.plain and rng.random() < 0.4:
        if " of " in p1.noun:  # not "that country of citizenship's capital"
            return f"the {p2.noun} of that {p1.noun}"
        return rng.choice((f"the {p2.noun} of that {p1.noun}", f"that {p1.noun}'s {p2.noun}"))
    return p2.np(thing)
