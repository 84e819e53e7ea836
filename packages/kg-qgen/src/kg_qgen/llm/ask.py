"""Ask a batch of JSON questions, re-asking on unusable replies (shared by the generator, the
quality judges, sources and checks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from kg_qgen.llm.backend import LLMBackend, Messages, complete_or_errors
from kg_qgen.llm.jsonparse import ParseError
from kg_qgen.llm.prompts import repair_prompt

__all__ = ["Asked", "ask_each", "ask_json"]

T = TypeVar("T")


@dataclass
class Asked(Generic[T]):
    """What one prompt gave: a parsed ``value``, or why none (exactly one of the two errors).

    Attributes:
        value: the parsed reply (None where there is none).
        attempts: requests made for this prompt (the first and every re-ask).
        reply: the last reply (``""`` where the last request failed at the backend).
        failed_request: the backend's reason where a request failed (not re-asked here: backends
            retry transient errors themselves).
        unusable: ``"unusable reply after N attempt(s): ..."`` where every reply was unusable.
    """

    value: T | None = None
    attempts: int = 0
    reply: str = ""
    failed_request: str | None = None
    unusable: str | None = None

    @property
    def error(self) -> str | None:
        """Why there is no value (None where there is one): ``"backend error: ..."`` or
        :attr:`unusable`."""
        if self.failed_request is not None:
            return f"backend error: {self.failed_request}"
        return self.unusable


def ask_each(
    backend: LLMBackend,
    prompts: list[Messages],
    parse: Callable[[int, str], T],
    *,
    max_parse_retries: int = 2,
    max_tokens: int = 512,
    temperature: float = 0.0,
) -> list[Asked[T]]:
    """One :class:`Asked` per prompt, in order; every round is one batch to the backend.

    ``parse(i, reply)`` turns prompt ``i``'s reply into a value or raises :class:`ParseError`; an
    unusable reply is re-asked (with the reply and the problem appended, which also changes the
    cache key) up to ``max_parse_retries`` times.
    """
    results: list[Asked[T]] = [Asked() for _ in prompts]
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
                results[i] = Asked(attempts=attempts[i], failed_request=errors.get(j, "no reply"))
                del pending[i]
                continue
            try:
                results[i] = Asked(parse(i, reply), attempts[i], reply)
                del pending[i]
            except ParseError as err:
                if attempts[i] > max_parse_retries:
                    why = f"unusable reply after {attempts[i]} attempt(s): {err}"
                    results[i] = Asked(attempts=attempts[i], reply=reply, unusable=why)
                    del pending[i]
                else:
                    pending[i] = repair_prompt(pending[i], reply, str(err))
    return results


def ask_json(
    backend: LLMBackend,
    prompts: list[Messages],
    parse: Callable[[str], T],
    *,
    max_parse_retries: int = 2,
    max_tokens: int = 512,
    temperature: float = 0.0,
) -> list[tuple[T | None, str | None]]:
    """One ``(value, None)`` or ``(None, reason)`` per prompt, in order (:func:`ask_each` with
    ``parse(reply)``; the reason of a failed request is ``"backend error: ..."``)."""
    asked = ask_each(
        backend,
        prompts,
        lambda _i, reply: parse(reply),
        max_parse_retries=max_parse_retries,
        max_tokens=max_tokens,
        temperature=temperature,
    )
    return [(a.value, a.error) for a in asked]
