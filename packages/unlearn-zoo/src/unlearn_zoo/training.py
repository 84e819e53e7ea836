"""The transformers ``Trainer`` subclass the loss-based methods run through, the loss guard, the
step cap and the record of which forget examples training saw."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from transformers import ProgressCallback, Trainer, TrainerCallback


class StopUnlearning(Exception):
    """Raised from inside training when the loss is non-finite or out of bounds."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class LossGuard:
    """Snapshots trainable weights whenever they give a good loss; restores them on a bad one.

    "Good" = finite and ``|loss| <= bound``. The snapshot is taken at the first micro-batch of each
    optimizer step, before backward, so the restored weights are the last ones whose loss was
    checked and found good (the weights from before the update that broke the run).
    """

    def __init__(self, bound: float | None) -> None:
        self.bound = bound
        self.snapshot: dict[str, torch.Tensor] = {}
        self.snapshot_step = -1
        self.curve: list[dict[str, float]] = []

    def _params(self, model: nn.Module) -> dict[str, torch.Tensor]:
        return {n: p for n, p in model.named_parameters() if p.requires_grad}

    def check(self, model: nn.Module, step: int, loss: torch.Tensor, parts: dict[str, Any]) -> None:
        value = float(loss.detach())
        bad_local = 0.0
        if not math.isfinite(value):
            bad_local = 2.0
        elif self.bound is not None and abs(value) > self.bound:
            bad_local = 1.0
        flag = torch.tensor([bad_local], device=loss.device)
        # Every rank must stop together under DDP, or the others hang in the next all-reduce.
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
        bad = float(flag.item())
        if bad > 0:
            self.restore(model)
            if bad >= 2.0:
                reason = "non_finite_loss"
                msg = f"loss became non-finite ({value}) at step {step}"
            else:
                reason = "loss_bound_exceeded"
                msg = f"|loss| = {abs(value):.4g} exceeded loss_bound={self.bound} at step {step}"
            msg += f"; restored the weights from step {self.snapshot_step} (last good state)"
            raise StopUnlearning(reason, msg)
        if step != self.snapshot_step:
            with torch.no_grad():
                for n, p in self._params(model).items():
                    buf = self.snapshot.get(n)
                    if buf is None or buf.shape != p.shape:
                        self.snapshot[n] = p.detach().clone()
                    else:
                        buf.copy_(p.detach())
            self.snapshot_step = step
        entry = {"step": step, "loss": value}
        entry.update(
            {k: float(v.detach()) if torch.is_tensor(v) else float(v) for k, v in parts.items()}
        )
        self.curve.append(entry)

    def restore(self, model: nn.Module) -> None:
        if not self.snapshot:
            return
        with torch.no_grad():
            for n, p in self._params(model).items():
                if n in self.snapshot:
                    p.copy_(self.snapshot[n])


class SeenTracker:
    """Which forget examples went into a checked (finite, in-bounds) loss, across all ranks.

    Measured from the batches themselves (the collator's ``forget_index``), not inferred from the
    step count: a dataloader that prefetches, a cap or a guard stop would make an inferred count lie.
    """

    def __init__(self, n_forget: int) -> None:
        self.seen = torch.zeros(n_forget, dtype=torch.bool)

    def add(self, index: torch.Tensor) -> None:
        self.seen[index.detach().cpu().long()] = True

    def count(self, device: torch.device | str = "cpu") -> int:
        """Distinct forget examples seen by any rank (all-reduced under DDP; call on every rank)."""
        seen = self.seen.to(device=device, dtype=torch.int32)
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            torch.distributed.all_reduce(seen, op=torch.distributed.ReduceOp.MAX)
        return int(seen.sum())


class StepCap(TrainerCallback):
    """Stops training after ``cap`` optimizer steps, whatever the epochs would ask for.

    The Trainer's own ``max_steps`` would *replace* the epoch budget (and cycle the data past it);
    this keeps epochs the budget and ``max_steps`` a ceiling on it.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if state.global_step >= self.cap:
            control.should_training_stop = True
        return control


class StepTimer(TrainerCallback):
    """Wall time of every optimizer step (forward, backward, optimizer), for cost planning."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._start = 0.0

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        self._start = time.perf_counter()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        self.times.append(round(time.perf_counter() - self._start, 4))


LossFn = Callable[[nn.Module, dict[str, torch.Tensor]], tuple[torch.Tensor, dict[str, Any]]]


class UnlearnTrainer(Trainer):
    """``Trainer`` whose ``compute_loss`` is the method's loss, checked by a :class:`LossGuard`."""

    def __init__(
        self, *args: Any, loss_fn: LossFn, guard: LossGuard, tracker: SeenTracker, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.loss_fn = loss_fn
        self.guard = guard
        self.tracker = tracker
        # Our losses are already means; let Trainer divide by accumulation steps itself.
        self.model_accepts_loss_kwargs = False

    def compute_loss(
        self,
        model: nn.Module,
        inputs: dict[str, torch.Tensor],
        return_outputs: bool = False,
        num_items_in_batch: Any = None,
    ) -> Any:
        index = inputs.pop("forget_index")
        loss, parts = self.loss_fn(model, inputs)
        self.guard.check(model, self.state.global_step, loss, parts)
        self.tracker.add(index)
        return (loss, None) if return_outputs else loss


class QuietProgressCallback(ProgressCallback):
    """transformers' training progress bar without the per-step log lines."""

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        return None


def trainer_name(trainer: Any) -> str:
    """``transformers.Trainer`` or ``trl.SFTTrainer``: the library class our subclass extends."""
    parent = type(trainer).__mro__[1]
    return f"{parent.__module__.split('.')[0]}.{parent.__name__}"
