"""The :class:`Unlearner` interface and the shared run loop (copy, encode, train, guard, save)."""

from __future__ import annotations

import copy
import json
import os
import platform
import resource
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn
from transformers import PrinterCallback, ProgressCallback, TrainingArguments, set_seed

from unlearn_zoo.config import UnlearnConfig, build_config, config_to_dict
from unlearn_zoo.data import EncodedExample, PairedCollator, PairedDataset, encode_records
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.modeling import count_params, unwrap
from unlearn_zoo.training import LossGuard, StopUnlearning, UnlearnTrainer

RECORD_NAME = "unlearn_record.json"
Example = Mapping[str, Any]


class QuietProgressCallback(ProgressCallback):
    """transformers' training progress bar without the per-step log lines."""

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        return None


@dataclass
class UnlearnResult:
    """``model``: the unlearned in-memory model; ``record``: JSON-able run record."""

    model: nn.Module
    record: dict[str, Any]


def library_versions() -> dict[str, str]:
    import accelerate
    import peft
    import transformers

    from unlearn_zoo import __version__

    return {
        "unlearn_zoo": __version__,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "accelerate": accelerate.__version__,
        "python": platform.python_version(),
    }


class Unlearner:
    """Base class. Subclasses set ``name``, ``config_class`` and implement :meth:`loss`.

    Hooks (all optional): :meth:`prepare` (freeze params, add modules, build references) runs on
    the private copy before LoRA; :meth:`finalize` post-processes the trained model (TV).
    """

    name: ClassVar[str] = "base"
    config_class: ClassVar[type[UnlearnConfig]] = UnlearnConfig
    supports_lora: ClassVar[bool] = True
    needs_spans: ClassVar[bool] = False

    def __init__(self, **overrides: Any) -> None:
        self.config = build_config(self.config_class, overrides)

    # ---- method hooks -------------------------------------------------------------------------
    def prepare(self, model: nn.Module, tokenizer: Any) -> nn.Module:
        return model

    def lora_targets(self, model: nn.Module) -> list[str] | tuple[str, ...]:
        return self.config.lora_target_modules

    def loss(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        raise NotImplementedError

    def finalize(self, model: nn.Module, original: nn.Module | None) -> nn.Module:
        return model

    def uses_retain(self) -> bool:
        return self.config.retain_weight > 0

    def needs_original(self) -> bool:
        """Whether :meth:`finalize` needs an untouched copy of theta_p (TV)."""
        return False

    def extra_record(self) -> dict[str, Any]:
        return {}

    def save_extra(self, model: nn.Module, output_dir: Path) -> None:
        """Write method-specific files (AS adapter)."""

    def validate_data(self, forget: list[EncodedExample]) -> None:
        return None

    # ---- helpers for subclasses ----------------------------------------------------------------
    @staticmethod
    def split(batch: dict[str, torch.Tensor], part: str) -> dict[str, torch.Tensor]:
        """The ``forget_``/``retain_`` tensors of a batch without the prefix."""
        p = part + "_"
        return {k[len(p) :]: v for k, v in batch.items() if k.startswith(p)}

    @staticmethod
    def joint(batch: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], int]:
        """Forget and retain stacked into one batch (one forward, DDP-safe); returns n_forget."""
        f = Unlearner.split(batch, "forget")
        r = Unlearner.split(batch, "retain")
        n = f["input_ids"].shape[0]
        if not r:
            return f, n
        return {k: torch.cat([f[k], r[k]], dim=0) for k in f}, n

    # ---- run -----------------------------------------------------------------------------------
    def unlearn(
        self,
        model: nn.Module,
        tokenizer: Any,
        forget: Sequence[Example],
        retain: Sequence[Example] = (),
        output_dir: str | os.PathLike[str] | None = None,
        progress: bool = True,
    ) -> UnlearnResult:
        """Unlearn ``forget`` from a deep copy of ``model``; the passed model is never modified."""
        cfg = self.config
        if cfg.use_lora and not self.supports_lora:
            raise UnlearnError(f"{self.name} does not support use_lora=True")
        if len(forget) == 0:
            raise UnlearnError("forget set is empty: nothing to unlearn")
        if self.uses_retain() and len(retain) == 0:
            raise UnlearnError(
                f"{self.name}: retain_weight={cfg.retain_weight} needs a non-empty retain set "
                "(pass retain=... or set retain_weight=0)"
            )
        onset = getattr(cfg, "onset_tokens", 3)
        forget_enc = encode_records(
            tokenizer, forget, max_length=cfg.max_length, onset_tokens=onset, role="forget"
        )
        retain_enc = (
            encode_records(
                tokenizer, retain, max_length=cfg.max_length, onset_tokens=onset, role="retain"
            )
            if self.uses_retain()
            else []
        )
        self.validate_data(forget_enc)

        set_seed(cfg.seed)
        start = time.perf_counter()
        cuda = torch.cuda.is_available()
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        work = copy.deepcopy(model)
        work.train()
        original = copy.deepcopy(model) if self.needs_original() else None
        n_params = count_params(work)
        work = self.prepare(work, tokenizer)
        if cfg.use_lora:
            from peft import LoraConfig, get_peft_model

            lora = LoraConfig(
                r=cfg.lora_r,
                lora_alpha=cfg.lora_alpha,
                lora_dropout=cfg.lora_dropout,
                target_modules=list(self.lora_targets(work)),
                bias="none",
                task_type="CAUSAL_LM",
            )
            base_name = getattr(work.config, "_name_or_path", None) or None
            work = get_peft_model(work, lora)
            # peft reads the base path from model.__dict__, which transformers 5 no longer fills:
            # record it so the saved adapter can find its base model.
            for peft_cfg in work.peft_config.values():
                peft_cfg.base_model_name_or_path = peft_cfg.base_model_name_or_path or base_name
        n_trainable = count_params(work, trainable_only=True)

        pad_id = tokenizer.pad_token_id
        if pad_id is None:
            pad_id = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        guard = LossGuard(cfg.loss_bound)
        stop_reason, stop_message = "completed", None
        with tempfile.TemporaryDirectory(prefix="unlearn_zoo_") as tmp:
            args = TrainingArguments(
                output_dir=tmp,
                per_device_train_batch_size=cfg.batch_size,
                gradient_accumulation_steps=cfg.grad_accum_steps,
                num_train_epochs=cfg.epochs,
                max_steps=cfg.max_steps if cfg.max_steps is not None else -1,
                learning_rate=cfg.lr,
                lr_scheduler_type="constant",
                weight_decay=0.0,
                max_grad_norm=cfg.grad_clip,
                logging_steps=1,
                save_strategy="no",
                report_to="none",
                seed=cfg.seed,
                data_seed=cfg.seed,
                use_cpu=not cuda,
                activation_checkpointing=cfg.gradient_checkpointing,
                activation_checkpointing_kwargs={"use_reentrant": False},
                remove_unused_columns=False,
                disable_tqdm=not progress,
                dataloader_num_workers=0,
                ddp_find_unused_parameters=False,
            )
            trainer = UnlearnTrainer(
                model=work,
                args=args,
                train_dataset=PairedDataset(forget_enc, retain_enc, seed=cfg.seed),
                data_collator=PairedCollator(pad_id),
                loss_fn=self._loss_on_device,
                guard=guard,
            )
            if progress:
                # Keep the bar but not a printed dict per step: the loss curve is in the record.
                trainer.remove_callback(ProgressCallback)
                trainer.add_callback(QuietProgressCallback())
            else:
                trainer.remove_callback(PrinterCallback)
            self._device = args.device
            try:
                trainer.train()
            except StopUnlearning as stop:
                stop_reason, stop_message = stop.reason, stop.message
            steps = trainer.state.global_step
            world_size = args.world_size
            is_main = args.process_index == 0
            del trainer
        work = unwrap(work)
        if cfg.use_lora and cfg.merge_lora:
            work = work.merge_and_unload()
        work = self.finalize(work, original)
        work.eval()
        if getattr(getattr(work, "config", None), "use_cache", None) is False:
            # Training turns the KV cache off; generation with the result should have it back.
            work.config.use_cache = True
        for p in work.parameters():
            p.requires_grad_(False)

        record: dict[str, Any] = {
            "method": self.name,
            "config": config_to_dict(cfg),
            "steps": steps,
            "stop_reason": stop_reason,
            "stop_message": stop_message,
            "loss_curve": guard.curve,
            "wall_time_s": round(time.perf_counter() - start, 3),
            # ru_maxrss is the process high-water mark (KiB on Linux), not only this run's.
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "peak_cuda_mb": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
            "device": str(self._device),
            "world_size": world_size,
            "seed": cfg.seed,
            "n_forget": len(forget_enc),
            "n_retain": len(retain_enc),
            "n_params": n_params,
            "n_trainable_params": n_trainable,
            "versions": library_versions(),
        }
        record.update(self.extra_record())
        if output_dir is not None and is_main:
            save_unlearned(self, work, tokenizer, record, Path(output_dir))
        return UnlearnResult(model=work, record=record)

    def _loss_on_device(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        return self.loss(model, batch)


def save_unlearned(
    unlearner: Unlearner, model: nn.Module, tokenizer: Any, record: dict[str, Any], out: Path
) -> None:
    """Write the checkpoint (safetensors, or the peft adapter), tokenizer and the run record."""
    out.mkdir(parents=True, exist_ok=True)
    hf_quantizer = getattr(model, "hf_quantizer", None)
    if hf_quantizer is not None:  # GGUF-loaded models carry a quantizer; the weights are float.
        hf_quantizer.remove_quantization_config(model)
    model.save_pretrained(out, safe_serialization=True)
    if tokenizer is not None:
        tokenizer.save_pretrained(out)
    unlearner.save_extra(model, out)
    (out / RECORD_NAME).write_text(json.dumps(record, indent=2))
