"""DS (disjunctive syllogism, (A or B or C) and not-C |- A or B; the target fact then decides).

For a target fact (s r g) the question lists ``ds_options`` candidates for "the r of s" (the gold
g and distractors, other objects of r) and rules ONE distractor out through another fact about it:
"it is not the one whose capital is Tokyo". What makes the elimination sound (else no match):

* the elimination fact (d r' v) is a premise and holds in the graph for the eliminated option d;
* r' is single-valued for each option (:meth:`GraphIndex.single_valued`) and every other option,
  the gold included, has a *different* r' value in the graph: positive evidence that the clause
  does not fit it, not mere absence of the fact;
* after elimination at least two candidates remain (the gold and >= 1 distractor), so only the
  target fact decides between them;
* distractors are never an r-object of s, never share a label with each other or the gold, and v
  is not an option, the subject, nor a name containing the gold's label;
* no other fact decides (:func:`other_fact_decides`): the candidates left after elimination agree
  on every single-valued relation they have that does not identify them (the sport of a
  position, the continent of a country), and none of them is linked to the subject's other facts
  unless all are (a person born in Paris decides between France and Japan). Main's matcher left
  goalkeeper / first baseman, decided by the player's sport.

Target = the fact; bridge = None; answer = g; premises = [target, elimination fact].
``extra``: ``options`` (entity ids in display order), ``eliminated`` (id), ``elimination_fact``
([d, r', v]) and ``evidence`` ({option id: its r' value}).
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.graph import Fact
from kg_qgen.match.base import Match, note
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets
from kg_qgen.textnorm import contains_phrase

_DRAWS = 24  # random draws per candidate role before giving up on a relation

NO_OPTIONS = "fewer than ds_options distinct objects for the relation"
NO_GOLD_EVIDENCE = "the gold has no single-valued fact, so nothing can tell it apart"
NO_ELIMINATION = "no fact fits exactly one distractor with evidence against every other option"
OTHER_FACT = "another fact (not the target) tells the remaining candidates apart"


def other_fact_decides(index: GraphIndex, f: Fact, remaining: list[str]) -> str | None:
    """Why a fact other than the target ``f`` decides between ``remaining``, or None."""
    from kg_qgen.semantics.relations import INVERSE_FUNCTIONAL

    g = index.graph
    values = [index.single_values(c) for c in remaining]
    rels = {r for v in values for r in v if r not in INVERSE_FUNCTIONAL}
    for r in sorted(rels):
        got = {v.get(r) for v in values}
        if len(got) > 1:
            return (
                f"the remaining candidates differ in {g.relation_label(r)} "
                f"({', '.join(sorted(g.label(x) if x else 'none' for x in got))})"
            )
    around: set[str] = set()
    for x in index.by_subject.get(f.subject, ()):
        if x.relation != f.relation:
            around.add(x.object)
            around.update(index.single_values(x.object).values())
    links = [bool(({c} | set(v.values())) & around) for c, v in zip(remaining, values, strict=True)]
    if any(links) and not all(links):
        return "another fact about the subject points to one of the remaining candidates"
    return None


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    n_distract = max(2, cfg.ds_options - 1)
    out: list[Match] = []
    for f in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if cfg.require_unique and not index.is_unique(f.subject, f.relation):
            continue
        if len(index.relation_objects(f.relation)) < n_distract + 1:
            note(stats, NO_OPTIONS)
            continue
        gold_values = index.single_values(f.object)
        if not gold_values:
            note(stats, NO_GOLD_EVIDENCE)
            continue
        chosen = None
        for _ in range(3):  # a few draws: the first may leave candidates another fact decides
            chosen = _choose(index, f, gold_values, n_distract, rng)
            if chosen is None or not other_fact_decides(index, f, [f.object, *chosen[1]]):
                break
            chosen = None
            note(stats, OTHER_FACT)
        if chosen is None:
            note(stats, NO_ELIMINATION)
            continue
        elim_fact, others = chosen
        options = [f.object, elim_fact.subject, *others]
        rng.shuffle(options)
        evidence = {o: index.single_values(o)[elim_fact.relation] for o in options}
        out.append(
            Match(
                "DS",
                [f, elim_fact],
                target=f,
                bridge=None,
                answer=f.object,
                extra={
                    "options": options,
                    "eliminated": elim_fact.subject,
                    "elimination_fact": [elim_fact.subject, elim_fact.relation, elim_fact.object],
                    "evidence": evidence,
                },
            )
        )
    return out


def _choose(
    index: GraphIndex, f: Fact, gold_values: dict[str, str], n_distract: int, rng: random.Random
) -> tuple[Fact, list[str]] | None:
    """(elimination fact, the other distractors) or None (see the module docs).

    For each single-valued relation r' of the gold (seeded order) the candidates are the
    r-objects that have one r' value (:meth:`GraphIndex.valued_objects`); the eliminated option
    is drawn among those whose value differs from the gold's, the other distractors among those
    whose value differs from the eliminated one's.
    """
    own = index.objects(f.subject, f.relation)
    taken = {index.norm_label(o) for o in own}
    gold_norm = index.norm_label(f.object)
    relations = [r for r in gold_values if index.relation_has_label(r)]
    if len(relations) > 1:
        rng.shuffle(relations)
    for rel in relations:
        pairs = index.valued_objects(f.relation, rel)
        if len(pairs) < n_distract + 1:
            continue
        gv = gold_values[rel]
        for _ in range(_DRAWS):
            d, v, fact = pairs[rng.randrange(len(pairs))]
            if d in own or d == f.subject or v == gv or v == f.subject or v == f.object:
                continue
            d_norm = index.norm_label(d)
            if d_norm in taken or contains_phrase(index.norm_label(v), gold_norm):
                continue
            labels = {*taken, d_norm}
            others: list[str] = []
            for _ in range(_DRAWS):
                o, ov, _ = pairs[rng.randrange(len(pairs))]
                if o in own or o == f.subject or ov == v or o == v:
                    continue
                o_norm = index.norm_label(o)
                if o_norm in labels:
                    continue
                labels.add(o_norm)
                others.append(o)
                if len(others) == n_distract - 1:
                    return fact, others
            break  # this relation offers too few distractors for d; try the next relation
    return None
