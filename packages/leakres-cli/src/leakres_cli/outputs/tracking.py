"""`--report-to`: the run's metrics to an experiment tracker at the end of a run.

Each method's training curve goes to the tracker through unlearn-zoo (the trainer's ``report_to``,
:func:`leakres_cli.stages.unlearning.unlearn`); :func:`log_run_metrics` adds, once the run is scored,
every numeric leaf of each method's results (FQ per type with its CI, retain accuracy, utility,
S_suc, each attack's RR, robustness) as scalars named ``METHOD/path/to/value`` (step 0):

- ``tensorboard``: event files under ``OUT/tracking/metrics`` (tensorboardX, or torch's writer);
- ``wandb``: one offline run (``$WANDB_MODE`` overrides) in ``OUT/tracking``;
- ``mlflow``: one run at ``$MLFLOW_TRACKING_URI`` (default ``file:OUT/tracking/mlruns``).

A tracker whose package is missing was refused before any work (``preflight.validate_names``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def flat_metrics(results: dict[str, Any]) -> dict[str, float]:
    """``{"ga/per_type/SH/fq/value": 0.5, ...}``: every int/float leaf under ``methods`` (lists,
    strings, booleans and None left out; the unlearn record's config and curve are no metrics)."""
    out: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}/{key}", inner)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[prefix] = float(value)

    for method, block in (results.get("methods") or {}).items():
        for key, value in (block or {}).items():
            if key != "unlearn":
                walk(f"{method}/{key}", value)
    return out


def log_run_metrics(results: dict[str, Any], report_to: str, log_dir: Path) -> dict[str, float]:
    """Log :func:`flat_metrics` of ``results`` to ``report_to``; returns what was logged."""
    metrics = flat_metrics(results)
    log_dir.mkdir(parents=True, exist_ok=True)
    if report_to == "tensorboard":
        try:
            from tensorboardX import SummaryWriter
        except ImportError:
            from torch.utils.tensorboard import SummaryWriter
        writer = SummaryWriter(log_dir=str(log_dir / "metrics"))
        for tag, value in metrics.items():
            writer.add_scalar(tag, value, 0)
        writer.close()
    elif report_to == "wandb":
        import wandb

        mode = os.environ.get("WANDB_MODE", "offline")
        run = wandb.init(project="leakres", dir=str(log_dir), mode=mode, name="leakres-metrics")
        run.log(metrics)
        run.finish()
    elif report_to == "mlflow":
        import mlflow

        uri = os.environ.get("MLFLOW_TRACKING_URI") or f"file:{log_dir / 'mlruns'}"
        mlflow.set_tracking_uri(uri)
        with mlflow.start_run(run_name="leakres-metrics"):
            mlflow.log_metrics({k.replace("/", "."): v for k, v in metrics.items()})
    return metrics
