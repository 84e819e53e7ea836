"""How BBH prompts are decoded: a caller's :data:`GenerateFn`, or the stand-alone fallback.

:data:`GenerateFn` is ``generate_fn(prompts, max_new_tokens, stop) -> texts``: one greedy
continuation per prompt, in order, special tokens dropped, cut before the first of the ``stop``
strings. leakres' CLI passes ``recover_attacks``' engine in this shape
(``LocalEngine(model, tokenizer).generate_fn()``); leak-metrics never imports it.

The fallback, :func:`generate_batched`, is a plain batched greedy loop over ``model.generate``:
length-sorted batches, left padding, and the task's few-shot prefix run once with its KV cache
reused by every batch. It is correct but not fast (no continuous batching).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from leak_metrics._optional import require

GenerateFn = Callable[[list[str], int, list[str]], list[str]]


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to (not including) the earliest stop string."""
    cuts = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(cuts)] if cuts else text


def _encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def generate_batched(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    batch_size: int,
    max_new_tokens: int,
    stop_strings: Sequence[str] = (),
    shared_prefix: str | None = None,
    desc: str = "generate",
) -> list[str]:
    """Greedy continuations of ``prompts`` in batches of ``batch_size`` (the fallback engine).

    Rows are left-padded (built here: the tokenizer is only read, never changed). When every
    prompt starts with ``shared_prefix`` (the few-shot examples) the prefix is run through the
    model once and its KV cache is reused by every batch; padding then sits between prefix and
    question, masked out, and position ids follow the attention mask, so the result is the same
    greedy decoding as without the cache. Prompts whose tokenisation does not start with the
    prefix tokens are decoded uncached. Texts are cut before the first stop string.
    """
    torch = require("torch", "local", "BBH generation")
    from tqdm.auto import tqdm

    pad_id = _pad_id(tokenizer)
    encoded = [_encode(tokenizer, p) for p in prompts]
    prefix_ids, prefix_cache, cache_kwarg = _run_prefix(torch, model, tokenizer, shared_prefix)
    n_prefix = len(prefix_ids)

    def uses_prefix(ids: list[int]) -> bool:
        return prefix_cache is not None and len(ids) > n_prefix and ids[:n_prefix] == prefix_ids

    groups = [
        [i for i in range(len(prompts)) if uses_prefix(encoded[i])],
        [i for i in range(len(prompts)) if not uses_prefix(encoded[i])],
    ]
    extra: dict[str, Any] = {}
    if stop_strings:
        extra = {"stop_strings": list(stop_strings), "tokenizer": tokenizer}
    batches = _batches(groups, encoded, batch_size)
    outputs: list[str] = [""] * len(prompts)
    for cached, batch in tqdm(batches, desc=desc, leave=False):
        tails = [encoded[i][n_prefix:] if cached else encoded[i] for i in batch]
        width = max(len(t) for t in tails)
        head = prefix_ids if cached else []
        rows = [head + [pad_id] * (width - len(t)) + t for t in tails]
        masks = [[1] * len(head) + [0] * (width - len(t)) + [1] * len(t) for t in tails]
        kwargs: dict[str, Any] = dict(extra)
        if cached:
            cache = copy.deepcopy(prefix_cache)
            cache.batch_repeat_interleave(len(batch))
            kwargs[cache_kwarg] = cache
        new_tokens = _generate(torch, model, rows, masks, max_new_tokens, pad_id, kwargs)
        for row, index in enumerate(batch):
            text = tokenizer.decode(new_tokens[row], skip_special_tokens=True)
            outputs[index] = cut_at_stop(text, stop_strings)
    return outputs


def _batches(
    groups: list[list[int]], encoded: list[list[int]], batch_size: int
) -> list[tuple[bool, list[int]]]:
    """Prompt indices in batches, the cached group's first, each flagged whether it is cached."""
    batches: list[tuple[bool, list[int]]] = []
    for cached, members in zip((True, False), groups, strict=True):
        # Similar lengths together keep padding (wasted compute) small.
        members = sorted(members, key=lambda i: -len(encoded[i]))
        batches += [
            (cached, members[s : s + batch_size]) for s in range(0, len(members), batch_size)
        ]
    return batches


def _pad_id(tokenizer: Any) -> int:
    """The pad token id, else the EOS id, else 0."""
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
    return int(pad_id)


def _run_prefix(
    torch: Any, model: Any, tokenizer: Any, shared_prefix: str | None
) -> tuple[list[int], Any, str]:
    """The prefix's token ids, its KV cache (None without a prefix) and the keyword that
    ``generate`` takes the cache under."""
    if not shared_prefix:
        return [], None, "cache"
    prefix_ids = _encode(tokenizer, shared_prefix)
    with torch.no_grad():
        prefix_out = model(
            input_ids=torch.tensor([prefix_ids], device=model.device), use_cache=True
        )
    # transformers >= 5.x names the KV cache `cache` (`past_key_values` is deprecated).
    cache_kwarg = "cache" if getattr(prefix_out, "cache", None) is not None else "past_key_values"
    return prefix_ids, getattr(prefix_out, cache_kwarg), cache_kwarg


def _generate(
    torch: Any,
    model: Any,
    rows: list[list[int]],
    masks: list[list[int]],
    max_new_tokens: int,
    pad_id: int,
    kwargs: dict[str, Any],
) -> Any:
    """Greedy ``model.generate`` on one left-padded batch; the new tokens only."""
    input_ids = torch.tensor(rows, device=model.device)
    with torch.no_grad():
        generated = model.generate(
            input_ids=input_ids,
            attention_mask=torch.tensor(masks, device=model.device),
            do_sample=False,
            max_new_tokens=max_new_tokens,
            pad_token_id=pad_id,
            **kwargs,
        )
    return generated[:, input_ids.shape[1] :]


def _common_text_prefix(texts: Sequence[str]) -> str:
    first, last = min(texts), max(texts)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def transformers_generate_fn(model: Any, tokenizer: Any, *, batch_size: int = 16) -> GenerateFn:
    """The fallback as a :data:`GenerateFn` (prompts sharing a prefix reuse its KV cache)."""

    def generate(prompts: list[str], max_new_tokens: int, stop: list[str]) -> list[str]:
        prefix = _common_text_prefix(prompts) if len(prompts) > 1 else None
        return generate_batched(
            model,
            tokenizer,
            prompts,
            batch_size=batch_size,
            max_new_tokens=max_new_tokens,
            stop_strings=stop,
            shared_prefix=prefix or None,
        )

    return generate
