"""MP (modus ponens, A -> B and A |- B) over a semantically meaningful relation pair.

Join: o1 = s2, like HS, but only for relation pairs (r1, r2) where a general rule links them
("whoever is a citizen of a country comes from the continent that country lies in"). The
question states that rule, states the instance through the target fact with its object masked
("X is a citizen of some country") and asks for the conclusion (the continent). Target = the
first hop; bridge = its object (masked); answer = the object of the second hop.

``RULES`` is the documented table of allowed pairs; each entry carries the rule sentence, the
masked instance sentence and the conclusion question used by the template generator
(``[X]`` = the subject). A pair not in the table never yields an MP match. Rules are chosen so
that the conclusion is the real-world answer, not a counterfactual one (no "spouses share
citizenship"), and so that the subject type of r1 fits the rule (no sport -> country rules,
since MQuAKE uses P641 on positions as well as on people).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets

__all__ = ["RULES", "MPRule", "find"]


@dataclass(frozen=True)
class MPRule:
    rule: str  # the general conditional, no entity named
    instance: str  # the target fact with its object masked; [X] = subject
    conclusion: str  # the question about the consequent; [X] = subject


_CITIZEN = "[X] is a citizen of a certain country."
_ORIGIN = "[X] originates from a certain country."
_LOCATED = "[X] is located in a certain country."
_BORN = "[X] was born in a certain city."

RULES: dict[tuple[str, str], MPRule] = {
    ("P27", "P30"): MPRule(
        "Every citizen of a country is said to come from the continent that country lies on.",
        _CITIZEN,
        "According to this rule, which continent does [X] come from?",
    ),
    ("P27", "P37"): MPRule(
        "Every citizen of a country is expected to know that country's official language.",
        _CITIZEN,
        "According to this rule, which language is [X] expected to know?",
    ),
    ("P27", "P36"): MPRule(
        "The home capital of a person is the capital city of the country they are a citizen of.",
        _CITIZEN,
        "According to this rule, what is the home capital of [X]?",
    ),
    ("P27", "P38"): MPRule(
        "Citizens of a country are paid in that country's currency.",
        _CITIZEN,
        "According to this rule, in which currency is [X] paid?",
    ),
    ("P495", "P30"): MPRule(
        "A work or product comes from the continent on which its country of origin lies.",
        _ORIGIN,
        "According to this rule, which continent does [X] come from?",
    ),
    ("P495", "P37"): MPRule(
        "A work or product is first released in the official language of its country of origin.",
        _ORIGIN,
        "According to this rule, in which language was [X] first released?",
    ),
    ("P495", "P36"): MPRule(
        "A work or product is registered in the capital city of its country of origin.",
        _ORIGIN,
        "According to this rule, in which city is [X] registered?",
    ),
    ("P17", "P30"): MPRule(
        "Anything located in a country lies on the continent of that country.",
        _LOCATED,
        "According to this rule, on which continent does [X] lie?",
    ),
    ("P17", "P37"): MPRule(
        "In any place located in a country, that country's official language is spoken.",
        _LOCATED,
        "According to this rule, which language is spoken in [X]?",
    ),
    ("P17", "P36"): MPRule(
        "Any place located in a country is governed from that country's capital city.",
        _LOCATED,
        "According to this rule, from which city is [X] governed?",
    ),
    ("P19", "P17"): MPRule(
        "Whoever was born in a city was born in the country that city belongs to.",
        _BORN,
        "According to this rule, in which country was [X] born?",
    ),
    ("P19", "P131"): MPRule(
        "Whoever was born in a city was born in the region that contains that city.",
        _BORN,
        "According to this rule, in which region was [X] born?",
    ),
    ("P20", "P17"): MPRule(
        "Whoever died in a city died in the country that city belongs to.",
        "[X] died in a certain city.",
        "According to this rule, in which country did [X] die?",
    ),
    ("P159", "P17"): MPRule(
        "An organization headquartered in a city is based in the country of that city.",
        "[X] has its headquarters in a certain city.",
        "According to this rule, in which country is [X] based?",
    ),
    ("P131", "P17"): MPRule(
        "Every place inside a region lies in the country that region belongs to.",
        "[X] lies inside a certain region.",
        "According to this rule, in which country does [X] lie?",
    ),
    ("P36", "P30"): MPRule(
        "A capital city lies on the same continent as the country it governs.",
        "[X] has a certain capital city.",
        "According to this rule, on which continent does the capital of [X] lie?",
    ),
    ("P50", "P27"): MPRule(
        "A book belongs to the national literature of its author's country of citizenship.",
        "[X] was written by a certain author.",
        "According to this rule, to which country's national literature does [X] belong?",
    ),
    ("P170", "P27"): MPRule(
        "A creative work belongs to the culture of its creator's country of citizenship.",
        "[X] was created by a certain person.",
        "According to this rule, to which country's culture does [X] belong?",
    ),
    ("P112", "P27"): MPRule(
        "An organization is considered to share the nationality of its founder.",
        "[X] was founded by a certain person.",
        "According to this rule, which nationality does [X] share?",
    ),
    ("P175", "P495"): MPRule(
        "A recording is attributed to the country of origin of its performer.",
        "[X] was performed by a certain artist.",
        "According to this rule, to which country is [X] attributed?",
    ),
    ("P175", "P27"): MPRule(
        "A recording is attributed to the country of citizenship of its performer.",
        "[X] was performed by a certain artist.",
        "According to this rule, to which country is [X] attributed?",
    ),
    ("P178", "P17"): MPRule(
        "A piece of software comes from the country its developer is based in.",
        "[X] was developed by a certain organization.",
        "According to this rule, which country does [X] come from?",
    ),
    ("P178", "P495"): MPRule(
        "A piece of software comes from the country of origin of its developer.",
        "[X] was developed by a certain organization.",
        "According to this rule, which country does [X] come from?",
    ),
    ("P176", "P17"): MPRule(
        "A product comes from the country its manufacturer is based in.",
        "[X] is made by a certain manufacturer.",
        "According to this rule, which country does [X] come from?",
    ),
    ("P108", "P159"): MPRule(
        "An employee works in the city where their employer has its headquarters.",
        "[X] works for a certain employer.",
        "According to this rule, in which city does [X] work?",
    ),
    ("P1037", "P27"): MPRule(
        "An organization carries the nationality of its director or manager.",
        "[X] is run by a certain director or manager.",
        "According to this rule, which nationality does [X] carry?",
    ),
    ("P169", "P27"): MPRule(
        "A company carries the nationality of its chief executive officer.",
        "[X] is led by a certain chief executive officer.",
        "According to this rule, which nationality does [X] carry?",
    ),
    ("P286", "P27"): MPRule(
        "A team carries the nationality of its head coach.",
        "[X] is trained by a certain head coach.",
        "According to this rule, which nationality does [X] carry?",
    ),
    ("P449", "P17"): MPRule(
        "A programme belongs to the country of its original broadcaster.",
        "[X] was first broadcast by a certain network.",
        "According to this rule, to which country does [X] belong?",
    ),
    ("P449", "P495"): MPRule(
        "A programme belongs to the country of origin of its original broadcaster.",
        "[X] was first broadcast by a certain network.",
        "According to this rule, to which country does [X] belong?",
    ),
}


def find(index: GraphIndex, cfg: MatchConfig, rng: random.Random) -> list[Match]:
    allowed = cfg.mp_pairs if cfg.mp_pairs is not None else frozenset(RULES)
    first = {r1 for r1, _ in allowed}
    out: list[Match] = []
    for f1 in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if f1.relation not in first:
            continue
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        hops = [f2 for f2 in index.chains(f1, rng, 10**9) if (f1.relation, f2.relation) in allowed]
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
