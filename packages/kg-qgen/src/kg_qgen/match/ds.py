"""DS (disjunctive syllogism, (A or B or C) and not-B and not-C |- A), one option left.

For a target fact (s r g) the question lists ``ds_options`` candidates for "the r of s": the
gold g and distractors of the gold's class (positions of its sport, countries of its continent,
cities of its country; :func:`kg_qgen.match.ds_clues.class_pool`), and rules EVERY distractor
out by a clue, a fact other than the target that points at the distractor through another
entity ("not the one whose capital is Berlin", "not the country Angela Merkel is a citizen
of"; :class:`~kg_qgen.match.ds_clues.Clue`). So one option is left, and it is reached only by
knowing the clues' facts: no option is of another kind, none is named by a clue, and each clue
fits its option alone among the options (:func:`~kg_qgen.match.ds_clues.clue_problem`).

No match when the subject's name hints the gold (its label, a long alias or its demonym, "Japan"
in "Japanese Grand Prix"); distractors hinted by it are never drawn. One match per target fact
(no repeated (type, facts)). The option order is a seeded shuffle (the gold's slot is uniform),
and the clue order another, independent shuffle.

Target = the fact; bridge = None; answer = g; premises = [target, clue facts in clue order].
``extra``: ``options`` (entity ids in display order), ``clues`` (the :class:`Clue` list, in
the question's order) and ``class_relation`` (the grouping relation id, or None).
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.graph import Fact
from kg_qgen.match.base import Match, note
from kg_qgen.match.ds_clues import Clue, class_pool, class_relation, clues_for, name_hint
from kg_qgen.match.index import GraphIndex, MatchConfig, target_facts

__all__ = ["find"]

NO_OPTIONS = "fewer distractors of the gold's class than ds_options needs"
NAME_HINT = "the subject's name hints the gold"
NO_ELIMINATION = "no clue rules out enough distractors of the gold's class"


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    n_distract = max(2, cfg.ds_options - 1)
    out: list[Match] = []
    for f in target_facts(index, index.facts, cfg, rng, out):
        pool, why = class_pool(index, f)
        if why is not None:
            note(stats, why)
            continue
        if len(pool) < n_distract:
            note(stats, NO_OPTIONS)
            continue
        if name_hint(index, f.subject, f.object):
            note(stats, NAME_HINT)
            continue
        clues = _pick(index, f, pool, n_distract, rng)
        if clues is None:
            note(stats, NO_ELIMINATION)
            continue
        options = [f.object, *(c.option for c in clues)]
        rng.shuffle(options)
        rng.shuffle(clues)  # the clue order is drawn apart from the option order
        cls = class_relation(index, f.relation, index.entity_class(f.object))
        out.append(
            Match(
                "DS",
                [f, *(c.fact for c in clues)],
                target=f,
                bridge=None,
                answer=f.object,
                extra={"options": options, "clues": clues, "class_relation": cls},
            )
        )
    return out


def _pick(
    index: GraphIndex, f: Fact, pool: list[str], n: int, rng: random.Random
) -> list[Clue] | None:
    """``n`` distractors from ``pool`` with one clue each, valid among the final options."""
    order = list(pool)
    rng.shuffle(order)
    chosen: list[str] = []
    labels = {index.norm_label(f.object)}
    for d in order:
        if index.norm_label(d) in labels:
            continue
        options = [f.object, *chosen, d]
        # adding d may undo a chosen clue (positive evidence is about every option): re-check all
        if all(clues_for(index, x, f, options) for x in [*chosen, d]):
            chosen.append(d)
            labels.add(index.norm_label(d))
            if len(chosen) == n:
                break
    if len(chosen) < n:
        return None
    options = [f.object, *chosen]
    picked = []
    for d in chosen:
        found = clues_for(index, d, f, options)
        picked.append(found[rng.randrange(len(found))])
    return picked
