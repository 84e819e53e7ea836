"""Unlearning trajectories: evaluate the model every ``K`` optimizer steps while it unlearns.

:class:`TrajectoryCallback` is a transformers ``TrainerCallback``. Passed to
:meth:`unlearn_zoo.base.Unlearner.unlearn` (``callbacks=[...]``), it works with every method, full
or LoRA; it also works on a plain ``transformers.Trainer``. At every step ``K, 2K, ...`` (and at
step 0 with ``at_start=True``) it calls the user's ``evaluate(model, step) -> dict`` and records
one checkpoint::

    {"step": 8, "loss": 1.93, "loss_mean": 2.10, "loss_parts": {"ga_nll": -1.93},
     "eval_time_s": 0.41, "metrics": <what evaluate returned>}

- ``loss``: the training objective of that optimizer step (the mean over its micro-batches, as
  the run record's ``loss_curve`` holds it); ``loss_mean``: its running mean over the steps since
  the previous checkpoint; ``loss_parts``: the method's named terms at that step (e.g. the forget
  term alone). Under ``unlearn()`` they come from the loss guard's curve; on a plain Trainer from
  the trainer's logged ``loss`` (``loss_parts`` then empty).
- The model ``evaluate`` receives is the model as it would be if training stopped now
  (:meth:`Unlearner.checkpoint_model`: the trained copy itself, except TV, whose checkpoint is
  theta_p - alpha * (theta_k - theta_p), applied in place and undone afterwards).

Guarantees (tests/test_trajectory.py): ``evaluate`` runs with every module in eval mode and
under ``torch.no_grad()``; each module's own train/eval flag is restored afterwards; the Python,
NumPy, torch CPU and CUDA random states are saved before and restored after, so a run with the
callback ends with exactly the weights of the same run without it (whatever ``evaluate`` draws
or seeds). Under DDP only the main process evaluates (the others wait at the next step's
all-reduce). The time spent evaluating is not counted in the record's ``step_times_s``.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from torch import nn
from transformers import TrainerCallback

#: ``evaluate(model, step) -> dict`` (JSON-able values recommended: they go into the record)
Evaluate = Callable[[nn.Module, int], dict[str, Any]]
#: ``view(model)`` -> context manager yielding the model to evaluate at this checkpoint
View = Callable[[nn.Module], contextlib.AbstractContextManager]


def _identity_view(model: nn.Module) -> contextlib.AbstractContextManager:
    return contextlib.nullcontext(model)


@contextlib.contextmanager
def preserved_rng() -> Iterator[None]:
    """Save the Python, NumPy, torch CPU and (when available) CUDA random states; restore them on
    exit, so whatever runs inside draws nothing from the training's random streams."""
    import numpy as np

    py, npy, cpu = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    try:
        yield
    finally:
        random.setstate(py)
        np.random.set_state(npy)
        torch.random.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


@contextlib.contextmanager
def eval_mode(model: nn.Module) -> Iterator[nn.Module]:
    """Every module in eval mode inside; each module's own ``training`` flag restored on exit (a
    frozen submodule kept in eval mode during training stays so)."""
    flags = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        yield model
    finally:
        for module, flag in flags:
            module.training = flag


class TrajectoryCallback(TrainerCallback):
    """Call ``evaluate(model, step)`` every ``every`` optimizer steps (module docstring).

    Args:
        every: evaluate at steps ``every, 2 * every, ...`` (at least 1).
        evaluate: the user's evaluation; its dict is stored under ``metrics``.
        at_start: also evaluate at step 0, before the first update.

    After training, :attr:`checkpoints` holds one dict per evaluation, in step order.
    """

    def __init__(self, every: int, evaluate: Evaluate, *, at_start: bool = False) -> None:
        if not isinstance(every, int) or isinstance(every, bool) or every < 1:
            raise ValueError(f"every must be a positive integer, got {every!r}")
        self.every = every
        self.evaluate = evaluate
        self.at_start = at_start
        self.checkpoints: list[dict[str, Any]] = []
        self._curve: Sequence[dict[str, float]] | None = None
        self._view: View = _identity_view
        self._logged: dict[int, float] = {}

    def bind(self, loss_curve: Sequence[dict[str, float]] | None, view: View | None) -> None:
        """Called by :meth:`Unlearner.unlearn`: the loss guard's live curve (one entry per
        micro-batch, ``step`` = the optimizer step it belongs to, 0-based) and the method's
        checkpoint view. Training without them falls back to the logged loss and the bare model."""
        self._curve = loss_curve
        self._view = view or _identity_view

    # ---- trainer events -------------------------------------------------------------------------
    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.checkpoints, self._logged = [], {}
        if self.at_start:
            self._record(state, kwargs["model"], 0)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step % self.every == 0:
            self._record(state, kwargs["model"], state.global_step)

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        """Without a bound curve: the trainer logs a step's loss after its ``on_step_end``."""
        if self._curve is not None or not logs or "loss" not in logs:
            return
        self._logged[state.global_step] = float(logs["loss"])
        for point in self.checkpoints:
            if point["step"] == state.global_step and point["loss"] is None:
                point["loss"] = self._logged[state.global_step]
                point["loss_mean"] = self._mean_logged(point["step"])

    # ---- one checkpoint -------------------------------------------------------------------------
    def _record(self, state: Any, model: nn.Module, step: int) -> None:
        if not getattr(state, "is_world_process_zero", True):
            return
        start = time.perf_counter()
        with preserved_rng(), torch.no_grad(), eval_mode(model), self._view(model) as viewed:
            metrics = self.evaluate(viewed, step)
        loss, loss_mean, parts = self._losses(step)
        self.checkpoints.append({
            "step": step,
            "loss": loss,
            "loss_mean": loss_mean,
            "loss_parts": parts,
            "eval_time_s": round(time.perf_counter() - start, 4),
            "metrics": metrics,
        })  # fmt: skip

    def _losses(self, step: int) -> tuple[float | None, float | None, dict[str, float]]:
        """(loss at ``step``, mean loss since the previous checkpoint, named parts at ``step``)."""
        if step == 0 or self._curve is None:
            return None, None, {}  # step 0: nothing trained yet; plain Trainer: filled by on_log
        previous = max((p["step"] for p in self.checkpoints), default=0)
        per_step: dict[int, list[dict[str, float]]] = {}
        for entry in self._curve:  # entry["step"] k-1 = the micro-batches of optimizer step k
            if previous < entry["step"] + 1 <= step:
                per_step.setdefault(int(entry["step"]) + 1, []).append(entry)
        if step not in per_step:
            return None, None, {}
        last = per_step[step]
        parts = {
            key: sum(e[key] for e in last) / len(last)
            for key in last[0]
            if key not in ("step", "loss")
        }
        means = [sum(e["loss"] for e in es) / len(es) for es in per_step.values()]
        loss = sum(e["loss"] for e in last) / len(last)
        return loss, sum(means) / len(means), parts

    def _mean_logged(self, step: int) -> float:
        previous = max((p["step"] for p in self.checkpoints if p["step"] < step), default=0)
        values = [v for s, v in self._logged.items() if previous < s <= step]
        return sum(values) / len(values)


def bind_callbacks(
    trainer: Any,
    callbacks: Sequence[Any],
    loss_curve: Sequence[dict[str, float]] | None,
    view: View | None,
) -> None:
    """Add ``callbacks`` to ``trainer`` (after its own, so the step timer does not count their
    time), binding each that has ``bind`` (a :class:`TrajectoryCallback`) to the run."""
    for callback in callbacks:
        bind = getattr(callback, "bind", None)
        if callable(bind):
            bind(loss_curve, view)
        trainer.add_callback(callback)
