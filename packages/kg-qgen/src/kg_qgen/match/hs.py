"""HS (hypothetical syllogism, a two-hop chain): (s1 r1 b) and (b r2 o2) give (s1 r1.r2 o2).

Join: o1 = s2. Target = the first hop (s1 r1 b), the fact to forget; bridge = b (masked in the
question); answer = o2. Both hops must have a unique object so the composed answer is unique.
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, target_facts


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter | None = None
) -> list[Match]:
    out: list[Match] = []
    for f1 in target_facts(index, index.facts, cfg, rng, out):
        for f2 in index.chains(f1, rng, cfg.max_per_target):
            out.append(Match("HS", [f1, f2], target=f1, bridge=f1.object, answer=f2.object))
    return out[: cfg.max_matches] if cfg.max_matches is not None else out
