"""Matches by question type; each type's matcher comes from its registration (:mod:`kg_qgen.qtypes`)."""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.qtypes import Matcher, get_question_type

__all__ = ["find_matches", "get_matcher"]


def get_matcher(qtype: str) -> Matcher:
    """The matcher of the registered type ``qtype`` (unknown codes raise ``UnknownNameError``)."""
    return get_question_type(qtype).matcher


def find_matches(
    index: GraphIndex,
    qtype: str,
    cfg: MatchConfig | None = None,
    seed: int = 0,
    stats: Counter[str] | None = None,
) -> list[Match]:
    """Matches of one type; the RNG is derived from (seed, type) so types do not interact.

    ``stats``, when given, counts the candidates the matcher turned down, by reason (DS, MT, MP
    and LL report theirs), e.g. ``{"DS: no clue rules out enough distractors of the gold's class": 12}``.
    """
    rng = random.Random(f"{seed}:{qtype}")
    return get_matcher(qtype)(index, cfg or MatchConfig(), rng, stats)
