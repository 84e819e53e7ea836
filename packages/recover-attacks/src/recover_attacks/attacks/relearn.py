"""Relearning: a few LoRA steps on data WITHOUT the forgotten facts, then greedy decoding.

(Lucki et al. TMLR 2025; Hu et al. ICLR 2025.) The relearn set is retain facts or related
facts supplied by the caller; any example restating a forgotten fact raises
:class:`~recover_attacks.errors.ForgottenFactLeakError`. The unlearned model is not modified:
the adapter is trained on a deep copy, which is freed afterwards.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import random
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from tqdm.auto import tqdm

from ..base import Attack, AttackResult
from ..errors import ConfigError, RecordError
from ..generation import format_prompt, generate, has_chat_template, model_device
from ..records import QuestionRecord, as_qa_pairs, check_no_forgotten_fact
from .common import DecodeConfig


@dataclasses.dataclass
class RelearnConfig(DecodeConfig):
    """steps: optimizer steps; train_batch_size: examples per step (cycled, shuffled with
    ``seed``); lr 2e-4 and LoRA r 16 follow METHODS.md; lora_alpha 32, dropout 0;
    target_modules ``all-linear`` (peft) adapts every Linear but the output head. The loss is
    the mean NLL of the answer tokens after the chat prompt (as in unlearning)."""

    steps: int = 20
    lr: float = 2e-4
    train_batch_size: int = 4
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    target_modules: str | list[str] = "all-linear"
    weight_decay: float = 0.0

    def validate(self) -> None:
        super().validate()
        if self.steps < 1 or self.train_batch_size < 1 or self.lora_r < 1 or self.lr <= 0:
            raise ConfigError("RelearnConfig: steps, train_batch_size, lora_r >= 1 and lr > 0")


def _encode_example(tokenizer: Any, question: str, answer: str) -> tuple[list[int], int]:
    """Ids of prompt+answer(+eos) and the number of prompt tokens (masked from the loss)."""
    prompt = format_prompt(tokenizer, question)
    add_special = not has_chat_template(tokenizer)
    p_ids = tokenizer(prompt, add_special_tokens=add_special)["input_ids"]
    answer_text = answer if has_chat_template(tokenizer) else " " + answer
    a_ids = tokenizer(answer_text, add_special_tokens=False)["input_ids"]
    eos = tokenizer.eos_token_id
    tail = [eos] if eos is not None else []
    return list(p_ids) + list(a_ids) + tail, len(p_ids)


def _batch(examples: Sequence[tuple[list[int], int]], pad_id: int) -> dict[str, torch.Tensor]:
    width = max(len(ids) for ids, _ in examples)
    ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    labels = torch.full_like(ids, -100)
    mask = torch.zeros_like(ids)
    for i, (seq, n_prompt) in enumerate(examples):
        ids[i, : len(seq)] = torch.tensor(seq)
        mask[i, : len(seq)] = 1
        labels[i, n_prompt : len(seq)] = torch.tensor(seq[n_prompt:])
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def relearn_lora(
    model: Any,
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    config: RelearnConfig,
    *,
    progress: bool = False,
) -> tuple[Any, list[float]]:
    """Train a LoRA adapter on a deep copy of ``model``; return (peft model, per-step losses)."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    work = copy.deepcopy(model)
    lora = LoraConfig(
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=config.target_modules,
        task_type="CAUSAL_LM",
    )
    peft_model = get_peft_model(work, lora)
    params = [p for p in peft_model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)
    encoded = [_encode_example(tokenizer, q, a) for q, a in pairs]
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = model_device(model)
    order: list[int] = []
    losses: list[float] = []
    peft_model.train()
    for _ in tqdm(range(config.steps), desc="relearn", disable=not progress):
        batch_idx = []
        while len(batch_idx) < min(config.train_batch_size, len(encoded)):
            if not order:
                order = list(range(len(encoded)))
                rng.shuffle(order)
            batch_idx.append(order.pop())
        batch = {
            k: v.to(device) for k, v in _batch([encoded[i] for i in batch_idx], pad_id).items()
        }
        loss = peft_model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(float(loss.detach()))
    peft_model.eval()
    return peft_model, losses


class RelearnAttack(Attack):
    """Needs ``relearn_data``: (question, answer) pairs or records, none a forgotten fact."""

    name = "relearn"
    config_cls = RelearnConfig

    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        original_model: Any,
        relearn_data: Sequence[Any] | None,
        context_facts: Sequence[Any] | Mapping[str, Sequence[Any]] | None,
        progress: bool,
    ) -> list[AttackResult]:
        c: RelearnConfig = self.config  # type: ignore[assignment]
        if not relearn_data:
            raise RecordError(
                "relearn needs relearn_data: retain or related (question, answer) facts that "
                "exclude the forgotten ones"
            )
        pairs = as_qa_pairs(list(relearn_data), what="relearn_data")
        check_no_forgotten_fact(pairs, questions, what="relearn_data")
        peft_model, losses = relearn_lora(
            model, tokenizer, [(q, a) for q, a, _ in pairs], c, progress=progress
        )
        try:
            responses = generate(
                peft_model,
                tokenizer,
                [q["question"] for q in questions],
                max_new_tokens=c.max_new_tokens,
                batch_size=c.batch_size,
                seed=c.seed,
                progress=progress,
            )
        finally:
            del peft_model
            gc.collect()
        return self._results(
            questions,
            responses,
            relearn_examples=len(pairs),
            relearn_loss_first=round(losses[0], 4),
            relearn_loss_last=round(losses[-1], 4),
        )
