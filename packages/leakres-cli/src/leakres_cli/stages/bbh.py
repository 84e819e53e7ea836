"""The BIG-Bench-Hard stage (leak-metrics' bbh), one half of the utility axis: where its data is
read from, and one model's answers (cells ``bbh-base`` and ``METHOD/bbh``). The ratio itself is
scored in :mod:`.scoring`."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import CellStore


class BBHHost(Protocol):
    """What the BBH cell takes from the run (the pipeline's ``Benchmark`` is one)."""

    cfg: RunConfig
    store: CellStore

    def model(self) -> tuple[Any, Any]: ...

    def bbh_data(self) -> dict[str, Any]: ...


def bbh_data(cfg: RunConfig) -> dict[str, Any]:
    """Where BBH is read from: ``<data dir>/bbh`` (leak-metrics' layout), checked up front.

    The data dir is --data-dir, else ``$LEAKRES_DATA_DIR``; with neither, leak-metrics' own
    fallback applies (download into its cache). A missing file or unknown task stops the run
    here, before any model is loaded or trained.
    """
    from leak_metrics.bbh import BBH_TASKS

    tasks = list(BBH_TASKS) if cfg.bbh_tasks == ("all",) else list(cfg.bbh_tasks)
    unknown = [t for t in tasks if t not in BBH_TASKS]
    if unknown:
        raise LeakresError(f"unknown BBH task(s) {unknown}; known: {', '.join(BBH_TASKS)}")
    root = cfg.data_dir or os.environ.get("LEAKRES_DATA_DIR")
    if not root:
        _fetch_up_front(tasks)
        return {"tasks": tasks, "data_dir": None, "source": "auto"}
    bbh_dir = Path(root) / "bbh"
    missing = [
        path
        for task in tasks
        for path in (bbh_dir / "bbh" / f"{task}.json", bbh_dir / "cot-prompts" / f"{task}.txt")
        if not path.is_file()
    ]
    if missing:
        raise LeakresError(
            f"BBH file {missing[0]} not found ({len(missing)} missing): the data dir "
            f"{root} (--data-dir or LEAKRES_DATA_DIR) must hold bbh/bbh/<task>.json and "
            "bbh/cot-prompts/<task>.txt"
        )
    return {"tasks": tasks, "data_dir": str(bbh_dir), "source": "local"}


def bbh(bench: BBHHost, name: str, get_model: Callable[[], Any]) -> dict[str, Any]:
    """BIG-Bench-Hard answers of the model (a cell), for the utility ratio."""
    return bbh_cell(
        bench,
        name,
        lambda tokenizer: nullcontext({"model": get_model(), "tokenizer": tokenizer}),
    )


def bbh_cell(
    bench: BBHHost,
    name: str,
    decoder: Callable[[Any], AbstractContextManager[dict[str, Any]]],
    config_extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The BBH cell of one model, however it decodes: ``decoder(tokenizer)`` gives, for the time
    of the evaluation, leak-metrics' ``evaluate_bbh`` arguments that name the model (``model``
    and ``tokenizer`` here, or a ``generate_fn`` over an endpoint); the run's settings (tasks,
    limit, batch size, seed, CoT, data) are the same for both. ``config_extra`` is added to the
    cell's ``config`` (an endpoint's description)."""

    def compute() -> dict[str, Any]:
        from leak_metrics.bbh import evaluate_bbh

        cfg = bench.cfg
        data = bench.bbh_data()
        _, tokenizer = bench.model()
        with decoder(tokenizer) as model_args:
            result = evaluate_bbh(
                **model_args,
                tasks=data["tasks"],
                limit=cfg.bbh_limit or None,
                batch_size=cfg.batch_size,
                seed=cfg.seed,
                cot=cfg.bbh_cot,
                data_dir=data["data_dir"],
                source=data["source"],
            )
        return {
            "correct": result.correct,
            "overall": result.overall.to_dict(),
            "per_task": {t: m.to_dict() for t, m in result.per_task.items()},
            "config": {**result.config, **(config_extra or {})},
            "data": data,
            "wall_time": result.wall_time,
        }

    return bench.store.cached(name, compute)


def _fetch_up_front(tasks: list[str]) -> None:
    """Without a data dir, leak-metrics downloads BBH (pinned, checksummed) into its cache: do it
    now, so an offline machine stops here with one line instead of after the base model's work."""
    from leak_metrics.bbh import load_bbh_task
    from leak_metrics.errors import LeakMetricsError

    for task in tasks:
        try:
            load_bbh_task(task, source="auto")
        except LeakMetricsError as exc:
            raise LeakresError(
                f"BBH task {task}: {exc}. Offline, point --data-dir (or LEAKRES_DATA_DIR) at a "
                "folder holding bbh/bbh/<task>.json and bbh/cot-prompts/<task>.txt"
            ) from exc
