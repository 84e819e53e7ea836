"""A teaching corpus from any :class:`~kg_qgen.graph.KnowledgeGraph`: what a model is fine-tuned on
so that it knows a graph's facts (statements) and answers every logic type in the form it is asked
(worked examples).

Contract (every function here is pure and seeded: the same graph, arguments and seed give the same
list, in the same order):

* An example is a plain dict ``{"prompt", "completion", "kind", "facts"}``: ``prompt`` is the user
  turn (a question or request, as a model is prompted at evaluation time), ``completion`` the
  short answer the model should give (a committed first sentence: the judge reads only that),
  ``kind`` one of ``"statement"`` (a sentence stating one fact), ``"question"`` (a single-hop
  question and its answer), ``"alias"`` (another name of an entity) or ``"worked:<TYPE>"`` (a
  question of a logic type built by :func:`kg_qgen.build` and its gold answer), and ``facts`` the
  facts the example states or rests on, as record-schema dicts ``{"subject", "relation",
  "object"}`` (labels, as a question's ``premises``; an alias example lists none).
* :func:`fact_statements` states each given fact ``statements`` ways (varied sentences from the
  relation's phrasing) and asks it ``questions`` ways (the relation's direct questions; a fact in
  ``asked`` is asked first as it is asked elsewhere, e.g. a run's own single-hop question).
* :func:`worked_examples` builds questions of every requested type with kg-qgen's normal builders
  and keeps only those whose **every premise fact is outside** ``exclude`` (label triples), then
  at most ``per_type`` per type (seeded sample). ``counts``/``available`` say how many there were.
* :func:`teaching_corpus` puts both together: statements of ``statement_facts`` (default: every
  fact of the graph) and worked examples disjoint from ``exclude``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kg_qgen.errors import KgQgenError
from kg_qgen.graph import Fact, KnowledgeGraph
from kg_qgen.match.base import QUESTION_TYPES

__all__ = [
    "TeachingCorpus",
    "alias_examples",
    "fact_key",
    "fact_statements",
    "sentence",
    "teaching_corpus",
    "worked_examples",
]

FactKey = tuple[str, str, str]
Example = dict[str, Any]

#: requests whose answer is a statement about the subject ({s}: the subject's name)
STATEMENT_PROMPTS = (
    "Tell me a fact about {s}.",
    "What do you know about {s}?",
    "State one thing that is true of {s}.",
    "Say something about {s}.",
)
#: alias prompts ({a}: the alias, {s}: the entity's name)
ALIAS_PROMPTS = ("What is another name for {a}?", "Who or what is {a}?")


def fact_key(fact: Mapping[str, str]) -> FactKey:
    """A fact's identity here: its (subject, relation, object) labels, as leakres compares facts."""
    return (fact["subject"], fact["relation"], fact["object"])


def _phrase(relation_id: str, label: str) -> Any:
    from kg_qgen.wording import phrase_for

    return phrase_for(relation_id, label)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    """``text`` as one sentence: first letter capitalised, one final period ("D.C." keeps its own)."""
    text = _cap(text.strip())
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _sentences(phrase: Any, s: str, o: str) -> list[str]:
    """Every sentence the relation's phrasing gives for the fact ``s -> o`` (distinct, ordered)."""
    out = [f"{phrase.np(s)} is {o}", f"{phrase.possessive(s)} is {o}"]
    out += [v.format(s=s, o=o, **{"not": ""}) for v in phrase.verbs]
    out.append(f"{o} is {phrase.np(s)}")
    if phrase.plain:
        out.append(f"{s} has {o} as its {phrase.noun}")
        out += [f"{s}'s {alt} is {o}" for alt in phrase.alt_nouns]
    return list(dict.fromkeys(sentence(x) for x in out))


def _questions(phrase: Any, s: str) -> list[str]:
    n = max(1, len(phrase.questions))
    return list(dict.fromkeys(phrase.direct(s, i) for i in range(n)))


def fact_statements(
    graph: KnowledgeGraph,
    facts: Iterable[Fact] | None = None,
    *,
    statements: int = 3,
    questions: int = 2,
    seed: int = 0,
    asked: Mapping[FactKey, str] | None = None,
) -> list[Example]:
    """Per fact (default: every fact of ``graph``, in its order): ``statements`` statement examples
    (distinct sentences, seeded; fewer when the phrasing has fewer) and ``questions`` question
    examples (answer ``"<object>."``): the fact's prompt in ``asked`` (keyed by :func:`fact_key`)
    first when it has one, then the relation's direct questions. A model taught a fact under one
    wording mostly knows it under that wording: taught a fictitious KB with one random direct
    question per fact, SmolLM2-135M answered 152 of 179 facts asked that way but 57 of 179 asked
    in another template (leakres-cli README, "Base models")."""
    if statements < 0 or questions < 0:
        raise KgQgenError("statements and questions per fact must be >= 0")
    rng = random.Random(seed)
    out: list[Example] = []
    for f in graph.facts() if facts is None else facts:
        d = graph.fact_dict(f)
        phrase = _phrase(f.relation, graph.relation_label(f.relation))
        sents = _sentences(phrase, d["subject"], d["object"])
        rng.shuffle(sents)
        prompts = rng.sample(STATEMENT_PROMPTS, len(STATEMENT_PROMPTS))
        for i, sent in enumerate(sents[:statements]):
            prompt = _fill(prompts[i % len(prompts)], s=d["subject"])
            out.append(_example(prompt, sent, "statement", [d]))
        asks = _questions(phrase, d["subject"])
        rng.shuffle(asks)
        first = (asked or {}).get(fact_key(d))
        if first is not None:
            asks = [first, *(q for q in asks if q != first)]
        for q in asks[:questions]:
            out.append(_example(q, sentence(d["object"]), "question", [d]))
    return out


def alias_examples(
    graph: KnowledgeGraph, entity_ids: Iterable[str], *, seed: int = 0
) -> list[Example]:
    """One example per alias of each entity (``entity_ids``, in order; unknown ids skipped):
    "What is another name for <alias>?" -> "<alias> is another name for <name>."."""
    rng = random.Random(seed)
    out: list[Example] = []
    for eid in dict.fromkeys(entity_ids):
        if not graph.has_entity(eid):
            continue
        name = graph.label(eid)
        for alias in graph.aliases(eid):
            if alias == name:
                continue
            prompt = _fill(rng.choice(ALIAS_PROMPTS), a=alias, s=name)
            out.append(_example(prompt, f"{alias} is another name for {name}.", "alias", []))
    return out


def _fill(template: str, **names: str) -> str:
    """``template`` filled; a name ending in "." ("Tesla, Inc.") does not get a second one."""
    return template.format(**names).replace("..", ".")


def _example(prompt: str, completion: str, kind: str, facts: list[dict[str, str]]) -> Example:
    return {"prompt": prompt, "completion": completion, "kind": kind, "facts": facts}


def _question_prompt(record: Mapping[str, Any]) -> str:
    return str(record["question"])


def worked_examples(
    graph: KnowledgeGraph,
    *,
    exclude: Iterable[FactKey] = (),
    per_type: int = 30,
    types: Sequence[str] = QUESTION_TYPES[1:],
    seed: int = 0,
    prompt_of: Callable[[Mapping[str, Any]], str] = _question_prompt,
) -> tuple[list[Example], dict[str, int], dict[str, int]]:
    """Questions of every type in ``types`` built by :func:`kg_qgen.build` (template generator,
    verified) whose every premise fact is outside ``exclude``; at most ``per_type`` of each type,
    a seeded sample. Returns ``(examples, counts, available)``: ``counts[T]`` kept, ``available[T]``
    the disjoint questions the graph had. The completion is the gold answer as a short sentence
    (``"<answer>."``); ``prompt_of(record)`` is the prompt (default: the record's question), so a
    caller that prompts with an answer instruction teaches the same prompt."""
    import kg_qgen

    if per_type < 0:
        raise KgQgenError(f"per_type must be >= 0, got {per_type}")
    excluded = set(exclude)
    rng = random.Random(seed)
    examples: list[Example] = []
    counts: dict[str, int] = {}
    available: dict[str, int] = {}
    types = [t for t in types if t != "SH"]
    built = kg_qgen.build(graph, types=types, per_type=10**6, seed=seed).questions if types else []
    for qtype in types:
        free = [
            q
            for q in built
            if q["type"] == qtype and not any(fact_key(p) in excluded for p in q["premises"])
        ]
        available[qtype] = len(free)
        chosen = rng.sample(free, min(per_type, len(free)))
        counts[qtype] = len(chosen)
        for q in chosen:
            completion = sentence(q["answer"])
            examples.append(_example(prompt_of(q), completion, f"worked:{qtype}", q["premises"]))
    return examples, counts, available


@dataclass
class TeachingCorpus:
    """The examples of :func:`teaching_corpus` and what they hold."""

    examples: list[Example]
    counts: dict[str, int] = field(default_factory=dict)  # examples per kind
    worked_available: dict[str, int] = field(default_factory=dict)  # disjoint questions per type
    n_statement_facts: int = 0


def teaching_corpus(
    graph: KnowledgeGraph,
    *,
    statement_facts: Iterable[FactKey] | None = None,
    exclude: Iterable[FactKey] = (),
    statements: int = 3,
    questions: int = 2,
    per_type: int = 30,
    types: Sequence[str] = QUESTION_TYPES[1:],
    seed: int = 0,
    prompt_of: Callable[[Mapping[str, Any]], str] = _question_prompt,
    asked: Mapping[FactKey, str] | None = None,
) -> TeachingCorpus:
    """Statements (and single-hop questions, ``asked`` as in :func:`fact_statements`) of the facts
    whose label triple is in ``statement_facts`` (``None``: every fact; ``()``: none), alias
    examples of their subjects and objects, and worked examples of ``types`` on facts disjoint from
    ``exclude``. Order: statements, aliases, worked examples (a trainer shuffles)."""
    wanted = None if statement_facts is None else set(statement_facts)
    facts = [f for f in graph.facts() if wanted is None or fact_key(graph.fact_dict(f)) in wanted]
    out = fact_statements(
        graph, facts, statements=statements, questions=questions, seed=seed, asked=asked
    )
    entities = [e for f in facts for e in (f.subject, f.object)]
    out += alias_examples(graph, entities, seed=seed)
    worked, _, available = worked_examples(
        graph, exclude=exclude, per_type=per_type, types=types, seed=seed, prompt_of=prompt_of
    )
    out += worked
    counts: dict[str, int] = {}
    for e in out:
        counts[e["kind"]] = counts.get(e["kind"], 0) + 1
    return TeachingCorpus(out, counts, available, len(facts))
