"""Experiment tracking of a training run: transformers' ``report_to`` (tensorboard, wandb, mlflow).

:class:`Tracking` is what :meth:`unlearn_zoo.base.Unlearner.unlearn` passes to the trainer's
``TrainingArguments`` (``report_to``, ``run_name``), with the folder the logs go to. Tracking only
observes: the weights, the loss curve in the record and every number are the same with or without
it. ``"none"`` (the default) adds nothing. Each tracker's package must be installed, else a
one-line :class:`~unlearn_zoo.errors.UnlearnError` says which to install:

- ``tensorboard``: event files under ``logging_dir`` (``tensorboard`` or ``tensorboardX``); the
  trainer logs ``train/loss``, ``train/grad_norm`` and ``train/learning_rate`` every step;
- ``wandb``: a run in ``logging_dir`` (``WANDB_DIR``); offline unless ``WANDB_MODE`` says otherwise;
- ``mlflow``: a run in ``$MLFLOW_TRACKING_URI``, default ``file:`` ``logging_dir``/mlruns.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any

from unlearn_zoo.errors import UnlearnError

REPORT_TO = ("none", "tensorboard", "wandb", "mlflow")
#: the packages that provide each tracker (any one of them)
PACKAGES = {
    "tensorboard": ("tensorboard", "tensorboardX"),
    "wandb": ("wandb",),
    "mlflow": ("mlflow",),
}


def check_report_to(report_to: str) -> str:
    """``report_to`` when known and installed, else a one-line UnlearnError (what to install)."""
    if report_to not in REPORT_TO:
        raise UnlearnError(f"report_to must be one of {', '.join(REPORT_TO)}, got {report_to!r}")
    needed = PACKAGES.get(report_to, ())
    if needed and not any(importlib.util.find_spec(p) is not None for p in needed):
        raise UnlearnError(
            f"report_to={report_to} needs the {' or '.join(needed)} package: pip install {needed[-1]}"
        )
    return report_to


@dataclass(frozen=True)
class Tracking:
    """Where and how a training run is tracked (module docstring)."""

    report_to: str = "none"
    logging_dir: str | None = None
    run_name: str | None = None

    def __post_init__(self) -> None:
        check_report_to(self.report_to)
        if self.report_to != "none" and self.logging_dir is None:
            raise UnlearnError(f"report_to={self.report_to} needs a logging_dir")

    def arguments(self) -> dict[str, Any]:
        """The ``TrainingArguments`` keywords (``report_to``, ``run_name``)."""
        args: dict[str, Any] = {"report_to": self.report_to}
        if self.run_name is not None:
            args["run_name"] = self.run_name
        return args

    def attach(self, trainer: Any) -> None:
        """Point the trainer's tracker at ``logging_dir`` before training starts."""
        if self.report_to == "none" or self.logging_dir is None:
            return
        os.makedirs(self.logging_dir, exist_ok=True)
        if self.report_to == "wandb":
            os.environ.setdefault("WANDB_MODE", "offline")
            os.environ.setdefault("WANDB_DIR", self.logging_dir)
        elif self.report_to == "mlflow":
            os.environ.setdefault(
                "MLFLOW_TRACKING_URI", f"file:{os.path.join(self.logging_dir, 'mlruns')}"
            )
        for callback in trainer.callback_handler.callbacks:
            if type(callback).__name__ == "TensorBoardCallback":
                callback.logging_dir = self.logging_dir  # read on train begin (transformers 5)
