"""Wordings of MT (modus tollens) questions: the conditional, then the ask in the last sentence.

A positive conditional (candidate d) reads "if the r1 of s is d, then the r2 of the r1 of s is v";
a negative one (candidate b) "if the r1 of s is not b, then the r2 of the r1 of s is not o2"
(:mod:`kg_qgen.match.mt`). The last sentence asks about the antecedent's proposition in the form
"... the r1 of s is c?" (plain) or "... the r1 of s is not c?" (negated), so a reader (and the
judge) can compare a response with it directly.

Why these wordings: the answer is yes exactly when (negative form) != (negated ask), so a word
that marked the negative conditionals and the "not" of the negated ask would together read the
answer (a two-word rule, ``kg_qgen.verify.balance``). So every conditional of both forms says
"not" (the ask's "not" is then no cue), and neither form doubles a negation to get it: a negative
conditional negates plainly ("is not", "a company other than", "someone else, not Tim Cook"), a
positive one says "not" only in a contrast ("Tim Cook and not someone else", "Apple Inc., not
another company", "is not some other company but Apple Inc."). Up to round four each line worded
both forms with the same words, only where "not" stood differing, which forced a double negative
on one of them ("is not anything other than v", "is not other than c"); since the build filters
the kept set's draws adversarially (below), the two forms draw from their own lists
(:data:`_NEGATIVE`, :data:`_POSITIVE`). A word that marks one form (e.g. "than") reads nothing by
itself while "not" is in every conditional; the bigrams a negated ask holds ("is not", "not
<candidate>") are kept at similar shares in both forms ("isn't", "a company other than" carry the
negative's "not" elsewhere). Whole random draws of the kept MT sets score about the same best
one/two-word rule as round four's lines did (mean of 100 draws, before filtering: MQuAKE-hard-dev
seeds 0-3 and 7 0.679-0.702 vs 0.679-0.704, built-in KB seeds 0-8 0.003 higher on average).

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
    # labels that fit a conditional after them: no "Fact:" / "Known:" before "On the assumption
    # that ..." (a hypothesis called a fact), no "Given:" before the ask "Given that, ...?"
    "Premise: ",
    "Consider this: ",
    "We are told: ",
    "Take this as true: ",
    "Consider the following. ",
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


# The negative conditional (if not c, then not v) and the positive one (if c, then v), drawn
# separately (module docs): every line says "not", none negates twice. Placeholders: {t} the r1
# noun phrase, {c} the candidate, {n} the r2 noun phrase of the bridge, {v} the consequent
# value; {other1}/{else1} ("a company other than", "another company") name another r1 object,
# {other}/{else} ("someone other than", "someone else") another r2 value (:func:`_others`).
_NEGATIVE = (
    ("{t} is not {c}", "{n} is not {v}"),
    ("{t} isn't {c}", "{n} is {else}, not {v}"),
    ("{t} is {other1} {c}", "{n} is not {v}"),
    ("{t} is {other1} {c}", "{v} is not {n}"),
    ("{t} isn't {c}", "{n} is not {v} but {else}"),
    ("{t} is {other1} {c}", "{n} is {else}, not {v}"),
    ("{t} is {other1} {c}", "{else}, not {v}, is {n}"),
    ("{t} is {other1} {c}", "{n} must be {else}, not {v}"),
    ("{t} is {else1}, not {c}", "{n} is {other} {v}"),
    ("{t} is {other1} {c}", "{n} is {else} and not {v}"),
)
_POSITIVE = (
    ("{t} is {c}", "{n} is {v} and not {else}"),
    ("{t} is none other than {c}", "{n} is {v}, not {else}"),
    ("{t} is {c}", "{v}, not {else}, is {n}"),
    ("{t} is {c}", "{v} is {n}, not {else}"),
    ("{t} is {c} and not {else1}", "{n} is {v}"),
    ("{t} is {c}, not {else1}", "{v} is {n}"),
    ("{t} is not {else1} but {c}", "{n} is none other than {v}"),
    ("{t} is none other than {c}", "{n} is not {else} but {v}"),
    ("{t} is {c}", "{n} must be {v}, not {else}"),
    ("{t} is not {else1} but {c}", "{v} is {n}"),
    ("{t} is {c}, not {else1}", "{n} is {v}"),
    ("{t} is not {else1} but {c}", "{n} must be {v}"),
)
# the conditional A -> B, the same frames for both forms
_FRAMES = (
    "if {a}, then {b}",
    "{b} if {a}",
    "provided that {a}, {b}",
    "in case {a}, it follows that {b}",
    # not "{a} only if {b}": right, but read backwards by many ("X is Apple only if its CEO is
    # not another person but Tim Cook")
    "if we assume that {a}, then {b}",
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
    subject_pronoun: str | None = None,
) -> tuple[str, int]:
    """(question, frame) for one MT cell (module docs); ``rng`` draws every wording choice.

    ``candidate_pronoun`` / ``subject_pronoun``: the possessive pronoun of the candidate and of
    the subject ("its", "their", None when unknown); the consequent says "its <noun>" for the
    candidate only where no other reading is open (:func:`_consequent_subject`)."""
    lines = _NEGATIVE if form == "negative" else _POSITIVE
    wording = rng.randrange(len(lines))
    frame = rng.randrange(len(_FRAMES))
    ask = rng.choice(_ASKS)
    # the ask names the relation with its own draw of the noun (same relation, other words)
    asked_p1 = p1.varied(rng)
    p1, p2 = p1.varied(rng), p2.varied(rng)
    thing = p1.np(subject)
    if not p1.inverse and not subject.startswith("the ") and rng.random() < 0.5:
        thing = p1.possessive(subject)  # the conditional's wording; the ask keeps p1.np
    pronoun = (
        candidate_pronoun if _pronoun_is_clear(form, candidate_pronoun, subject_pronoun) else None
    )
    then = _consequent_subject(p1, p2, thing, pronoun, frame, rng)
    c = candidate
    a, b = _clauses(p1, p2, subject, thing, then, c, consequent, lines[wording], rng)
    possessive_ask = rng.random() < 0.5
    verb_ask = rng.choice(p1.verbs) if p1.verbs and rng.random() < 0.5 else None
    cond = _FRAMES[frame].format(a=_closed(a, "{a}", frame), b=_closed(b, "{b}", frame))
    lead = rng.choice(_LEADS)
    proposition = _proposition(asked_p1, p1, subject, c, polarity, possessive_ask, verb_ask)
    cond = cond.replace("that that ", "that the ")  # "it follows that that developer's ..."
    return f"{lead}{_cap(cond)}. {ask.format(p=proposition)}", frame


def _closed(clause: str, slot: str, frame: int) -> str:
    """``clause`` with a comma closing a final contrast (", not someone else") where the frame
    goes on after it with a word ("Tim Cook, not someone else, in the event that ...")."""
    after = _FRAMES[frame].split(slot, 1)[1]
    tail = clause.rsplit(", not ", 1)  # a name may hold a comma ("Washington, D.C."), no verb
    if len(tail) == 2 and " is " not in tail[1] and after.startswith(" "):
        return clause + ","
    return clause


def _pronoun_is_clear(form: str, candidate: str | None, subject: str | None) -> bool:
    """Whether "its <noun>" in the consequent can only mean the candidate's: the antecedent
    must say the bridge IS the candidate (positive form; "if X's maker is not Apple, its CEO"
    reads as Apple's CEO) and the subject must take another pronoun ("Assuming sushi was created
    in Brazil, its capital city" reads as sushi's)."""
    return form == "positive" and candidate is not None and subject not in (None, candidate)


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
    if " of " in p1.noun:  # not "that country of citizenship's capital"
        that = f"the {p2.noun} of that {p1.noun}"
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


# head nouns that name a role, not the kind of thing ("some maker other than Apple Inc."): the kind
_KINDS = {"maker": "company", "developer": "company", "manufacturer": "company", "capital": "city"}
_PREPOSITIONS = frozenset(("of", "in", "at", "by", "for", "to", "on", "from", "with", "after"))


def _others(p: RelationPhrase, rng: random.Random) -> tuple[str, str]:
    """How to name another object of ``p``: ("someone other than", "someone else") for people,
    else with the relation's head noun ("a company other than", "another company"), each drawn
    among synonyms (fewer 4-grams shared between questions)."""
    if p.person:
        other = ("someone other than", "somebody other than", "a person other than")
        return rng.choice(other), rng.choice(("someone else", "somebody else", "another person"))
    head = p.noun.split(" of ")[0].split()[-1] if p.plain else "one"
    head = _KINDS.get(head, "one" if head in _PREPOSITIONS else head)
    other = (f"some {head} other than", f"a {head} other than", f"a different {head} from")
    return rng.choice(other), rng.choice((f"some other {head}", f"another {head}"))


def _as_clause(template: str, lead: str, verb: str | None, s: str, o: str) -> str:
    """``template`` with its ``lead`` ("{t} is {c}", "{t} is not {c}") said by the relation's
    verb ("System 7 was not developed by Apple Inc.") when one is drawn and the rest allows it
    ("... and not some other company", ", not ..."; not "... but someone else", which would need
    the verb's preposition again)."""
    if verb is None:
        return template
    for negated in (True, False):
        head = lead.replace(" is ", " is not ") if negated else lead
        rest = template[len(head) :]
        if template.startswith(head) and (rest == "" or rest.startswith((" and not ", ", not "))):
            return verb.format(s=s, o=o, **{"not": " not" if negated else ""}) + rest
    return template


def _clauses(
    p1: RelationPhrase,
    p2: RelationPhrase,
    subject: str,
    thing: str,
    then: str,
    c: str,
    v: str,
    line: tuple[str, str],
    rng: random.Random,
) -> tuple[str, str]:
    """The antecedent and consequent of the conditional, one line of its form's wordings."""
    a, b = line
    # the fact as a clause ("System 7 was not developed by Apple Inc.") where the line says
    # plainly "is" / "is not" (a relation with verbs, half the time)
    verb_a = rng.choice(p1.verbs) if p1.verbs and rng.random() < 0.5 else None
    verb_b = rng.choice(p2.verbs) if p2.verbs and rng.random() < 0.5 else None
    a = _as_clause(a, "{t} is {c}", verb_a, subject, "{c}")
    b = _as_clause(b, "{n} is {v}", verb_b, thing, "{v}")
    other1, else1 = _others(p1, rng)
    other, else_ = _others(p2, rng)
    names = {"other1": other1, "else1": else1, "other": other, "else": else_}
    return a.format(t=thing, c=c, **names), b.format(n=then, v=v, **names)


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
