"""Every number of one method (FQ per type, S_suc, RR, robustness, utility), each computed by
leak-metrics from the stored verdicts, and the assembly of results.json.

Unjudged verdicts (None) are never counted as wrong; they are counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .attacking import relearn_data
from .records import Record
from .unlearning import UnlearnedModel, training_summary

if TYPE_CHECKING:
    from .pipeline import Benchmark

Verdicts = list[bool | None]


def verdicts(table: dict[str, Any], qs: list[Record]) -> Verdicts:
    return [table["correct"][q["id"]] for q in qs]


def score_method(
    bench: Benchmark,
    unlearned: UnlearnedModel,
    by_id: dict[str, Record],
    base: dict[str, Any],
    scored: dict[str, list[Record]],
    retain: list[Record],
    context: dict[str, list[dict[str, str]]],
    bbh_base: dict[str, Any] | None,
) -> dict[str, Any]:
    """One method's block of results.json: evaluate, attack S_suc, measure utility, then score."""
    from leak_metrics import accuracy, forget_quality, robustness

    cfg, method = bench.cfg, unlearned.method
    boot = {"seed": cfg.seed, "n_resamples": cfg.bootstrap}
    with bench.timer.stage(f"{method}:eval"):
        ev = bench.evaluate_method(method, by_id, base, unlearned)
    per_type, s_suc = per_type_scores(base, ev, scored, boot)
    multi_qs = [q for t, qs in scored.items() if t != "SH" for q in qs]
    all_qs = scored["SH"] + multi_qs
    relearn = relearn_data(retain, scored["SH"])
    attacks_out, recovered_by_attack = attack_scores(
        bench, unlearned, by_id, s_suc, relearn, context, boot
    )
    retain_b, retain_u = verdicts(base, retain), verdicts(ev, retain)
    utility = utility_scores(bench, unlearned, retain_b, retain_u, bbh_base, boot)
    scored_ids = [q["id"] for q in all_qs + retain]
    return {
        "unlearn": unlearned.record,
        "training": training_summary(unlearned.record, len(scored["SH"])),
        "per_type": per_type,
        "fq_all_types": forget_quality(
            verdicts(base, all_qs), verdicts(ev, all_qs), **boot
        ).to_dict(),
        "fq_multi_hop": forget_quality(
            verdicts(base, multi_qs), verdicts(ev, multi_qs), **boot
        ).to_dict(),
        "retain": {
            "n": len(retain),
            "acc_base": accuracy(retain_b, **boot).to_dict(),
            "acc_unlearned": accuracy(retain_u, **boot).to_dict(),
        },
        "utility": utility,
        "s_suc": {t: len(ids) for t, ids in s_suc.items()},
        "attacks": attacks_out,
        "robustness": robustness(recovered_by_attack, **boot).to_dict(),
        "n_unjudged": {
            "base": sum(base["correct"][i] is None for i in scored_ids),
            "unlearned": sum(ev["correct"][i] is None for i in scored_ids),
            "attacks": {a: out["n_unjudged"] for a, out in attacks_out.items()},
        },
    }


def per_type_scores(
    base: dict[str, Any], ev: dict[str, Any], scored: dict[str, list[Record]], boot: dict[str, int]
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Per question type: accuracies and FQ; and S_suc (the ids unlearned successfully)."""
    from leak_metrics import accuracy, forget_quality, successfully_unlearned

    per_type: dict[str, Any] = {}
    s_suc: dict[str, list[str]] = {}
    for qtype, qs in scored.items():
        b, u = verdicts(base, qs), verdicts(ev, qs)
        per_type[qtype] = {
            "n": len(qs),
            "acc_base": accuracy(b, **boot).to_dict(),
            "acc_unlearned": accuracy(u, **boot).to_dict(),
            "fq": forget_quality(b, u, **boot).to_dict(),
        }
        ids = [q["id"] for q in qs]
        s_suc[qtype] = successfully_unlearned(
            {i: base["correct"][i] for i in ids}, {i: ev["correct"][i] for i in ids}
        )
    return per_type, s_suc


def attack_scores(
    bench: Benchmark,
    unlearned: UnlearnedModel,
    by_id: dict[str, Record],
    s_suc: dict[str, list[str]],
    relearn: list[dict[str, str]],
    context: dict[str, list[dict[str, str]]],
    boot: dict[str, int],
) -> tuple[dict[str, Any], dict[str, Verdicts]]:
    """Every attack on S_suc (its cell), scored: RR by hop and per type; and each attack's
    per-item recoveries (for robustness)."""
    method = unlearned.method
    type_of = {i: t for t, ids in s_suc.items() for i in ids}
    suc_ids = list(type_of)
    attacks_out: dict[str, Any] = {}
    recovered_by_attack: dict[str, Verdicts] = {}
    for attack in bench.cfg.attacks:
        with bench.timer.stage(f"{method}:attack:{attack}"):
            res = bench.attack(
                method, attack, [by_id[i] for i in suc_ids], relearn, context, unlearned
            )
        recovered_by_attack[attack] = [res["recovered"][i] for i in suc_ids]
        attacks_out[attack] = recovery_scores(res, type_of, s_suc, boot)
    return attacks_out, recovered_by_attack


def recovery_scores(
    res: dict[str, Any], type_of: dict[str, str], s_suc: dict[str, list[str]], boot: dict[str, int]
) -> dict[str, Any]:
    """One attack's block: its settings and decoding, RR (SH, MH, all, per type), unjudged count."""
    from leak_metrics import recovery_rate, recovery_rate_by_hop

    recovered = res["recovered"]
    by_hop = recovery_rate_by_hop(
        [{"id": i, "type": t, "recovered": recovered[i]} for i, t in type_of.items()], **boot
    )
    return {
        "settings": res["settings"],
        "decoding": res.get("decoding"),
        "rr_SH": by_hop["SH"].to_dict(),
        "rr_MH": by_hop["MH"].to_dict(),
        "rr_all": by_hop["all"].to_dict(),
        "rr_per_type": {
            t: recovery_rate([recovered[i] for i in ids], **boot).to_dict()
            for t, ids in s_suc.items()
        },
        "n_unjudged": sum(recovered[i] is None for i in type_of),
    }


def utility_scores(
    bench: Benchmark,
    unlearned: UnlearnedModel,
    retain_base: Verdicts,
    retain_unlearned: Verdicts,
    bbh_base: dict[str, Any] | None,
    boot: dict[str, int],
) -> dict[str, Any]:
    """Utility: the retain-accuracy ratio, and the BBH ratio when BBH is on (then the headline)."""
    from leak_metrics import utility_ratio

    retain_ratio = utility_ratio(retain_base, retain_unlearned, **boot).to_dict()
    utility: dict[str, Any] = {
        "source": "retain accuracy (BBH off: --bbh-tasks)",
        "ratio": retain_ratio,
        "retain_accuracy_ratio": retain_ratio,
        "bbh_ratio": None,
        "labels": {
            "retain_accuracy_ratio": "retain-accuracy ratio: Acc_u / Acc_p on the retain facts",
            "bbh_ratio": "BBH ratio: BBH accuracy of theta_u / theta_p on the same examples",
        },
    }
    if bbh_base is not None:
        with bench.timer.stage(f"{unlearned.method}:bbh"):
            bbh_u = bench.bbh(f"{unlearned.method}/bbh", unlearned)
        bbh_ratio = utility_ratio(bbh_base["correct"], bbh_u["correct"], **boot).to_dict()
        utility.update(
            source="bbh",
            ratio=bbh_ratio,
            bbh_ratio=bbh_ratio,
            base=bbh_base["overall"],
            unlearned=bbh_u["overall"],
        )
    return utility
