"""LLM quality judges: every question scored 0-100 on logical correctness, clarity, naturalness.

A :class:`QualityJudge` wraps any :class:`~kg_qgen.llm.backend.LLMBackend` (in practice the
OpenAI-compatible :class:`~kg_qgen.llm.openai_backend.OpenAIBackend`, which brings the request
concurrency limit, retries with backoff and key handling, behind a
:class:`~kg_qgen.llm.cache.CachedBackend`). One batch per round goes to the backend; replies that
cannot be parsed are re-asked up to ``max_parse_retries`` times with the problem stated (which
also changes the cache key); an item whose request failed or whose replies stayed unusable gets
an ``error`` and no score - it is counted, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from kg_qgen.llm.backend import LLMBackend, Messages, complete_or_errors
from kg_qgen.llm.jsonparse import ParseError
from kg_qgen.llm.prompts import repair_prompt
from kg_qgen.quality.prompt import CRITERIA, QUALITY_PROMPT_VERSION, parse_scores, quality_prompt

__all__ = ["ItemScore", "QualityJudge", "score_with_judges"]


@dataclass
class ItemScore:
    """One judge's scores of one question (``overall`` = mean of the three criteria)."""

    id: str
    type: str
    judge: str
    scores: dict[str, float] | None
    overall: float | None
    reason: str = ""
    error: str | None = None
    attempts: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        scores = out.pop("scores") or {}
        return {**out, **{k: scores.get(k) for k in CRITERIA}}


@dataclass
class _Pending:
    index: int
    messages: Messages
    attempts: int = 0


@dataclass
class QualityJudge:
    """Scores question records with one LLM.

    Attributes:
        backend: the LLM backend (cached, concurrency-limited, retried).
        name: the judge's name in tables (default: the backend's model).
        max_parse_retries: re-asks after an unusable reply (default 2).
        temperature: sampling temperature (default 0: the most repeatable scores).
        max_tokens: reply budget (default 200; the reply is four short fields).
    """

    backend: LLMBackend
    name: str = ""
    max_parse_retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 200
    settings_extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.backend.model

    def describe(self) -> dict[str, Any]:
        """Credential-free settings for the results files."""
        inner = getattr(self.backend, "describe", None) or getattr(self.backend, "settings", None)
        return {
            "name": self.name,
            "prompt_version": QUALITY_PROMPT_VERSION,
            "max_parse_retries": self.max_parse_retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "backend": inner() if callable(inner) else {"model": self.backend.model},
            **self.settings_extra,
        }

    def settings(self) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe` (the run metadata every family reports)."""
        return self.describe()

    def score(self, records: Sequence[Mapping[str, Any]]) -> list[ItemScore]:
        """One :class:`ItemScore` per record, in order."""
        pending = {i: _Pending(i, quality_prompt(r)) for i, r in enumerate(records)}
        done: dict[int, ItemScore] = {}
        while pending:
            batch = list(pending.values())
            replies, errors = complete_or_errors(
                self.backend,
                [p.messages for p in batch],
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                response_format_json=True,
            )
            for j, p in enumerate(batch):
                p.attempts += 1
                rec = records[p.index]
                base = {"id": str(rec.get("id")), "type": str(rec.get("type")), "judge": self.name}
                reply = replies[j]
                if j in errors or reply is None:
                    done[p.index] = ItemScore(
                        **base, scores=None, overall=None, attempts=p.attempts,
                        error=f"request failed: {errors.get(j, 'no reply')}",
                    )  # fmt: skip
                    del pending[p.index]
                    continue
                try:
                    scores, reason = parse_scores(reply)
                except ParseError as err:
                    if p.attempts > self.max_parse_retries:
                        done[p.index] = ItemScore(
                            **base, scores=None, overall=None, attempts=p.attempts,
                            error=f"unusable reply after {p.attempts} attempt(s): {err}",
                        )  # fmt: skip
                        del pending[p.index]
                    else:
                        p.messages = repair_prompt(p.messages, reply, str(err))
                    continue
                overall = sum(scores.values()) / len(scores)
                done[p.index] = ItemScore(
                    **base, scores=scores, overall=overall, reason=reason, attempts=p.attempts
                )
                del pending[p.index]
        return [done[i] for i in range(len(records))]


def score_with_judges(
    records: Sequence[Mapping[str, Any]], judges: Sequence[QualityJudge]
) -> dict[str, list[ItemScore]]:
    """Every judge scores every record; judges run side by side (each has its own endpoint and
    concurrency limit), so the wall time is that of the slowest judge, not the sum."""
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise ValueError(f"judge names must be unique, got {names}; set --judge-name")
    with ThreadPoolExecutor(max_workers=max(1, len(judges))) as pool:
        results = list(pool.map(lambda j: j.score(records), judges))
    return dict(zip(names, results, strict=True))
