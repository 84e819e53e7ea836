"""The BIG-Bench-Hard stage (leak-metrics' bbh), one half of the utility axis: where its data is
read from, and one model's answers (cells ``bbh-base`` and ``METHOD/bbh``). The ratio itself is
scored in :mod:`.scoring`."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

from leakres_cli.config.run_config import RunConfig
from leakres_cli.scale.store import CellStore


class BBHHost(Protocol):
    """What the BBH cell takes from the run (the pipeline's ``Benchmark`` is one)."""

    cfg: RunConfig
    store: CellStore

    def model(self) -> tuple[Any, Any]: ...

    def bbh_data(self) -> dict[str, Any]: ...


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
