"""What the report shows, computed from the loaded runs: plain rows and inline SVG strings.

Nothing here recomputes a metric: every number comes from results.json as the pipeline wrote it
(value, CI, n, and ``undefined_reason`` / ``n_unjudged`` where present); the per-question
drill-down shows the stored answers and verdicts of the cells.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import ALL_TYPES
from . import svg
from .load import RunData

__all__ = ["Metric", "RunView", "build_comparison", "build_view", "metric"]

TYPE_ORDER = ALL_TYPES  # the built-in order; other types follow in the order met
TRIANGLE_AXES = ("Forget Quality", "Robustness", "Utility")


@dataclass(frozen=True)
class Metric:
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None
    reason: str | None = None
    n_unjudged: int | None = None

    @property
    def text(self) -> str:
        if self.value is None:
            # FQ left out because the base model is at chance: the reader must see why (issue 25)
            at_chance = self.reason and self.reason.startswith("base model at chance")
            return f"n/a: {self.reason}" if at_chance else "n/a"
        if self.ci_low is None or self.ci_high is None:
            return f"{100 * self.value:.1f}"
        return f"{100 * self.value:.1f} [{100 * self.ci_low:.0f}, {100 * self.ci_high:.0f}]"

    @property
    def title(self) -> str:
        bits = []
        if self.n is not None:
            bits.append(f"n = {self.n}")
        if self.n_unjudged:
            bits.append(f"{self.n_unjudged} unjudged")
        if self.reason:
            bits.append(f"n/a: {self.reason}")
        return "; ".join(bits)


NA = Metric(None, reason="not in results.json")


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    return float(x) if math.isfinite(x) else None


def metric(d: Any) -> Metric:
    """A metric dict of results.json (any extra fields ignored); anything else is n/a."""
    if not isinstance(d, Mapping):
        return NA
    n = d.get("n")
    nu = d.get("n_unjudged")
    reason = d.get("undefined_reason")
    return Metric(
        _num(d.get("value")),
        _num(d.get("ci_low")),
        _num(d.get("ci_high")),
        int(n) if isinstance(n, int) and not isinstance(n, bool) else None,
        str(reason) if reason else None,
        int(nu) if isinstance(nu, int) and not isinstance(nu, bool) else None,
    )


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, Mapping):
            return None
        d = d.get(k)
    return d


def _ordered_types(types: Sequence[str]) -> list[str]:
    seen = list(dict.fromkeys(types))
    return [t for t in TYPE_ORDER if t in seen] + [t for t in seen if t not in TYPE_ORDER]


@dataclass
class Verdict:
    text: str | None  # the answer / response shown; None when missing
    verdict: bool | None  # True correct/recovered, False not, None unjudged
    known: bool  # False: no stored verdict at all (n/a)

    @property
    def css(self) -> str:
        if not self.known:
            return "na"
        return {True: "yes", False: "no", None: "unk"}[self.verdict]

    @property
    def mark(self) -> str:
        if not self.known:
            return "n/a"
        return {True: "✓", False: "✗", None: "?"}[self.verdict]


@dataclass
class DrillRow:
    id: str
    type: str
    role: str  # forget (SH), multi-hop, retain
    question: str
    gold: str
    aliases: list[str]
    base: Verdict
    unlearned: dict[str, Verdict]  # method -> verdict
    attacks: dict[
        str, dict[str, tuple[list[str], Verdict]]
    ]  # method -> attack -> (responses, recovered)
    leaked: bool


@dataclass
class RunView:
    name: str
    path: str
    anchor: str
    meta: list[tuple[str, str]]
    config: list[tuple[str, str]]
    versions: list[tuple[str, str]]
    timings: list[tuple[str, str]]
    dataset: list[tuple[str, str]]
    types: list[str]
    type_headers: dict[str, str]  # "MT (chance 50%)" for the types a guess can answer
    methods: list[str]
    attacks: list[str]
    fq_rows: list[dict[str, Any]]
    fq_svg: str
    rr_rows: list[dict[str, Any]]
    rr_svg: str
    triangle_rows: list[dict[str, Any]]
    radar_svg: str
    utility_rows: list[dict[str, Any]]
    loss_rows: list[dict[str, Any]]
    loss_svg: str
    drill: list[DrillRow]
    judges: list[tuple[str, str]]
    warnings: list[str] = field(default_factory=list)


def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list | tuple):
        return ", ".join(_fmt(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_fmt(v)}" for k, v in value.items()) or "(none)"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _verdict(cell: Mapping[str, Any], table: str, qid: str, text_table: str | None) -> Verdict:
    verdicts = cell.get(table)
    if not isinstance(verdicts, Mapping) or qid not in verdicts:
        return Verdict(None, None, False)
    texts = cell.get(text_table) if text_table else None
    text = texts.get(qid) if isinstance(texts, Mapping) else None
    v = verdicts[qid]
    return Verdict(
        text if isinstance(text, str) else None, v if isinstance(v, bool) else None, True
    )


def _drill(run: RunData, methods: list[str]) -> list[DrillRow]:
    base = run.base
    roles = [("forget", base.get("forget_ids")), ("multi-hop", base.get("multi_hop_ids")),
             ("retain", base.get("retain_ids"))]  # fmt: skip
    rows = []
    for role, ids in roles:
        for qid in ids if isinstance(ids, list) else []:
            if not isinstance(qid, str):
                continue
            q = run.questions.get(qid, {})
            unlearned = {
                m: _verdict(run.evals.get(m, {}), "correct", qid, "answers") for m in methods
            }
            attacks: dict[str, dict[str, tuple[list[str], Verdict]]] = {}
            for m in methods:
                for attack, cell in run.attacks.get(m, {}).items():
                    rec = cell.get("recovered")
                    if not isinstance(rec, Mapping) or qid not in rec:
                        continue
                    resp = _get(cell, "responses", qid)
                    responses = (
                        [r for r in resp if isinstance(r, str)] if isinstance(resp, list) else []
                    )
                    v = rec[qid]
                    attacks.setdefault(m, {})[attack] = (
                        responses,
                        Verdict(None, v if isinstance(v, bool) else None, True),
                    )
            leaked = role != "retain" and (
                any(v.verdict is True for v in unlearned.values())
                or any(v.verdict is True for a in attacks.values() for _, v in a.values())
            )
            aliases = q.get("answer_aliases")
            rows.append(
                DrillRow(
                    id=qid,
                    type=str(q.get("type") or qid.split("-")[0]),
                    role=role,
                    question=str(q.get("question") or "(question text not stored)"),
                    gold=str(q.get("answer") or "n/a"),
                    aliases=[a for a in aliases if isinstance(a, str)][:8]
                    if isinstance(aliases, list)
                    else [],
                    base=_verdict(base, "correct", qid, "answers"),
                    unlearned=unlearned,
                    attacks=attacks,
                    leaked=leaked,
                )
            )
    return rows


def _loss_points(curve: Any) -> list[tuple[float, float]]:
    pts = []
    for k, entry in enumerate(curve if isinstance(curve, list) else []):
        if isinstance(entry, Mapping):
            step, loss = _num(entry.get("step")), _num(entry.get("loss"))
            if loss is not None:
                pts.append((step if step is not None else float(k), loss))
    return pts


def _guessing(block: Any) -> str:
    """``MH 2.1 of 10 (observed 4); MT 1.9 of 2 (observed 2)``: a guesser's expected recoveries."""
    if not isinstance(block, Mapping):
        return "n/a"
    parts = [
        f"{key} {_num(g.get('expected')) or 0:.1f} of {g.get('n')} (observed {g.get('observed')})"
        for key, g in block.items()
        if key not in ("SH", "label") and isinstance(g, Mapping) and g.get("n")
    ]
    return "; ".join(parts) or "-"


def build_view(run: RunData, index: int = 0) -> RunView:
    r = run.results
    cfg = run.config
    methods = run.methods
    mdata = {m: (r["methods"][m] if isinstance(r["methods"][m], Mapping) else {}) for m in methods}
    scored = r.get("scored_questions")
    types = _ordered_types(
        list(scored) if isinstance(scored, Mapping)
        else [t for m in mdata.values() for t in (m.get("per_type") or {})]
    )  # fmt: skip
    attacks = list(dict.fromkeys(a for m in mdata.values() for a in (m.get("attacks") or {})))

    fq_rows, heat, notes = [], {}, {}
    for m in methods:
        per_type = mdata[m].get("per_type") or {}
        cells = {}
        for t in types:
            pt = per_type.get(t) if isinstance(per_type, Mapping) else None
            fq = metric(_get(pt, "fq"))
            cells[t] = {"fq": fq, "acc_base": metric(_get(pt, "acc_base")),
                        "acc_unlearned": metric(_get(pt, "acc_unlearned")),
                        "fq_cc": metric(_get(pt, "fq_chance_corrected")),
                        "chance": _num(_get(pt, "chance")),
                        "n": _get(pt, "n"), "s_suc": _get(mdata[m], "s_suc", t)}  # fmt: skip
            heat[(m, t)] = fq.value
            if fq.value is None and fq.reason:
                notes[(m, t)] = fq.reason
        excluded = mdata[m].get("fq_excluded_types")
        fq_rows.append({"method": m, "cells": cells, "all": metric(mdata[m].get("fq_all_types")),
                        "mh": metric(mdata[m].get("fq_multi_hop")),
                        "excluded": ", ".join(excluded) if isinstance(excluded, Mapping) else ""})  # fmt: skip
    fq_svg = svg.heatmap(methods, types, heat, label=f"{run.name}: Forget Quality heatmap",
                         notes=notes, legend="n/a* = base model at chance (hover)" if notes else "")  # fmt: skip
    checks = _get(r, "types", "checks")
    chance = {t: _num(_get(checks, t, "chance")) for t in types}
    type_headers = {t: f"{t} (chance {100 * c:.0f}%)" if c else t for t, c in chance.items()}

    rr_rows, groups = [], []
    for attack in attacks:
        for hop in ("SH", "MH"):
            bars = []
            for m in methods:
                mm = metric(_get(mdata[m], "attacks", attack, f"rr_{hop}"))
                bars.append((m, mm.value, mm.ci_low, mm.ci_high))
            groups.append((f"{attack} {hop}", bars))
        for m in methods:
            a = _get(mdata[m], "attacks", attack)
            if not isinstance(a, Mapping):
                continue
            per_type = a.get("rr_per_type")
            rr_rows.append({
                "method": m, "attack": attack, "sh": metric(a.get("rr_SH")), "mh": metric(a.get("rr_MH")),
                "per_type": {t: metric(per_type.get(t)) for t in types} if isinstance(per_type, Mapping) else {},
                "settings": _fmt(a.get("settings")), "guessing": _guessing(a.get("guessing")),
            })  # fmt: skip
    rr_svg = (
        svg.bars_with_ci(groups, label=f"{run.name}: Recovery Rate", y_label="Recovery Rate %")
        if groups
        else ""
    )

    triangle_rows, series = [], []
    for m in methods:
        rob = mdata[m].get("robustness")
        values = (metric(mdata[m].get("fq_all_types")), metric(rob),
                  metric(_get(mdata[m], "utility", "ratio")))  # fmt: skip
        set_by = mdata[m].get("robustness_set_by")
        triangle_rows.append({
            "method": m, "values": values, "pooled": metric(mdata[m].get("robustness_pooled")),
            "set_by": ", ".join(f"{c.get('attack')} {c.get('hop')}" for c in set_by
                                if isinstance(c, Mapping)) if isinstance(set_by, list) else "n/a",
            "utility_basis": _fmt(_get(mdata[m], "utility", "ratio_basis")),
        })  # fmt: skip
        series.append((m, [v.value for v in values]))
    radar_svg = (
        svg.radar(TRIANGLE_AXES, series, label=f"{run.name}: ideal triangle") if series else ""
    )

    utility_rows = []
    for m in methods:
        u = mdata[m].get("utility") if isinstance(mdata[m].get("utility"), Mapping) else {}
        utility_rows.append({
            "method": m, "source": _fmt(u.get("source")), "ratio": metric(u.get("ratio")),
            "base": metric(u.get("base")), "unlearned": metric(u.get("unlearned")),
            "retain_base": metric(_get(mdata[m], "retain", "acc_base")),
            "retain_unlearned": metric(_get(mdata[m], "retain", "acc_unlearned")),
            # Both utility measures side by side when BBH ran (older runs lack the key: n/a).
            "retain_ratio": metric(u.get("retain_accuracy_ratio")),
            "bbh_ratio": metric(u.get("bbh_ratio")), "bbh_too_small": u.get("bbh_too_small") or "",
        })  # fmt: skip

    loss_rows, loss_series = [], []
    for m in methods:
        rec = (
            run.unlearn.get(m)
            or (mdata[m].get("unlearn") if isinstance(mdata[m].get("unlearn"), Mapping) else {})
            or {}
        )
        pts = _loss_points(rec.get("loss_curve"))
        loss_series.append((m, pts))
        loss_rows.append({
            "method": m, "steps": _fmt(rec.get("steps")), "stop": _fmt(rec.get("stop_reason")),
            "message": rec.get("stop_message") or "", "wall": _fmt(rec.get("wall_time_s")),
            "first": f"{pts[0][1]:.4g}" if pts else "n/a", "last": f"{pts[-1][1]:.4g}" if pts else "n/a",
            "lora": "LoRA" if _get(rec, "config", "use_lora") else ("full" if rec else "n/a"),
        })  # fmt: skip
    loss_svg = svg.line_chart(loss_series, label=f"{run.name}: unlearning loss") if methods else ""

    ds = r.get("dataset") if isinstance(r.get("dataset"), Mapping) else {}
    dataset = [(k, _fmt(v)) for k, v in ds.items()]
    dataset += [("forget facts", _fmt(len(r.get("forget_facts") or []))),
                ("retain facts", _fmt(len(r.get("retain_facts") or []))),
                ("scored questions", _fmt(scored))]  # fmt: skip
    judges = []
    jd = r.get("judges")
    if isinstance(jd, Mapping):
        for name, agr in (jd.get("agreement") or {}).items():
            kappa = _num(_get(agr, "cohen_kappa"))
            judges.append((f"{name} vs {jd.get('primary')}",
                           f"Cohen's kappa {'n/a' if kappa is None else f'{kappa:.3f}'} on {_fmt(_get(agr, 'n'))} answers, "
                           f"{_fmt(_get(agr, 'n_unjudged'))} unjudged"))  # fmt: skip
    meta = [
        ("model", _fmt(cfg.get("model"))), ("model path", _fmt(r.get("model_path"))),
        ("source", _fmt(cfg.get("source"))), ("methods", _fmt(methods)), ("attacks", _fmt(attacks)),
        ("judge", _fmt(cfg.get("judge"))), ("seed", _fmt(r.get("seed", cfg.get("seed")))),
        ("leakres", _fmt(r.get("leakres_version"))),
    ]  # fmt: skip
    timings = r.get("timings_s") if isinstance(r.get("timings_s"), Mapping) else {}
    versions = r.get("versions") if isinstance(r.get("versions"), Mapping) else {}
    return RunView(
        name=run.name, path=str(run.path), anchor=f"run-{index}", meta=meta,
        config=[(k, _fmt(v)) for k, v in cfg.items()],
        versions=[(k, _fmt(v)) for k, v in versions.items()],
        timings=[(k, f"{v:.1f} s" if _num(v) is not None else _fmt(v)) for k, v in timings.items()],
        dataset=dataset, types=types, type_headers=type_headers, methods=methods, attacks=attacks,
        fq_rows=fq_rows, fq_svg=fq_svg, rr_rows=rr_rows, rr_svg=rr_svg,
        triangle_rows=triangle_rows, radar_svg=radar_svg, utility_rows=utility_rows,
        loss_rows=loss_rows, loss_svg=loss_svg, drill=_drill(run, methods), judges=judges,
        warnings=list(run.warnings),
    )  # fmt: skip


def build_comparison(views: Sequence[RunView]) -> dict[str, Any]:
    """Side-by-side rows (run x method) and one radar with every run's methods."""
    types = _ordered_types([t for v in views for t in v.types])
    rows, series = [], []
    for view in views:
        for tri, fq in zip(view.triangle_rows, view.fq_rows, strict=True):
            m = tri["method"]
            rr_values = [x.value for row in view.rr_rows if row["method"] == m
                         for x in (row["sh"], row["mh"]) if x.value is not None]  # fmt: skip
            rows.append({
                "run": view.name, "anchor": view.anchor, "model": dict(view.meta)["model"], "method": m,
                "fq_all": fq["all"], "fq_mh": fq["mh"], "robustness": tri["values"][1],
                "utility": tri["values"][2], "max_rr": Metric(max(rr_values)) if rr_values else NA,
                "per_type": {t: fq["cells"][t]["fq"] if t in fq["cells"] else NA for t in types},
            })  # fmt: skip
            series.append((f"{view.name} / {m}", [v.value for v in tri["values"]]))
    return {
        "types": types,
        "rows": rows,
        "radar_svg": svg.radar(TRIANGLE_AXES, series, label="ideal triangle, all runs")
        if series
        else "",
    }
