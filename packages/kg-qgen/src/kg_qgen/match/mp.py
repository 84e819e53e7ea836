"""MP (modus ponens, A -> B and A |- B): a general rule, a masked instance, the conclusion.

Join: o1 = s2, like HS, but only for relation pairs (r1, r2) for which :data:`RULES` has a rule:
a general conditional that is TRUE of the world ("anyone who plays a playing position plays the
sport that position belongs to"), never a convention ("a work is registered in its country's
capital") nor a stereotype ("citizens are paid in their country's currency"). The question states
the rule, states the instance through the target fact with its object masked ("Messi plays a
certain position") and asks for the conclusion (the sport). Target = the first hop; bridge = its
object (masked); answer = the object of the second hop; premises = both hops.

Every rule declares the class of subject it is true for (``subject_class``: a class of
:mod:`kg_qgen.semantics.classes`, or ``"any"`` when the rule holds for every subject of r1,
e.g. "anything that originates from a country originates from that country's continent"). A rule
is only instantiated on a subject whose class (Wikidata P31 when the source has it, else inferred
from the relations the subject takes part in) is that class or a subclass of it; an unknown
class never fits a specific rule. So "in which city is basketball registered?" or "which language
is spoken in Argentine National Anthem?" cannot be built.

The template generator uses ``rule``, ``instance`` and ``conclusion`` (``[X]`` = the subject);
every sentence starts with a capital letter.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache

from kg_qgen.match.base import Match, note
from kg_qgen.match.index import GraphIndex, MatchConfig, target_facts
from kg_qgen.match.mp_asks import ASK_ALT as _ASK_ALT
from kg_qgen.match.mp_asks import ASK_LEADS as _ASK_LEADS
from kg_qgen.semantics.classes import is_a

__all__ = ["ANY", "RULES", "MPRule", "find", "rule_fits"]

ANY = "any"


@dataclass(frozen=True)
class MPRule:
    subject_class: str  # the class of subject the rule is true for ("any" = every subject of r1)
    rule: str  # the general conditional, no entity named
    instance: str  # the target fact with its object masked; [X] = subject
    conclusion: str  # the question about the consequent; [X] = subject

    @property
    def wordings(self) -> tuple[str, ...]:
        """The rule and its other wordings, same meaning (:func:`rule_wordings`); >= 3."""
        return rule_wordings(self)

    @property
    def instances(self) -> tuple[str, ...]:
        return (self.instance, *_INSTANCE_ALT.get(self.instance, ()))

    @property
    def asks(self) -> tuple[str, ...]:
        """The bare question about the consequent, lower-case first ("which sport does [X] play?")
        and its other wordings."""
        q = self.conclusion.removeprefix("According to this rule, ")
        return (q, *_ASK_ALT.get(q, ()))

    @property
    def conclusions(self) -> tuple[str, ...]:
        """The question about the consequent: each way to ask it (:data:`_ASK_ALT`) after each
        lead-in, so the last sentence varies in structure, not only in its first words."""
        out = [self.conclusion]
        for body in self.asks:
            out += [f"{lead}{body}" for lead in _ASK_LEADS]
            out.append(body[:1].upper() + body[1:])
        return tuple(dict.fromkeys(out))


_CITIZEN = "[X] is a citizen of a certain country."
_BORN = "[X] was born in a certain city."
_DIED = "[X] died in a certain city."
_HQ = "[X] has its headquarters in a certain city."

RULES: dict[tuple[str, str], MPRule] = {
    ("P27", "P30"): MPRule(
        "person",
        "Every citizen of a country holds a citizenship on the continent where that country lies.",
        _CITIZEN,
        "According to this rule, on which continent does [X] hold a citizenship?",
    ),
    ("P495", "P30"): MPRule(
        ANY,
        "Anything that originates from a country originates from the continent where that "
        "country lies.",
        "[X] originates from a certain country.",
        "According to this rule, from which continent does [X] originate?",
    ),
    ("P413", "P641"): MPRule(
        "person",
        "Anyone who plays a playing position plays the sport that the position belongs to.",
        "[X] plays a certain position.",
        "According to this rule, which sport does [X] play?",
    ),
    ("P19", "P17"): MPRule(
        "person",
        "Anyone born in a city was born in the country that the city belongs to.",
        _BORN,
        "According to this rule, in which country was [X] born?",
    ),
    ("P19", "P131"): MPRule(
        "person",
        "Anyone born in a city was born in the administrative region that contains the city.",
        _BORN,
        "According to this rule, in which administrative region was [X] born?",
    ),
    ("P19", "P30"): MPRule(
        "person",
        "Anyone born in a city was born on the continent where the city lies.",
        _BORN,
        "According to this rule, on which continent was [X] born?",
    ),
    ("P20", "P17"): MPRule(
        "person",
        "Anyone who died in a city died in the country that the city belongs to.",
        _DIED,
        "According to this rule, in which country did [X] die?",
    ),
    ("P20", "P131"): MPRule(
        "person",
        "Anyone who died in a city died in the administrative region that contains the city.",
        _DIED,
        "According to this rule, in which administrative region did [X] die?",
    ),
    ("P20", "P30"): MPRule(
        "person",
        "Anyone who died in a city died on the continent where the city lies.",
        _DIED,
        "According to this rule, on which continent did [X] die?",
    ),
    ("P937", "P17"): MPRule(
        "person",
        "Anyone who works in a city works in the country that the city belongs to.",
        "[X] works in a certain city.",
        "According to this rule, in which country does [X] work?",
    ),
    ("P159", "P17"): MPRule(
        "organization",
        "An organization headquartered in a city has its headquarters in the country that the "
        "city belongs to.",
        _HQ,
        "According to this rule, in which country does [X] have its headquarters?",
    ),
    ("P159", "P131"): MPRule(
        "organization",
        "An organization headquartered in a city has its headquarters in the administrative "
        "region that contains the city.",
        _HQ,
        "According to this rule, in which administrative region does [X] have its headquarters?",
    ),
    ("P740", "P17"): MPRule(
        "organization",
        "An organization formed in a place was formed in the country that the place belongs to.",
        "[X] was formed in a certain place.",
        "According to this rule, in which country was [X] formed?",
    ),
    ("P131", "P17"): MPRule(
        "place",
        "Any place inside an administrative region lies in the country that the region belongs to.",
        "[X] lies inside a certain administrative region.",
        "According to this rule, in which country does [X] lie?",
    ),
    ("P17", "P30"): MPRule(
        "place",
        "Any place located in a country lies on the continent where that country lies.",
        "[X] is located in a certain country.",
        "According to this rule, on which continent does [X] lie?",
    ),
    ("P276", "P17"): MPRule(
        ANY,
        "Anything at a location is in the country that the location belongs to.",
        "[X] is at a certain location.",
        "According to this rule, in which country is [X]?",
    ),
}


# Other wordings of each rule (same meaning, different words), chosen with the seed.
REWORDINGS: dict[str, tuple[str, ...]] = {
    RULES[("P27", "P30")].rule: (
        # not "a citizen of a country is a citizen of a country on its continent": the same
        # words twice read as a tautology; the rule is that a country lies on a continent
        "Every country lies on a continent, so each of its citizens holds a citizenship on that "
        "continent.",
        "Each country's citizens hold a citizenship on the continent where the country lies.",
        "A person who holds a country's citizenship holds a citizenship on that country's "
        "continent.",
        "Holding a country's citizenship means holding a citizenship on the continent where "
        "that country lies.",
    ),
    RULES[("P495", "P30")].rule: (
        "What comes from a country comes from its continent.",
        "Whatever comes from a country comes from the continent that country is on.",
        "If something originates in a country, its continent of origin is that country's "
        "continent.",
    ),
    RULES[("P413", "P641")].rule: (
        "A player of a given position plays the sport in which that position exists.",
        "Every playing position belongs to one sport, and whoever plays the position plays "
        "that sport.",
        "Players of a position play that position's sport.",
        "A position is part of one sport, and its players play it.",
        "Whatever position a person plays, they play its sport.",
        "People play the sport to which their position belongs.",
    ),
}


_LEADS: dict[str, tuple[str, ...]] = {
    "person": (
        "Anyone who",
        "Whoever",
        "Every person who",
        "Any person who",
        "Each person who",
        "A person who",
        "Someone who",
    ),
    ANY: ("Anything that", "Whatever", "Everything that", "Any item that"),
    "organization": ("An organization that", "Any organization that", "Every organization that"),
    "place": ("Any place that", "A place that", "Every place that"),
}
# (r1, r2) -> (ways to say the premise, ways to say the conclusion), combined with a lead
_PARTS: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("P27", "P30"): (
        (
            "is a citizen of a country",
            "holds a country's citizenship",
            "is a national of some country",
            "has the nationality of a country",
        ),
        (
            "holds a citizenship on the continent where that country lies",
            "holds a citizenship on that country's continent",
            "has a citizenship on the continent of that country",
        ),
    ),
    ("P495", "P30"): (
        ("originates from a country", "comes from some country", "has a country of origin"),
        (
            "originates from the continent where that country lies",
            "comes from that country's continent",
            "has that country's continent as its continent of origin",
        ),
    ),
    ("P413", "P641"): (
        (
            "plays a playing position",
            "plays in some position",
            "fills a position on a team",
            "has a playing position",
            "is a player in a given position",
        ),
        (
            "plays the sport that the position belongs to",
            "plays the sport of that position",
            "takes part in the sport in which that position exists",
            "competes in that position's sport",
            "plays whichever sport has that position",
            "is active in the sport the position is part of",
        ),
    ),
    ("P19", "P17"): (
        ("was born in a city", "was born in some city"),
        ("was born in the country of that city", "was born in the country the city belongs to"),
    ),
    ("P19", "P131"): (
        ("was born in a city", "was born in some city"),
        ("was born in the region that contains the city", "was born in that city's region"),
    ),
    ("P19", "P30"): (
        ("was born in a city", "was born in some city"),
        (
            "was born on the continent of that city",
            "was born on the continent where that city lies",
        ),
    ),
    ("P20", "P17"): (
        ("died in a city", "died in some city"),
        ("died in the country of that city", "died in the country the city belongs to"),
    ),
    ("P20", "P131"): (
        ("died in a city", "died in some city"),
        ("died in the region that contains the city", "died in that city's region"),
    ),
    ("P20", "P30"): (
        ("died in a city", "died in some city"),
        ("died on the continent of that city", "died on the continent where that city lies"),
    ),
    ("P937", "P17"): (
        ("works in a city", "works in some city"),
        ("works in the country of that city", "works in the country the city belongs to"),
    ),
    ("P159", "P17"): (
        ("is headquartered in a city", "has its head office in a city"),
        ("has its headquarters in that city's country", "is based in the country of the city"),
    ),
    ("P159", "P131"): (
        ("is headquartered in a city", "has its head office in a city"),
        ("has its headquarters in that city's region", "is based in the region of the city"),
    ),
    ("P740", "P17"): (
        ("was formed in a place", "was founded in some place"),
        ("was formed in the country of that place", "was founded in that place's country"),
    ),
    ("P131", "P17"): (
        ("lies in an administrative region", "is inside some region"),
        ("lies in the country of that region", "is in the country the region belongs to"),
    ),
    ("P17", "P30"): (
        ("is located in a country", "lies in some country"),
        ("lies on the continent of that country", "is on that country's continent"),
    ),
    ("P276", "P17"): (
        ("is at a location", "is found at some location"),
        ("is in the country of that location", "is in the country the location belongs to"),
    ),
}


@cache
def rule_wordings(rule: MPRule) -> tuple[str, ...]:
    """Every wording of a rule: the table's sentence, hand rewordings and the combinations of a
    lead for its subject class with each way to say its premise and conclusion (``_PARTS``)."""
    out = [rule.rule, *REWORDINGS.get(rule.rule, ())]
    pair = next((k for k, v in RULES.items() if v is rule), None)
    if pair in _PARTS:
        premises, conclusions = _PARTS[pair]
        leads = _LEADS.get(rule.subject_class, _LEADS[ANY])
        for lead in leads:
            for p in premises:
                for c in conclusions:
                    out.append(f"{lead} {p} {c}.")
    return tuple(dict.fromkeys(out))


def _reword(rule: str) -> tuple[str, str]:
    """Two generic rewordings of a rule sentence that has no hand-written ones."""
    body = rule[:1].lower() + rule[1:-1]
    return (f"It is a general truth that {body}.", f"It always holds that {body}.")


for _r in RULES.values():
    REWORDINGS.setdefault(_r.rule, _reword(_r.rule))

_INSTANCE_ALT: dict[str, tuple[str, ...]] = {
    _CITIZEN: (
        "[X] holds the citizenship of some country.",
        "[X] is a national of a country.",
        "There is a country that [X] is a citizen of.",
    ),
    _BORN: ("[X] was born in some city.", "The birthplace of [X] is a certain city."),
    _DIED: ("[X] died in some city.", "The place of death of [X] is a certain city."),
    _HQ: ("The headquarters of [X] are in some city.", "[X] is headquartered in a certain city."),
    "[X] plays a certain position.": (
        "[X] plays in some position.",
        "There is a position that [X] plays.",
        "[X] has a playing position.",
        "[X] plays one particular position.",
        "[X] is a player in a given position.",
    ),
    "[X] originates from a certain country.": (
        "[X] comes from some country.",
        "There is a country that [X] originates from.",
    ),
}


def rule_fits(index: GraphIndex, rule: MPRule, subject: str) -> bool:
    """Whether ``rule`` may be instantiated on ``subject`` (its class is the rule's class)."""
    return rule.subject_class == ANY or is_a(index.entity_class(subject), rule.subject_class)


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    allowed = cfg.mp_pairs if cfg.mp_pairs is not None else frozenset(RULES)
    unknown = sorted(p for p in allowed if p not in RULES)
    if unknown:
        raise ValueError(f"mp_pairs {unknown} have no rule in kg_qgen.match.mp.RULES")
    first = {r1 for r1, _ in allowed}
    out: list[Match] = []
    for f1 in target_facts(index, index.facts, cfg, rng, out, unique=False):
        if f1.relation not in first:
            continue
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        hops = []
        for f2 in index.chains(f1, rng, 10**9):
            pair = (f1.relation, f2.relation)
            if pair not in allowed:
                continue
            if not rule_fits(index, RULES[pair], f1.subject):
                cls = index.entity_class(f1.subject)
                note(
                    stats,
                    f"subject class '{cls}' does not fit the rule's '{RULES[pair].subject_class}'",
                )
                continue
            hops.append(f2)
        if len(hops) > cfg.max_per_target:
            hops = rng.sample(hops, cfg.max_per_target)
        for f2 in hops:
            out.append(
                Match(
                    "MP",
                    [f1, f2],
                    target=f1,
                    bridge=f1.object,
                    answer=f2.object,
                    extra={"rule_pair": [f1.relation, f2.relation]},
                )
            )
    return out[: cfg.max_matches] if cfg.max_matches is not None else out
