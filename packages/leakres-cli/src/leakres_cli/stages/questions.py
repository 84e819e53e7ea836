"""The run's questions: kg-qgen's multi-hop questions plus the single-hop question of every fact."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from leakres_cli.config.run_config import RunConfig
from leakres_cli.records import fact_key


def build_questions(cfg: RunConfig) -> dict[str, Any]:
    """Multi-hop questions (balanced, ``per_type`` each) plus the SH question of every fact they reach.

    SH questions select the forget facts, so every multi-hop target must have its SH question; further
    SH questions (seeded sample) fill up to ``sh_pool`` to give retain candidates. The payload of the
    ``questions`` cell.
    """
    import kg_qgen

    graph = kg_qgen.load_source(cfg.source, cfg.source_path)
    multi_types = tuple(t for t in cfg.types if t != "SH")
    multi = (
        kg_qgen.build(graph, types=multi_types, per_type=cfg.per_type, seed=cfg.seed)
        if multi_types
        else None
    )
    single = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=cfg.seed)
    multi_questions = multi.questions if multi else []
    reached = {fact_key(q["target"]) for q in multi_questions}
    needed = [q for q in single.questions if fact_key(q["target"]) in reached]
    others = [q for q in single.questions if fact_key(q["target"]) not in reached]
    random.Random(cfg.seed).shuffle(others)
    n_pool_others = max(0, cfg.sh_pool - len(needed))
    questions = needed + others[:n_pool_others] + multi_questions
    shortfall = dict(single.shortfall)
    if multi:
        shortfall.update(multi.shortfall)
    shortfall.pop("SH", None)  # SH is taken whole, then subsampled on purpose
    return {
        "questions": questions,
        "counts": dict(Counter(q["type"] for q in questions)),
        "shortfall": shortfall,
        "n_rejects": len(single.rejects) + (len(multi.rejects) if multi else 0),
        "n_facts": len(graph),
        # The SH questions of every other fact, in seeded order: asked only when the pool holds
        # fewer known facts than --n-forget + --n-retain (base_single_hop widens the pool).
        "sh_reserve": others[n_pool_others:],
    }
