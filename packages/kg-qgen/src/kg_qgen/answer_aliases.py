"""Answer aliases a judge may match: each record's ``answer_aliases`` cleaned after generation.

An answer alias is matched in model responses by the judge, so one that does not name the answer
("M" for midfielder, "de", an emoji, "US of America", "Tim Apple") would let a response be
judged correct without naming it. :func:`clean_answer_aliases` drops, from every generated
record, the aliases :func:`kg_qgen.semantics.alias_forms.answer_alias_problem` refuses (fewer
than 3 letters/digits unless a reviewed code of that entity in ``data/entity_codes.tsv``; codes,
jokes, emojis) and returns each record's drops by reason; :func:`count_drops` sums them over the
kept records per type, which ``build`` writes to the manifest (``counts[type].aliases_dropped``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.semantics.alias_forms import answer_alias_problem

__all__ = ["clean_answer_aliases", "count_drops"]


def clean_answer_aliases(records: Iterable[dict], graph: KnowledgeGraph) -> dict[str, list[str]]:
    """Drop refused answer aliases in place; per record id, the reason key of each drop."""
    from kg_qgen.match.index import GraphIndex

    idx = GraphIndex.of(graph)
    drops: dict[str, list[str]] = {}
    for r in records:
        aliases = r.get("answer_aliases")
        if not isinstance(aliases, list) or not aliases:
            continue
        aid = r.get("answer_id")
        linked = idx.linked_names(aid) if isinstance(aid, str) and graph.has_entity(aid) else []
        label = str(r.get("answer", ""))
        keep, why = [], []
        for a in aliases:
            problem = answer_alias_problem(str(a), label, linked=linked)
            if problem is None:
                keep.append(a)
            else:
                why.append(problem.split(":", 1)[0])
        if why:
            r["answer_aliases"] = keep
            drops[str(r.get("id"))] = why
    return drops


def count_drops(kept: Iterable[dict], drops: dict[str, list[str]]) -> dict[str, int]:
    """Aliases dropped from the ``kept`` records, per reason key (sorted)."""
    got: Counter[str] = Counter()
    for r in kept:
        got.update(drops.get(str(r.get("id")), ()))
    return dict(sorted(got.items()))
