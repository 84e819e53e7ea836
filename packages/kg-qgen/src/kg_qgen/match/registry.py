"""Matchers by question type. Each module exposes ``find(index, cfg, rng) -> list[Match]``."""

from __future__ import annotations

import difflib
import random
from collections import Counter
from collections.abc import Callable

from kg_qgen.match import cc, ds, hs, ll, mp, mt, sh
from kg_qgen.match.base import QUESTION_TYPES, Match
from kg_qgen.match.index import GraphIndex, MatchConfig

__all__ = ["MATCHERS", "find_matches"]

Matcher = Callable[[GraphIndex, MatchConfig, random.Random, "Counter[str] | None"], list[Match]]

MATCHERS: dict[str, Matcher] = {
    "SH": sh.find,
    "HS": hs.find,
    "MP": mp.find,
    "MT": mt.find,
    "LL": ll.find,
    "CC": cc.find,
    "DS": ds.find,
}
assert set(MATCHERS) == set(QUESTION_TYPES)


def get_matcher(qtype: str) -> Matcher:
    if qtype not in MATCHERS:
        close = difflib.get_close_matches(qtype.upper(), list(MATCHERS), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise KeyError(f"unknown question type '{qtype}'{hint} Known: {', '.join(MATCHERS)}")
    return MATCHERS[qtype]


def find_matches(
    index: GraphIndex,
    qtype: str,
    cfg: MatchConfig | None = None,
    seed: int = 0,
    stats: Counter[str] | None = None,
) -> list[Match]:
    """Matches of one type; the RNG is derived from (seed, type) so types do not interact.

    ``stats``, when given, counts the candidates the matcher turned down, by reason (DS, MT, MP
    and LL report theirs), e.g. ``{"DS: no elimination fact fits exactly one distractor": 12}``.
    """
    rng = random.Random(f"{seed}:{qtype}")
    return get_matcher(qtype)(index, cfg or MatchConfig(), rng, stats)
