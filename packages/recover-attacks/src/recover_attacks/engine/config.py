"""The decoding protocol: one typed record of how every answer is decoded.

The same :class:`DecodingConfig` drives the in-process engine and the OpenAI-compatible one, and
``describe()`` is what a caller records next to each result (ARCHITECTURE.md section 9).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .errors import EngineError


@dataclass(frozen=True)
class DecodingConfig:
    """How responses are decoded. Defaults are greedy, 32 new tokens, one response per prompt.

    max_new_tokens: generation budget per response (EOS and stop strings can end it earlier).
    do_sample: multinomial sampling instead of greedy (argmax; ties go to the lowest token id).
    temperature, top_k, top_p: sampling warpers, applied in that order as in transformers
        (``top_k=0`` and ``top_p=1.0`` are off). Ignored when greedy.
    num_samples: responses per prompt (``n``). Greedy responses are decoded once and repeated.
    seed: base seed. Sample ``j`` of a prompt draws from its own generator seeded with
        ``sha256(seed, prompt text, j)`` (:func:`request_seed`), so a prompt's samples do not
        depend on which other prompts share the call, on the batch size or on the order.
    stop: strings that end a response; the response is cut before the first one (OpenAI
        ``stop`` semantics). EOS (the model's ``generation_config.eos_token_id``, else the
        tokenizer's) always ends a response and is never part of the text.
    answer_end: the caller's rule ``text -> index past the judged answer, or None`` (the CLI
        injects leak-metrics' ``answer_stop``). A response stops as soon as the rule finds its end
        on the text up to a trigger (:class:`~recover_attacks.engine.stops.AnswerEnd`); the text
        is not cut, so what the rule judges is the same as with the full budget. Local engine
        only: an OpenAI-compatible server has no such rule and decodes the full budget.
    answer_end_triggers: strings every stop of ``answer_end`` ends with (leak-metrics'
        ``ANSWER_STOP_STRINGS``); the rule is only asked after one of them was generated.
    """

    max_new_tokens: int = 32
    do_sample: bool = False
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    num_samples: int = 1
    seed: int = 0
    stop: tuple[str, ...] = field(default_factory=tuple)
    answer_end: Callable[[str], int | None] | None = None
    answer_end_triggers: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if isinstance(self.stop, str):
            raise EngineError(
                f"DecodingConfig.stop must be a sequence of strings, got {self.stop!r}"
            )
        object.__setattr__(self, "stop", tuple(self.stop))
        object.__setattr__(self, "answer_end_triggers", tuple(self.answer_end_triggers))
        if self.answer_end is not None and (
            not callable(self.answer_end)
            or not self.answer_end_triggers
            or any(not isinstance(s, str) or not s for s in self.answer_end_triggers)
        ):
            raise EngineError(
                "DecodingConfig.answer_end must be a callable with non-empty "
                f"answer_end_triggers, got {self.answer_end!r} and {self.answer_end_triggers!r}"
            )
        if self.max_new_tokens < 1:
            raise EngineError(
                f"DecodingConfig.max_new_tokens must be >= 1, got {self.max_new_tokens}"
            )
        if self.num_samples < 1:
            raise EngineError(f"DecodingConfig.num_samples must be >= 1, got {self.num_samples}")
        if self.do_sample and not (
            self.temperature > 0 and 0 < self.top_p <= 1 and self.top_k >= 0
        ):
            raise EngineError(
                "DecodingConfig: sampling needs temperature > 0, 0 < top_p <= 1 and top_k >= 0, "
                f"got temperature={self.temperature}, top_p={self.top_p}, top_k={self.top_k}"
            )
        if any(not isinstance(s, str) or not s for s in self.stop):
            raise EngineError(f"DecodingConfig.stop must hold non-empty strings, got {self.stop!r}")

    def replace(self, **changes: Any) -> DecodingConfig:
        return replace(self, **changes)

    def describe(self) -> dict[str, Any]:
        """Plain data to record with every result (sampling fields only when sampling)."""
        record = asdict(self)
        record["stop"] = list(self.stop)
        rule = record.pop("answer_end")
        triggers = record.pop("answer_end_triggers")
        if rule is not None:  # absent otherwise: records from before the rule read the same
            record["answer_end"] = rule_name(rule)
            record["answer_end_triggers"] = list(triggers)
        if not self.do_sample:
            for key in ("temperature", "top_k", "top_p"):
                record.pop(key)
        return record


def rule_name(rule: Callable[..., Any]) -> str:
    """``module.qualname`` of an injected rule, as results record it."""
    module = getattr(rule, "__module__", None) or ""
    name = getattr(rule, "__qualname__", None) or type(rule).__name__
    return f"{module}.{name}" if module else name


def request_seed(seed: int, prompt: str, sample_index: int) -> int:
    """The 63-bit seed of sample ``sample_index`` of ``prompt``: a function of its content only."""
    digest = hashlib.sha256(f"{seed}\x1f{sample_index}\x1f{prompt}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)
