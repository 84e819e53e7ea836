"""What the report shows, computed from the loaded runs: plain rows and inline SVG strings.

Nothing here recomputes a metric: every number comes from results.json as the pipeline wrote it
(value, CI, n, and ``undefined_reason`` / ``n_unjudged`` where present); the per-question
drill-down shows the stored answers and verdicts of the cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from leakres_cli.outputs import comparison_plot, comparisons
from leakres_cli.outputs.curves import report_block
from leakres_cli.outputs.report import svg
from leakres_cli.outputs.report.load import RunData
from leakres_cli.outputs.report.sections import (
    TRIANGLE_AXES,
    dataset_rows,
    fq_section,
    judge_rows,
    loss_section,
    registry_tables,
    rr_headers,
    rr_section,
    triangle_section,
    utility_rows,
)
from leakres_cli.outputs.report.trajectory import trajectory_section
from leakres_cli.outputs.report.values import NA, Metric, dig, fmt, metric, num

__all__ = ["Metric", "RunView", "build_comparison", "build_view", "metric"]


def _ordered_types(types: Sequence[str]) -> list[str]:
    """``types`` in kg-qgen's registry order (built-ins, then plugin types); others as met."""
    from kg_qgen import question_type_codes

    order = question_type_codes()
    seen = list(dict.fromkeys(types))
    return [t for t in order if t in seen] + [t for t in seen if t not in order]


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
    #: every registered metric the run reports, one table per level (leak-metrics' registry)
    metric_tables: list[dict[str, Any]] = field(default_factory=list)
    #: the RR table's value columns (every registered attack-level metric, per hop)
    rr_headers: list[dict[str, str]] = field(default_factory=list)
    curves: dict[str, Any] = field(default_factory=dict)  # outputs.curves.report_block
    trajectory: list[dict[str, Any]] = field(default_factory=list)  # --eval-every: per method
    seeds: dict[str, Any] | None = None  # --seeds' table: caption, header, rows
    comparisons: list[str] = field(default_factory=list)  # paired tests' sentences, then verdict
    comparison_svg: str = ""  # their forest plot (outputs/comparison_plot.py), "" without


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
                    resp = dig(cell, "responses", qid)
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

    fq_rows, fq_svg = fq_section(run.name, methods, mdata, types)
    checks = dig(r, "types", "checks")
    chance = {t: num(dig(checks, t, "chance")) for t in types}
    type_headers = {t: f"{t} (chance {100 * c:.0f}%)" if c else t for t, c in chance.items()}
    rr_rows, rr_svg = rr_section(run.name, methods, mdata, types, attacks)
    triangle_rows, radar_svg = triangle_section(run.name, methods, mdata)
    loss_rows, loss_svg = loss_section(run, methods, mdata)
    dataset = dataset_rows(r, scored)
    judges = judge_rows(r)
    meta = [
        ("model", fmt(cfg.get("model"))), ("model path", fmt(r.get("model_path"))),
        ("source", fmt(cfg.get("source"))), ("methods", fmt(methods)), ("attacks", fmt(attacks)),
        ("judge", fmt(cfg.get("judge"))), ("seed", fmt(r.get("seed", cfg.get("seed")))),
        ("leakres", fmt(r.get("leakres_version"))),
    ]  # fmt: skip
    timings = r.get("timings_s") if isinstance(r.get("timings_s"), Mapping) else {}
    versions = r.get("versions") if isinstance(r.get("versions"), Mapping) else {}
    return RunView(
        name=run.name, path=str(run.path), anchor=f"run-{index}", meta=meta,
        config=[(k, fmt(v)) for k, v in cfg.items()],
        versions=[(k, fmt(v)) for k, v in versions.items()],
        timings=[(k, f"{v:.1f} s" if num(v) is not None else fmt(v)) for k, v in timings.items()],
        dataset=dataset, types=types, type_headers=type_headers, methods=methods, attacks=attacks,
        fq_rows=fq_rows, fq_svg=fq_svg, rr_rows=rr_rows, rr_svg=rr_svg,
        triangle_rows=triangle_rows, radar_svg=radar_svg, utility_rows=utility_rows(methods, mdata),
        loss_rows=loss_rows, loss_svg=loss_svg, drill=_drill(run, methods), judges=judges,
        warnings=list(run.warnings), metric_tables=registry_tables(methods, mdata),
        rr_headers=rr_headers(), curves=report_block(run.name, r),
        trajectory=trajectory_section(run.name, methods, mdata, types), **_seed_view(r),
    )  # fmt: skip


def _seed_view(r: Mapping[str, Any]) -> dict[str, Any]:
    """The report's seed table and paired comparisons (outputs/comparisons.py)."""
    table = comparisons.seed_table(r)
    seeds = None if table is None else {
        "caption": comparisons.seed_caption(r), "header": table[0], "rows": table[1]}  # fmt: skip
    sentences = comparisons.comparison_sentences(r)
    verdict = [comparisons.comparison_verdict(r)] if sentences else []
    if not sentences and (note := comparisons.no_pair_note(r)) is not None:
        verdict = [note]  # the template shows the last line as its caption
    svg_text = comparison_plot.comparison_svg(r) if sentences else ""
    return {"seeds": seeds, "comparisons": sentences + verdict, "comparison_svg": svg_text}


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
