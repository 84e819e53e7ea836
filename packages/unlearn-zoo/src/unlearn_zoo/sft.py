"""Supervised fine-tuning on TRL's ``SFTTrainer`` (TV's overfitting phase).

The examples are handed to TRL already tokenized (``input_ids`` + ``completion_mask``, TRL's
pre-tokenized prompt-completion format) by :func:`unlearn_zoo.data.encode_records`, so the prompt
is exactly ARCHITECTURE.md section 3 and the loss falls on the answer tokens only
(``completion_only_loss=True``). Letting TRL tokenize the text itself would call the tokenizer with
``add_special_tokens=True`` on a chat-formatted prompt, which doubles the BOS token a template such
as Llama 3's already writes.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from unlearn_zoo.data import EncodedExample
from unlearn_zoo.shared_prefix import completion_nll
from unlearn_zoo.training import LossGuard, SeenTracker


def sft_dataset(examples: list[EncodedExample]) -> Any:
    """A ``datasets.Dataset`` in TRL's pre-tokenized prompt-completion format, plus ``index``."""
    from datasets import Dataset

    rows = []
    for i, e in enumerate(examples):
        completion = [0 if label == -100 else 1 for label in e.labels]
        rows.append({"input_ids": e.input_ids, "completion_mask": completion, "index": i})
    return Dataset.from_list(rows)


class IndexedCollator:
    """TRL's collator on the token columns; the example indices ride along as ``forget_index``."""

    def __init__(self, collator: Any) -> None:
        self.collator = collator

    def __call__(self, examples: list[dict[str, Any]]) -> dict[str, Any]:
        index = torch.tensor([e["index"] for e in examples], dtype=torch.long)
        batch = self.collator([{k: v for k, v in e.items() if k != "index"} for e in examples])
        batch["forget_index"] = index
        return batch


def remove_fused_head(model: nn.Module) -> None:
    """Undo TRL's ``add_fused_lm_head`` patch on ``model`` (and a peft base model under it).

    The patch is an instance-level ``forward`` whose closure calls the *original* object's forward:
    a later ``copy.deepcopy`` of the model (attacks copy models) would silently run the old one.
    """
    for module in (model, getattr(model, "get_base_model", lambda: None)()):
        if module is not None and "forward" in vars(module):
            del module.forward


def guarded_sft_trainer(
    *,
    guard: LossGuard,
    tracker: SeenTracker,
    part: str = "nll",
    shared_prefix: bool = False,
    **kwargs: Any,
) -> Any:
    """An ``SFTTrainer`` whose every loss goes through :class:`LossGuard` (stop + restore on a
    non-finite or out-of-bounds loss; the loss curve) and records the forget examples it saw.
    ``shared_prefix``: the loss of :func:`unlearn_zoo.shared_prefix.completion_nll` (the batch's
    common prompt prefix run once; the same loss up to rounding) where the batch allows it."""
    from transformers import Trainer
    from trl import SFTTrainer

    class GuardedSFTTrainer(SFTTrainer):
        def compute_loss(
            self,
            model: nn.Module,
            inputs: dict[str, Any],
            return_outputs: bool = False,
            num_items_in_batch: Any = None,
        ) -> Any:
            index = inputs.pop("forget_index")
            # transformers' own loss (the model's causal-LM NLL over the completion labels), not
            # SFTTrainer's: on CPU its fused LM head scores every position, recomputes each logits
            # tile in the backward pass and adds entropy and token-accuracy metrics, which made a
            # step cost about twice GA's (benchmarks/training_step_cost.py).
            loss = None
            if shared_prefix and not return_outputs:
                loss = completion_nll(model, inputs, num_items_in_batch)
            if loss is None:
                loss = Trainer.compute_loss(self, model, inputs, return_outputs, num_items_in_batch)
            value = loss[0] if return_outputs else loss
            guard.check(model, self.state.global_step, value, {part: value.detach()})
            tracker.add(index)
            return loss

    import datasets

    # SFTTrainer prepares the dataset with datasets.map, which draws a bar per pass: follow the
    # run's progress setting, and leave the global switch as it was.
    quiet = kwargs["args"].disable_tqdm and not datasets.are_progress_bars_disabled()
    if quiet:
        datasets.disable_progress_bars()
    try:
        return GuardedSFTTrainer(**kwargs)
    finally:
        if quiet:
            datasets.enable_progress_bars()
