"""Causal-LM loss on the completion tokens, with the batch's common prompt prefix run once.

Every prompt of a teaching batch opens with the same chat-template tokens: SmolLM2's default
system prompt and the user role are 24 of a fact example's 53 tokens. A causal model's states
over that prefix do not depend on what follows, so :func:`completion_nll` runs the prefix for one
row, repeats its key/value cache across the batch and runs only the rows' own tokens on top; and
it scores only the positions that predict a label (the LM head over a 49k vocabulary is not run
at prompt positions). The loss and the gradients are those of the plain forward pass up to float
rounding (``tests/test_shared_prefix.py`` holds them within 1e-4 relative); with the fused AdamW a
teaching step at batch 4 cost 0.78x the plain one, 0.83x without the shared prefix
(``benchmarks/teach_prefix.py``).

It applies to right-padded batches of a decoder-only model that takes ``past_key_values`` and
``position_ids`` and whose logits are its output embedding's plain product (no soft-capping or
logit scale); anything else returns ``None`` and the caller uses the model's own loss.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch
from torch import nn

__all__ = ["common_prefix_length", "completion_nll"]

#: one shared token saves (rows - 1) token passes, less than the extra forward call costs
MIN_PREFIX = 2


def common_prefix_length(
    input_ids: torch.Tensor, attention_mask: torch.Tensor, labels: torch.Tensor
) -> int:
    """Leading positions where every row holds the same attended token and whose *next* token is no
    label (the prefix's last state predicts it, and that state is not scored here)."""
    length = input_ids.shape[1]
    same = (input_ids == input_ids[:1]).all(dim=0) & attention_mask.bool().all(dim=0)
    no_label_next = torch.ones(length, dtype=torch.bool)
    no_label_next[: length - 1] = (labels[:, 1:] == -100).all(dim=0)
    ok = (same & no_label_next).tolist()
    # at least one position must stay outside the prefix: its rows' own tokens
    return min(ok.index(False) if False in ok else length, length - 1)


def _causal_lm(model: nn.Module) -> nn.Module | None:
    """The causal LM under a peft wrapper (its LoRA layers stay in place), when it has one."""
    inner = model.get_base_model() if hasattr(model, "get_base_model") else model
    config = getattr(inner, "config", None)
    if config is None or getattr(config, "is_encoder_decoder", False):
        return None
    if getattr(config, "final_logit_softcapping", None) or getattr(config, "logit_scale", None):
        return None
    if not (hasattr(inner, "get_decoder") and hasattr(inner, "get_output_embeddings")):
        return None
    return inner


def completion_nll(
    model: nn.Module, inputs: dict[str, Any], num_items_in_batch: Any = None
) -> torch.Tensor | None:
    """Mean NLL of the label tokens of ``inputs`` (``input_ids``, ``attention_mask``, ``labels``:
    a collated right-padded batch, ``-100`` where no loss), or the sum over ``num_items_in_batch``
    when given (transformers' gradient-accumulation normalisation). ``None`` when the batch or
    the model does not allow the shared prefix (see the module docstring)."""
    lm = _causal_lm(model)
    ids, mask, labels = inputs.get("input_ids"), inputs.get("attention_mask"), inputs.get("labels")
    if lm is None or ids is None or mask is None or labels is None or ids.shape[0] < 2:
        return None
    if set(inputs) - {"input_ids", "attention_mask", "labels"}:
        return None  # position ids, packed sequences, images: the model's own forward knows them
    prefix = common_prefix_length(ids, mask, labels)
    if prefix < MIN_PREFIX:
        return None
    from transformers import DynamicCache

    rows, length = ids.shape
    decoder = lm.get_decoder()
    cache = DynamicCache(config=lm.config)
    # transformers 5.x names the cache argument `cache` (`past_key_values` is deprecated)
    name = (
        "cache" if "cache" in inspect.signature(decoder.forward).parameters else "past_key_values"
    )
    decoder(
        input_ids=ids[:1, :prefix],
        attention_mask=mask[:1, :prefix],
        **{name: cache},
        use_cache=True,
    )
    cache.batch_repeat_interleave(rows)
    positions = torch.arange(prefix, length, device=ids.device).unsqueeze(0).expand(rows, -1)
    hidden = decoder(
        input_ids=ids[:, prefix:],
        attention_mask=mask,
        **{name: cache},
        use_cache=True,
        position_ids=positions,
    ).last_hidden_state
    targets = labels[:, prefix + 1 :]
    scored = targets != -100
    logits = lm.get_output_embeddings()(hidden[:, :-1][scored]).float()
    loss = nn.functional.cross_entropy(logits, targets[scored], reduction="sum")
    if num_items_in_batch is None:
        return loss / scored.sum().clamp(min=1)
    if torch.is_tensor(num_items_in_batch):
        num_items_in_batch = num_items_in_batch.to(loss.device)
    return loss / num_items_in_batch
