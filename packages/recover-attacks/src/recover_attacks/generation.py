"""Prompt formatting (ARCHITECTURE.md section 3) and batched, length-sorted generation."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from tqdm.auto import tqdm
from transformers import GenerationConfig

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


@contextmanager
def left_padding(tokenizer: Any) -> Iterator[Any]:
    """Temporarily pad on the left (decoder-only generation) with a pad token set."""
    old_side, old_pad = tokenizer.padding_side, tokenizer.pad_token
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    try:
        yield tokenizer
    finally:
        tokenizer.padding_side = old_side
        if old_pad is None:
            tokenizer.pad_token = None


def _eos_ids(model: Any, tokenizer: Any) -> int | list[int] | None:
    gen = getattr(model, "generation_config", None)
    eos = getattr(gen, "eos_token_id", None) if gen is not None else None
    return eos if eos is not None else tokenizer.eos_token_id


def _as_question(item: Any, index: int) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping) and isinstance(item.get("question"), str):
        return item["question"]
    raise TypeError(
        f"generate: item #{index} must be a question string or a record with a 'question' "
        f"string, got {type(item).__name__}"
    )


def model_device(model: Any) -> torch.device:
    try:
        return next(model.parameters()).device
    except StopIteration:  # pragma: no cover - parameterless model
        return torch.device("cpu")


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
    batch_size: int = 16,
    seed: int = 0,
    progress: bool = False,
    top_k: int = 0,
    chat_template: bool = True,
) -> list[list[str]]:
    """Generate ``num_return_sequences`` responses per item, in the input order.

    Items are question strings or question records (formatted with :func:`format_prompt`), or,
    with ``chat_template=False``, prompts that are already fully formatted. Items are sorted by
    token length so each batch has little padding (left padding), and results are put back in
    the original order. Before each batch ``torch.manual_seed(seed + batch_index)`` is called,
    so sampling is reproducible for the same inputs, seed and batch size. ``top_k=0`` disables
    top-k filtering (only ``top_p`` applies when sampling).
    """
    if batch_size < 1 or num_return_sequences < 1:
        raise ValueError("batch_size and num_return_sequences must be >= 1")
    if chat_template:
        prompts = [
            format_prompt(tokenizer, _as_question(q, i)) for i, q in enumerate(questions_or_prompts)
        ]
        add_special = prompt_has_special_tokens(tokenizer)
    else:
        prompts = [_as_question(q, i) for i, q in enumerate(questions_or_prompts)]
        add_special = prompt_has_special_tokens(tokenizer)
    if not prompts:
        return []
    lengths = [len(tokenizer(p, add_special_tokens=add_special)["input_ids"]) for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: (lengths[i], i))
    eos = _eos_ids(model, tokenizer)
    # A fresh config so a model's saved sampling defaults never leak into greedy decoding.
    gen_kwargs: dict[str, Any] = {
        "max_new_tokens": max_new_tokens,
        "num_return_sequences": num_return_sequences,
        "eos_token_id": eos,
        "do_sample": do_sample,
    }
    if do_sample:
        gen_kwargs.update(temperature=temperature, top_p=top_p, top_k=top_k)
    device = model_device(model)
    results: list[list[str]] = [[] for _ in prompts]
    batches = [order[s : s + batch_size] for s in range(0, len(order), batch_size)]
    was_training = model.training
    model.eval()
    try:
        with left_padding(tokenizer):
            gen_kwargs["pad_token_id"] = tokenizer.pad_token_id
            config = GenerationConfig(**gen_kwargs)
            for b, idx in enumerate(tqdm(batches, desc="generate", disable=not progress)):
                enc = tokenizer(
                    [prompts[i] for i in idx],
                    return_tensors="pt",
                    padding=True,
                    add_special_tokens=add_special,
                ).to(device)
                torch.manual_seed(seed + b)
                out = model.generate(**enc, generation_config=config)
                new = out[:, enc["input_ids"].shape[1] :]
                texts = tokenizer.batch_decode(new, skip_special_tokens=True)
                for j, i in enumerate(idx):
                    chunk = texts[j * num_return_sequences : (j + 1) * num_return_sequences]
                    results[i] = [t.strip() for t in chunk]
    finally:
        model.train(was_training)
    return results
