"""Every number of one method (FQ per type, S_suc, RR, robustness, utility), each computed by
leak-metrics from the method's stored cells (:class:`MethodCells`). Scoring runs no model and
calls no stage: the pipeline runs them and hands over their cells.

Unjudged verdicts (None) are never counted as wrong; they are counted. Everything here is
recomputed from the cells at every run (no cell stores a score), so a resumed old run directory
gets the current rules: robustness over (attack, hop) cells, chance levels, the at-chance gate on
FQ (:mod:`.type_checks`) and the utility axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leakres_cli.config.run_config import multi_hop_types
from leakres_cli.records import Record
from leakres_cli.stages.registered_metrics import add_registered_metrics
from leakres_cli.stages.type_checks import CHANCE_LABEL, question_chance, type_checks
from leakres_cli.stages.unlearning import training_summary

Verdicts = list[bool | None]


def verdicts(table: dict[str, Any], qs: list[Record]) -> Verdicts:
    return [table["correct"][q["id"]] for q in qs]


@dataclass(frozen=True)
class MethodCells:
    """The stored cells one method's scores are computed from (the pipeline runs the stages).

    Attributes:
        method: the method's name.
        record: its unlearn record (``METHOD/unlearn``).
        evaluation: the ``METHOD/eval`` cell (greedy answers and verdicts).
        attacks: attack name -> its ``METHOD/attack-ATTACK`` cell, in the run's attack order.
        bbh: the ``METHOD/bbh`` cell, None with BBH off.
        s_suc: type -> the ids the method made the model forget (the attacks' targets).
        ladders: the ``--attack-budgets`` ladder and false-recovery control cells
            (``budget_ladders.run_method_cells``), None when not run.
        trajectory: the ``--eval-every`` trajectory cell, None when off.
    """

    method: str
    record: dict[str, Any] | None
    evaluation: dict[str, Any]
    attacks: dict[str, dict[str, Any]]
    bbh: dict[str, Any] | None = None
    s_suc: dict[str, list[str]] | None = None
    ladders: Any = None
    trajectory: Any = None


def successfully_unlearned_ids(
    base: dict[str, Any], ev: dict[str, Any], scored: dict[str, list[Record]]
) -> dict[str, list[str]]:
    """S_suc per type: the ids the base model answered right and the unlearned model not."""
    from leak_metrics import successfully_unlearned

    s_suc: dict[str, list[str]] = {}
    for qtype, qs in scored.items():
        ids = [q["id"] for q in qs]
        s_suc[qtype] = successfully_unlearned(
            {i: base["correct"][i] for i in ids}, {i: ev["correct"][i] for i in ids}
        )
    return s_suc


def score_method(
    cells: MethodCells,
    by_id: dict[str, Record],
    base: dict[str, Any],
    scored: dict[str, list[Record]],
    retain: list[Record],
    bbh_base: dict[str, Any] | None,
    boot: dict[str, int],
) -> dict[str, Any]:
    """One method's block of results.json, from its cells: FQ per type, S_suc, RR, robustness and
    utility. ``boot`` is the bootstrap's ``{"seed", "n_resamples"}``."""
    from leak_metrics import accuracy, forget_quality

    ev = cells.evaluation
    checks = type_checks(base, scored, boot)
    per_type, s_suc = per_type_scores(base, ev, scored, boot, checks)
    # A type the base model answers at chance gives an FQ that is noise: left out of the pools.
    excluded = {t: c["at_chance"] for t, c in checks.items() if c["at_chance"]}
    multi_qs = [q for t, qs in scored.items() if t != "SH" and t not in excluded for q in qs]
    all_qs = ([] if "SH" in excluded else scored["SH"]) + multi_qs
    attacks_out, rr_cells = attack_scores(cells.attacks, by_id, s_suc, boot, excluded)
    retain_b, retain_u = verdicts(base, retain), verdicts(ev, retain)
    utility = utility_scores(retain_b, retain_u, bbh_base, cells.bbh, boot)
    scored_ids = [q["id"] for qs in scored.values() for q in qs] + [q["id"] for q in retain]
    out = {
        "unlearn": cells.record,
        "training": training_summary(cells.record, len(scored["SH"])),
        "per_type": per_type,
        "fq_all_types": forget_quality(
            verdicts(base, all_qs), verdicts(ev, all_qs), **boot
        ).to_dict(),
        "fq_multi_hop": forget_quality(
            verdicts(base, multi_qs), verdicts(ev, multi_qs), **boot
        ).to_dict(),
        # types left out of fq_all_types and fq_multi_hop, with the reason (base model at chance)
        "fq_excluded_types": excluded,
        "retain": {
            "n": len(retain),
            "acc_base": accuracy(retain_b, **boot).to_dict(),
            "acc_unlearned": accuracy(retain_u, **boot).to_dict(),
        },
        "utility": utility,
        "s_suc": {t: len(ids) for t, ids in s_suc.items()},
        "attacks": attacks_out,
        **robustness_scores(rr_cells, boot),
        "n_unjudged": {
            "base": sum(base["correct"][i] is None for i in scored_ids),
            "unlearned": sum(ev["correct"][i] is None for i in scored_ids),
            "attacks": {a: out["n_unjudged"] for a, out in attacks_out.items()},
        },
    }
    add_registered_metrics(out, (base, ev), scored, retain, rr_cells, boot)  # any other registered
    return out


def robustness_scores(
    rr_cells: dict[tuple[str, str], Verdicts], boot: dict[str, int]
) -> dict[str, Any]:
    """The paper's robustness (1 - max over every defined (attack, hop) RR cell), the cells that set
    it, and the older pooled figure (1 - max over attacks of RR on all of S_suc), labelled."""
    from leak_metrics import robustness, robustness_by_cell

    metric, set_by = robustness_by_cell(rr_cells, **boot)
    by_attack: dict[str, Verdicts] = {}
    for (attack, _), values in rr_cells.items():
        by_attack.setdefault(attack, []).extend(values)
    return {
        "robustness": metric.to_dict(),
        "robustness_set_by": [
            {"attack": attack, "hop": hop, "rr": 1 - metric.value} for attack, hop in set_by
        ]
        if metric.value is not None
        else [],
        "robustness_pooled": robustness(by_attack, **boot).to_dict(),
        "robustness_labels": {
            "robustness": "1 - max over every (attack, hop) RR cell (the paper's definition)",
            "robustness_pooled": "1 - max over attacks of RR on all of S_suc, hops pooled "
            "(leakres before issue 25; not the paper's)",
        },
    }


def per_type_scores(
    base: dict[str, Any],
    ev: dict[str, Any],
    scored: dict[str, list[Record]],
    boot: dict[str, int],
    checks: dict[str, dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Per question type: accuracies, chance level, FQ (none where the base model is at chance)
    and leakres' chance-corrected FQ; and S_suc (the ids unlearned successfully)."""
    from leak_metrics import (
        MetricValue,
        accuracy,
        chance_corrected_forget_quality,
        forget_quality,
    )

    per_type: dict[str, Any] = {}
    for qtype, qs in scored.items():
        b, u = verdicts(base, qs), verdicts(ev, qs)
        chance, at_chance = checks[qtype]["chance"], checks[qtype]["at_chance"]
        if at_chance:
            n_both = sum(x is not None and y is not None for x, y in zip(b, u, strict=True))
            fq = fq_cc = MetricValue.undefined(at_chance, n_both, len(qs) - n_both).to_dict()
        else:
            fq = forget_quality(b, u, **boot).to_dict()
            fq_cc = chance_corrected_forget_quality(b, u, chance, **boot).to_dict()
        per_type[qtype] = {
            "n": len(qs),
            "acc_base": accuracy(b, **boot).to_dict(),
            "acc_unlearned": accuracy(u, **boot).to_dict(),
            "chance": chance,
            "base_at_chance": at_chance,
            "fq": fq,
            "fq_chance_corrected": fq_cc,
            "labels": {"chance": CHANCE_LABEL},
        }
    return per_type, successfully_unlearned_ids(base, ev, scored)


def attack_scores(
    attack_cells: dict[str, dict[str, Any]],
    by_id: dict[str, Record],
    s_suc: dict[str, list[str]],
    boot: dict[str, int],
    excluded: dict[str, str] | None = None,
) -> tuple[dict[str, Any], dict[tuple[str, str], Verdicts]]:
    """Every attack's cell on S_suc, scored: RR by hop and per type, and what guessing would
    recover; and each (attack, hop) cell's per-item recoveries (for robustness).

    Every S_suc item is attacked (the attack cell does not depend on scoring), but the items of a
    type in ``excluded`` (base model at chance: its "forgotten" items were never known, so their
    "recoveries" are guesses) stay out of RR by hop and of robustness, as they stay out of FQ."""
    from leak_metrics.metrics import hop_of

    excluded = excluded or {}
    type_of = {i: t for t, ids in s_suc.items() for i in ids}
    multi_hop = multi_hop_types(s_suc)
    known_ids = [i for i in type_of if type_of[i] not in excluded]
    attacks_out: dict[str, Any] = {}
    rr_cells: dict[tuple[str, str], Verdicts] = {}
    for attack, res in attack_cells.items():
        for hop in ("SH", "MH"):
            rr_cells[(attack, hop)] = [
                res["recovered"][i] for i in known_ids if hop_of(type_of[i], multi_hop) == hop
            ]
        attacks_out[attack] = recovery_scores(res, type_of, s_suc, boot, excluded)
        attacks_out[attack]["guessing"] = guessing_scores(res, type_of, by_id)
    return attacks_out, rr_cells


def guessing_scores(
    res: dict[str, Any], type_of: dict[str, str], by_id: dict[str, Record]
) -> dict[str, Any]:
    """Recoveries a model that only guesses would make on this S_suc under the attack's any-of-N
    rule (N = the attack's responses per item), beside the recoveries observed: per hop, and per
    type for the types that can be guessed (options or yes/no)."""
    from leak_metrics import guessing_recoveries
    from leak_metrics.metrics import hop_of

    groups: dict[str, list[str]] = {"SH": [], "MH": []}
    multi_hop = multi_hop_types(type_of.values())
    for i, qtype in type_of.items():
        groups[hop_of(qtype, multi_hop)].append(i)
        if question_chance(by_id[i]) > 0:
            groups.setdefault(qtype, []).append(i)

    def block(ids: list[str]) -> dict[str, Any]:
        chances = [question_chance(by_id[i]) for i in ids]
        samples = [len(res["responses"].get(i) or [""]) for i in ids]
        return {
            "n": len(ids),
            "n_samples": max(samples, default=0),
            "expected": round(guessing_recoveries(chances, samples), 3),
            "observed": sum(res["recovered"].get(i) is True for i in ids),
        }

    return {
        "label": "expected recoveries of a uniform guesser under the same any-of-N rule: "
        "sum over S_suc items of 1 - (1 - chance)^N (leakres' own)",
        **{key: block(ids) for key, ids in groups.items()},
    }


def recovery_scores(
    res: dict[str, Any],
    type_of: dict[str, str],
    s_suc: dict[str, list[str]],
    boot: dict[str, int],
    excluded: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One attack's block: its settings and decoding, RR (SH, MH, all, per type), unjudged count.
    A type in ``excluded`` (base model at chance) is left out of RR by hop and has no RR of its
    own: its reason instead."""
    from leak_metrics import MetricValue, recovery_rate, recovery_rate_by_hop

    excluded = excluded or {}
    recovered = res["recovered"]
    by_hop = recovery_rate_by_hop(
        [
            {"id": i, "type": t, "recovered": recovered[i]}
            for i, t in type_of.items()
            if t not in excluded
        ],
        **boot,
        multi_hop_types=multi_hop_types(type_of.values()),
    )

    def per_type(qtype: str, ids: list[str]) -> dict[str, Any]:
        if qtype in excluded:
            n_judged = sum(recovered[i] is not None for i in ids)
            return MetricValue.undefined(excluded[qtype], n_judged, len(ids) - n_judged).to_dict()
        return recovery_rate([recovered[i] for i in ids], **boot).to_dict()

    return {
        "settings": res["settings"],
        "decoding": res.get("decoding"),
        "rr_SH": by_hop["SH"].to_dict(),
        "rr_MH": by_hop["MH"].to_dict(),
        "rr_all": by_hop["all"].to_dict(),
        "rr_per_type": {t: per_type(t, ids) for t, ids in s_suc.items()},
        # types left out of rr_SH/rr_MH/rr_all and robustness (base model at chance)
        "rr_excluded_types": dict(excluded),
        "n_unjudged": sum(recovered[i] is None for i in type_of),
    }


def utility_scores(
    retain_base: Verdicts,
    retain_unlearned: Verdicts,
    bbh_base: dict[str, Any] | None,
    bbh_unlearned: dict[str, Any] | None,
    boot: dict[str, int],
) -> dict[str, Any]:
    """Utility: the retain-accuracy ratio, the BBH ratio when BBH is on, and the radar's utility
    (``ratio``): the lower of the two, a BBH ratio with a 95% CI wider than +/-10 points being
    too small to judge (leak-metrics' :func:`~leak_metrics.utility_axis`)."""
    from leak_metrics import utility_axis, utility_ratio

    retain_ratio = utility_ratio(retain_base, retain_unlearned, **boot)
    bbh_ratio = None
    utility: dict[str, Any] = {
        "retain_accuracy_ratio": retain_ratio.to_dict(),
        "bbh_ratio": None,
        "labels": {
            "ratio": "the radar's utility: the lower of the retain ratio and the BBH ratio (BBH "
            "only when its 95% CI half-width is at most 10 points); leakres' rule, the paper "
            "plots the BBH ratio",
            "retain_accuracy_ratio": "retain-accuracy ratio: Acc_u / Acc_p on the retain facts",
            "bbh_ratio": "BBH ratio: BBH accuracy of theta_u / theta_p on the same examples",
        },
    }
    if bbh_base is not None and bbh_unlearned is not None:
        bbh_u = bbh_unlearned
        bbh_ratio = utility_ratio(bbh_base["correct"], bbh_u["correct"], **boot)
        utility.update(
            bbh_ratio=bbh_ratio.to_dict(), base=bbh_base["overall"], unlearned=bbh_u["overall"]
        )
    axis = utility_axis(retain_ratio, bbh_ratio)
    names = {"retain": "retain-accuracy ratio", "bbh": "BBH ratio", None: "undefined"}
    source = names[axis.basis]
    if bbh_base is None:
        source += " (BBH off: --bbh-tasks)"
    elif axis.bbh_too_small:
        source += f" (BBH ratio {axis.bbh_too_small})"
    else:
        source += " (the lower of the retain and BBH ratios)"
    utility.update(
        ratio=axis.metric.to_dict(),
        ratio_basis=axis.basis,
        bbh_too_small=axis.bbh_too_small,
        source=source,
    )
    return utility
