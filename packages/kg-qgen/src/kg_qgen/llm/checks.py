"""LLM verification checks (paper 4.3): decomposition consistency and answer uniqueness.

Both follow kg-qgen's :class:`~kg_qgen.checking.Check` protocol (``name``, ``__call__(records,
graph) -> list[Reject]``) and run after the deterministic checks.

* :class:`DecompositionCheck` (``llm_decomposition``): the LLM breaks the question into single-hop
  steps ``{"subject", "relation", "answer"}``. Every premise of the record must be recovered by
  some step: subject and answer match the premise's subject and object (normalised whole-phrase
  matching against the label and every alias, see :mod:`kg_qgen.textnorm`), and the relation
  matches (:func:`relation_matches`: every content word of the shorter label matches one of the
  other, so "birthplace" matches "place of birth" but "place of death" does not). Otherwise the
  record is discarded.
* :class:`UniquenessCheck` (``llm_uniqueness``): the LLM judges whether the question has exactly
  one valid answer; ``"unique": false`` discards the record with the model's reason.

A record the LLM could not judge (backend error, unusable reply after re-asks) is discarded with
the reason when ``on_failure="reject"`` (default: unverified questions do not enter the
benchmark), or kept when ``on_failure="keep"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kg_qgen.checking import Check, Reject
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.llm.ask import ask_json
from kg_qgen.llm.backend import LLMBackend
from kg_qgen.llm.jsonparse import ParseError, extract_json
from kg_qgen.llm.prompts import decomposition_prompt, uniqueness_prompt
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = [
    "DecompositionCheck",
    "UniquenessCheck",
    "llm_checks",
    "parse_decomposition",
    "parse_uniqueness",
    "relation_matches",
]

_STOP = {"of", "the", "a", "an", "in", "is", "to", "for", "by", "on", "at", "was", "has", "its"}


def parse_decomposition(text: str) -> list[dict[str, str]]:
    """Steps from a decomposition reply (``{"steps": [...]}`` or a bare list)."""
    try:
        obj: Any = extract_json(text, dict)
        steps = obj.get("steps")
    except ParseError:
        steps = extract_json(text, list)
    if not isinstance(steps, list) or not steps:
        raise ParseError('"steps" must be a non-empty list')
    out = []
    for k, step in enumerate(steps):
        if not isinstance(step, dict):
            raise ParseError(f"step {k + 1} is not an object")
        fields = {f: step.get(f) for f in ("subject", "relation", "answer")}
        bad = [f for f, v in fields.items() if not isinstance(v, str | int | float) or v == ""]
        if bad:
            raise ParseError(f"step {k + 1} lacks {bad}")
        out.append({f: str(v) for f, v in fields.items()})
    return out


def parse_uniqueness(text: str) -> tuple[bool, str]:
    obj = extract_json(text, dict)
    value = obj.get("unique")
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        value = value.strip().lower() in ("true", "yes")
    if not isinstance(value, bool):
        raise ParseError('"unique" must be true or false')
    reason = obj.get("reason", "")
    return value, str(reason) if reason is not None else ""


# A few everyday words for relation labels (relation labels are Wikidata-style nouns).
_SYNONYMS = {
    "nationality": "citizenship",
    "citizen": "citizenship",
    "born": "birth",
    "birthplace": "birth",
    "died": "death",
    "wrote": "author",
    "written": "author",
    "writer": "author",
    "founder": "founded",
    "hq": "headquarters",
    "based": "headquarters",
    "located": "location",
}


def _content(words: str) -> list[str]:
    return [_SYNONYMS.get(w, w) for w in normalize(words).split() if w not in _STOP]


def _word_matches(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) >= 4 and (a in b or b in a):  # "birth" / "birthplace"
        return True
    return min(len(a), len(b)) >= 5 and a[:5] == b[:5]  # "citizen" / "citizenship"


def relation_matches(gold: str, predicted: str) -> bool:
    """Lenient relation comparison (see the module docstring).

    Every content word of the side with fewer content words must match a word of the other side
    (equal, one containing the other, or a shared 5-letter prefix, after a small synonym map), so
    "citizenship" matches "country of citizenship" but "place of death" does not match
    "place of birth".
    """
    g, p = _content(gold), _content(predicted)
    if not g or not p:
        return False
    short, long = (g, p) if len(g) <= len(p) else (p, g)
    return all(any(_word_matches(a, b) for b in long) for a in short)


def _check_on_failure(value: str) -> None:
    if value not in ("reject", "keep"):
        raise ValueError(f"on_failure must be 'reject' or 'keep', got {value!r}")


def _entity_matches(forms: Sequence[str], predicted: str) -> bool:
    p = normalize(predicted)
    return any(contains_phrase(p, normalize(f)) for f in forms if normalize(f))


def _premises(record: dict, graph: KnowledgeGraph) -> list[tuple[list[str], str, list[str]]]:
    """(subject forms, relation label, object forms) per premise; ids give aliases."""
    out = []
    ids = record.get("premise_ids")
    if ids:
        for p in ids:
            s, o = p["subject"], p["object"]
            s_forms = [graph.label(s), *graph.aliases(s)] if graph.has_entity(s) else [s]
            o_forms = [graph.label(o), *graph.aliases(o)] if graph.has_entity(o) else [o]
            out.append((s_forms, graph.relation_label(p["relation"]), o_forms))
    else:
        for p in record["premises"]:
            out.append(([p["subject"]], p["relation"], [p["object"]]))
    if record.get("type") == "LL" and record.get("alias") and out:
        out[0][0].append(record["alias"])
    return out


@dataclass
class DecompositionCheck:
    """Discard questions whose LLM decomposition does not recover their premises."""

    backend: LLMBackend
    max_parse_retries: int = 1
    max_tokens: int = 384
    on_failure: str = "reject"
    name: str = "llm_decomposition"

    def __post_init__(self) -> None:
        _check_on_failure(self.on_failure)

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        answers = ask_json(
            self.backend,
            [decomposition_prompt(r["question"]) for r in records],
            parse_decomposition,
            max_parse_retries=self.max_parse_retries,
            max_tokens=self.max_tokens,
        )
        out = []
        for r, (steps, error) in zip(records, answers, strict=True):
            if steps is None:
                if self.on_failure == "reject":
                    out.append(Reject(r, self.name, f"could not verify: {error}"))
                continue
            why = self._mismatch(r, graph, steps)
            if why:
                out.append(Reject(r, self.name, why))
        return out

    @staticmethod
    def _mismatch(record: dict, graph: KnowledgeGraph, steps: list[dict[str, str]]) -> str | None:
        for s_forms, rel, o_forms in _premises(record, graph):
            found = any(
                _entity_matches(s_forms, st["subject"])
                and relation_matches(rel, st["relation"])
                and _entity_matches(o_forms, st["answer"])
                for st in steps
            )
            if not found:
                got = "; ".join(
                    f"{st['subject']} | {st['relation']} | {st['answer']}" for st in steps
                )
                return (
                    f"no decomposition step matches premise ({s_forms[0]} | {rel} | {o_forms[0]}); "
                    f"steps: {got}"
                )
        return None


@dataclass
class UniquenessCheck:
    """Discard questions the LLM judges to have no single valid answer."""

    backend: LLMBackend
    max_parse_retries: int = 1
    max_tokens: int = 128
    on_failure: str = "reject"
    name: str = "llm_uniqueness"

    def __post_init__(self) -> None:
        _check_on_failure(self.on_failure)

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        answers = ask_json(
            self.backend,
            [uniqueness_prompt(r["question"], r["answer"]) for r in records],
            parse_uniqueness,
            max_parse_retries=self.max_parse_retries,
            max_tokens=self.max_tokens,
        )
        out = []
        for r, (verdict, error) in zip(records, answers, strict=True):
            if verdict is None:
                if self.on_failure == "reject":
                    out.append(Reject(r, self.name, f"could not verify: {error}"))
                continue
            unique, reason = verdict
            if not unique:
                out.append(Reject(r, self.name, f"judged not uniquely answerable: {reason}"))
        return out


def llm_checks(backend: LLMBackend, on_failure: str = "reject") -> list[Check]:
    """Both LLM checks, decomposition first, sharing one backend."""
    return [
        DecompositionCheck(backend, on_failure=on_failure),
        UniquenessCheck(backend, on_failure=on_failure),
    ]
