"""CC (conjunctive composition): two distinct subjects share one (relation, object).

Facts (s1 r o) and (s2 r o), s1 != s2, found through the (relation, object) index. The question
names both subjects and asks for the shared value. Target = (s1 r o) (the fact to forget);
premises = both facts; answer = o; bridge = o (the joining entity, masked since it is the
answer); ``extra["partner"]`` = s2. The pair must have exactly one shared r-value, so the answer
is unique; relations that take several objects in the world
(:data:`~kg_qgen.semantics.relations.MULTI_VALUED`: "organization membership" shared by two
federations is FIFA and UEFA) are never used.
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, target_facts
from kg_qgen.semantics.relations import MULTI_VALUED

_TRIES = 8


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter | None = None
) -> list[Match]:
    out: list[Match] = []
    for f in target_facts(index, index.facts, cfg, rng, out, unique=False):
        sharing = index.facts_with[(f.relation, f.object)]
        if len(sharing) < 2 or f.relation in MULTI_VALUED:  # several right shared values
            continue
        if index.fact_problem(f.subject, f.relation, f.object) is not None:
            continue  # a source defect (kg_qgen.semantics.source_defects)
        own = set(index.objects(f.subject, f.relation))
        chosen: set[str] = set()
        for _ in range(_TRIES):
            if len(chosen) >= cfg.max_per_target:
                break
            partner = sharing[rng.randrange(len(sharing))]
            s2 = partner.subject
            if s2 == f.subject or s2 in chosen:
                continue
            if index.fact_problem(s2, f.relation, f.object) is not None:
                continue
            if index.norm_label(s2) == index.norm_label(f.subject):
                continue
            shared = own.intersection(index.objects(s2, f.relation))
            if shared != {f.object}:
                continue
            chosen.add(s2)
            out.append(
                Match(
                    "CC",
                    [f, partner],
                    target=f,
                    bridge=f.object,
                    answer=f.object,
                    extra={"partner": s2},
                )
            )
    return out[: cfg.max_matches] if cfg.max_matches is not None else out
