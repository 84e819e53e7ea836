"""Wordings of MT (modus tollens) questions: the conditional, then the ask in the last sentence.

A positive conditional (candidate d) reads "if the r1 of s is d, then the r2 of the r1 of s is v";
a negative one (candidate b) "if the r1 of s is not b, then the r2 of the r1 of s is not o2"
(:mod:`kg_qgen.match.mt`). The last sentence asks about the antecedent's proposition in the form
"... the r1 of s is c?" (plain) or "... the r1 of s is not c?" (negated), so a reader (and the
judge) can compare a response with it directly.

Why these wordings: the answer is yes exactly when (negative form) != (negated ask), so a word
that marked the negative conditionals and the "not" of the negated ask would together read the
answer (a two-word rule, ``kg_qgen.verify.balance``). The negative conditionals therefore come in
six wordings with different words ("is not", "is other than", "differs from", "is different
from", "is anything besides", "isn't"), and each positive conditional's consequent mirrors one of
them ("is none other than", "does not differ from", "is no different from", ...), so every word
occurs about as often in both forms; the frames, lead-ins and asks are shared by both forms and
both polarities, and the four cells of a relation pair's quad share their draws.
"""

from __future__ import annotations

import random

from kg_qgen.generate.phrasing import RelationPhrase

__all__ = ["mt_question"]

_LEADS = ("", "", "", "Suppose this: ", "Given: ")
_ASKS = (
    "Is it the case that {p}?",
    "Is it true that {p}?",
    "Does it follow that {p}?",
    "Can you conclude that {p}?",
    "Then is it so that {p}?",
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# (antecedent, consequent) for a negative conditional: "{t} is not {c}" / "{n} is not {v}"
_NEGATIONS = (
    ("{t} is not {c}", "{n} is not {v}"),
    ("{t} is other than {c}", "{n} is other than {v}"),
    ("{t} differs from {c}", "{n} differs from {v}"),
    ("{t} is different from {c}", "{n} is different from {v}"),
    ("{t} is anything besides {c}", "{n} is anything besides {v}"),
    ("{t} isn't {c}", "{n} isn't {v}"),
)
# consequent of a positive conditional: the same words as the negative ones use, so that no
# word marks a form ("none other than", "no different from" say "is")
# each mirrors the negative wording at the same position
_AFFIRMATIONS = (
    "{n} is {v}",
    "{n} is none other than {v}",
    "{n} does not differ from {v}",
    "{n} is no different from {v}",
    "{n} is {v} and nothing besides",
    "{n} is indeed {v}",
)
# the conditional A -> B, the same frames for both forms
_FRAMES = (
    "if {a}, then {b}",
    "{b} if {a}",
    "provided that {a}, {b}",
    "in case {a}, it follows that {b}",
    "{a} only if {b}",
    "whenever {a}, {b}",
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
    """(question, frame) for one MT cell (module docs).

    ``rng`` must be seeded by the chain (the pair), not the item: the two asks of a chain then
    share every word except the "not" of the negated ask.
    """
    asked_p1 = p1
    p1, p2 = p1.varied(rng), p2.varied(rng)
    thing = p1.np(subject)
    if not p1.inverse and not subject.startswith("the ") and rng.random() < 0.5:
        thing = p1.possessive(subject)  # the conditional's wording; the ask keeps p1.np
    ref = rng.randrange(3)
    if p2.inverse or p1.inverse:
        then = p2.np(thing)
    elif ref == 0 and candidate_pronoun is not None:
        then = f"{candidate_pronoun} {p2.noun}"
    elif ref == 1:
        then = rng.choice((f"the {p2.noun} of that {p1.noun}", f"that {p1.noun}'s {p2.noun}"))
    else:
        then = p2.np(thing)
    c, v = candidate, consequent
    negation = rng.randrange(len(_NEGATIONS))
    if form == "positive":
        a = f"{thing} is {c}"
        b = _AFFIRMATIONS[negation].format(n=then, v=v)
    else:
        a_t, b_t = _NEGATIONS[negation]
        a, b = a_t.format(t=thing, c=c), b_t.format(n=then, v=v)
    frame = rng.randrange(len(_FRAMES))
    cond = _FRAMES[frame].format(a=a, b=b)
    ask = rng.choice(_ASKS)
    lead = rng.choice(_LEADS)
    negated = ("is not", "isn't")[rng.randrange(2)]  # drawn for both asks of the pair alike
    asked = asked_p1.np(subject)
    if not p1.inverse and not subject.startswith("the ") and rng.random() < 0.5:
        asked = asked_p1.possessive(subject)
    proposition = f"{asked} {negated if polarity == 'negated' else 'is'} {c}"
    cond = cond.replace("that that ", "that the ")  # "it follows that that developer's ..."
    return f"{lead}{_cap(cond)}. {ask.format(p=proposition)}", frame
