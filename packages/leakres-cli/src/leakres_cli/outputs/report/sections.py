"""The report's per-run sections (FQ, RR, ideal triangle, utility, unlearning loss, dataset,
judges), each rows plus its inline SVG, read from results.json by :func:`.view.build_view`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leakres_cli.outputs.metric_rows import HOPS, lookup, metric_text, shown_metrics
from leakres_cli.outputs.report import svg
from leakres_cli.outputs.report.load import RunData
from leakres_cli.outputs.report.values import dig, fmt, guessing, loss_points, metric, num
from leakres_cli.outputs.summary import training_label

TRIANGLE_AXES = ("Forget Quality", "Robustness", "Utility")
Rows = list[dict[str, Any]]


def fq_section(
    name: str, methods: list[str], mdata: dict[str, Mapping[str, Any]], types: list[str]
) -> tuple[Rows, str]:
    """Forget Quality per method and type, and its heatmap."""
    fq_rows, heat, notes = [], {}, {}
    for m in methods:
        per_type = mdata[m].get("per_type") or {}
        cells = {}
        for t in types:
            pt = per_type.get(t) if isinstance(per_type, Mapping) else None
            fq = metric(dig(pt, "fq"))
            cells[t] = {"fq": fq, "acc_base": metric(dig(pt, "acc_base")),
                        "acc_unlearned": metric(dig(pt, "acc_unlearned")),
                        "fq_cc": metric(dig(pt, "fq_chance_corrected")),
                        "chance": num(dig(pt, "chance")),
                        "n": dig(pt, "n"), "s_suc": dig(mdata[m], "s_suc", t)}  # fmt: skip
            heat[(m, t)] = fq.value
            if fq.value is None and fq.reason:
                notes[(m, t)] = fq.reason
        excluded = mdata[m].get("fq_excluded_types")
        fq_rows.append({"method": m, "cells": cells, "all": metric(mdata[m].get("fq_all_types")),
                        "mh": metric(mdata[m].get("fq_multi_hop")),
                        "excluded": ", ".join(excluded) if isinstance(excluded, Mapping) else ""})  # fmt: skip
    fq_svg = svg.heatmap(methods, types, heat, label=f"{name}: Forget Quality heatmap",
                         notes=notes, legend="n/a* = base model at chance (hover)" if notes else "")  # fmt: skip
    return fq_rows, fq_svg


def rr_section(name: str, methods: list[str], mdata: dict[str, Mapping[str, Any]], types: list[str],
               attacks: list[str]) -> tuple[Rows, str]:  # fmt: skip
    """Recovery Rate per method and attack (SH, MH, per type), and its bar chart."""
    rr_rows, groups = [], []
    for attack in attacks:
        for hop in ("SH", "MH"):
            bars = []
            for m in methods:
                mm = metric(dig(mdata[m], "attacks", attack, f"rr_{hop}"))
                bars.append((m, mm.value, mm.ci_low, mm.ci_high))
            groups.append((f"{attack} {hop}", bars))
        for m in methods:
            a = dig(mdata[m], "attacks", attack)
            if not isinstance(a, Mapping):
                continue
            per_type = a.get("rr_per_type")
            rr_rows.append({
                "method": m, "attack": attack, "sh": metric(a.get("rr_SH")), "mh": metric(a.get("rr_MH")),
                "cols": [_cell(s, a, h) for s in shown_metrics("attack") for h in HOPS],
                "per_type": {t: metric(per_type.get(t)) for t in types} if isinstance(per_type, Mapping) else {},
                "settings": fmt(a.get("settings")), "guessing": guessing(a.get("guessing")),
            })  # fmt: skip
    rr_svg = (
        svg.bars_with_ci(groups, label=f"{name}: Recovery Rate", y_label="Recovery Rate %")
        if groups
        else ""
    )
    return rr_rows, rr_svg


def triangle_section(
    name: str, methods: list[str], mdata: dict[str, Mapping[str, Any]]
) -> tuple[Rows, str]:
    """FQ, robustness and utility per method, and the ideal-triangle radar."""
    triangle_rows, series = [], []
    for m in methods:
        rob = mdata[m].get("robustness")
        values = (metric(mdata[m].get("fq_all_types")), metric(rob),
                  metric(dig(mdata[m], "utility", "ratio")))  # fmt: skip
        set_by = mdata[m].get("robustness_set_by")
        triangle_rows.append({
            "method": m, "values": values, "pooled": metric(mdata[m].get("robustness_pooled")),
            "set_by": ", ".join(f"{c.get('attack')} {c.get('hop')}" for c in set_by
                                if isinstance(c, Mapping)) if isinstance(set_by, list) else "n/a",
            "utility_basis": fmt(dig(mdata[m], "utility", "ratio_basis")),
        })  # fmt: skip
        series.append((m, [v.value for v in values]))
    radar_svg = svg.radar(TRIANGLE_AXES, series, label=f"{name}: ideal triangle") if series else ""
    return triangle_rows, radar_svg


def utility_rows(methods: list[str], mdata: dict[str, Mapping[str, Any]]) -> Rows:
    """Utility (BBH and retain accuracy) per method."""
    rows = []
    for m in methods:
        u = mdata[m].get("utility") if isinstance(mdata[m].get("utility"), Mapping) else {}
        rows.append({
            "method": m, "source": fmt(u.get("source")), "ratio": metric(u.get("ratio")),
            "base": metric(u.get("base")), "unlearned": metric(u.get("unlearned")),
            "retain_base": metric(dig(mdata[m], "retain", "acc_base")),
            "retain_unlearned": metric(dig(mdata[m], "retain", "acc_unlearned")),
            # Both utility measures side by side when BBH ran (older runs lack the key: n/a).
            "retain_ratio": metric(u.get("retain_accuracy_ratio")),
            "bbh_ratio": metric(u.get("bbh_ratio")), "bbh_too_small": u.get("bbh_too_small") or "",
        })  # fmt: skip
    return rows


def loss_section(
    run: RunData, methods: list[str], mdata: dict[str, Mapping[str, Any]]
) -> tuple[Rows, str]:
    """The unlearning record per method, and the loss curves."""
    loss_rows, loss_series = [], []
    for m in methods:
        rec = (
            run.unlearn.get(m)
            or (mdata[m].get("unlearn") if isinstance(mdata[m].get("unlearn"), Mapping) else {})
            or {}
        )
        pts = loss_points(rec.get("loss_curve"))
        loss_series.append((m, pts))
        loss_rows.append({
            "method": m, "steps": fmt(rec.get("steps")), "stop": fmt(rec.get("stop_reason")),
            "message": rec.get("stop_message") or "", "wall": fmt(rec.get("wall_time_s")),
            "first": f"{pts[0][1]:.4g}" if pts else "n/a", "last": f"{pts[-1][1]:.4g}" if pts else "n/a",
            "lora": training_label(rec) if rec.get("method") == "external"  # trained elsewhere
            else "LoRA" if dig(rec, "config", "use_lora") else ("full" if rec else "n/a"),
        })  # fmt: skip
    loss_svg = svg.line_chart(loss_series, label=f"{run.name}: unlearning loss") if methods else ""
    return loss_rows, loss_svg


def dataset_rows(r: Mapping[str, Any], scored: Any) -> list[tuple[str, str]]:
    """The dataset block and the forget/retain/scored counts."""
    ds = r.get("dataset") if isinstance(r.get("dataset"), Mapping) else {}
    dataset = [(k, fmt(v)) for k, v in ds.items()]
    dataset += [("forget facts", fmt(len(r.get("forget_facts") or []))),
                ("retain facts", fmt(len(r.get("retain_facts") or []))),
                ("scored questions", fmt(scored))]  # fmt: skip
    return dataset


def judge_rows(r: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each secondary judge's agreement with the primary one."""
    judges = []
    jd = r.get("judges")
    if isinstance(jd, Mapping):
        for name, agr in (jd.get("agreement") or {}).items():
            kappa = num(dig(agr, "cohen_kappa"))
            judges.append((f"{name} vs {jd.get('primary')}",
                           f"Cohen's kappa {'n/a' if kappa is None else f'{kappa:.3f}'} on {fmt(dig(agr, 'n'))} answers, "
                           f"{fmt(dig(agr, 'n_unjudged'))} unjudged"))  # fmt: skip
    return judges


HOP_NAMES = {"SH": "single-hop", "MH": "multi-hop"}


def rr_headers() -> list[dict[str, str]]:
    """The RR table's value columns: each registered attack-level metric per hop (``RR single-hop``)."""
    return [{"text": f"{s.display} {HOP_NAMES[h]}", "title": f"{s.definition} ({s.reference})"}
            for s in shown_metrics("attack") for h in HOPS]  # fmt: skip


LEVEL_TITLES = {"type": "per question type", "attack": "per attack and hop", "method": "per method"}


def registry_tables(methods: list[str], mdata: dict[str, Mapping[str, Any]]) -> Rows:
    """Every metric registered in leak-metrics that the run reports, one table per level (rows:
    method and place; columns: the level's metrics, their definition on hover)."""
    tables = []
    for level, title in LEVEL_TITLES.items():
        specs = shown_metrics(level)
        rows = [{"method": m, "where": where, "cells": [_cell(s, block, hop) for s in specs]}
                for m in methods for where, block, hop in _blocks(level, mdata[m])]  # fmt: skip
        if specs and rows:
            tables.append(
                {"title": title, "specs": specs, "rows": rows, "where": level != "method"}
            )
    return tables


def _blocks(level: str, m: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """(where, block, hop) of each place a metric of ``level`` sits in one method's block."""
    if level == "type":
        per_type = m.get("per_type")
        return [(t, b, "") for t, b in per_type.items()] if isinstance(per_type, Mapping) else []
    if level == "attack":
        atk = m.get("attacks")
        return [(f"{a} {h}", b, h) for a, b in atk.items() for h in HOPS] if isinstance(atk, Mapping) else []  # fmt: skip
    return [("-", m, "")]


def _cell(spec: Any, block: Any, hop: str) -> dict[str, Any]:
    d = lookup(block, spec, hop)
    return {"text": metric_text(spec, d), "value": metric(d).value, "title": metric(d).title}
