"""Config fields shared by every attack that decodes."""

from __future__ import annotations

import dataclasses

from ..base import AttackConfig
from ..errors import ConfigError


@dataclasses.dataclass
class DecodeConfig(AttackConfig):
    """Decoding budget shared by all attacks.

    max_new_tokens: answer length cap (greedy answers of SmolLM2 are one short sentence).
    batch_size: questions per ``generate`` call (length-sorted batches, left padding).
    seed: base seed; batch ``b`` uses ``seed + b``.
    """

    max_new_tokens: int = 32
    batch_size: int = 16
    seed: int = 0

    def validate(self) -> None:
        if self.max_new_tokens < 1 or self.batch_size < 1:
            raise ConfigError(f"{type(self).__name__}: max_new_tokens and batch_size must be >= 1")
