"""DS (disjunctive syllogism, (A or B or C) and not-B |- A or C, then the fact decides).

For a target fact (s r o) we draw ``ds_options - 1`` distractor objects of the same relation
(never an r-object of s, never a label equal to the gold one). The question lists all options in
a seeded random order, eliminates ONE distractor through another fact about it when the graph
has one ("it is not the one whose capital is Tokyo", otherwise by name), and asks which option
holds. At least two candidates stay open, so the model still needs the target fact. The answer
appears only as one of the >= 3 options. Target = the fact; bridge = None; answer = o.
``extra``: ``options`` (entity ids in display order), ``eliminated`` (id),
``elimination_fact`` ([d, r', o''] or None).
"""

from __future__ import annotations

import random

from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets

_TRIES = 20


def find(index: GraphIndex, cfg: MatchConfig, rng: random.Random) -> list[Match]:
    n_distract = max(2, cfg.ds_options - 1)
    out: list[Match] = []
    for f in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        candidates = index.relation_objects(f.relation)
        if len(candidates) < n_distract + 1:
            continue
        if cfg.require_unique and not index.is_unique(f.subject, f.relation):
            continue
        own = set(index.objects(f.subject, f.relation))
        used_labels = {index.norm_label(o) for o in own}
        distractors: list[str] = []
        for _ in range(_TRIES):
            if len(distractors) == n_distract:
                break
            d = candidates[rng.randrange(len(candidates))]
            lab = index.norm_label(d)
            if d in own or d in distractors or lab in used_labels or d == f.subject:
                continue
            used_labels.add(lab)
            distractors.append(d)
        if len(distractors) < n_distract:
            continue
        options = [f.object, *distractors]
        rng.shuffle(options)
        eliminated = distractors[0]
        elim_fact = _describing_fact(index, eliminated, exclude={f.object, *distractors}, rng=rng)
        out.append(
            Match(
                "DS",
                [f],
                target=f,
                bridge=None,
                answer=f.object,
                extra={"options": options, "eliminated": eliminated, "elimination_fact": elim_fact},
            )
        )
    return out


def _describing_fact(
    index: GraphIndex, entity: str, exclude: set[str], rng: random.Random
) -> list[str] | None:
    """A unique-valued fact about ``entity`` whose object is not one of the options."""
    facts = [
        f
        for f in index.by_subject.get(entity, [])
        if f.object not in exclude and index.is_unique(f.subject, f.relation)
    ]
    if not facts:
        return None
    f = facts[rng.randrange(len(facts))]
    return [f.subject, f.relation, f.object]
