"""Score a model on BBH: per-task accuracy and the macro average, each with a bootstrap CI."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from leak_metrics.bbh.data import BBH_TASKS, load_bbh_task, select_examples
from leak_metrics.bbh.generation import GenerateFn, generate_batched
from leak_metrics.bbh.prompting import STOP, build_prompt, few_shot_prefix
from leak_metrics.bbh.scoring import extract_answer, is_correct, macro_average
from leak_metrics.datatypes import MetricValue
from leak_metrics.errors import InputError
from leak_metrics.metrics import DEFAULT_RESAMPLES, accuracy


@dataclass(frozen=True)
class BBHConfig:
    """Settings recorded with every BBH result.

    tasks: task names (None = all 27). limit: examples per task drawn with ``seed`` (None = all).
    batch_size: prompts per ``model.generate`` call of the fallback loop (unused with a
    ``generate_fn``). max_new_tokens: generation cap (None = 256 with CoT, 16 without).
    cot: chain-of-thought prompting (see :mod:`leak_metrics.bbh.prompting`).
    seed: example sampling and bootstrap seed. n_resamples: bootstrap resamples.
    """

    tasks: tuple[str, ...] | None = None
    limit: int | None = None
    batch_size: int = 16
    max_new_tokens: int | None = None
    cot: bool = True
    seed: int = 0
    n_resamples: int = DEFAULT_RESAMPLES

    def resolved_max_new_tokens(self) -> int:
        if self.max_new_tokens is not None:
            return self.max_new_tokens
        return 256 if self.cot else 16


@dataclass
class BBHResult:
    """Per-task accuracy, macro-average ``overall``, wall time, and one record per example
    (``task``, ``index``, ``target``, ``generation``, ``extracted``, ``correct``)."""

    per_task: dict[str, MetricValue]
    overall: MetricValue
    wall_time: float
    records: list[dict[str, Any]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def correct(self) -> list[bool]:
        """Per-example correctness in record order (input to ``utility_ratio``)."""
        return [bool(r["correct"]) for r in self.records]

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_task": {k: v.to_dict() for k, v in self.per_task.items()},
            "overall": self.overall.to_dict(),
            "wall_time": self.wall_time,
            "config": self.config,
            "records": self.records,
        }


def evaluate_bbh(
    model: Any = None,
    tokenizer: Any = None,
    tasks: Sequence[str] | None = None,
    limit: int | None = None,
    batch_size: int = 16,
    max_new_tokens: int | None = None,
    seed: int = 0,
    *,
    cot: bool = True,
    data_dir: str | os.PathLike[str] | None = None,
    source: str = "auto",
    n_resamples: int = DEFAULT_RESAMPLES,
    generate_fn: GenerateFn | None = None,
) -> BBHResult:
    """Score a model on BBH (prompting: :mod:`~leak_metrics.bbh.prompting`; answer extraction
    and metrics: :mod:`~leak_metrics.bbh.scoring`).

    Decoding: ``generate_fn(prompts, max_new_tokens, stop)`` when given (one call per task, so an
    engine with a prefix cache computes the task's few-shot examples once; ``model`` and
    ``tokenizer`` are then not used), else the fallback loop
    :func:`~leak_metrics.bbh.generation.generate_batched` on ``model`` and ``tokenizer``.
    """
    if generate_fn is None and (model is None or tokenizer is None):
        raise InputError("evaluate_bbh needs a model and its tokenizer, or a generate_fn")
    config = BBHConfig(
        tuple(tasks) if tasks is not None else None,
        limit,
        batch_size,
        max_new_tokens,
        cot,
        seed,
        n_resamples,
    )
    task_names = list(config.tasks) if config.tasks is not None else list(BBH_TASKS)
    started = time.perf_counter()
    from tqdm.auto import tqdm

    loaded = [load_bbh_task(t, data_dir=data_dir, source=source) for t in task_names]
    records: list[dict[str, Any]] = []
    generations: list[str] = []
    for task in tqdm(loaded, desc="BBH tasks"):
        indices = select_examples(len(task.examples), limit, seed, task.name)
        prompts = [build_prompt(task, task.examples[i]["input"], cot=cot) for i in indices]
        generations += _task_texts(task, prompts, model, tokenizer, generate_fn, config)
        records += [
            {"task": task.name, "index": i, "target": task.examples[i]["target"]} for i in indices
        ]

    per_task_arrays = _score_generations(records, generations, task_names, cot)
    per_task = {
        t: accuracy(values, seed=seed, n_resamples=n_resamples)
        for t, values in per_task_arrays.items()
    }
    overall = macro_average(
        {t: np.asarray(v, dtype=float) for t, v in per_task_arrays.items()}, seed, n_resamples
    )
    config_dict = _config_record(config, generate_fn is not None)
    return BBHResult(per_task, overall, time.perf_counter() - started, records, config_dict)


def _task_texts(
    task: Any,
    prompts: list[str],
    model: Any,
    tokenizer: Any,
    generate_fn: GenerateFn | None,
    config: BBHConfig,
) -> list[str]:
    """One task's generations: through ``generate_fn`` when given, else the batched loop."""
    new_tokens = config.resolved_max_new_tokens()
    if generate_fn is not None:
        return _call_generate_fn(generate_fn, task.name, prompts, new_tokens)
    return generate_batched(
        model,
        tokenizer,
        prompts,
        batch_size=config.batch_size,
        max_new_tokens=new_tokens,
        stop_strings=STOP,
        shared_prefix=few_shot_prefix(task, cot=config.cot),
        desc=task.name,
    )


def _config_record(config: BBHConfig, caller_generates: bool) -> dict[str, Any]:
    """The settings as the result records them (decoding limits resolved)."""
    config_dict = asdict(config)
    config_dict["max_new_tokens"] = config.resolved_max_new_tokens()
    config_dict["stop"] = list(STOP)
    config_dict["generation"] = (
        "caller generate_fn" if caller_generates else "built-in batched greedy loop"
    )
    return config_dict


def _call_generate_fn(
    generate_fn: GenerateFn, task: str, prompts: list[str], new_tokens: int
) -> list[str]:
    """The caller's texts for one task's prompts, checked to be one string per prompt."""
    texts = list(generate_fn(prompts, new_tokens, list(STOP)))
    if len(texts) != len(prompts) or not all(isinstance(t, str) for t in texts):
        raise InputError(
            f"BBH task {task}: generate_fn returned {len(texts)} items for "
            f"{len(prompts)} prompts (expected one string per prompt)"
        )
    return texts


def _score_generations(
    records: list[dict[str, Any]], generations: list[str], task_names: list[str], cot: bool
) -> dict[str, list[bool]]:
    """Fills each record's generation, extracted answer and correctness; the correctness per
    task in record order."""
    per_task_arrays: dict[str, list[bool]] = {t: [] for t in task_names}
    for record, generation in zip(records, generations, strict=True):
        extracted = extract_answer(generation, cot=cot)
        record["generation"] = generation
        record["extracted"] = extracted
        record["correct"] = is_correct(extracted, record["target"])
        per_task_arrays[record["task"]].append(record["correct"])
    return per_task_arrays
