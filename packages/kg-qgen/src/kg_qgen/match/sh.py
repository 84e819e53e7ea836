"""SH (single hop): the fact itself, asked directly. Target = the fact; answer = its object."""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, target_facts


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter | None = None
) -> list[Match]:
    out: list[Match] = []
    for f in target_facts(index, index.facts, cfg, rng, out):
        out.append(Match("SH", premises=[f], target=f, bridge=None, answer=f.object))
    return out
