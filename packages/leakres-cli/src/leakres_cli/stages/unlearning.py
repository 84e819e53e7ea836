"""Unlearning one method (unlearn-zoo), the model it yields (trained on first use only), and the
run-size summary of its record."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from leakres_cli.config.run_config import PROMPT_FORMS, RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.progress import StageTimer
from leakres_cli.records import Record
from leakres_cli.scale.store import CellStore

#: trains one method: (method, forget records, retain records) -> (unlearned model, record)
Trainer = Callable[[str, list[Record], list[Record]], tuple[Any, dict[str, Any]]]


class UnlearningHost(Protocol):
    """What :class:`UnlearnedModel` takes from the run: its cells, timer, engines and trainer."""

    store: CellStore
    timer: StageTimer
    generation: Any  # leakres_cli.models.engines.GenerationRouter

    def unlearn(
        self, method: str, forget: list[Record], retain: list[Record]
    ) -> tuple[Any, dict[str, Any]]: ...


class UnlearnedModel:
    """The unlearned model of one method, trained on first use only.

    When every cell that needs the model is already stored (a resumed run), no training happens.
    It keeps the run's store, timer, engine router and trainer, not the run itself.
    """

    def __init__(
        self, host: UnlearningHost, method: str, forget: list[Record], retain: list[Record]
    ) -> None:
        self.method, self.forget, self.retain = method, forget, retain
        self._store, self._timer, self._generation = host.store, host.timer, host.generation
        self._train: Trainer = host.unlearn
        self._model: Any = None
        self.record: dict[str, Any] | None = self._store.get(f"{method}/unlearn")

    def __call__(self) -> Any:
        if self._model is None:
            with self._timer.stage(f"{self.method}:unlearn"):
                self._model, self.record = self._train(self.method, self.forget, self.retain)
            self._store.put(f"{self.method}/unlearn", self.record)
            self._generation.register(self._model, self.method)
        return self._model

    def release(self) -> None:
        if self._model is not None:
            self._generation.release(self._model)  # stops its server, if one runs
        self._model = None


def unlearn_examples(
    records: Sequence[Record], prompt_form: str = PROMPT_FORMS[0]
) -> list[dict[str, Any]]:
    """unlearn-zoo's examples: the question as the run asks it (``prompt_form``: with its type's
    answer-form instruction, or bare; kg-qgen's ``render_prompt``), so the evaluation and the
    attacks query the model with the prompt it was unlearned on; the answer; and the spans
    RMU/PALU target."""
    from kg_qgen import render_prompt

    return [
        {
            "question": render_prompt(q, prompt_form),
            "answer": q["answer"],
            "spans": [q["target"]["subject"], q["target"]["object"]],
        }
        for q in records
    ]


def unlearn(
    cfg: RunConfig,
    model: Any,
    tokenizer: Any,
    method: str,
    forget: list[Record],
    retain: list[Record],
    *,
    progress: bool,
    output_dir: Any = None,
    tracking_dir: Any = None,
    callbacks: Sequence[Any] = (),
) -> tuple[Any, dict[str, Any]]:
    """Unlearn ``forget`` from (a copy of) ``model`` with one unlearn-zoo method; with
    ``output_dir`` unlearn-zoo also saves the model there (ARCHITECTURE.md section 8); with
    ``cfg.report_to`` the trainer reports to it, logging under ``tracking_dir/METHOD``;
    ``callbacks`` (unlearn-zoo's ``TrajectoryCallback`` under ``--eval-every``) go to the trainer."""
    from unlearn_zoo import default_overrides, get_unlearner

    # unlearn-zoo's per-model-size defaults first (the paper tunes per method and model), user --set on top.
    n_params = sum(p.numel() for p in model.parameters())
    overrides = {**default_overrides(method, n_params), "seed": cfg.seed}
    overrides.update(cfg.method_overrides.get(method, {}))
    unlearner = get_unlearner(method, **overrides)
    if callbacks and "callbacks" not in inspect.signature(unlearner.unlearn).parameters:
        raise LeakresError(
            f"method {method}: its unlearner's unlearn() takes no callbacks, so --eval-every "
            "cannot record its trajectory; run it without --eval-every"
        )
    result = unlearner.unlearn(
        model,
        tokenizer,
        unlearn_examples(forget, cfg.prompt_form),
        unlearn_examples(retain, cfg.prompt_form),
        progress=progress,
        # only when saving: an unlearner that cannot save (a plugin, a test double) still trains
        **({"output_dir": output_dir} if output_dir is not None else {}),
        **_tracking(cfg, method, tracking_dir),
        # only when given: a plugin unlearner without the keyword still trains
        **({"callbacks": list(callbacks)} if callbacks else {}),
    )
    result.model.eval()
    return result.model, result.record


def _tracking(cfg: RunConfig, method: str, tracking_dir: Any) -> dict[str, Any]:
    """unlearn-zoo's ``tracking`` keyword under ``--report-to`` (none: no keyword, so a plugin
    unlearner without it still trains)."""
    if cfg.report_to == "none" or tracking_dir is None:
        return {}
    from unlearn_zoo import Tracking

    return {"tracking": Tracking(cfg.report_to, str(Path(tracking_dir) / method), run_name=method)}


def training_summary(record: dict[str, Any] | None, n_forget: int) -> dict[str, Any]:
    """Run size of one unlearning from unlearn-zoo's record: examples seen, epochs, steps, cap.

    Every field is taken from the record; one the record lacks is computed here from what it has
    and named in ``computed_by_cli`` (``None`` when it cannot be computed).
    """
    rec = record or {}
    config = rec.get("config") or {}
    out: dict[str, Any] = {
        "n_forget": rec.get("n_forget", n_forget),
        "forget_examples_seen": rec.get("forget_examples_seen"),
        "epochs": config.get("epochs"),
        "epochs_completed": rec.get("epochs_completed"),
        "steps": rec.get("steps"),
        "planned_steps": rec.get("planned_steps"),
        "max_steps": config.get("max_steps"),
        "cap_hit": rec.get("cap_hit"),
        "stop_reason": rec.get("stop_reason"),
        "computed_by_cli": [],
    }
    _fill_missing(out, config)
    seen = out["forget_examples_seen"]
    out["every_forget_example_seen"] = None if seen is None else seen >= out["n_forget"]
    return out


def _fill_missing(out: dict[str, Any], config: dict[str, Any]) -> None:
    """The summary fields an older record lacks, computed from the steps (named as computed)."""
    steps, planned = out["steps"], out["planned_steps"]
    if out["cap_hit"] is None and steps is not None:
        cap = out["max_steps"]
        out["cap_hit"] = cap is not None and steps >= cap and (planned is None or cap < planned)
        out["computed_by_cli"].append("cap_hit")
    if out["epochs_completed"] is None and steps is not None and planned and out["epochs"]:
        out["epochs_completed"] = out["epochs"] * steps / planned
        out["computed_by_cli"].append("epochs_completed")
    if out["forget_examples_seen"] is None and steps is not None and config.get("batch_size"):
        # An upper bound from the batches: without the record's count, distinct examples are unknown.
        per_step = config["batch_size"] * config.get("grad_accum_steps", 1)
        out["forget_examples_seen"] = min(out["n_forget"], steps * per_step)
        out["computed_by_cli"].append("forget_examples_seen (upper bound: steps x batch)")
