""":func:`generate`, the entry point every stage uses, and the prompt formatting it re-exports
(ARCHITECTURE.md section 3, written in :mod:`recover_attacks.chat_format` and
:mod:`recover_attacks.engine.prompts`); the decoding
itself is :class:`~recover_attacks.engine.LocalEngine`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from .chat_format import (
    FALLBACK_TEMPLATE,
    format_prompt,
    has_chat_template,
    prompt_has_special_tokens,
)
from .engine.base import Engine
from .engine.config import DecodingConfig
from .engine.local import LocalEngine, model_device
from .engine.prompts import as_question, format_messages, question_prompt
from .engine.stops import current_answer_end

__all__ = [
    "FALLBACK_TEMPLATE",
    "format_messages",
    "format_prompt",
    "generate",
    "has_chat_template",
    "model_device",
    "prompt_has_special_tokens",
    "question_prompt",
]


# long: a keyword signature and its documentation are 46 of its 73 lines
@torch.no_grad()
def generate(
    model: Any,
    tokenizer: Any,
    questions_or_prompts: Sequence[Any],
    *,
    do_sample: bool = False,
    temperature: float = 1.0,
    top_p: float = 1.0,
    num_return_sequences: int = 1,
    max_new_tokens: int = 32,
    batch_size: int | None = None,
    seed: int = 0,
    progress: bool = False,
    top_k: int = 0,
    chat_template: bool = True,
    stop: Sequence[str] = (),
    answer_end: Callable[[str], int | None] | None = None,
    answer_end_triggers: Sequence[str] = (),
    engine: Engine | None = None,
) -> list[list[str]]:
    """Generate ``num_return_sequences`` responses per item, in the input order (stripped).

    Items are question strings or question records (formatted with :func:`format_prompt`), or,
    with ``chat_template=False``, prompts that are already fully formatted. Decoding is
    :class:`~recover_attacks.engine.LocalEngine` (continuous batching, shared-prefix cache) under
    a :class:`~recover_attacks.engine.DecodingConfig` built from these arguments:

    - ``batch_size``: most rows (sequences) decoded at once, whatever ``num_return_sequences``:
      a sampled prompt takes ``num_return_sequences`` rows, so about
      ``batch_size // num_return_sequences`` prompts decode together, and always at least one
      (``num_return_sequences`` rows, when ``batch_size`` is smaller). Memory thus grows with
      ``batch_size``, not with the number of samples. ``None`` sizes the batch from free memory.
      It bounds memory, not results: a prompt's responses do not depend on it.
    - sampling: sample ``j`` of a prompt uses a generator seeded from ``(seed, prompt text, j)``,
      so it is reproducible whatever the other prompts, the batch size or the order.
    - ``stop``: strings that end a response (cut before them); EOS always ends it.
    - ``answer_end``/``answer_end_triggers``: stop a response once the judged answer has ended
      (not cut; :class:`~recover_attacks.engine.stops.AnswerEnd`). Default: the rule set by an
      enclosing :func:`~recover_attacks.engine.answer_end_rule`, else none.
    - ``top_k=0`` disables top-k filtering.
    - ``engine``: decode through this engine (one serving ``model``, e.g. the engine injected
      into an attack's ``run``) instead of a :class:`LocalEngine` on ``model``; prompts are
      formatted here the same way either way, and ``batch_size`` is then the engine's affair.

    The tokenizer is never modified.
    """
    if (batch_size is not None and batch_size < 1) or num_return_sequences < 1:
        raise ValueError("batch_size and num_return_sequences must be >= 1")
    items = [as_question(q, i) for i, q in enumerate(questions_or_prompts)]
    prompts = [format_prompt(tokenizer, q) for q in items] if chat_template else items
    if not prompts:
        return []
    if answer_end is None and (injected := current_answer_end()) is not None:
        answer_end, answer_end_triggers = injected
    config = DecodingConfig(
        max_new_tokens=max_new_tokens,
        do_sample=do_sample,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        num_samples=num_return_sequences,
        seed=seed,
        stop=tuple(stop),
        answer_end=answer_end,
        answer_end_triggers=tuple(answer_end_triggers) if answer_end is not None else (),
    )
    if engine is None:
        # Rows, not prompts: a sampled prompt's rows all join at once, so at least one prompt.
        per_prompt = num_return_sequences if do_sample else 1
        rows = None if batch_size is None else max(batch_size, per_prompt)
        engine = LocalEngine(model, tokenizer, max_batch_size=rows)
    responses = engine.complete(prompts, config, progress=progress)
    return [[text.strip() for text in per_prompt] for per_prompt in responses]
