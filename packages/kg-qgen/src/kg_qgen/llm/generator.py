"""LLM question generator (paper 4.2): type-specific prompts, JSON paraphrases, leak-filtered.

For every match the generator sends the type's prompt (:mod:`kg_qgen.llm.prompts`), parses the
JSON reply ``{"questions": [...], "answer_aliases": [...]}``, and keeps ONE question: the
paraphrases are put in a seeded random order and the first that passes the per-question rules it
is given (:class:`~kg_qgen.checking.QuestionRules`; the registry's ``llm`` generator,
:mod:`kg_qgen.llm_factory`, gets the ones ``kg-qgen verify`` runs: the leak rule, the logic of its type, relation labels, style) and names
what it must name (the subject, LL's alias and not the label, every DS option, MT's candidate and
consequent) is kept. So the LLM's questions are held to exactly the same validity rules as the
template generator's. This package never imports :mod:`kg_qgen.verify`: the rules come through
the interface of :mod:`kg_qgen.checking`.

An unusable reply (no JSON, wrong fields, every paraphrase leaking) is re-asked up to
``max_parse_retries`` times, each time with the bad reply and what was wrong appended to the
conversation. A match that still fails, or whose request failed at the backend (timeout after
retries, HTTP error), becomes a :class:`~kg_qgen.checking.Reject` with check
``llm_generation`` and the reason, collected in :attr:`LLMQuestionGenerator.rejects` - never
silently dropped.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kg_qgen.checking import QuestionRules, Reject
from kg_qgen.generate.base import make_record
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.llm.ask import ask_each
from kg_qgen.llm.backend import LLMBackend
from kg_qgen.llm.jsonparse import ParseError, extract_json
from kg_qgen.llm.prompts import PROMPT_VERSION, generation_prompt
from kg_qgen.match.base import Match
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["GENERATION_CHECK", "LLMQuestionGenerator", "parse_generation", "question_problem"]

GENERATION_CHECK = "llm_generation"
MAX_ALIAS_WORDS = 8


def parse_generation(text: str, n_paraphrases: int) -> tuple[list[str], list[str]]:
    """Questions and answer aliases from a generation reply; :class:`ParseError` if unusable."""
    obj = extract_json(text, dict)
    questions = obj.get("questions")
    if isinstance(questions, str):
        questions = [questions]
    if not isinstance(questions, list):
        raise ParseError('"questions" must be a list of strings')
    questions = [" ".join(q.split()) for q in questions if isinstance(q, str) and q.strip()]
    if not questions:
        raise ParseError('"questions" holds no non-empty string')
    aliases = obj.get("answer_aliases", [])
    if isinstance(aliases, str):
        aliases = [aliases]
    if not isinstance(aliases, list):
        raise ParseError('"answer_aliases" must be a list of strings')
    aliases = [" ".join(a.split()) for a in aliases if isinstance(a, str) and a.strip()]
    return questions[: max(n_paraphrases, 1)], aliases[:3]


def _mentions(text_norm: str, forms: Sequence[str]) -> bool:
    return any(contains_phrase(text_norm, normalize(f)) for f in forms if normalize(f))


def _missing_mention(m: Match, g: KnowledgeGraph, question: str) -> str | None:
    """What the question fails to name (or names but must not), or None."""
    text = normalize(question)
    f = m.target

    def forms(eid: str) -> list[str]:
        return [g.label(eid), *g.aliases(eid)]

    if m.type == "LL":
        alias = m.extra["alias"]
        if not contains_phrase(text, normalize(alias)):
            return f"the question does not use the alias {alias!r}"
        rest = text.replace(normalize(alias), " ")
        if contains_phrase(rest, normalize(g.label(f.subject))):
            return f"the question names {g.label(f.subject)!r} instead of only its alias"
        return None
    subjects = [f.subject] + ([m.extra["partner"]] if m.type == "CC" else [])
    for s in subjects:
        if not _mentions(text, forms(s)):
            return f"the question does not name the subject {g.label(s)!r}"
    if m.type in ("DS", "MT"):
        missing = [g.label(o) for o in m.extra["options"] if not _mentions(text, forms(o))]
        if missing:
            return f"the question does not list the option(s) {missing}"
    if m.type == "MT":
        for ent in {x for pair in m.extra["conditionals"] for x in pair}:
            if not _mentions(text, forms(ent)):
                return f"the question does not state the conditionals' {g.label(ent)!r}"
    return None


def question_problem(m: Match, g: KnowledgeGraph, record: dict, rules: QuestionRules) -> str | None:
    """Why a generated question cannot be kept: the leak rule, then what it must name, then the
    other ``rules`` in order (the first reason found)."""
    why = rules.leak(record, g) or _missing_mention(m, g, record["question"])
    for rule in rules.rules:
        why = why or rule(record, g)
    return why


@dataclass
class LLMQuestionGenerator:
    """Question generator backed by an :class:`~kg_qgen.llm.backend.LLMBackend`.

    Attributes:
        backend: any backend (wrap it in :class:`~kg_qgen.llm.cache.CachedBackend` to cache).
        rules: the per-question rules a paraphrase must pass to be kept (``kg-qgen verify``'s:
            ``kg_qgen.verify.deterministic.question_rules()``).
        seed: orders paraphrases before the first passing one is kept (default 0).
        n_paraphrases: paraphrases requested per match (default 3).
        max_parse_retries: re-asks after an unusable reply (default 2, i.e. up to 3 calls).
        temperature: sampling temperature sent to the backend (default 0.0, greedy).
        max_tokens: completion budget per reply (default 384).
        use_llm_aliases: add the model's answer aliases to the graph's (default True); aliases
            that name another entity of the graph or exceed 8 words are dropped.
        name: generator name recorded in every record (``"llm"``).

    The dataclass is its own config (``config_cls`` is the class).
    """

    config_cls: ClassVar[type[Any]]

    backend: LLMBackend
    rules: QuestionRules
    seed: int = 0
    n_paraphrases: int = 3
    max_parse_retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 384
    use_llm_aliases: bool = True
    name: str = "llm"
    rejects: list[Reject] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.n_paraphrases < 1:
            raise ValueError(f"n_paraphrases must be >= 1, got {self.n_paraphrases}")
        if self.max_parse_retries < 0:
            raise ValueError(f"max_parse_retries must be >= 0, got {self.max_parse_retries}")

    def describe(self) -> dict[str, Any]:
        """Hyperparameters (and backend settings, credential-free) for manifests."""
        inner = getattr(self.backend, "describe", None) or getattr(self.backend, "settings", None)
        return {
            "generator": self.name,
            "seed": self.seed,
            "n_paraphrases": self.n_paraphrases,
            "max_parse_retries": self.max_parse_retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "use_llm_aliases": self.use_llm_aliases,
            "prompt_version": PROMPT_VERSION,
            "backend": inner() if callable(inner) else {"model": self.backend.model},
        }

    def settings(self) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe` (the run metadata every family reports)."""
        return self.describe()

    def generate(self, matches: Sequence[Match], graph: KnowledgeGraph) -> list[dict]:
        """Records for the matches that worked; the failures go to :attr:`rejects`."""
        records, self.rejects = self.generate_with_rejects(matches, graph)
        return records

    def generate_with_rejects(
        self, matches: Sequence[Match], graph: KnowledgeGraph
    ) -> tuple[list[dict], list[Reject]]:
        ids = self._ids(matches)
        label_owner = self._label_owner(graph) if self.use_llm_aliases else {}
        chosen, failed = self._ask_all(matches, graph, ids, label_owner)
        records, rejects = [], []
        for i, m in enumerate(matches):
            if i in chosen:
                question, paraphrases, aliases, attempts = chosen[i]
                extra = {
                    "generator": self.name,
                    "llm_model": self.backend.model,
                    "prompt_version": PROMPT_VERSION,
                    "paraphrases": paraphrases,
                    "llm_attempts": attempts,
                }
                records.append(
                    make_record(
                        m,
                        graph,
                        question,
                        ids[i],
                        answer_aliases=self._aliases(m, graph, aliases, label_owner),
                        extra=extra,
                    )
                )
            else:
                reason, reply = failed[i]
                stub = make_record(
                    m,
                    graph,
                    "",
                    ids[i],
                    extra={
                        "generator": self.name,
                        "llm_model": self.backend.model,
                        "prompt_version": PROMPT_VERSION,
                        "llm_reply": reply,
                    },
                )
                rejects.append(Reject(stub, GENERATION_CHECK, reason))
        return records, rejects

    def _ask_all(
        self,
        matches: Sequence[Match],
        graph: KnowledgeGraph,
        ids: list[str],
        label_owner: dict[str, str],
    ) -> tuple[dict[int, tuple[str, list[str], list[str], int]], dict[int, tuple[str, str]]]:
        """Every match asked in batches until it gives a usable reply or fails
        (:func:`~kg_qgen.llm.ask.ask_each`): the chosen (question, paraphrases, aliases, attempts)
        and the (reason, reply) of each failure, by match index. An unusable reply (no JSON,
        wrong fields, no question that passes the checks) is asked again with a repair prompt."""

        def parse(i: int, reply: str) -> tuple[str, list[str], list[str]]:
            questions, aliases = parse_generation(reply, self.n_paraphrases)
            question = self._pick(matches[i], graph, questions, aliases, ids[i], label_owner)
            return question, questions, aliases

        asked = ask_each(
            self.backend,
            [generation_prompt(m, graph, self.n_paraphrases) for m in matches],
            parse,
            max_parse_retries=self.max_parse_retries,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
        )
        chosen: dict[int, tuple[str, list[str], list[str], int]] = {}
        failed: dict[int, tuple[str, str]] = {}
        for i, a in enumerate(asked):
            if a.error is not None:
                failed[i] = (a.error, a.reply)
            else:
                question, questions, aliases = a.value
                chosen[i] = (question, questions, aliases, a.attempts)
        return chosen, failed

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _ids(matches: Sequence[Match]) -> list[str]:
        """Ids numbered per type in match order (a rejected match keeps its id unused)."""
        counters: dict[str, int] = {}
        out = []
        for m in matches:
            n = counters.get(m.type, 0)
            counters[m.type] = n + 1
            out.append(f"{m.type}-{n:06d}")
        return out

    @staticmethod
    def _label_owner(g: KnowledgeGraph) -> dict[str, str]:
        owner: dict[str, str] = {}
        for e in g.entities():
            for form in (e.label, *e.aliases):
                owner.setdefault(normalize(form), e.id)
        return owner

    def _aliases(
        self, m: Match, g: KnowledgeGraph, llm_aliases: list[str], owner: dict[str, str]
    ) -> list[str]:
        if not m.answer_is_entity:
            return []
        answer = g.label(m.answer)
        out = list(g.aliases(m.answer))
        if self.use_llm_aliases:
            seen = {normalize(x) for x in [answer, *out]}
            for a in llm_aliases:
                key = normalize(a)
                if not key or key in seen or len(key.split()) > MAX_ALIAS_WORDS:
                    continue
                if owner.get(key, m.answer) != m.answer:  # names a different entity
                    continue
                seen.add(key)
                out.append(a)
        return out

    def _pick(
        self,
        m: Match,
        g: KnowledgeGraph,
        questions: list[str],
        llm_aliases: list[str],
        rid: str,
        owner: dict[str, str],
    ) -> str:
        order = list(range(len(questions)))
        random.Random(f"{self.seed}:{rid}").shuffle(order)
        aliases = self._aliases(m, g, llm_aliases, owner)
        problems = []
        for k in order:
            q = questions[k]
            probe = make_record(m, g, q, rid, answer_aliases=aliases)
            why = question_problem(m, g, probe, self.rules)
            if why is None:
                return q
            problems.append(f"question {k + 1}: {why}")
        raise ParseError("no question is usable (" + "; ".join(problems) + ")")


LLMQuestionGenerator.config_cls = LLMQuestionGenerator
