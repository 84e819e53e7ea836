"""The costs of issue 38's additions to a run, for `leakres plan` (:func:`~.costs.estimate`):
``--attack-budgets`` ladders, the false-recovery controls, ``--eval-every`` trajectories and
``--seeds``.

Every figure comes from the same FLOP rule as the rest of the plan (:mod:`.costs`), applied to
what the run itself does, read from the libraries and the stages rather than restated here:

* a ladder runs the attack runs of recover-attacks' ``ladder_runs`` (Probab's prefix axis: ONE
  run at the largest N answers every rung; every other axis: one run per rung), each costed as
  the attack at that rung's setting (:func:`.costs.attack_cost`);
* the controls (on unless ``--no-controls``) attack, per type, as many never-known items as that
  type's S_suc (:func:`leakres_cli.stages.budget_ladders.never_known`), so the control of an
  attack costs what the attack costs, and a ladder's control what the ladder costs (an upper
  bound: fewer never-known items make it cheaper);
* a trajectory answers :data:`leakres_cli.stages.trajectory.PER_TYPE` questions per type and as
  many retain questions at every K-th optimizer step of the unlearning (steps from the method's
  unlearn-zoo config: forget examples / (batch size x gradient accumulation) per epoch, capped
  by ``max_steps``);
* each extra seed of ``--seeds`` reruns every per-method stage (unlearning, evaluation, attacks,
  controls, ladders, trajectory, BBH) on the shared questions and base evaluation: one row per
  method, the sum of its per-seed rows times the number of extra seeds.

These are FLOP budgets, like the rest of the plan; the CPU ratios measured on the small runs of
the leakres-cli README (a Probab ladder 1.00x a single N = 20 cell; three seeds 2.09x one seed;
``--eval-every 4`` 1.23x) are what the same rules give when the shared stages are small.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from leakres_cli.config.run_config import RunConfig

#: the plan's stage names of the additions (results of :func:`method_extras`), by kind
CONTROL = "control:"
LADDER = "ladder:"
CONTROL_LADDER = "control ladder:"
TRAJECTORY = "trajectory"
SEEDS = "other seeds"

# (stage, FLOPs, MFU, memory GB, note) rows; ``attack_cost(attack, settings)`` is
# costs.attack_cost bound to one model: (FLOPs, MFU, memory GB, note).
Row = tuple[str, float, float, float, str]
AttackCost = Callable[[str, dict[str, Any] | None], tuple[float, float, float, str]]


def ladder_settings(cfg: RunConfig, attack: str, rungs: tuple) -> list[tuple[Any, tuple, dict]]:
    """``[(run value, rungs it answers, the attack settings of that run)]`` for one ladder, as
    recover-attacks' ``ladder_runs`` plans it (a prefix axis: one run at the largest rung)."""
    from recover_attacks import get_attack_class
    from recover_attacks.budgets import ladder_runs

    cls = get_attack_class(attack)
    field = cls.budget.field
    overrides = {k: v for k, v in cfg.attack_overrides.get(attack, {}).items() if k != field}
    runs = ladder_runs(cls, rungs, **overrides)
    return [(getattr(r.config, field), r.rungs, {field: getattr(r.config, field)}) for r in runs]


def attack_rows(cfg: RunConfig, cost: AttackCost) -> list[Row]:
    """One method's control, ladder and control-ladder rows (``cost``: see :data:`AttackCost`)."""
    from leakres_cli.config.run_checks import attack_ladders

    rows: list[Row] = []
    ladders = attack_ladders(cfg)
    for attack in cfg.attacks:
        if cfg.controls:
            flops, mfu, mem, note = cost(attack, None)
            rows.append((CONTROL + attack, flops, mfu, mem,
                         f"the attack on never-known items (as many as S_suc): {note}"))  # fmt: skip
        if attack not in ladders:
            continue
        runs = ladder_settings(cfg, attack, ladders[attack])
        costs = [cost(attack, settings) for _, _, settings in runs]
        flops = sum(c[0] for c in costs)
        mem = max(c[2] for c in costs)
        mfu = costs[0][1]  # every run of one attack decodes (or trains) the same way
        what = "; ".join(
            f"{value} -> rungs {','.join(map(str, rungs))}" for value, rungs, _ in runs
        )
        note = f"{len(runs)} run(s) ({what}); each: {costs[-1][3]}"
        rows.append((LADDER + attack, flops, mfu, mem, note))
        if cfg.controls:
            rows.append((CONTROL_LADDER + attack, flops, mfu, mem, f"the ladder on never-known items: {note}"))  # fmt: skip
    return rows


def optimizer_steps(cfg: RunConfig, unlearner: Any) -> int:
    """Optimizer steps of one method's unlearning: ``ceil(forget examples / (batch_size x
    grad_accum_steps))`` per epoch, times the epochs (rounded up), capped by ``max_steps``."""
    c = unlearner.config
    per_epoch = math.ceil(cfg.n_forget / (int(c.batch_size) * int(getattr(c, "grad_accum_steps", 1) or 1)))  # fmt: skip
    steps = math.ceil(per_epoch * float(c.epochs))
    cap = getattr(c, "max_steps", None)
    return min(steps, int(cap)) if cap else steps


def trajectory_row(cfg: RunConfig, unlearner: Any, n: int, q_tokens: int, mem: float,
                   mfu: float) -> Row | None:  # fmt: skip
    """``--eval-every K``'s checkpoints of one method: every K-th step answers up to PER_TYPE
    questions per type and PER_TYPE retain questions, greedy (None when K is 0)."""
    if not cfg.eval_every:
        return None
    from leakres_cli.stages.trajectory import PER_TYPE

    steps = optimizer_steps(cfg, unlearner)
    checkpoints = steps // cfg.eval_every
    per_type = min(PER_TYPE, cfg.per_type)
    questions = min(PER_TYPE, cfg.n_forget) + per_type * (len(cfg.types) - 1)
    questions += min(PER_TYPE, cfg.n_retain)
    flops = 2 * n * checkpoints * questions * q_tokens
    note = (f"{checkpoints} checkpoints (every {cfg.eval_every} of {steps} steps) x "
            f"{questions} questions, greedy")  # fmt: skip
    return TRAJECTORY, flops, mfu, mem, note


def seeds_extra(rows: list[Any], cfg: RunConfig) -> dict[str, Any] | None:
    """The other seeds of ``--seeds`` for one method, from that method's per-seed rows
    (:class:`~.costs.CellCost`): ``tflop``, ``gpu_hours`` (each row's own hours, so each keeps
    its MFU), the largest memory and GPUs, and the note; None with one seed."""
    from leakres_cli.stages.seeds import run_seeds

    seeds = run_seeds(cfg)
    others = [s for s in seeds if s != cfg.seed]
    if not others or not rows:
        return None
    k = len(others)
    return {
        "stage": f"{SEEDS} ({','.join(map(str, others))})",
        "tflop": round(k * sum(r.tflop for r in rows), 1),
        "gpu_hours": round(k * sum(r.gpu_hours for r in rows), 6),
        "memory_gb": max(r.memory_gb for r in rows),
        "gpus": max(r.gpus for r in rows),
        "note": f"{k} more seed(s) x this method's {len(rows)} stages above "
        "(questions and base evaluation shared)",
    }


def kind_of(stage: str) -> str:
    """The line of the plan's "where the time goes" breakdown a stage counts in."""
    for prefix, kind in ((CONTROL_LADDER, "control ladders"), (CONTROL, "controls"),
                         (LADDER, "ladders"), (TRAJECTORY, "trajectories"),
                         (SEEDS, "other seeds"), ("attack:", "attacks"),
                         ("unlearn", "unlearning"), ("eval", "evaluation"), ("bbh", "BBH"),
                         ("base", "base model")):  # fmt: skip
        if stage.startswith(prefix):
            return kind
    return "other"


def breakdown(cells: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per kind of stage (:func:`kind_of`, in the order the kinds first appear): its TFLOP,
    GPU-hours and share of the run's GPU-hours (percent)."""
    out: dict[str, dict[str, float]] = {}
    for c in cells:
        kind = out.setdefault(kind_of(c["stage"]), {"tflop": 0.0, "gpu_hours": 0.0})
        kind["tflop"] += c["tflop"]
        kind["gpu_hours"] += c["gpu_hours"]
    total = sum(k["gpu_hours"] for k in out.values()) or 1.0
    return {
        name: {"tflop": round(k["tflop"], 1), "gpu_hours": round(k["gpu_hours"], 6),
               "share_pct": round(100 * k["gpu_hours"] / total, 1)}
        for name, k in out.items()
    }  # fmt: skip
