"""A chat of several turns as a prompt, and the question of an item: what the attacks need beyond
the one-question prompt of :mod:`recover_attacks.chat_format` (ARCHITECTURE.md section 3), with
the same chat template and the same ``Question:/Answer:`` fallback. :mod:`recover_attacks.generation`
re-exports them; this module imports only :mod:`recover_attacks.chat_format`, so the engine and the
attacks both build on it without an import circle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..chat_format import FALLBACK_TEMPLATE, has_chat_template

__all__ = ["as_question", "format_messages", "question_prompt"]


def format_messages(tokenizer: Any, messages: Sequence[Mapping[str, str]]) -> str:
    """Format a chat (user/assistant turns, ending with a user turn) as a generation prompt.

    Without a chat template, turns are rendered with the ``Question:/Answer:`` fallback.
    """
    if has_chat_template(tokenizer):
        return tokenizer.apply_chat_template(
            [dict(m) for m in messages], add_generation_prompt=True, tokenize=False
        )
    parts = []
    for m in messages:
        if m["role"] == "user":
            parts.append(FALLBACK_TEMPLATE.format(q=m["content"]))
        else:
            parts[-1] = f"{parts[-1]} {m['content']}"
    return "\n\n".join(parts)


def question_prompt(record: Mapping[str, Any], question: str | None = None) -> str:
    """What a question record asks a model (ARCHITECTURE.md section 1): its ``question`` (or
    ``question``, a rewrite of it such as FocusOnKey's), then, when the record carries a non-empty
    ``instruction`` (the answer-form instruction kg-qgen writes, e.g. "Give only the answer."),
    one space and that instruction. kg-qgen's ``render_prompt`` is the same rule."""
    text = record["question"] if question is None else question
    instruction = record.get("instruction")
    if isinstance(instruction, str) and instruction.strip():
        return f"{text.rstrip()} {instruction.strip()}"
    return text


def as_question(item: Any, index: int) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping) and isinstance(item.get("question"), str):
        return question_prompt(item)
    raise TypeError(
        f"generate: item #{index} must be a question string or a record with a 'question' "
        f"string, got {type(item).__name__}"
    )
