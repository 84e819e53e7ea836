"""Config fields shared by every attack that decodes, and the greedy decoding of the attacks
that change the weights."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..base import AttackConfig
from ..errors import ConfigError
from ..generation import generate, question_prompt
from ..records import QuestionRecord


@dataclasses.dataclass
class DecodeConfig(AttackConfig):
    """Decoding budget shared by all attacks.

    max_new_tokens: answer length cap (greedy answers of SmolLM2 are one short sentence).
    batch_size: most sequences (rows) ``generate`` decodes at once; a sampled question takes
        one row per sample, so a sampling attack decodes ``batch_size // samples`` questions
        at once (at least one). Bounds memory, never a response (beyond float ties).
    seed: base seed; sample ``j`` of a prompt is seeded from ``(seed, prompt, j)``.
    """

    max_new_tokens: int = 32
    batch_size: int = 16
    seed: int = 0

    def validate(self) -> None:
        if self.max_new_tokens < 1 or self.batch_size < 1:
            raise ConfigError(f"{type(self).__name__}: max_new_tokens and batch_size must be >= 1")


def greedy_answers(
    model: Any,
    tokenizer: Any,
    questions: Sequence[QuestionRecord],
    c: DecodeConfig,
    *,
    progress: bool,
) -> list[list[str]]:
    """``model``'s greedy answers to ``questions`` (their chat prompts) under ``c``'s decoding
    budget, in process (no engine: the attacks that change the weights decode their own copy)."""
    return generate(
        model,
        tokenizer,
        [question_prompt(q) for q in questions],
        max_new_tokens=c.max_new_tokens,
        batch_size=c.batch_size,
        seed=c.seed,
        progress=progress,
    )
