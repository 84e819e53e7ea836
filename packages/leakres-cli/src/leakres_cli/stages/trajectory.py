"""Unlearning trajectories (``--eval-every K``): FQ per type and retain accuracy every K steps.

While a method unlearns, unlearn-zoo's :class:`~unlearn_zoo.trajectory.TrajectoryCallback` calls
:meth:`TrajectoryStage.evaluate` every ``K`` optimizer steps. It answers a fixed subset of the
run's scored questions (:func:`trajectory_subset`: up to :data:`PER_TYPE` per question type and
:data:`PER_TYPE` retain questions, a seeded sample) in one batched greedy call under the run's
decoding protocol, and judges them with the run's primary judge. The answers, verdicts and
training losses are the ``METHOD/trajectory`` cell; :func:`trajectory_scores` turns them into
results.json's ``trajectory`` block with leak-metrics (FQ against the base model's verdicts on
the same questions, retain accuracy, each with its bootstrap CI).

Contracts:

- the unlearned model is the same with or without ``--eval-every`` (unlearn-zoo restores the
  random state and every module's mode after each evaluation), so every other cell and number
  of the run is unchanged; ``eval_every`` is not part of the cell fingerprint;
- a run whose ``METHOD/trajectory`` cell is missing or was made with other settings trains the
  method again (same seed: the same model; its other cells are kept);
- step 0 is the base model's verdicts on the subset (the ``base`` cell), and when the last
  optimizer step is not a multiple of ``K`` the final model's verdicts (the ``METHOD/eval``
  cell) close the curve: both are the same decoding and judge, at no extra generation;
- with ``--engine openai`` the checkpoints are decoded in-process (the training copy has no
  server); unjudged verdicts (None) are counted, never scored, and not re-judged on resume.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.records import Record
from leakres_cli.scale.store import CellStore

#: questions per type (and retain questions) a trajectory checkpoint answers
PER_TYPE = 8
LABEL = (
    "FQ per type and retain accuracy of the model during unlearning, on a fixed seeded subset "
    "(up to {n} questions per type and {n} retain questions) every {k} optimizer steps; step 0 "
    "is the base model's answers, the last point the final model's when the last step is not "
    "a multiple of {k}; loss: the training objective at that step (leakres' own)"
)


class TrajectoryHost(Protocol):
    """What the stage takes from the run (the pipeline's ``Benchmark`` is one)."""

    cfg: RunConfig
    store: CellStore
    trajectory_callbacks: dict[str, list[Any]]

    def model(self) -> tuple[Any, Any]: ...

    def answer(self, model: Any, questions: Sequence[Record], desc: str) -> list[str]: ...

    def judge(self, questions: Sequence[Record], responses: Sequence[Sequence[str]]) -> list: ...

    def judge_identity(self) -> dict[str, Any]: ...

    def decoding(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class TrajectorySubset:
    """The questions every checkpoint answers: per scored type, and retain ones."""

    types: dict[str, list[Record]]
    retain: list[Record]

    def questions(self) -> list[Record]:
        return [q for qs in self.types.values() for q in qs] + list(self.retain)

    def ids(self) -> dict[str, list[str]]:
        return {
            "types": {t: [q["id"] for q in qs] for t, qs in self.types.items()},
            "retain": [q["id"] for q in self.retain],
        }


def trajectory_subset(
    scored: dict[str, list[Record]], retain: list[Record], seed: int, per_type: int = PER_TYPE
) -> TrajectorySubset:
    """Up to ``per_type`` of each type's scored questions and of the retain questions: a sample
    seeded by ``seed`` alone (the same questions for every method), kept in the run's order."""

    def sample(name: str, qs: list[Record]) -> list[Record]:
        rng = random.Random(f"trajectory:{seed}:{name}")
        chosen = {id(q) for q in rng.sample(qs, min(per_type, len(qs)))}
        return [q for q in qs if id(q) in chosen]

    return TrajectorySubset(
        {t: sample(t, qs) for t, qs in scored.items()}, sample("retain", list(retain))
    )


class TrajectoryStage:
    """The ``METHOD/trajectory`` cell of one method (module docstring)."""

    def __init__(
        self, host: TrajectoryHost, method: str, scored: dict[str, list[Record]], retain: list
    ) -> None:
        cfg = host.cfg
        if cfg.eval_every < 1:
            raise LeakresError(f"--eval-every must be at least 1 to record a trajectory, got {cfg.eval_every}")  # fmt: skip
        self.host, self.method, self.name = host, method, f"{method}/trajectory"
        self.subset = trajectory_subset(scored, retain, cfg.seed)
        self.settings = {"eval_every": cfg.eval_every, "per_type": PER_TYPE, "seed": cfg.seed}

    def stored(self) -> dict[str, Any] | None:
        cell = self.host.store.get(self.name)
        if cell is None or cell.get("settings") != self.settings:
            return None
        return cell

    def run(self, train: Any) -> dict[str, Any]:
        """The stored cell, else train the method now (``train()``: the run's unlearned-model
        handle, which trains on first call) with the callback, and store what it recorded."""
        cell = self.stored()
        if cell is not None:
            return cell
        from unlearn_zoo import TrajectoryCallback

        callback = TrajectoryCallback(self.settings["eval_every"], self.evaluate)
        self.host.trajectory_callbacks[self.method] = [callback]
        try:
            train()
        finally:
            self.host.trajectory_callbacks.pop(self.method, None)
        cell = {
            "settings": self.settings,
            "ids": self.subset.ids(),
            "points": [{**{k: v for k, v in p.items() if k != "metrics"}, **p["metrics"]}
                       for p in callback.checkpoints],
            "decoding": self.host.decoding(),
            "judge": self.host.judge_identity(),
        }  # fmt: skip
        self.host.store.put(self.name, cell)
        return cell

    def evaluate(self, model: Any, step: int) -> dict[str, Any]:
        """One checkpoint: the subset's greedy answers (one batched call) and their verdicts."""
        questions = self.subset.questions()
        answers = self._answers(model, questions, step)
        verdicts = self.host.judge(questions, [[a] for a in answers])
        ids = [q["id"] for q in questions]
        return {
            "answers": dict(zip(ids, answers, strict=True)),
            "correct": dict(zip(ids, verdicts, strict=True)),
        }

    def _answers(self, model: Any, questions: list[Record], step: int) -> list[str]:
        host = self.host
        if host.cfg.engine == "local":
            return host.answer(model, questions, f"{self.method} step {step}")
        from leakres_cli.stages.answering import greedy_answers

        return greedy_answers(
            _IN_PROCESS, model, host.model()[1], questions, host.decoding(), progress=False
        )


class _InProcess:
    """A generation router that decodes every model in-process (a training copy has no server)."""

    def engine_for(self, model: Any, tokenizer: Any) -> None:
        return None


_IN_PROCESS = _InProcess()


def record_trajectory(
    host: TrajectoryHost, method: str, scored: dict[str, list[Record]], retain: list, train: Any
) -> dict[str, Any] | None:
    """The ``METHOD/trajectory`` cell (stored, or recorded now by training through ``train``);
    None without ``--eval-every``. Call before anything else uses the unlearned model."""
    if not host.cfg.eval_every:
        return None
    return TrajectoryStage(host, method, scored, retain).run(train)


def trajectory_scores(
    cell: dict[str, Any],
    base: dict[str, Any],
    evaluation: dict[str, Any],
    record: dict[str, Any] | None,
    at_chance: dict[str, str],
    boot: dict[str, int],
) -> dict[str, Any]:
    """results.json's ``trajectory`` block of one method from its cell: per point the step, the
    losses, FQ per type and retain accuracy (leak-metrics, with CIs). ``at_chance``: the types
    whose FQ is undefined (base model at chance), as in ``per_type``."""
    ids = cell["ids"]
    k = cell["settings"]["eval_every"]
    points = [_point(0, "base", base["correct"], base, ids, at_chance, boot)]
    for p in cell["points"]:
        point = _point(p["step"], "checkpoint", p["correct"], base, ids, at_chance, boot)
        point.update(
            {key: p.get(key) for key in ("loss", "loss_mean", "loss_parts", "eval_time_s")}
        )
        points.append(point)
    steps = (record or {}).get("steps")
    if steps and (not cell["points"] or cell["points"][-1]["step"] < steps):
        final = _point(steps, "final", evaluation["correct"], base, ids, at_chance, boot)
        last = [e["loss"] for e in record.get("loss_curve") or [] if e.get("step") == steps - 1]
        final["loss"] = sum(last) / len(last) if last else None
        points.append(final)
    return {
        "label": LABEL.format(n=cell["settings"]["per_type"], k=k),
        **cell["settings"],
        "n": {**{t: len(v) for t, v in ids["types"].items()}, "retain": len(ids["retain"])},
        "eval_time_s": round(sum(p.get("eval_time_s") or 0.0 for p in cell["points"]), 3),
        "points": points,
    }


def _point(step: int, source: str, correct: dict[str, Any], base: dict[str, Any],
           ids: dict[str, Any], at_chance: dict[str, str], boot: dict[str, int]) -> dict[str, Any]:  # fmt: skip
    from leak_metrics import MetricValue, accuracy, forget_quality

    fq = {}
    for qtype, qids in ids["types"].items():
        b, u = [base["correct"][i] for i in qids], [correct.get(i) for i in qids]
        if qtype in at_chance:
            n_both = sum(x is not None and y is not None for x, y in zip(b, u, strict=True))
            fq[qtype] = MetricValue.undefined(
                at_chance[qtype], n_both, len(qids) - n_both
            ).to_dict()
        else:
            fq[qtype] = forget_quality(b, u, **boot).to_dict()
    retain = accuracy([correct.get(i) for i in ids["retain"]], **boot).to_dict()
    return {"step": step, "source": source, "fq": fq, "retain_acc": retain, "loss": None,
            "loss_mean": None, "loss_parts": {}, "eval_time_s": None}  # fmt: skip
