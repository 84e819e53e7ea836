"""Relearning: a few LoRA steps on data WITHOUT the forgotten facts, then greedy decoding.

(Lucki et al. TMLR 2025; Hu et al. ICLR 2025.) The relearn set is retain facts or related
facts supplied by the caller; any example restating a forgotten fact raises
:class:`~recover_attacks.errors.ForgottenFactLeakError`. Training runs on TRL's ``SFTTrainer``
(``peft_config`` = the LoRA adapter, ``completion_only_loss`` on the answer after the chat
prompt). The unlearned model and the caller's tokenizer are not modified: the adapter is trained
on a deep copy, which is freed afterwards.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import tempfile
from collections.abc import Sequence
from typing import Any

import torch

from ..base import Attack, AttackResult
from ..budget_axis import BudgetAxis
from ..errors import ConfigError, MissingInputError
from ..generation import (
    format_prompt,
    has_chat_template,
    model_device,
)
from ..records import QuestionRecord, as_qa_pairs, check_no_forgotten_fact
from .common import DecodeConfig, greedy_answers


@dataclasses.dataclass
class RelearnConfig(DecodeConfig):
    """steps: optimizer steps; train_batch_size: examples per step (TRL's sampler reshuffles the
    relearn set every epoch with ``seed``; the last batch of an epoch may be smaller); lr 2e-4
    and LoRA r 16 follow METHODS.md; lora_alpha 32, dropout 0; target_modules ``all-linear``
    (peft) adapts every Linear but the output head. AdamW, constant lr, no gradient clipping.
    The loss is the mean NLL of the answer tokens after the chat prompt (as in unlearning)."""

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
    """Ids of prompt+answer(+eos) and the number of prompt tokens (masked from the loss).

    The prompt is ARCHITECTURE.md section 3; the answer follows it tokenized on its own, with a
    leading space after the ``"Answer:"`` fallback (unlearn-zoo encodes by the same rule)."""
    prompt = format_prompt(tokenizer, question)
    add_special = not has_chat_template(tokenizer)
    p_ids = tokenizer(prompt, add_special_tokens=add_special)["input_ids"]
    answer_text = answer if has_chat_template(tokenizer) else " " + answer
    a_ids = tokenizer(answer_text, add_special_tokens=False)["input_ids"]
    eos = tokenizer.eos_token_id
    tail = [eos] if eos is not None else []
    return list(p_ids) + list(a_ids) + tail, len(p_ids)


def relearn_dataset(tokenizer: Any, pairs: Sequence[tuple[str, str]]) -> Any:
    """TRL's pre-tokenized prompt-completion rows (``input_ids`` + ``completion_mask``).

    Tokenized here rather than by TRL: TRL tokenizes text with ``add_special_tokens=True``, which
    doubles the BOS a chat template (Llama 3) already writes into the prompt."""
    from datasets import Dataset

    rows = []
    for q, a in pairs:
        ids, n_prompt = _encode_example(tokenizer, q, a)
        rows.append(
            {"input_ids": ids, "completion_mask": [0] * n_prompt + [1] * (len(ids) - n_prompt)}
        )
    return Dataset.from_list(rows)


def _remove_fused_head(model: Any) -> None:
    """Undo TRL's ``add_fused_lm_head`` instance patch (its closure calls the patched object's
    original forward, which a later deep copy of the model would still call)."""
    for module in (model, getattr(model, "get_base_model", lambda: None)()):
        if module is not None and "forward" in vars(module):
            del module.forward


def _sft_config(config: RelearnConfig, output_dir: str, *, use_cpu: bool, progress: bool) -> Any:
    """TRL's training arguments of the relearning run: constant lr, no warmup, no clipping, the
    model's own dtype, completion-only loss, every step logged, nothing saved."""
    from trl import SFTConfig

    return SFTConfig(
        output_dir=output_dir,
        max_steps=config.steps,
        per_device_train_batch_size=config.train_batch_size,
        learning_rate=config.lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        weight_decay=config.weight_decay,
        max_grad_norm=0.0,  # no clipping
        optim="adamw_torch",
        completion_only_loss=True,
        max_length=None,
        activation_checkpointing=False,
        bf16=False,  # the model's own dtype, no autocast (SFTConfig defaults bf16 on)
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=config.seed,
        data_seed=config.seed,
        use_cpu=use_cpu,
        disable_tqdm=not progress,
        dataloader_num_workers=0,
    )


def _lora_config(config: RelearnConfig) -> Any:
    """peft's adapter settings of the relearning run (a causal LM)."""
    from peft import LoraConfig

    return LoraConfig(
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=config.target_modules,
        task_type="CAUSAL_LM",
    )


def relearn_lora(
    model: Any,
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    config: RelearnConfig,
    *,
    progress: bool = False,
) -> tuple[Any, list[float]]:
    """Train a LoRA adapter on a deep copy of ``model`` with TRL's ``SFTTrainer``; return
    (peft model in eval mode, the loss of every optimizer step)."""
    import datasets
    from transformers import PrinterCallback
    from trl import SFTTrainer

    losses: list[float] = []

    class _LossLog(SFTTrainer):
        # The Trainer's log rounds losses to 4 digits; keep the exact value of every step.
        def compute_loss(self, *args: Any, **kwargs: Any) -> Any:
            loss = super().compute_loss(*args, **kwargs)
            losses.append(float((loss[0] if isinstance(loss, tuple) else loss).detach()))
            return loss

    torch.manual_seed(config.seed)  # the LoRA init draws from the global generator
    device = model_device(model)
    work = copy.deepcopy(model)
    tok = copy.deepcopy(tokenizer)  # SFTTrainer writes a missing pad token onto its tokenizer
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    quiet = not progress and not datasets.are_progress_bars_disabled()
    with tempfile.TemporaryDirectory(prefix="relearn_") as tmp:
        args = _sft_config(config, tmp, use_cpu=device.type == "cpu", progress=progress)
        if quiet:
            datasets.disable_progress_bars()  # SFTTrainer's dataset preparation draws bars
        try:
            trainer = _LossLog(
                model=work,
                args=args,
                train_dataset=relearn_dataset(tokenizer, pairs),
                processing_class=tok,
                peft_config=_lora_config(config),
            )
        finally:
            if quiet:
                datasets.enable_progress_bars()
        if not progress:
            trainer.remove_callback(PrinterCallback)
        trainer.train()
        peft_model = trainer.model
        del trainer
    _remove_fused_head(peft_model)
    peft_model.eval()
    return peft_model, losses


class RelearnAttack(Attack[RelearnConfig]):
    """Needs ``relearn_data``: (question, answer) pairs or records, none a forgotten fact."""

    name = "relearn"
    budget = BudgetAxis("steps", "relearning optimizer steps", (1, 2, 5, 10))
    changes_weights = True
    config_cls = RelearnConfig
    requires = ("relearn_data",)

    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        relearn_data: Sequence[Any],
        progress: bool,
    ) -> list[AttackResult]:
        c = self.config
        if not relearn_data:  # None is caught by Attack.check_inputs; an empty list is here
            raise MissingInputError(
                "attack 'relearn' needs relearn_data: retain or related (question, answer) facts "
                "that exclude the forgotten ones (got an empty list)"
            )
        pairs = as_qa_pairs(list(relearn_data), what="relearn_data")
        check_no_forgotten_fact(pairs, questions, what="relearn_data")
        peft_model, losses = relearn_lora(
            model, tokenizer, [(q, a) for q, a, _ in pairs], c, progress=progress
        )
        try:
            responses = greedy_answers(peft_model, tokenizer, questions, c, progress=progress)
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
