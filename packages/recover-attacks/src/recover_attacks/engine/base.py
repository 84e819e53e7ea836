"""The engine interface: formatted prompts in, ``num_samples`` raw responses per prompt out.

An engine never formats or judges. Prompts are formatted once, by the caller or by
:meth:`Engine.answer` with :func:`recover_attacks.generation.format_prompt` (ARCHITECTURE.md
section 3), so the in-process engine and a server engine see byte-identical prompts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .config import DecodingConfig

#: ``generate_fn(prompts, max_new_tokens, stop) -> texts``: one greedy response per formatted
#: prompt, cut before the first stop string. The shape leak-metrics' BBH and kg-qgen's local
#: backend accept, so the CLI can hand them an engine without the libraries importing each other.
GenerateFn = Callable[[list[str], int, list[str]], list[str]]


@dataclass
class EngineStats:
    """What the last call cost: tokens actually run through the model (padding excluded; a shared
    prefix counted once), responses' tokens (EOS included), forward passes, seconds."""

    prompts: int = 0
    responses: int = 0
    prompt_tokens: int = 0
    prefix_tokens: int = 0
    generated_tokens: int = 0
    forward_passes: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def processed_tokens(self) -> int:
        """Prompt tokens computed plus generated tokens fed back (the last one never is)."""
        return self.prompt_tokens + max(0, self.generated_tokens - self.responses)


class Engine(ABC):
    """Decode formatted prompts under a :class:`DecodingConfig`.

    Subclasses implement :meth:`complete`; results are in input order, ``num_samples`` raw texts
    per prompt (special tokens dropped, cut before a stop string, not stripped).
    """

    name: str = ""

    def __init__(self) -> None:
        self.last_stats = EngineStats()

    @abstractmethod
    def complete(
        self, prompts: Sequence[str], config: DecodingConfig, *, progress: bool = False
    ) -> list[list[str]]:
        """``config.num_samples`` responses for each already formatted prompt."""

    @abstractmethod
    def format_prompt(self, question: str) -> str:
        """The prompt a question is shown with (ARCHITECTURE.md section 3)."""

    def answer(
        self,
        questions: Sequence[str | Mapping[str, Any]],
        config: DecodingConfig,
        *,
        progress: bool = False,
    ) -> list[list[str]]:
        """Format each question (string or record with ``question``) and :meth:`complete` it."""
        from .prompts import as_question

        prompts = [self.format_prompt(as_question(q, i)) for i, q in enumerate(questions)]
        return self.complete(prompts, config, progress=progress)

    def generate_fn(self, **defaults: Any) -> GenerateFn:
        """A :data:`GenerateFn` over this engine: greedy, ``defaults`` override other fields."""

        def generate(prompts: list[str], max_new_tokens: int, stop: list[str]) -> list[str]:
            config = DecodingConfig(max_new_tokens=max_new_tokens, stop=tuple(stop), **defaults)
            return [responses[0] for responses in self.complete(prompts, config)]

        return generate

    def describe(self) -> dict[str, Any]:
        """Plain data identifying the engine, to record with results."""
        return {"engine": self.name}

    def close(self) -> None:  # noqa: B027 - optional hook, most engines hold nothing to release
        """Release resources (a server engine closes its client)."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
