"""How a question is shown to a model (ARCHITECTURE.md section 3): the chat template with one user
turn and the generation prompt, or the ``Question:/Answer:`` fallback. Every engine formats with
these, and :mod:`recover_attacks.generation` re-exports them; this module imports nothing of the
package, so the engine and the attacks both build on it without an import circle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "FALLBACK_TEMPLATE",
    "as_question",
    "format_messages",
    "format_prompt",
    "has_chat_template",
    "prompt_has_special_tokens",
]

FALLBACK_TEMPLATE = "Question: {q}\nAnswer:"


def has_chat_template(tokenizer: Any) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


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


def format_prompt(tokenizer: Any, question: str) -> str:
    """The prompt a question is shown with: one user turn + generation prompt (or the fallback)."""
    return format_messages(tokenizer, [{"role": "user", "content": question}])


def prompt_has_special_tokens(tokenizer: Any) -> bool:
    """Chat templates already write BOS/role tokens; the fallback needs the tokenizer's own."""
    return not has_chat_template(tokenizer)


def as_question(item: Any, index: int) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping) and isinstance(item.get("question"), str):
        return item["question"]
    raise TypeError(
        f"generate: item #{index} must be a question string or a record with a 'question' "
        f"string, got {type(item).__name__}"
    )
