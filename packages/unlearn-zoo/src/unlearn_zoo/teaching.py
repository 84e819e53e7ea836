"""Teaching: supervised fine-tuning of a model on prompt -> completion examples (the opposite of
unlearning), e.g. to give a benchmark's base model the facts and the answer form it is tested on.

:func:`teach` runs TRL's ``SFTTrainer`` (:mod:`unlearn_zoo.sft`) on the examples, encoded by
:func:`unlearn_zoo.data.encode_records` (the chat prompt of ARCHITECTURE.md section 3, the loss on
the completion tokens only), full fine-tuning or LoRA (merged back), seeded. The passed model is
never modified: a deep copy is trained and returned with its training curve.
"""

from __future__ import annotations

import copy
import math
import resource
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from torch import nn

from unlearn_zoo.config import DEFAULT_LORA_TARGETS
from unlearn_zoo.data import encode_records
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.sft import IndexedCollator, guarded_sft_trainer, remove_fused_head, sft_dataset
from unlearn_zoo.training import LossGuard, SeenTracker, StopUnlearning

__all__ = ["TeachResult", "TeachSettings", "teach", "teaching_records"]


@dataclass(frozen=True)
class TeachSettings:
    """How :func:`teach` trains. The defaults teach SmolLM2-135M-Instruct a few thousand short
    examples within minutes on a 2-core CPU (leakres-cli README, "Base models").

    Attributes:
        lr: AdamW learning rate (linear decay to 0 after ``warmup_ratio`` of the steps).
        epochs: passes over the examples.
        batch_size: examples per optimizer step (per device).
        max_length: tokens per example (prompt cut from the left when longer; the completion kept).
        use_lora: train LoRA adapters (``lora_*``) and merge them back, instead of every weight.
        seed: model init of adapters, data order, dropout.
        warmup_ratio: share of the steps with a linear warm-up.
        weight_decay: AdamW weight decay.
        grad_clip: gradient norm clip.
        max_steps: stop after this many optimizer steps (``None``: the epochs decide).
        group_by_length: batch examples of similar length (less padding: on a CPU the step
            costs about its tokens, padding included).
        optim: transformers' optimizer name. ``adamw_torch_fused`` (AdamW in one fused kernel) steps
            135M parameters in 0.07 s on a 2-core CPU where ``adamw_torch`` takes 0.5-0.7 s: a
            third of a small-batch teaching step (``benchmarks/teach_prefix.py``).
        shared_prefix: run the batch's common prompt prefix (the chat template's system prompt
            and user role) once and the LM head only where a label is scored
            (:mod:`unlearn_zoo.shared_prefix`): the same loss up to rounding; with the fused AdamW
            a batch-4 step cost 0.78x the plain one (0.83x fused alone).
    """

    lr: float = 2e-4
    epochs: float = 2.0
    batch_size: int = 16
    max_length: int = 192
    use_lora: bool = False
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_target_modules: tuple[str, ...] = DEFAULT_LORA_TARGETS
    seed: int = 0
    warmup_ratio: float = 0.05
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    max_steps: int | None = None
    group_by_length: bool = True
    optim: str = "adamw_torch_fused"
    shared_prefix: bool = True

    def __post_init__(self) -> None:
        if self.lr <= 0 or self.epochs <= 0:
            raise UnlearnError(
                f"teach: lr and epochs must be > 0 (lr={self.lr}, epochs={self.epochs})"
            )
        if self.batch_size < 1 or self.max_length < 8:
            raise UnlearnError("teach: batch_size must be >= 1 and max_length >= 8")
        if self.max_steps is not None and self.max_steps < 1:
            raise UnlearnError(f"teach: max_steps must be >= 1 or None, got {self.max_steps}")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["lora_target_modules"] = list(self.lora_target_modules)
        return out


@dataclass
class TeachResult:
    """The taught model (eval mode, ``requires_grad`` as the passed model's) and what happened."""

    model: nn.Module
    curve: list[dict[str, float]]  # {"step", "loss"} per optimizer step
    record: dict[str, Any] = field(default_factory=dict)


def teaching_records(examples: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``{"prompt", "completion"}`` (kg-qgen's teaching corpus) or ``{"question", "answer"}``
    examples as unlearn-zoo's ``{"question", "answer"}`` records; an error names the example."""
    out = []
    for i, e in enumerate(examples):
        if not isinstance(e, Mapping):
            raise UnlearnError(f"examples[{i}]: expected a dict with prompt/completion")
        prompt, completion = (
            e.get("prompt", e.get("question")),
            e.get("completion", e.get("answer")),
        )
        if not isinstance(prompt, str) or not isinstance(completion, str):
            raise UnlearnError(
                f"examples[{i}]: needs string 'prompt' and 'completion' (or 'question'/'answer')"
            )
        out.append({"question": prompt, "answer": completion})
    return out


def _sft_config(settings: TeachSettings, output_dir: str, progress: bool, n_examples: int) -> Any:
    from trl import SFTConfig

    per_epoch = math.ceil(n_examples / settings.batch_size)
    total = settings.max_steps or math.ceil(per_epoch * settings.epochs)

    return SFTConfig(
        output_dir=output_dir,
        per_device_train_batch_size=settings.batch_size,
        num_train_epochs=settings.epochs,
        max_steps=settings.max_steps or -1,
        learning_rate=settings.lr,
        lr_scheduler_type="linear",
        warmup_steps=int(settings.warmup_ratio * total),
        weight_decay=settings.weight_decay,
        max_grad_norm=settings.grad_clip,
        optim=settings.optim,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=settings.seed,
        data_seed=settings.seed,
        use_cpu=not torch.cuda.is_available(),
        bf16=False,
        remove_unused_columns=False,
        disable_tqdm=not progress,
        dataloader_num_workers=0,
        train_sampling_strategy="group_by_length" if settings.group_by_length else "random",
        activation_checkpointing=False,  # TRL turns it on: a third more compute for memory a 135M model does not need
        completion_only_loss=True,  # loss on the completion tokens only
        max_length=None,  # encode_records already fitted each example into max_length
    )


def _with_lora(model: nn.Module, settings: TeachSettings) -> nn.Module:
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(
        r=settings.lora_r,
        lora_alpha=settings.lora_alpha,
        lora_dropout=settings.lora_dropout,
        target_modules=list(settings.lora_target_modules),
        bias="none",
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, lora)


def teach(
    model: nn.Module,
    tokenizer: Any,
    examples: Sequence[Mapping[str, Any]],
    settings: TeachSettings | None = None,
    *,
    progress: bool = False,
) -> TeachResult:
    """Fine-tune a copy of ``model`` on ``examples`` (prompt -> completion, loss on the completion
    only) under ``settings`` (default :class:`TeachSettings`); returns the taught model (LoRA
    merged), its loss per optimizer step and a record (settings, sizes, steps, times, peak RSS).
    Raises :class:`UnlearnError` on an empty or malformed example list, or a non-finite loss."""
    from transformers import set_seed

    settings = settings or TeachSettings()
    if not examples:
        raise UnlearnError("teach: no examples to teach")
    start = time.perf_counter()
    encoded = encode_records(
        tokenizer, teaching_records(examples), max_length=settings.max_length, role="examples"
    )
    set_seed(settings.seed)
    work = copy.deepcopy(model)
    work.train()
    if settings.use_lora:
        work = _with_lora(work, settings)
    steps, guard = _train(work, tokenizer, encoded, settings, progress)
    remove_fused_head(work)
    taught = _finish(work, settings.use_lora)
    flags = {n: p.requires_grad for n, p in model.named_parameters()}
    for n, p in taught.named_parameters():  # as the passed model had them (unlearning needs grads)
        p.requires_grad_(flags.get(n, False))
    curve = [{"step": int(c["step"]), "loss": float(c["loss"])} for c in guard.curve]
    record = {
        "settings": settings.to_dict(),
        "n_examples": len(encoded),
        "n_completion_tokens": sum(e.n_answer_tokens for e in encoded),
        "steps": steps,
        "loss_curve": curve,
        "wall_time_s": round(time.perf_counter() - start, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    return TeachResult(taught, curve, record)


def _train(
    work: nn.Module, tokenizer: Any, encoded: list[Any], settings: TeachSettings, progress: bool
) -> tuple[int, LossGuard]:
    """Train ``work`` in place with TRL's SFTTrainer; returns (optimizer steps, the loss guard)."""
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    tok = copy.deepcopy(tokenizer)  # SFTTrainer sets a missing pad token on the tokenizer it gets
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    guard = LossGuard(None)
    with tempfile.TemporaryDirectory(prefix="unlearn_zoo_teach_") as tmp:
        trainer = guarded_sft_trainer(
            guard=guard,
            tracker=SeenTracker(len(encoded)),
            model=work,
            args=_sft_config(settings, tmp, progress, len(encoded)),
            train_dataset=sft_dataset(encoded),
            processing_class=tok,
            data_collator=IndexedCollator(
                DataCollatorForLanguageModeling(pad_token_id=tok.pad_token_id)
            ),
            shared_prefix=settings.shared_prefix,
        )
        _quiet_logs(trainer, progress)
        try:
            trainer.train()
        except StopUnlearning as stop:
            raise UnlearnError(f"teach: {stop.message}") from stop
        steps = trainer.state.global_step
        del trainer
    return steps, guard


def _quiet_logs(trainer: Any, progress: bool) -> None:
    """A progress bar without a printed dict per step (``progress``), else nothing printed."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    from unlearn_zoo.training import QuietProgressCallback

    if progress:
        trainer.remove_callback(ProgressCallback)
        trainer.add_callback(QuietProgressCallback())
    else:
        trainer.remove_callback(PrinterCallback)


def _finish(model: nn.Module, lora: bool) -> nn.Module:
    """Merge LoRA, eval mode, KV cache back on (training turns it off)."""
    if lora:
        model = model.merge_and_unload()
    model.eval()
    if getattr(getattr(model, "config", None), "use_cache", None) is False:
        model.config.use_cache = True
    return model
