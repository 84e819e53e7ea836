"""Human-readable summary of results.json: the printed table and summary.md."""

from __future__ import annotations

from typing import Any


def _pct(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "n/a"
    value = 100 * metric["value"]
    lo, hi = metric.get("ci_low"), metric.get("ci_high")
    if lo is None or hi is None:
        return f"{value:.1f}"
    return f"{value:.1f} [{100 * lo:.0f}, {100 * hi:.0f}]"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    fmt = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    lines = [fmt.format(*header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += [fmt.format(*map(str, r)) for r in rows]
    return "\n".join(lines)


def render(results: dict[str, Any]) -> str:
    cfg = results["config"]
    ds = results["dataset"]
    parts = [
        "# leakres results",
        "",
        f"Model `{cfg['model']}` · source `{cfg['source']}` · methods {', '.join(cfg['methods'])} · "
        f"attacks {', '.join(cfg['attacks'])} · judge `{cfg['judge']}` · seed {cfg['seed']}",
        "",
        f"Questions built: {ds['counts']}; the base model knew {ds['n_single_hop_known']} of "
        f"{ds['n_single_hop_asked']} single-hop facts; {len(results['forget_facts'])} forget and "
        f"{len(results['retain_facts'])} retain facts; scored questions per type: {results['scored_questions']}.",
        "",
        "Values in % with bootstrap 95% CI in brackets; n/a = undefined (e.g. base accuracy 0 or empty S_suc).",
        "",
    ]
    types = list(results["scored_questions"])
    rows = []
    for method, m in results["methods"].items():
        for t in types:
            pt = m["per_type"][t]
            rows.append([method, t, pt["n"], _pct(pt["acc_base"]), _pct(pt["acc_unlearned"]),
                         _pct(pt["fq"]), m["s_suc"].get(t, 0)])  # fmt: skip
    parts += ["## Forget Quality", "", _table(["method", "type", "n", "Acc base", "Acc unlearned", "FQ", "S_suc"], rows), ""]  # fmt: skip
    rows = []
    for method, m in results["methods"].items():
        for attack, a in m["attacks"].items():
            rows.append(
                [
                    method,
                    attack,
                    _pct(a["rr_SH"]),
                    a["rr_SH"]["n"],
                    _pct(a["rr_MH"]),
                    a["rr_MH"]["n"],
                ]
            )
    parts += ["## Recovery Rate (on S_suc)", "", _table(["method", "attack", "RR SH", "n SH", "RR MH", "n MH"], rows), ""]  # fmt: skip
    rows = []
    for method, m in results["methods"].items():
        rec = m.get("unlearn") or {}
        rob = m["robustness"]["value"]
        rows.append([method, _pct(m["retain"]["acc_base"]), _pct(m["retain"]["acc_unlearned"]),
                     _pct(m["fq_all_types"]), "n/a" if rob is None else f"{100 * rob:.1f}",
                     f"{_pct(m['utility']['ratio'])} ({m['utility']['source'].split(' (')[0]})",
                     "LoRA" if (rec.get("config") or {}).get("use_lora") else "full fine-tuning",
                     rec.get("steps", "?")])  # fmt: skip
    parts += ["## Ideal triangle: forget quality, robustness (1 - max RR), utility", "", _table(["method", "retain base", "retain unlearned", "FQ all types", "robustness", "utility", "training", "steps"], rows), ""]  # fmt: skip
    judges = results.get("judges")
    if judges:
        parts += ["## Judge agreement", ""]
        for name, agr in judges["agreement"].items():
            kappa = agr.get("cohen_kappa")
            parts.append(
                f"- `{name}` vs `{judges['primary']}`: Cohen's kappa "
                f"{'n/a' if kappa is None else f'{kappa:.3f}'} on {agr['n']} answers, "
                f"{len(agr['disagreements'])} disagreements, {agr['n_unjudged']} unjudged"
            )
        parts.append("")
    timings = results["timings_s"]
    parts += [f"Wall time: {timings['total']:.1f} s (" + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items() if k != "total") + ")", ""]  # fmt: skip
    return "\n".join(parts)
