"""Ask a batch of JSON questions, re-asking on unusable replies (shared by sources and checks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from kg_qgen.llm.backend import LLMBackend, Messages, complete_or_errors
from kg_qgen.llm.jsonparse import ParseError
from kg_qgen.llm.prompts import repair_prompt

__all__ = ["ask_json"]

T = TypeVar("T")


def ask_json(
    backend: LLMBackend,
    prompts: list[Messages],
    parse: Callable[[str], T],
    *,
    max_parse_retries: int = 2,
    max_tokens: int = 512,
    temperature: float = 0.0,
) -> list[tuple[T | None, str | None]]:
    """One ``(value, None)`` or ``(None, reason)`` per prompt, in order.

    ``parse`` turns a reply into a value or raises :class:`ParseError`; an unusable reply is
    re-asked (with the reply and the problem appended) up to ``max_parse_retries`` times. Backend
    failures are not re-asked here (backends retry transient errors themselves).
    """
    results: list[tuple[Any, str | None]] = [(None, "not asked")] * len(prompts)
    pending = {i: list(p) for i, p in enumerate(prompts)}
    attempts = dict.fromkeys(pending, 0)
    while pending:
        idx = list(pending)
        replies, errors = complete_or_errors(
            backend,
            [pending[i] for i in idx],
            temperature=temperature,
            max_tokens=max_tokens,
            response_format_json=True,
        )
        for j, i in enumerate(idx):
            attempts[i] += 1
            reply = replies[j]
            if j in errors or reply is None:
                results[i] = (None, f"backend error: {errors.get(j, 'no reply')}")
                del pending[i]
                continue
            try:
                results[i] = (parse(reply), None)
                del pending[i]
            except ParseError as err:
                if attempts[i] > max_parse_retries:
                    results[i] = (None, f"unusable reply after {attempts[i]} attempt(s): {err}")
                    del pending[i]
                else:
                    pending[i] = repair_prompt(pending[i], reply, str(err))
    return results
