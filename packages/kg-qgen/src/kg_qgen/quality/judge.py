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

from kg_qgen.llm.ask import Asked, ask_each
from kg_qgen.llm.backend import LLMBackend
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
        """One :class:`ItemScore` per record, in order (asked by :func:`~kg_qgen.llm.ask.ask_each`:
        one batch per round, unusable replies re-asked)."""

        def parse(_i: int, reply: str) -> tuple[dict[str, float], str, float]:
            scores, reason = parse_scores(reply)
            return scores, reason, sum(scores.values()) / len(scores)

        asked = ask_each(
            self.backend,
            [quality_prompt(r) for r in records],
            parse,
            max_parse_retries=self.max_parse_retries,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
        )
        return [self._item(rec, a) for rec, a in zip(records, asked, strict=True)]

    def _item(
        self, rec: Mapping[str, Any], asked: Asked[tuple[dict[str, float], str, float]]
    ) -> ItemScore:
        base = {"id": str(rec.get("id")), "type": str(rec.get("type")), "judge": self.name}
        if asked.value is None:
            error = asked.unusable
            if asked.failed_request is not None:
                error = f"request failed: {asked.failed_request}"
            return ItemScore(
                **base, scores=None, overall=None, attempts=asked.attempts, error=error
            )
        scores, reason, overall = asked.value
        return ItemScore(
            **base, scores=scores, overall=overall, reason=reason, attempts=asked.attempts
        )


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
