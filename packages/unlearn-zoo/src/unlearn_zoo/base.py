"""The :class:`Unlearner` interface and its run: encode -> wrap -> train -> finalize -> record.

A method supplies its objective through small hooks: :meth:`Unlearner.forget_loss` (required),
and optionally :meth:`Unlearner.forward` (what one forward pass returns), :meth:`Unlearner.retain_loss`
(the base default is the NLL of the retain answers) and :meth:`Unlearner.prepare` /
:meth:`Unlearner.post_train`. The base class composes the objective

    L = forget_loss + retain_weight * retain_loss        (retain term only when retain_weight > 0)

over one joint forward of the forget rows and their paired retain rows (one forward keeps DDP's
gradient hooks simple), and runs it through transformers' ``Trainer``.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import resource
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn
from transformers import PrinterCallback, ProgressCallback, TrainingArguments, set_seed

from unlearn_zoo.checkpoint import save_unlearned
from unlearn_zoo.config import UnlearnConfig, build_config, config_to_dict
from unlearn_zoo.data import EncodedExample, PairedCollator, PairedDataset, encode_records
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.losses import nll_loss
from unlearn_zoo.modeling import add_lora, count_params, unwrap
from unlearn_zoo.reference import Reference, frozen_reference
from unlearn_zoo.run_types import (
    EncodedSets,
    MethodNeeds,
    Step,
    TrainOutcome,
    UnlearnResult,
    Wrapped,
    library_versions,
)
from unlearn_zoo.tracking import Tracking
from unlearn_zoo.training import (
    LossGuard,
    QuietProgressCallback,
    SeenTracker,
    StepCap,
    StepTimer,
    StopUnlearning,
    UnlearnTrainer,
    trainer_name,
)
from unlearn_zoo.trajectory import bind_callbacks

Example = Mapping[str, Any]


class Unlearner:
    """Base class. Subclasses set ``name`` and ``config_cls`` and implement :meth:`forget_loss`.

    ``config_class`` is the deprecated name of ``config_cls``; a subclass that sets only
    ``config_class`` still works (the two are kept equal).

    Class attributes that describe the method:

    - ``needs_reference``: build ``self.reference`` (frozen theta_p, see :mod:`unlearn_zoo.reference`).
    - ``retain_term``: the retain term's name in :meth:`variant` (``"retain_nll"`` by default).
    - ``retain_in_method``: the published method includes the retain term at weight 1 (GradDiff,
      RMU, AS); otherwise the term is an add-on that :meth:`variant` names.
    - ``frozen_forward``: a step runs theta_p forward besides the trained model without a
      reference of its own (AS: the same model with its adapters off).

    :meth:`needs` sums these up for planners (reference model, retain set, frozen copies).
    """

    name: ClassVar[str] = "base"
    config_cls: ClassVar[type[UnlearnConfig]] = UnlearnConfig
    config_class: ClassVar[type[UnlearnConfig]] = UnlearnConfig  # deprecated alias of config_cls
    supports_lora: ClassVar[bool] = True
    needs_spans: ClassVar[bool] = False
    needs_reference: ClassVar[bool] = False
    retain_term: ClassVar[str] = "retain_nll"
    retain_in_method: ClassVar[bool] = False
    frozen_forward: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Plugins written against the old attribute set only ``config_class``: honour it.
        if "config_class" in cls.__dict__ and "config_cls" not in cls.__dict__:
            cls.config_cls = cls.__dict__["config_class"]
        cls.config_class = cls.config_cls

    def __init__(self, **overrides: Any) -> None:
        self.config = build_config(self.config_cls, overrides)
        self.reference: Reference | None = None

    def describe(self) -> dict[str, Any]:
        """Run metadata known before training: method, variant and the full config (the run
        record of :meth:`unlearn` starts with the same three fields)."""
        return {
            "method": self.name,
            "variant": self.variant(),
            "config": config_to_dict(self.config),
        }

    # ---- objective hooks ------------------------------------------------------------------------
    def forward(self, model: nn.Module, inputs: dict[str, torch.Tensor]) -> Any:
        """One forward pass over the joint batch; the default returns the logits ``[B, T, V]``."""
        return model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits

    def forget_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        """The method's term on the forget rows: ``(scalar loss, {name: detached part})``."""
        raise NotImplementedError(f"{type(self).__name__} must implement forget_loss")

    def retain_loss(self, model: nn.Module, step: Step) -> tuple[torch.Tensor, dict[str, Any]]:
        """The retain term before ``retain_weight``; default: mean NLL of the retain answers."""
        nll = nll_loss(step.outputs[step.n_forget :], step.retain("labels"))
        return nll, {"retain_nll": nll.detach()}

    def loss(
        self, model: nn.Module, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        """``forget_loss + retain_weight * retain_loss`` over one joint forward."""
        inputs, n = self.joint(batch)
        step = Step(inputs, n, self.forward(model, inputs))
        total, parts = self.forget_loss(model, step)
        if self.uses_retain():
            retain, retain_parts = self.retain_loss(model, step)
            total = total + self.config.retain_weight * retain
            parts = {**parts, **retain_parts}
        return total, parts

    # ---- other method hooks ---------------------------------------------------------------------
    def prepare(self, model: nn.Module, tokenizer: Any) -> nn.Module:
        """Freeze parameters or add modules on the private copy (before LoRA)."""
        return model

    def lora_targets(self, model: nn.Module) -> list[str] | tuple[str, ...]:
        return self.config.lora_target_modules

    def post_train(self, model: nn.Module, original: nn.Module | None) -> nn.Module:
        """Post-process the trained, unwrapped (LoRA-merged) model; TV's arithmetic lives here."""
        return model

    def checkpoint_model(
        self, model: nn.Module, original: nn.Module | None
    ) -> contextlib.AbstractContextManager:
        """The model as it would be if training stopped now, for an evaluation during training
        (:mod:`unlearn_zoo.trajectory`): the trained copy itself; TV overrides it."""
        return contextlib.nullcontext(model)

    def uses_retain(self) -> bool:
        return self.config.retain_weight > 0

    def needs_original(self) -> bool:
        """Whether :meth:`post_train` needs a frozen copy of theta_p (TV)."""
        return False

    def needs(self) -> MethodNeeds:
        """What this configured method needs beside the model it trains (:class:`MethodNeeds`)."""
        reference = self.needs_reference or self.frozen_forward
        copies = int(self.needs_reference and not self.config.use_lora) + int(self.needs_original())
        return MethodNeeds(reference, self.uses_retain(), self.needs_spans, copies)

    def variant(self) -> str:
        """The objective actually run, e.g. ``"npo"`` or ``"npo+retain_nll(w=1.0)"``."""
        w = float(self.config.retain_weight)
        if self.retain_in_method:
            return self.name if w == 1.0 else f"{self.name}(retain_weight={w!r})"
        return f"{self.name}+{self.retain_term}(w={w!r})" if w > 0 else self.name

    def extra_record(self) -> dict[str, Any]:
        return {}

    def save_extra(self, model: nn.Module, output_dir: Path) -> None:
        """Write method-specific files (AS adapter)."""

    def validate_data(self, forget: list[EncodedExample]) -> None:
        return None

    # ---- helpers for subclasses -----------------------------------------------------------------
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

    # ---- the run ---------------------------------------------------------------------------------
    def unlearn(
        self,
        model: nn.Module,
        tokenizer: Any,
        forget: Sequence[Example],
        retain: Sequence[Example] = (),
        output_dir: str | os.PathLike[str] | None = None,
        progress: bool = True,
        tracking: Tracking | None = None,
        callbacks: Sequence[Any] = (),
    ) -> UnlearnResult:
        """Unlearn ``forget`` from a deep copy of ``model``; the passed model is never modified.

        Only the main process writes ``output_dir`` (the checkpoint format is ARCHITECTURE.md §8).
        ``tracking``: the trainer's ``report_to`` and its log folder (:mod:`unlearn_zoo.tracking`).
        ``callbacks``: ``TrainerCallback``s added after the library's own, e.g.
        :class:`~unlearn_zoo.trajectory.TrajectoryCallback` (evaluate every K steps).
        """
        self.tracking = tracking or Tracking()
        self.callbacks = tuple(callbacks)
        start = time.perf_counter()
        encoded = self.encode(tokenizer, forget, retain)
        set_seed(self.config.seed)
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        wrapped = self.wrap(model, tokenizer)
        outcome = self.train(wrapped, tokenizer, encoded, progress)
        final = self.finalize(wrapped.model, wrapped.original)
        record = self.run_record(encoded, wrapped, outcome, time.perf_counter() - start)
        if output_dir is not None and outcome.is_main:
            save_unlearned(self, final, tokenizer, record, Path(output_dir))
        return UnlearnResult(model=final, record=record)

    def encode(
        self, tokenizer: Any, forget: Sequence[Example], retain: Sequence[Example]
    ) -> EncodedSets:
        """Check the config against the data and tokenize both sets; raises :class:`UnlearnError`
        naming ``forget[i].field`` on bad records. Retain data is encoded only when used."""
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
        kw = {"max_length": cfg.max_length, "onset_tokens": getattr(cfg, "onset_tokens", 3)}
        forget_enc = encode_records(tokenizer, forget, role="forget", **kw)
        retain_enc = (
            encode_records(tokenizer, retain, role="retain", **kw) if self.uses_retain() else []
        )
        self.validate_data(forget_enc)
        return EncodedSets(forget=forget_enc, retain=retain_enc)

    def wrap(self, model: nn.Module, tokenizer: Any) -> Wrapped:
        """Deep-copy ``model``, run :meth:`prepare`, build the reference (before LoRA, so a full
        copy is theta_p), then add LoRA adapters when ``use_lora``."""
        cfg = self.config
        work = copy.deepcopy(model)
        work.train()
        original = frozen_reference(model) if self.needs_original() else None
        n_params = count_params(work)
        work = self.prepare(work, tokenizer)
        if self.needs_reference:
            self.reference = Reference(work, cfg.use_lora)
        if cfg.use_lora:
            work = add_lora(work, cfg, self.lora_targets(work))
        return Wrapped(work, original, n_params, count_params(work, trainable_only=True))

    def train(
        self, wrapped: Wrapped, tokenizer: Any, encoded: EncodedSets, progress: bool
    ) -> TrainOutcome:
        """Train ``wrapped.model`` in place for ``epochs`` (at most ``max_steps`` steps), with the
        loss guard; returns what happened. Never raises for a bad loss: the guard restores the
        last good weights and the outcome says why training stopped."""
        cfg = self.config
        guard, tracker = LossGuard(cfg.loss_bound), SeenTracker(len(encoded.forget))
        stop_reason, stop_message = "completed", None
        with tempfile.TemporaryDirectory(prefix="unlearn_zoo_") as tmp:
            trainer = self.build_trainer(
                wrapped.model,
                tokenizer,
                encoded,
                self.training_arguments(tmp, progress),
                guard,
                tracker,
            )
            timer = self._add_callbacks(trainer, progress)
            view = functools.partial(self.checkpoint_model, original=wrapped.original)
            bind_callbacks(trainer, getattr(self, "callbacks", ()), guard.curve, view)
            getattr(self, "tracking", Tracking()).attach(trainer)
            if self.reference is not None:
                self.reference.prepare(trainer.accelerator)
            t0 = time.perf_counter()
            try:
                trainer.train()
            except StopUnlearning as stop:
                stop_reason, stop_message = stop.reason, stop.message
            train_time = time.perf_counter() - t0
            state, args = trainer.state, trainer.args
            outcome = TrainOutcome(
                steps=state.global_step,
                planned_steps=state.max_steps,
                epochs_completed=round(float(state.epoch or 0.0), 4),
                forget_examples_seen=tracker.count(args.device),
                cap_hit=stop_reason == "completed" and state.global_step < state.max_steps,
                stop_reason=stop_reason,
                stop_message=stop_message,
                loss_curve=guard.curve,
                train_time_s=round(train_time, 3),
                step_times_s=timer.times,
                trainer=trainer_name(trainer),
                device=str(args.device),
                world_size=args.world_size,
                is_main=args.process_index == 0,
            )
            del trainer
        return outcome

    def _add_callbacks(self, trainer: Any, progress: bool) -> StepTimer:
        """The step cap, the step timer, and a progress bar without per-step log lines."""
        if self.config.max_steps is not None:
            trainer.add_callback(StepCap(self.config.max_steps))
        timer = StepTimer()
        trainer.add_callback(timer)
        if progress:
            # Keep the bar but not a printed dict per step: the loss curve is in the record.
            trainer.remove_callback(ProgressCallback)
            trainer.add_callback(QuietProgressCallback())
        else:
            trainer.remove_callback(PrinterCallback)
        return timer

    def training_arguments(self, output_dir: str, progress: bool) -> dict[str, Any]:
        """Keyword arguments shared by the ``TrainingArguments`` / ``SFTConfig`` of every method."""
        cfg = self.config
        return {
            "output_dir": output_dir,
            "per_device_train_batch_size": cfg.batch_size,
            "gradient_accumulation_steps": cfg.grad_accum_steps,
            "num_train_epochs": cfg.epochs,
            "max_steps": -1,  # epochs size the run; cfg.max_steps is a cap (StepCap), not a budget
            "learning_rate": cfg.lr,
            "lr_scheduler_type": "constant",
            "warmup_steps": 0,
            "weight_decay": 0.0,
            "max_grad_norm": cfg.grad_clip,
            "optim": "adamw_torch",
            "logging_steps": 1,
            "save_strategy": "no",
            **getattr(self, "tracking", Tracking()).arguments(),  # report_to (default "none")
            "seed": cfg.seed,
            "data_seed": cfg.seed,
            "use_cpu": not torch.cuda.is_available(),
            "bf16": False,  # the model's own dtype; no autocast (TRL's SFTConfig defaults it on)
            "activation_checkpointing": cfg.gradient_checkpointing,
            "activation_checkpointing_kwargs": {"use_reentrant": False},
            "remove_unused_columns": False,
            "disable_tqdm": not progress,
            "dataloader_num_workers": 0,
            "ddp_find_unused_parameters": False,
        }

    def build_trainer(
        self,
        model: nn.Module,
        tokenizer: Any,
        encoded: EncodedSets,
        args: dict[str, Any],
        guard: LossGuard,
        tracker: SeenTracker,
    ) -> Any:
        """The trainer that runs :meth:`loss`; TV overrides this with TRL's ``SFTTrainer``."""
        pad_id = tokenizer.pad_token_id
        if pad_id is None:
            pad_id = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        return UnlearnTrainer(
            model=model,
            args=TrainingArguments(**args),
            train_dataset=PairedDataset(encoded.forget, encoded.retain, seed=self.config.seed),
            data_collator=PairedCollator(pad_id),
            loss_fn=self.loss,
            guard=guard,
            tracker=tracker,
        )

    def finalize(self, model: nn.Module, original: nn.Module | None) -> nn.Module:
        """Unwrap, merge LoRA (``merge_lora``), run :meth:`post_train`, and hand back an eval-mode,
        frozen model with the KV cache on (training turns it off)."""
        cfg = self.config
        model = unwrap(model)
        if cfg.use_lora and cfg.merge_lora:
            model = model.merge_and_unload()
        model = self.post_train(model, original)
        model.eval()
        if getattr(getattr(model, "config", None), "use_cache", None) is False:
            model.config.use_cache = True
        for p in model.parameters():
            p.requires_grad_(False)
        self.reference = None  # free theta_p's copy with the run
        return model

    def run_record(
        self, encoded: EncodedSets, wrapped: Wrapped, outcome: TrainOutcome, wall_time: float
    ) -> dict[str, Any]:
        """The JSON-able record of the run (README "Record" lists every field)."""
        cuda = torch.cuda.is_available()
        record: dict[str, Any] = {
            **self.describe(),
            "steps": outcome.steps,
            "planned_steps": outcome.planned_steps,
            "epochs_completed": outcome.epochs_completed,
            "forget_examples_seen": outcome.forget_examples_seen,
            "cap_hit": outcome.cap_hit,
            "stop_reason": outcome.stop_reason,
            "stop_message": outcome.stop_message,
            "loss_curve": outcome.loss_curve,
            "trainer": outcome.trainer,
            "wall_time_s": round(wall_time, 3),
            "train_time_s": outcome.train_time_s,
            "step_times_s": outcome.step_times_s,
            # ru_maxrss is the process high-water mark (KiB on Linux), not only this run's.
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "peak_cuda_mb": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
            "device": outcome.device,
            "world_size": outcome.world_size,
            "seed": self.config.seed,
            "n_forget": len(encoded.forget),
            "n_retain": len(encoded.retain),
            "n_params": wrapped.n_params,
            "n_trainable_params": wrapped.n_trainable,
            "versions": library_versions(),
        }
        record.update(self.extra_record())
        return record
