"""Which given facts the question source can ask, and why not (issue 39, item 2), before any model loads.

A forget or retain fact is measurable only through its single-hop (SH) question. :class:`FactIndex`
holds the SH questions of the source (or of a ``--questions`` set), kg-qgen's rejected SH questions
and the knowledge graph, and :meth:`FactIndex.reason` says, for a fact with no SH question, which
of these it is (most specific first):

- ``relation 'R' is not in the knowledge source`` (no fact of the source has that relation);
- ``relation 'R' is never asked by kg-qgen`` (the source has it, but kg-qgen asks no question of
  that relation: schema, multi-valued or unlabelled relations; the rejection's reason when known);
- ``in the knowledge source, but kg-qgen rejected its single-hop question`` (check and reason);
- ``not in the knowledge source`` with what the source has instead (no such subject; the subject's
  value for that relation).

:func:`check_facts` builds the index from the run configuration (kg-qgen's SH build only: about
3 s on the built-in facts or MQuAKE-hard-dev) and returns one row per fact; :func:`fact_table`
renders the rows as the table ``leakres eval --check-only`` prints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from leakres_cli.records import FactKey, Record, fact_key


class FactIndex:
    """The SH questions of a source or set, its SH rejects and (for a source) its graph, by label."""

    def __init__(
        self, single: Sequence[Record], rejects: Sequence[dict[str, Any]] = (), graph: Any = None
    ) -> None:
        self.sh_by_id = {q["id"]: q for q in single}
        self.by_key: dict[FactKey, str] = {fact_key(q["target"]): q["id"] for q in single}
        self.asked_relations = {q["target"]["relation"] for q in single}
        self.rejected: dict[FactKey, dict[str, Any]] = {}
        for r in rejects:
            target = (r.get("record") or {}).get("target")
            if r.get("type") == "SH" and isinstance(target, dict):
                self.rejected.setdefault(fact_key(target), r)
        self.graph = graph
        self.facts: set[FactKey] = set()
        self.values: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.subjects: set[str] = set()
        if graph is not None:
            for f in graph.facts():
                d = graph.fact_dict(f)
                self.facts.add(fact_key(d))
                self.values[(d["subject"], d["relation"])].append(d["object"])
                self.subjects.add(d["subject"])
        self.relations = {r for _, r, _ in self.facts}

    def question_id(self, fact: dict[str, str]) -> str | None:
        """The SH question id that measures ``fact`` (an ``{"id"}`` or a labelled fact), or None."""
        if "id" in fact:
            return fact["id"] if fact["id"] in self.sh_by_id else None
        return self.by_key.get(fact_key(fact))

    def reason(self, fact: dict[str, str]) -> str | None:
        """Why ``fact`` cannot be asked (module docstring), None when it can."""
        if self.question_id(fact) is not None:
            return None
        if "id" in fact:
            return "no SH question with this id in the question set"
        key = fact_key(fact)
        s, r, _ = key
        if self.graph is None:  # a --questions set: its SH questions are all there is
            if r not in self.asked_relations:
                return f"relation '{r}' is asked by no single-hop question of the question set"
            return "no single-hop question of the question set asks this fact"
        rejected = self.rejected.get(key)
        why = f" ({rejected['check']}: {rejected['reason']})" if rejected else ""
        if r not in self.relations:
            return f"relation '{r}' is not in the knowledge source"
        if r not in self.asked_relations:
            return f"relation '{r}' is never asked by kg-qgen{why}"
        if key in self.facts:
            return f"in the knowledge source, but kg-qgen rejected its single-hop question{why}"
        if s not in self.subjects:
            return f"not in the knowledge source (it has no subject '{s}')"
        has = self.values.get((s, r))
        if has:
            return f"not in the knowledge source (it has {s} {r} = {', '.join(sorted(has))})"
        return f"not in the knowledge source (it has no '{r}' fact about {s})"


def read_question_set(path: str) -> list[Record]:
    """The questions of a kg-qgen set folder (or its questions.jsonl): streamed, one-line errors,
    every record with its target and every id once (:func:`leakres_cli.config.inputs.read_question_set`)."""
    from leakres_cli.config.inputs import read_question_set as read_checked

    return read_checked(path)


def source_index(cfg: Any, questions: str | None = None) -> tuple[FactIndex, list[Record]]:
    """The :class:`FactIndex` of a ``--questions`` set (read) or of ``cfg.source`` (kg-qgen's SH
    build over every fact), and the set's questions (empty for a source)."""
    if questions is not None:
        all_q = read_question_set(questions)
        return FactIndex([q for q in all_q if q["type"] == "SH"]), all_q
    import kg_qgen

    graph = kg_qgen.load_source(cfg.source, cfg.source_path)
    built = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=cfg.seed)
    return FactIndex(built.questions, built.rejects, graph), []


def check_facts(cfg: Any, inputs: Any) -> list[dict[str, Any]]:
    """One row per given fact: ``{"role", "fact", "question_id", "reason"}`` (reason None: it can
    be asked). Loads no model."""
    index, _ = source_index(cfg, inputs.questions)
    return [
        {"role": role, "fact": f, "question_id": index.question_id(f), "reason": index.reason(f)}
        for role, facts in (("forget", inputs.forget), ("retain", inputs.retain))
        for f in facts
    ]


def _shown(fact: dict[str, str]) -> str:
    return fact.get("id") or " / ".join(fact[k] for k in ("subject", "relation", "object"))


def fact_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a Markdown table: role, fact, the SH question that measures it or the reason."""
    lines = ["| role | fact | can be asked |", "|---|---|---|"]
    for row in rows:
        verdict = f"yes ({row['question_id']})" if row["reason"] is None else f"no: {row['reason']}"
        lines.append(f"| {row['role']} | {_shown(row['fact'])} | {verdict} |")
    return "\n".join(lines)
