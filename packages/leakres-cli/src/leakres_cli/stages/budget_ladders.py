"""The attack cells of ``--attack-budgets`` ladders and of the false-recovery controls (issue 38
items 1 and 4): what runs, under which cell names, and the per-sample verdicts they keep.

A ladder (recover-attacks' :func:`~recover_attacks.budgets.ladder_runs`) runs as few attack runs
as the attack's budget axis allows: on a prefix axis (Probab's samples N) ONE run at the largest
rung, judged sample by sample, answers every rung (recovered at N = any of the first N samples
correct); on any other axis each rung is its own run. Every run is a cell,
``METHOD/attack-ATTACK/budget-RUNG``, so an interrupted ladder resumes at the first unfinished
rung; the attack's usual cell (``METHOD/attack-ATTACK``, its one setting) runs as before.

The controls attack items the base model never answered correctly (``METHOD/control-ATTACK``,
and ``METHOD/control-ATTACK/budget-RUNG`` per ladder run): per type, a seeded sample of the
base model's wrong answers as large as that type's S_suc, attacked on the unlearned model with
the same attack, so a "recovery" there is one the attack makes without the knowledge. With
``--no-controls`` (``cfg.controls`` False) no control cell runs (``controls`` and
``control_ladders`` stay empty).
Scoring (RR per rung, controls) is :mod:`.curve_scores`; this module runs and stores.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from leakres_cli.config.run_checks import attack_ladders as ladders  # checked when resolved
from leakres_cli.records import Record
from leakres_cli.stages import attacking
from leakres_cli.stages.attacking import AttackHost

Rung = int | str
Verdict = bool | None


def axis_of(attack: str) -> Any:
    """The attack's :class:`~recover_attacks.budget_axis.BudgetAxis`."""
    from recover_attacks import get_attack_class

    return get_attack_class(attack).budget


def ladder_plan(attack: str, rungs: Sequence[Rung]) -> list[tuple[Rung, tuple[Rung, ...]]]:
    """``[(the run's rung, the rungs it answers)]``: one run on a prefix axis, else one per rung."""
    from recover_attacks import get_attack_class
    from recover_attacks.budgets import ladder_runs

    axis = axis_of(attack)
    runs = ladder_runs(get_attack_class(attack), rungs)
    return [(getattr(run.config, axis.field), run.rungs) for run in runs]


def at_rung(samples: Sequence[Verdict], n: int) -> Verdict:
    """Recovered at budget ``n`` from per-sample verdicts in draw order: True if any of the first
    ``n`` is correct; else None if any of them is unjudged (it may be the one that leaks); else
    False. The same rule as the usual cell's ``judge_any`` on the first ``n`` responses."""
    if n > len(samples):
        raise ValueError(f"rung {n} needs {n} samples, the cell has {len(samples)}")
    head = samples[:n]
    if any(v is True for v in head):
        return True
    return None if any(v is None for v in head) else False


@dataclass
class SampleVerdicts:
    """Judges an attack cell sample by sample (``sample_recovered``: one verdict per response,
    ``recovered``: any-of-all, as the usual cell) and re-judges a stored one: unjudged samples
    again, every sample when the judge's identity changed. The hooks of :func:`.attacking.attack`.
    """

    bench: AttackHost
    name: str
    by_id: dict[str, Record] = field(default_factory=dict)

    def _judge(self, ids: list[str], responses: dict[str, list[str]]) -> dict[str, list[Verdict]]:
        flat = [(i, k) for i in ids for k in range(len(responses[i]))]
        verdicts = self.bench.judge(
            [self.by_id[i] for i, _ in flat], [[responses[i][k]] for i, k in flat]
        )
        out: dict[str, list[Verdict]] = {i: [] for i in ids}
        for (i, _), v in zip(flat, verdicts, strict=True):
            out[i].append(v)
        return out

    def payload(
        self, atk: Any, results: list, targets: list[Record], responses: list[list[str]]
    ) -> dict[str, Any]:
        self.by_id = {q["id"]: q for q in targets}
        cell = attacking.attack_payload(self.bench, atk, results, [], [])
        by_id = {q["id"]: r for q, r in zip(targets, responses, strict=True)}
        samples = self._judge(list(by_id), by_id)
        cell["responses"] = by_id
        cell["sample_recovered"] = samples
        cell["recovered"] = {i: at_rung(v, len(v)) if v else None for i, v in samples.items()}
        return cell

    def reuse(self, stored: dict[str, Any]) -> dict[str, Any]:
        identity = self.bench.judge_identity()
        samples: dict[str, list[Verdict]] = stored["sample_recovered"]
        if stored.get("judge") != identity:
            pending = list(samples)
            stored["judge"] = identity
            stored["rejudged_for_judge_change"] = len(pending)
        else:
            pending = [i for i, v in samples.items() if any(x is None for x in v)]
        if not pending:
            return stored
        samples.update(self._judge(pending, stored["responses"]))
        stored["recovered"] = {i: at_rung(v, len(v)) if v else None for i, v in samples.items()}
        stored["n_rejudged"] = stored.get("n_rejudged", 0) + len(pending)
        self.bench.store.put(self.name, stored)
        return stored


def never_known(
    base: dict[str, Any],
    by_id: dict[str, Record],
    s_suc: dict[str, list[str]],
    seed: int,
) -> list[Record]:
    """The control items: per type of ``s_suc``, a seeded sample (ids sorted, then
    ``random.Random(f"{seed}:control:{type}")``) of the questions the base model answered
    incorrectly (verdict False; unjudged ones are left out), as many as that type's S_suc."""
    picked: list[Record] = []
    for qtype, ids in s_suc.items():
        pool = sorted(
            i
            for i, ok in base["correct"].items()
            if ok is False and i in by_id and by_id[i]["type"] == qtype
        )
        k = min(len(pool), len(ids))
        chosen = random.Random(f"{seed}:control:{qtype}").sample(pool, k) if k else []
        picked += [by_id[i] for i in sorted(chosen)]
    return picked


@dataclass
class MethodAttackCells:
    """The extra cells of one method: ``ladders[attack] = [(rung run, rungs answered, cell)]``,
    ``controls[attack]`` (the usual setting on never-known items), ``control_ladders`` (the same
    per ladder run), the control items, and whether the controls ran (``--no-controls``: not)."""

    ladders: dict[str, list[tuple[Rung, tuple[Rung, ...], dict[str, Any]]]]
    controls: dict[str, dict[str, Any]]
    control_ladders: dict[str, list[tuple[Rung, tuple[Rung, ...], dict[str, Any]]]]
    control_items: list[Record]
    controls_on: bool = True


def run_method_cells(
    bench: AttackHost,
    method: str,
    targets: list[Record],
    control_items: list[Record],
    relearn: list[dict[str, str]],
    context: dict[str, list[dict[str, str]]],
    get_unlearned: Callable[[], Any],
    timer: Any,
) -> MethodAttackCells:
    """Run (or reuse) every ladder run and control cell of ``method``; ``timer.stage(name)``
    times each (``METHOD:ladder:ATTACK``, ``METHOD:control:ATTACK``)."""
    chosen = ladders(bench.cfg)
    controls = bench.cfg.controls
    out = MethodAttackCells({}, {}, {}, control_items, controls_on=controls)

    def run(attack: str, items: list[Record], cell: str, budget: dict | None, per_sample: bool):
        judged = SampleVerdicts(bench, cell, {q["id"]: q for q in items}) if per_sample else None
        return attacking.attack(
            bench, method, attack, items, relearn, context, get_unlearned,
            cell=cell, budget=budget, judged=judged,
        )  # fmt: skip

    for attack in bench.cfg.attacks:
        if controls:
            with timer.stage(f"{method}:control:{attack}"):
                out.controls[attack] = run(
                    attack, control_items, f"{method}/control-{attack}", None, False
                )
        if attack not in chosen:
            continue
        axis = axis_of(attack)
        plan = ladder_plan(attack, chosen[attack])
        kinds = [("attack", targets, out.ladders)]
        if controls:
            kinds.append(("control", control_items, out.control_ladders))
        for kind, items, into in kinds:
            with timer.stage(f"{method}:{'ladder' if kind == 'attack' else 'control'}:{attack}"):
                into[attack] = [
                    (value, rungs, run(attack, items, f"{method}/{kind}-{attack}/budget-{value}",
                                       {axis.field: value}, axis.prefix))
                    for value, rungs in plan
                ]  # fmt: skip
    return out
