"""SH (single hop): the fact itself, asked directly. Target = the fact; answer = its object."""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter | None = None
) -> list[Match]:
    out: list[Match] = []
    for f in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if cfg.require_unique and not index.is_unique(f.subject, f.relation):
            continue
        out.append(Match("SH", premises=[f], target=f, bridge=None, answer=f.object))
    return out
