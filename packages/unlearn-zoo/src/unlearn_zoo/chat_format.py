"""How a question is shown to a model (ARCHITECTURE.md section 3).

The model's chat template with one user turn and the generation prompt; without a chat template,
``"Question: {q}\nAnswer:"``. Chat templates write BOS and role tokens themselves, so a prompt
is tokenized with the tokenizer's special tokens only under the fallback.

The library that unlearns and the one that attacks keep their own copy of this module (the
libraries never import each other), so a model is trained and queried on the same prompt; the
copies are byte-identical, which ``tests/test_shared_copies.py`` at the repository root checks.
This module imports nothing of its package.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FALLBACK_TEMPLATE", "format_prompt", "has_chat_template", "prompt_has_special_tokens"]

FALLBACK_TEMPLATE = "Question: {q}\nAnswer:"


def has_chat_template(tokenizer: Any) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


def format_prompt(tokenizer: Any, question: str) -> str:
    """The prompt a question is shown with: one user turn + generation prompt (or the fallback)."""
    if has_chat_template(tokenizer):
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": question}], add_generation_prompt=True, tokenize=False
        )
    return FALLBACK_TEMPLATE.format(q=question)


def prompt_has_special_tokens(tokenizer: Any) -> bool:
    """Chat templates already write BOS/role tokens; the fallback needs the tokenizer's own."""
    return not has_chat_template(tokenizer)
