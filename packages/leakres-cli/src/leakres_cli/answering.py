"""The run's one greedy decoding protocol and the answers decoded under it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .config import RunConfig
from .records import Record


def decoding_protocol(cfg: RunConfig) -> dict[str, Any]:
    """The run's one greedy decoding protocol: evaluation and every attack decode under it.

    A containment judge rewards longer answers, so an attack with a larger token budget than the
    evaluation would inflate RR; the attacks get these values (``attack_overrides``) and each
    attack cell records them. Stop rule: EOS only (no stop strings); prompts: the chat template.
    """
    return {
        "max_new_tokens": cfg.max_new_tokens,
        "batch_size": cfg.batch_size,
        "seed": cfg.seed,
        "stop": [],
        "chat_template": True,
    }


def greedy_answers(
    generation: Any,
    model: Any,
    tokenizer: Any,
    questions: Sequence[Record],
    protocol: dict[str, Any],
    *,
    progress: bool,
) -> list[str]:
    """Greedy answers: in-process (recover_attacks.generate, continuous batching) or, with
    ``--engine openai``, from the model's server (``generation``: the run's GenerationRouter) with
    the same prompts and decoding."""
    from recover_attacks import generate

    if not questions:
        return []
    prompts = [q["question"] for q in questions]
    server = generation.engine_for(model, tokenizer)
    if server is not None:
        from recover_attacks.engine import DecodingConfig

        config = DecodingConfig(max_new_tokens=protocol["max_new_tokens"], seed=protocol["seed"])
        return [responses[0] for responses in generation.answer(server, prompts, config)]
    outputs = generate(
        model,
        tokenizer,
        prompts,
        max_new_tokens=protocol["max_new_tokens"],
        batch_size=protocol["batch_size"],
        seed=protocol["seed"],
        stop=tuple(protocol["stop"]),
        chat_template=protocol["chat_template"],
        progress=progress,
    )
    return [responses[0] for responses in outputs]
