"""Recovery curves over attack budget and the controls (issue 38 items 1 and 4) as people read
them: summary.md sections, the report's section (one inline SVG curve per method, single-hop vs
multi-hop RR against budget, and the same curve as a table), and the paper figure (matplotlib,
PNG and PDF, written beside the report when matplotlib is installed).

Every number is read from results.json (``recovery_curves``, ``robustness_over_budgets``,
``controls`` of each method, :mod:`leakres_cli.stages.curve_scores`); nothing is recomputed. A run
with ``--no-controls`` (:func:`controls_off`) shows "controls: off" where the controls would be.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

HOPS = (("SH", "single-hop"), ("MH", "multi-hop"))
FIGURE_NAME = "recovery_curves"
CONTROLS_OFF_TEXT = (
    "controls: off (--no-controls): no false-recovery rate, net recovery or knowledge-free FQ "
    "was computed"
)


def controls_off(results: Mapping[str, Any]) -> bool:
    """True when the run was made with ``--no-controls`` (results.json's ``run_control``)."""
    return (results.get("run_control") or {}).get("controls") is False


def _pct(m: Any) -> str:
    if not isinstance(m, Mapping) or m.get("value") is None:
        return "n/a"
    lo, hi = m.get("ci_low"), m.get("ci_high")
    text = f"{100 * m['value']:.1f}"
    return text if lo is None or hi is None else f"{text} [{100 * lo:.0f}, {100 * hi:.0f}]"


def _points(x: Any) -> str:
    return "n/a" if not isinstance(x, int | float) else f"{100 * x:.1f}"


def _curves(results: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{method: {attack: block}}`` of the methods that ran a ladder."""
    out = {}
    for method, m in (results.get("methods") or {}).items():
        blocks = (m or {}).get("recovery_curves") if isinstance(m, Mapping) else None
        if isinstance(blocks, Mapping):
            out[method] = {a: b for a, b in blocks.items() if a != "labels"}
    return out


def curve_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per (method, attack, hop): RR, false-recovery and net recovery at every rung,
    the rung reaching half the base accuracy, the area and the worst-case robustness."""
    rows = []
    for method, blocks in _curves(results).items():
        for attack, b in blocks.items():
            for hop, hop_name in HOPS:
                ladder = [str(r) for r in b.get("ladder", [])]
                off = b.get("controls") == "off"  # --no-controls: no false-recovery rows
                rows.append({
                    "method": method, "attack": attack, "hop": hop_name, "axis": b["axis"]["label"],
                    "ladder": ladder,
                    "rr": [_pct(b["rr"][hop].get(r)) for r in ladder],
                    "false": None if off else [_pct(b["false_recovery"][hop].get(r)) for r in ladder],
                    "net": None if off else [_points(b["net_recovery"][hop].get(r)) for r in ladder],
                    "half": "not reached" if b["budget_to_half_base"][hop] is None
                    else str(b["budget_to_half_base"][hop]),
                    "target": _points(b["target"][hop]),
                    "area": _points(b["area"][hop]),
                    "worst": f"{_pct(b['worst_case_robustness'][hop])} at "
                    f"{b['worst_case_robustness'][hop].get('budget')}",
                })  # fmt: skip
    return rows


def _controls(
    results: Mapping[str, Any],
) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    """``(method, its results.json entry, its controls)`` of each method that has controls."""
    for method, m in (results.get("methods") or {}).items():
        c = m.get("controls") if isinstance(m, Mapping) else None
        if isinstance(c, Mapping):
            yield method, m, c


def _rr(m: Mapping[str, Any], attack: str, hop: str) -> Any:
    """The method's RR block of ``attack`` on ``hop`` ("SH"/"MH"); None when it has none."""
    return ((m.get("attacks") or {}).get(attack) or {}).get(f"rr_{hop}")


def _fq(m: Mapping[str, Any], key: str) -> Any:
    """The method's FQ block that a knowledge-free FQ ``key`` stands beside ("all_types",
    "multi_hop" or a question type); None when it has none."""
    whole = {"all_types": m.get("fq_all_types"), "multi_hop": m.get("fq_multi_hop")}
    return whole.get(key, ((m.get("per_type") or {}).get(key) or {}).get("fq"))


def control_rows(results: Mapping[str, Any]) -> tuple[list[list[str]], list[list[str]]]:
    """(RR beside the false-recovery rate and net recovery, per method/attack/hop;
    FQ beside the knowledge-free FQ, per method and type)."""
    rr_rows, fq_rows = [], []
    for method, m, c in _controls(results):
        for attack, frr in (c.get("false_recovery") or {}).items():
            for hop, hop_name in HOPS:
                net = (c.get("net_recovery") or {}).get(attack, {}).get(hop)
                rr = _rr(m, attack, hop)
                rr_rows.append(
                    [method, attack, hop_name, _pct(rr), _pct(frr.get(hop)), _points(net)]
                )
        for key, value in (c.get("fq_knowledge_free") or {}).items():
            fq_rows.append([method, key, _pct(_fq(m, key)), _points(value)])
    return rr_rows, fq_rows


def summary_lines(results: Mapping[str, Any], table: Any) -> list[str]:
    """summary.md's sections (``table(header, rows)`` draws a table): the curves when a ladder
    ran, the controls whenever results.json has them; [] for a run without either."""
    lines: list[str] = []
    rows = curve_rows(results)
    if rows:
        lines += ["## Recovery curves over attack budget", ""]
        lines.append(
            "RR % [95% CI] at each budget of the ladder (--attack-budgets); half base: the first "
            "budget whose RR reaches half the base model's accuracy on that hop; area: under the "
            "curve, rungs one unit apart (0-100); worst case: robustness 1 - the largest RR."
        )
        lines.append("")
        for r in rows:
            header = ["method", "attack", "hop", *[f"{r['attack']} {x}" for x in r["ladder"]]]
            lines.append(f"**{r['method']} / {r['attack']} / {r['hop']}** ({r['axis']})")
            lines.append("")
            body = [[r["method"], r["attack"], "RR", *r["rr"]]]
            if r["false"] is not None:
                body += [[r["method"], r["attack"], "false-recovery", *r["false"]],
                         [r["method"], r["attack"], "net recovery", *r["net"]]]  # fmt: skip
            lines.append(table(header, body))
            lines.append(
                f"half base ({r['target']}): {r['half']}; area {r['area']}; "
                f"worst-case robustness {r['worst']}"
            )
            lines.append("")
    rr_rows, fq_rows = control_rows(results)
    if rr_rows:
        lines += ["## Controls", ""]
        lines.append(
            "false-recovery: the attack's recoveries on items the base model never answered "
            "correctly; net recovery = RR - false-recovery (points). Knowledge-free FQ: the FQ "
            "of an answerer that knows nothing (right at chance) on the same items."
        )
        lines.append("")
        header = ["method", "attack", "hop", "RR", "false-recovery", "net recovery"]
        lines += [table(header, rr_rows), ""]
        lines += [table(["method", "FQ of", "FQ", "knowledge-free FQ"], fq_rows), ""]
    elif controls_off(results):
        lines += ["## Controls", "", CONTROLS_OFF_TEXT + ".", ""]
    return lines


def report_block(name: str, results: Mapping[str, Any]) -> dict[str, Any]:
    """The report's section: ``curves`` (rows + one inline SVG per method: RR against budget,
    single-hop and multi-hop per attack) and ``controls`` (rows); {} without either."""
    from leakres_cli.outputs.report import svg

    rows = curve_rows(results)
    figures = []
    for method, blocks in _curves(results).items():
        series = []
        for attack, b in blocks.items():
            ladder = [str(r) for r in b["ladder"]]
            numeric = all(isinstance(r, int) for r in b["ladder"])
            for hop, hop_name in HOPS:
                pts = [
                    (float(b["ladder"][k]) if numeric else float(k), 100 * v["value"])
                    for k, r in enumerate(ladder)
                    if (v := b["rr"][hop].get(r)) and v.get("value") is not None
                ]
                series.append((f"{attack} {hop_name}", pts))
        x_label = " / ".join(
            f"{a}: {b['axis']['label']}"
            + ("" if all(isinstance(r, int) for r in b["ladder"]) else f" ({', '.join(map(str, b['ladder']))})")
            for a, b in blocks.items()
        )  # fmt: skip
        figures.append((method, svg.line_chart(
            series, label=f"{name} / {method}: recovery curves", x_label=x_label, y_label="RR %"
        )))  # fmt: skip
    rr_rows, fq_rows = control_rows(results)
    off = controls_off(results)
    if not rows and not rr_rows and not off:
        return {}
    return {"rows": rows, "figures": figures, "control_rr": rr_rows, "control_fq": fq_rows,
            "controls_off": CONTROLS_OFF_TEXT if off else None}  # fmt: skip


def write_figure(results: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """The paper figure ``OUT_DIR/recovery_curves.{png,pdf}`` (one panel per method and attack, RR against
    budget, single-hop solid, multi-hop dashed, 95% CI bands) with leak-metrics' matplotlib
    plots; [] when no ladder ran. matplotlib is optional: absent, it says so on stderr and
    writes nothing (the report's inline SVG shows the same curves)."""
    curves = _curves(results)
    if not curves:
        return []
    try:
        from leak_metrics.report.plots import recovery_curve_figure
    except ImportError as exc:
        sys.stderr.write(
            f"recovery-curve figure not written: matplotlib is not installed ({exc}); "
            "`pip install matplotlib` for the PNG/PDF, the report's inline SVG has the curves\n"
        )
        return []
    panels = {
        f"{method}: {attack}": {
            hop_name: [(str(r), b["rr"][hop].get(str(r)) or {}) for r in b["ladder"]]
            for hop, hop_name in HOPS
        }
        for method, blocks in curves.items()
        for attack, b in blocks.items()
    }
    return recovery_curve_figure(panels, out_dir / FIGURE_NAME)


def write_figures(runs: Sequence[Any], out_dir: Path) -> list[Path]:
    """:func:`write_figure` for the report of one run (several runs: none, each run has its own)."""
    return write_figure(runs[0].results, out_dir) if len(runs) == 1 else []


def _csv(rows: list[list[Any]]) -> str:
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def write_tables(results: Mapping[str, Any], tables: Path) -> list[Path]:
    """``tables/recovery_curves.csv`` (one row per method, attack, hop and rung: RR with its CI,
    false-recovery rate, net recovery) when a ladder ran, and ``tables/controls.csv`` (RR beside
    the false-recovery rate and net recovery; FQ beside the knowledge-free FQ) when results.json
    has the controls. Numbers are fractions, as in results.json."""
    from leakres_cli.scale.store import write_text_atomic

    written = []
    rows: list[list[Any]] = [["method", "attack", "hop", "budget", "rr", "rr_ci_low", "rr_ci_high",
                              "rr_n", "false_recovery", "net_recovery"]]  # fmt: skip
    for method, blocks in _curves(results).items():
        for attack, b in blocks.items():
            for hop, _ in HOPS:
                for r in map(str, b["ladder"]):
                    v = b["rr"][hop].get(r) or {}
                    off = b.get("controls") == "off"  # --no-controls
                    f = {"value": "off"} if off else b["false_recovery"][hop].get(r) or {}
                    net = "off" if off else b["net_recovery"][hop].get(r)
                    rows.append([method, attack, hop, r, v.get("value"), v.get("ci_low"),
                                 v.get("ci_high"), v.get("n"), f.get("value"), net])  # fmt: skip
    if len(rows) > 1:
        write_text_atomic(tables / "recovery_curves.csv", _csv(rows))
        written.append(tables / "recovery_curves.csv")
    control: list[list[Any]] = [["method", "what", "of", "value", "control", "control_value"]]
    for method, m, c in _controls(results):
        for attack, frr in (c.get("false_recovery") or {}).items():
            for hop, _ in HOPS:
                rr = _rr(m, attack, hop) or {}
                control.append([method, f"RR {attack}", hop, rr.get("value"), "false-recovery rate",
                                (frr.get(hop) or {}).get("value")])  # fmt: skip
                control.append([method, f"RR {attack}", hop, rr.get("value"), "net recovery",
                                c["net_recovery"][attack][hop]])  # fmt: skip
        for key, value in (c.get("fq_knowledge_free") or {}).items():
            fq = _fq(m, key) or {}
            control.append([method, "FQ", key, fq.get("value"), "knowledge-free FQ", value])
    if controls_off(results):  # --no-controls: one row that says so, never empty numbers
        control.append(["*", "RR and FQ", "", "", CONTROLS_OFF_TEXT, "off"])
    if len(control) > 1:
        write_text_atomic(tables / "controls.csv", _csv(control))
        written.append(tables / "controls.csv")
    return written
