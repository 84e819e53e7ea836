"""The numbers of ``--attack-budgets`` ladders and of the controls (issue 38 items 1 and 4), from
the cells :mod:`.budget_ladders` stored; every definition is leak-metrics' (``curves``,
``controls``). Runs no model.

Per (method, attack, hop): RR at every rung with its 95% CI (a prefix axis: leak-metrics'
``any_of_n_curve``, one item-by-item monotone curve from the single draw; else RR of each rung's
own cell), the first rung whose RR reaches half the base model's accuracy on that hop's scored
questions, the area under the curve (rungs one unit apart, so attacks with different units
compare), and the worst-case robustness over every rung (1 - the largest RR). Beside each RR the
false-recovery rate on never-known items and RR minus it; beside each FQ the FQ of a
knowledge-free answerer on the same items. Rungs are ordered as the ladder lists them (a prefix
axis: ascending), never alphabetically (``int8,fp4,nf4``). With ``--no-controls`` a method's
``controls`` is the string :data:`CONTROLS_OFF` and a curve block has ``"controls": "off"``
instead of its false-recovery and net-recovery keys: no number stands for a control not run.
"""

from __future__ import annotations

from typing import Any

from leakres_cli.config.run_config import multi_hop_types
from leakres_cli.records import Record
from leakres_cli.stages.budget_ladders import MethodAttackCells, at_rung, axis_of
from leakres_cli.stages.type_checks import question_chance

HOPS = ("SH", "MH")
#: what results.json holds in place of the controls when ``--no-controls`` turned them off
CONTROLS_OFF = "off"
LABELS = {
    "false_recovery": "false-recovery rate: the attack's recoveries on items the base model "
    "never answered correctly (a seeded sample per type, as many as S_suc), any-of-N as RR",
    "net_recovery": "net recovery: RR minus the false-recovery rate (point values; the two are "
    "over different items, so no paired CI)",
    "fq_knowledge_free": "FQ of a knowledge-free answerer on the same items: correct with the "
    "item's chance level (1/options, 0 for open answers); FQ above it needs forgetting",
    "budget_to_half_base": "the first rung whose RR reaches half the base model's accuracy on "
    "that hop's scored questions (None: never within the ladder)",
    "area": "area under the RR curve, rungs one unit apart, divided by the number of intervals",
    "worst_case_robustness": "1 - the largest RR over every rung of the ladder",
}


def _hop_items(s_suc: dict[str, list[str]], excluded: dict[str, str]) -> dict[str, list[str]]:
    from leak_metrics.metrics import hop_of

    multi = multi_hop_types(s_suc)
    out: dict[str, list[str]] = {h: [] for h in HOPS}
    for qtype, ids in s_suc.items():
        if qtype not in excluded:
            out[hop_of(qtype, multi)] += ids
    return out


def _items_by_hop(items: list[Record], types: list[str], excluded: dict) -> dict[str, list[str]]:
    by_type = {t: [q["id"] for q in items if q["type"] == t] for t in types}
    return _hop_items(by_type, excluded)


def _flip(mv: Any) -> Any:
    """1 - a rate, its CI bounds swapped (robustness from RR)."""
    from leak_metrics import MetricValue

    if mv.value is None:
        return mv
    return MetricValue(1 - mv.value, 1 - mv.ci_high, 1 - mv.ci_low, mv.n, None, mv.n_unjudged)


def rung_verdicts(
    runs: list[tuple[Any, tuple, dict[str, Any]]], prefix: bool
) -> dict[Any, dict[str, bool | None]]:
    """``{rung: {id: recovered}}`` of a ladder's cells (a prefix run: any of the first N)."""
    out: dict[Any, dict[str, bool | None]] = {}
    for _, rungs, cell in runs:
        for rung in rungs:
            if prefix:
                samples = cell["sample_recovered"]
                out[rung] = {i: at_rung(v, int(rung)) for i, v in samples.items()}
            else:
                out[rung] = dict(cell["recovered"])
    return out


def _curve(runs: list, prefix: bool, ids: list[str], ladder: list, boot: dict) -> dict:
    """RR per ladder position (0, 1, ...) over ``ids``."""
    from leak_metrics import recovery_rate
    from leak_metrics.curves import any_of_n_curve

    if prefix:
        samples = runs[0][2]["sample_recovered"]
        curve = any_of_n_curve([samples[i] for i in ids], [int(r) for r in ladder], **boot)
        return {k: curve[int(r)] for k, r in enumerate(ladder)}
    verdicts = rung_verdicts(runs, prefix)
    return {k: recovery_rate([verdicts[r][i] for i in ids], **boot) for k, r in enumerate(ladder)}


def curve_block(
    attack: str,
    runs: list,
    control_runs: list | None,
    hops: dict[str, list[str]],
    control_hops: dict[str, list[str]],
    base_acc: dict[str, float | None],
    boot: dict[str, int],
) -> dict[str, Any]:
    """One attack's ladder block of results.json (see the module docstring); ``control_runs``
    None: the controls are off."""
    from leak_metrics.curves import budget_to_reach, curve_area, worst_case

    axis = axis_of(attack)
    ladder = [r for _, rungs, _ in runs for r in rungs]
    block: dict[str, Any] = {
        "axis": {"field": axis.field, "label": axis.label, "prefix": axis.prefix},
        "ladder": ladder,
        "runs": [value for value, _, _ in runs],
    }
    keys = ("rr", "false_recovery", "net_recovery", "budget_to_half_base", "target")
    if control_runs is None:  # no key of a control not run
        block["controls"] = CONTROLS_OFF
        keys = tuple(k for k in keys if k not in ("false_recovery", "net_recovery"))
    block.update({key: {} for key in keys}, area={}, worst_case_robustness={})
    for hop in HOPS:
        curve = _curve(runs, axis.prefix, hops[hop], ladder, boot)
        block["rr"][hop] = {str(r): curve[k].to_dict() for k, r in enumerate(ladder)}
        if control_runs is not None:
            _rung_controls(block, hop, curve, control_runs, control_hops[hop], ladder, axis, boot)
        target = None if base_acc[hop] is None else base_acc[hop] / 2
        block["target"][hop] = target
        reached = None if target is None else budget_to_reach(curve, target)
        block["budget_to_half_base"][hop] = None if reached is None else ladder[reached]
        block["area"][hop] = curve_area(curve)
        worst, at = worst_case({k: _flip(v) for k, v in curve.items()})
        block["worst_case_robustness"][hop] = {
            **worst.to_dict(),
            "budget": None if at is None else ladder[at],
        }
    return block


def _rung_controls(block: dict[str, Any], hop: str, curve: dict, control_runs: list,
                   ids: list[str], ladder: list, axis: Any, boot: dict) -> None:  # fmt: skip
    """``block``'s false-recovery rate and net recovery of ``hop`` at every rung."""
    from leak_metrics import false_recovery_rate, net_recovery

    controls = rung_verdicts(control_runs, axis.prefix)
    frr = {
        k: false_recovery_rate([False] * len(ids), [controls[r][i] for i in ids], **boot)
        for k, r in enumerate(ladder)
    }
    block["false_recovery"][hop] = {str(r): frr[k].to_dict() for k, r in enumerate(ladder)}
    block["net_recovery"][hop] = {
        str(r): net_recovery(curve[k], frr[k]) for k, r in enumerate(ladder)
    }


def _base_acc(base: dict[str, Any], scored: dict[str, list[Record]], excluded: dict, boot: dict):
    from leak_metrics import accuracy

    hops = _hop_items({t: [q["id"] for q in qs] for t, qs in scored.items()}, excluded)
    return {h: accuracy([base["correct"][i] for i in ids], **boot).value for h, ids in hops.items()}


def extra_scores(
    cells: MethodAttackCells,
    s_suc: dict[str, list[str]],
    base: dict[str, Any],
    scored: dict[str, list[Record]],
    scores: dict[str, Any],
    boot: dict[str, int],
) -> dict[str, Any]:
    """What a method's results.json block gains: ``controls`` (always; :data:`CONTROLS_OFF`
    with ``--no-controls``) and ``recovery_curves`` with ``robustness_over_budgets`` (with a
    ladder). ``scores``: its :func:`.score_method` block (the attacks' RR and the types left out
    of FQ and RR)."""
    excluded = scores.get("fq_excluded_types") or {}
    hops = _hop_items(s_suc, excluded)
    control_hops = _items_by_hop(cells.control_items, list(s_suc), excluded)
    on = cells.controls_on
    controls = _controls(cells, control_hops, base, scored, scores, boot) if on else CONTROLS_OFF
    out: dict[str, Any] = {"controls": controls}
    if cells.ladders:
        base_acc = _base_acc(base, scored, excluded, boot)
        curves = {
            attack: curve_block(
                attack, runs, cells.control_ladders[attack] if on else None, hops,
                control_hops, base_acc, boot,
            )
            for attack, runs in cells.ladders.items()
        }  # fmt: skip
        out["recovery_curves"] = {**curves, "labels": LABELS}
        out["robustness_over_budgets"] = _overall(curves)
    return out


def _controls(
    cells: MethodAttackCells,
    control_hops: dict[str, list[str]],
    base: dict[str, Any],
    scored: dict[str, list[Record]],
    scores: dict[str, Any],
    boot: dict[str, int],
) -> dict[str, Any]:
    """A method's ``controls`` block: each attack's false-recovery rate and net recovery per
    hop, the control items per hop, the knowledge-free FQ."""
    from leak_metrics import MetricValue, false_recovery_rate, net_recovery

    excluded = scores.get("fq_excluded_types") or {}
    controls: dict[str, Any] = {"false_recovery": {}, "net_recovery": {}}
    for attack, cell in cells.controls.items():
        frr = {
            hop: false_recovery_rate(
                [False] * len(ids), [cell["recovered"][i] for i in ids], **boot
            )
            for hop, ids in control_hops.items()
        }
        rr = {hop: scores["attacks"][attack][f"rr_{hop}"] for hop in HOPS}
        controls["false_recovery"][attack] = {h: v.to_dict() for h, v in frr.items()}
        controls["net_recovery"][attack] = {
            h: net_recovery(MetricValue.from_dict(rr[h]), frr[h]) for h in HOPS
        }
    controls["n_control_items"] = {h: len(ids) for h, ids in control_hops.items()}
    controls["fq_knowledge_free"] = knowledge_free_block(base, scored, excluded)
    controls["labels"] = {k: LABELS[k] for k in ("false_recovery", "net_recovery")}
    controls["labels"]["fq_knowledge_free"] = LABELS["fq_knowledge_free"]
    return controls


def _overall(curves: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The worst-case robustness over every (attack, rung, hop) of the ladders, and where."""
    worst = [
        (block["worst_case_robustness"][hop], attack, hop)
        for attack, block in curves.items()
        for hop in HOPS
        if block["worst_case_robustness"][hop]["value"] is not None
    ]
    if not worst:
        return {"value": None, "undefined_reason": "undefined at every budget", "set_by": None}
    value, attack, hop = min(worst, key=lambda w: w[0]["value"])
    return {**value, "set_by": {"attack": attack, "hop": hop, "budget": value["budget"]}}


def knowledge_free_block(
    base: dict[str, Any], scored: dict[str, list[Record]], excluded: dict[str, str]
) -> dict[str, float | None]:
    """The knowledge-free FQ per type and on the item sets of ``fq_all_types`` and
    ``fq_multi_hop`` (the types left out of those, base model at chance, left out here too)."""
    from leak_metrics import knowledge_free_forget_quality

    def kf(qs: list[Record]) -> float | None:
        verdicts = [base["correct"][q["id"]] for q in qs]
        return knowledge_free_forget_quality(verdicts, [question_chance(q) for q in qs])

    multi = [q for t, qs in scored.items() if t != "SH" and t not in excluded for q in qs]
    every = ([] if "SH" in excluded else scored["SH"]) + multi
    return {
        **{t: kf(qs) for t, qs in scored.items()},
        "all_types": kf(every),
        "multi_hop": kf(multi),
    }
