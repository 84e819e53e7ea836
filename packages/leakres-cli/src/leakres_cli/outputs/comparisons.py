"""The seed table and the paired comparisons between methods, as summary.md and the report show
them, read from results.json's ``seeds`` and ``comparisons`` blocks (issue 38 item 2; written by
``stages/seeds.py`` and ``stages/comparisons.py``). Runs no test: every sentence and number is
results.json's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: the seed table's columns: (header, path in a method's ``seeds`` block)
COLUMNS = (("FQ all types", ("fq_all_types",)), ("FQ multi-hop", ("fq_multi_hop",)))


def _cell(summary: Mapping[str, Any] | None) -> str:
    """``62.5 ± 4.1 (60.0, 65.0)``: mean ± std over the seeds, then each seed's value, in points."""
    if not isinstance(summary, Mapping) or summary.get("mean") is None:
        return "n/a"
    per_seed = summary.get("per_seed") or {}
    values = ", ".join("n/a" if v is None else f"{100 * v:.1f}" for v in per_seed.values())
    std = summary.get("std")
    spread = "" if std is None else f" ± {100 * std:.1f}"
    return f"{100 * summary['mean']:.1f}{spread} ({values})"


def seed_table(results: Mapping[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """(header, rows) of the seed table: per method FQ all types, multi-hop, per type and
    robustness over the seeds; None when the run has no ``seeds`` block."""
    block = results.get("seeds")
    if not isinstance(block, Mapping) or not isinstance(block.get("methods"), Mapping):
        return None
    methods = block["methods"]
    types = list(dict.fromkeys(t for m in methods.values() for t in (m.get("fq") or {})))
    header = ["method", *(h for h, _ in COLUMNS), *(f"FQ {t}" for t in types), "robustness"]
    rows = []
    for name, m in methods.items():
        row = [name, *(_cell(_dig(m, path)) for _, path in COLUMNS)]
        row += [_cell((m.get("fq") or {}).get(t)) for t in types]
        rows.append([*row, _cell(m.get("robustness"))])
    return header, rows


def rr_seed_table(results: Mapping[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """(header, rows) of RR over the seeds: one row per (method, attack), RR single-hop,
    multi-hop and all, each as :func:`_cell` writes it; None without a ``seeds`` block or RR."""
    block = results.get("seeds")
    if not isinstance(block, Mapping) or not isinstance(block.get("methods"), Mapping):
        return None
    hops = (("SH", "RR single-hop"), ("MH", "RR multi-hop"), ("all", "RR all"))
    rows = [
        [name, attack, *(_cell(by_hop.get(hop)) for hop, _ in hops)]
        for name, m in block["methods"].items()
        for attack, by_hop in (m.get("rr") or {}).items()
        if isinstance(by_hop, Mapping)
    ]
    return (["method", "attack", *(h for _, h in hops)], rows) if rows else None


def seed_caption(results: Mapping[str, Any]) -> str:
    block = results.get("seeds") or {}
    seeds = ", ".join(str(s) for s in block.get("seeds", []))
    return (
        f"Seeds {seeds}: mean ± standard deviation over the seeds (each seed's value in parentheses), "
        f"in points. The other tables are seed {block.get('reported_seed')}'s; questions and base "
        f"evaluation are seed {block.get('data_seed')}'s, shared by every seed."
    )


def comparison_sentences(results: Mapping[str, Any]) -> list[str]:
    """Every paired comparison's sentence: robustness first, then FQ type by type."""
    block = results.get("comparisons")
    if not isinstance(block, Mapping):
        return []
    entries = list(block.get("robustness") or [])
    for per_type in (block.get("fq") or {}).values():
        entries += per_type
    return [e["sentence"] for e in entries if isinstance(e, Mapping) and e.get("sentence")]


def comparison_verdict(results: Mapping[str, Any]) -> str:
    """One line: how many comparisons are significant, and what a non-significant one means."""
    block = results.get("comparisons") or {}
    entries = list(block.get("robustness") or []) + [
        e for per_type in (block.get("fq") or {}).values() for e in per_type
    ]
    n_sig = sum(bool(e.get("significant")) for e in entries)
    alpha = block.get("alpha", 0.05)
    seeds = block.get("seeds") or []
    pooled = f" pooled over {len(seeds)} seeds" if len(seeds) > 1 else " of one seed"
    line = (
        f"{n_sig} of {len(entries)} comparisons significant at p < {alpha} (Holm over the pairs "
        f"of methods, per metric; verdicts{pooled})."
    )
    if n_sig < len(entries):
        line += (
            " Where a comparison says 'no significant difference', the two methods' order in "
            "the tables is not established by this run: it may flip with other questions or seeds."
        )
    return line


def no_pair_note(results: Mapping[str, Any]) -> str | None:
    """With ``--seeds`` and one method, why no paired comparison is shown (a reader of the seed
    table otherwise looks for one); None when comparisons ran or the run has no seed block."""
    block = results.get("seeds")
    if results.get("comparisons") or not isinstance(block, Mapping):
        return None
    methods = list(block.get("methods") or {})
    if len(methods) > 1:
        return None
    named = ", ".join(methods) or "none"
    return (
        f"One method in this run ({named}): no pair of methods to compare. Paired tests "
        "between methods need two or more (e.g. `--methods ga,npo`)."
    )


def summary_lines(results: Mapping[str, Any]) -> list[str]:
    """summary.md's sections: the seed table and the paired comparisons (none without them)."""
    parts: list[str] = []
    table = seed_table(results)
    if table is not None:
        header, rows = table
        parts += ["## Seeds", "", seed_caption(results), ""]
        parts += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        parts += ["| " + " | ".join(r) + " |" for r in rows]
        parts.append("")
        rr = rr_seed_table(results)
        if rr is not None:  # the attacks' recovery rate, seed by seed (S_suc is each seed's)
            parts += ["| " + " | ".join(rr[0]) + " |", "|" + "---|" * len(rr[0])]
            parts += ["| " + " | ".join(r) + " |" for r in rr[1]]
            parts.append("")
    sentences = comparison_sentences(results)
    if sentences:
        parts += ["## Paired comparisons between methods", ""]
        parts += [f"- {s}" for s in sentences]
        parts += ["", comparison_verdict(results), ""]
    elif (note := no_pair_note(results)) is not None:
        parts += ["## Paired comparisons between methods", "", note, ""]
    return parts


def _dig(block: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        block = block.get(key) if isinstance(block, Mapping) else None  # type: ignore[assignment]
    return block
