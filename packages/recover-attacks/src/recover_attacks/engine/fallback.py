"""The fallback path of :class:`~recover_attacks.engine.local.LocalEngine`: ``model.generate`` on
length-sorted, left-padded batches, for models whose cache the engine cannot edit (sliding
windows, linear attention; the engine before continuous batching)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from tqdm.auto import tqdm

from .config import DecodingConfig, request_seed
from .rows import _eos_ids, model_device
from .stops import AnswerEnd


def _generation_config(config: DecodingConfig, eos: list[int], pad: int) -> Any:
    """The transformers ``GenerationConfig`` of ``config`` (sampled: n samples per call)."""
    from transformers import GenerationConfig

    gen_kwargs: dict[str, Any] = {
        "max_new_tokens": config.max_new_tokens,
        "num_return_sequences": config.num_samples if config.do_sample else 1,
        "eos_token_id": eos or None,
        "pad_token_id": pad,
        "do_sample": config.do_sample,
    }
    if config.do_sample:
        gen_kwargs.update(temperature=config.temperature, top_p=config.top_p, top_k=config.top_k)
    if config.stop:
        gen_kwargs["stop_strings"] = list(config.stop)
    return GenerationConfig(**gen_kwargs)


def fallback_generate(
    engine: Any,
    ids: list[list[int]],
    prompts: list[str],
    config: DecodingConfig,
    progress: bool,
    seeds: Sequence[int] | None = None,
) -> list[list[list[int]]]:
    """``engine.model.generate`` on length-sorted, left-padded batches; tokens per sample.

    Sampling is seeded per prompt (``torch.manual_seed`` of the prompt's first sample seed,
    one prompt per call), so it is still independent of the batch composition.
    """
    model, tokenizer, stats = engine.model, engine.tokenizer, engine.last_stats
    device = model_device(model)
    eos = sorted(_eos_ids(model, tokenizer))
    pad = eos[0] if eos else 0
    per_call = 1 if config.do_sample else (engine.max_batch_size or 16)
    generation_config = _generation_config(config, eos, pad)
    per = generation_config.num_return_sequences
    answer = AnswerEnd(tokenizer, config.answer_end, config.answer_end_triggers)
    order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
    results: list[list[list[int]]] = [[] for _ in ids]
    for s in tqdm(range(0, len(order), per_call), desc="generate", disable=not progress):
        idx = order[s : s + per_call]
        width = max(len(ids[i]) for i in idx)
        input_ids = torch.tensor(
            [[pad] * (width - len(ids[i])) + ids[i] for i in idx], device=device
        )
        mask = torch.tensor(
            [[0] * (width - len(ids[i])) + [1] * len(ids[i]) for i in idx], device=device
        )
        if config.do_sample:
            base = config.seed if seeds is None else seeds[idx[0]]
            torch.manual_seed(request_seed(base, prompts[idx[0]], 0))
        extra: dict[str, Any] = {"tokenizer": tokenizer} if config.stop else {}
        if answer:  # the prompt's columns end at ``width``; the rule reads what follows
            extra["stopping_criteria"] = [_AnswerEndCriteria(answer, width)]
        out = model.generate(
            input_ids=input_ids, attention_mask=mask, generation_config=generation_config, **extra
        )
        new = out[:, width:].tolist()
        for j, i in enumerate(idx):
            chunk = new[j * per : (j + 1) * per]
            results[i] = [[t for t in seq if t not in eos and t != pad] for seq in chunk]
            stats.prompt_tokens += len(ids[i])
            stats.generated_tokens += sum(len(seq) for seq in results[i])
    stats.responses = len(ids) * config.num_samples
    if not config.do_sample and config.num_samples > 1:
        results = [r * config.num_samples for r in results]
    return results


class _AnswerEndCriteria:
    """:class:`AnswerEnd` as a transformers stopping criterion of ``model.generate`` (per row;
    a finished row is padded by ``generate`` and its padding dropped afterwards)."""

    def __init__(self, answer: AnswerEnd, width: int = 0) -> None:
        self.answer = answer
        self.width = width

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        rows = input_ids[:, self.width :].tolist()
        done = [bool(r) and self.answer.hit(r) for r in rows]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)
