"""DS question wording: the options, the elimination clues and the frame (template generator).

A clue reads as a noun phrase naming its option through another entity, never the option
itself (:mod:`kg_qgen.match.ds_clues`):

* the option is the clue fact's subject, (d r' v): "the one whose capital is Berlin", "the
  option with Berlin as its capital", "the one that is headquartered in Budapest" (a relation
  whose noun reads wrong with "whose" uses its clause, :attr:`RelationPhrase.verbs`);
* the option is its object, (x r' d): "the capital of Germany", "Germany's capital", "the one
  Angela Merkel is a citizen of".

The clues, in the match's own order (drawn apart from the option order), are joined into one
elimination clause ("it is neither A nor B", "A and B are ruled out", ...), and the clause into
one of :data:`N_FRAMES` frames. Every choice is drawn from the caller's seeded RNG.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from kg_qgen.match.ds_clues import Clue
from kg_qgen.wording.phrasing import RelationPhrase

__all__ = ["N_FRAMES", "clue_phrase", "ds_question", "elimination_clause"]

N_FRAMES = 13

_FORWARD = (
    "the one whose {n} is {v}",
    "the option with {v} as its {n}",
    "the candidate whose {n} is {v}",
    "the one that has {v} as its {n}",
    "the option whose {n} is {v}",
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def clue_phrase(
    clue: Clue, phrase: RelationPhrase, name: Callable[[str], str], rng: random.Random
) -> str:
    """The noun phrase that names ``clue``'s option through its other entity (module docs)."""
    other = name(clue.other)
    if clue.side == "subject":
        if phrase.inverse:
            return f"the one that is {phrase.inverse} {other}"
        verbs = [v for v in phrase.verbs if v.startswith("{s} ")]
        if not phrase.plain and verbs:
            verb = rng.choice(verbs)[len("{s} ") :]
            return "the one that " + verb.replace("{not}", "").replace("{o}", other)
        return rng.choice(_FORWARD).format(n=phrase.varied(rng).noun, v=other)
    forms = [phrase.np(other)]
    if phrase.plain and not other.startswith("the ") and " of " not in other:
        forms.append(phrase.possessive(other))
    forms += [
        "the one " + v[: -len(" {o}")].replace("{s}", other).replace("{not}", "")
        for v in phrase.verbs
        if v.startswith("{s} ") and v.endswith(" {o}")
    ]
    return rng.choice(forms)


def _series(items: list[str], last: str) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} " + items[-1]


def elimination_clause(nps: list[str], rng: random.Random) -> str:
    """One clause ruling out every clue's option ("it is neither A nor B")."""
    k = rng.randrange(6)
    if k == 0:
        if len(nps) == 2:
            return f"it is neither {nps[0]} nor {nps[1]}"
        return "it is not " + _series(nps, "and not").replace(", ", ", not ")
    if k == 1:
        return f"{_series(nps, 'and')} are ruled out"
    if k == 2:
        return "the answer is not " + ", nor ".join(nps)
    if k == 3:
        both = "both" if len(nps) == 2 else "all"
        return f"{_series(nps, 'and')} can {both} be excluded"
    if k == 4:
        return (
            f"neither {nps[0]} nor {nps[1]} is the right option"
            if len(nps) == 2
            else (f"none of {_series(nps, 'and')} is the right option")
        )
    return f"you can rule out {_series(nps, 'as well as')}"


def ds_question(
    np: str, wh: str, options: list[str], clause: str, rng: random.Random
) -> tuple[str, int]:
    """The question text and its frame number: ``np`` is "the r of s", ``wh`` "What"/"Who"."""
    joiner = rng.choice((" or ", " and ", ", or "))
    opts = ", ".join(options[:-1]) + joiner + options[-1]
    frame = rng.randrange(N_FRAMES)
    q = (  # the N_FRAMES frames, by number
        f"{_cap(np)} is one of {opts}. Also, {clause}. Which one is it?",
        f"Exactly one of {opts} is {np}, and {clause}. Which is it?",
        f"Choose from {opts}: {wh.lower()} is {np}? Note that {clause}.",
        f"Among {opts}, one is {np}. Given that {clause}, which one?",
        f"Here are candidates for {np}: {opts}. We know {clause}. What is the answer?",
        f"Knowing that {clause}, pick {np} from these: {opts}.",
        f"{_cap(clause)}. So which of {opts} is {np}?",
        # a yes/no-looking frame lists the options with "or", never "and"
        f"Is {np} {', '.join(options[:-1])} or {options[-1]}? Bear in mind that {clause}.",
        f"Which of {opts} is {np}, if {clause}?",
        f"{_cap(np)}: {opts}? Hint: {clause}.",
        f"Since {clause}, which is {np}: {opts}?",
        f"Options: {opts}. {_cap(clause)}. Which is {np}?",
        f"{_cap(np)} is among {opts}; {clause}. Name it.",
    )[frame]
    return q, frame
