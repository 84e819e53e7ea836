"""Human-readable summary of results.json: the printed table and summary.md."""

from __future__ import annotations

from typing import Any

from leak_metrics import no_signal

from leakres_cli.outputs import comparisons
from leakres_cli.outputs.metric_rows import HOPS, lookup, metric_text, shown_metrics


def _pct(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "n/a"
    value = 100 * metric["value"]
    lo, hi = metric.get("ci_low"), metric.get("ci_high")
    if lo is None or hi is None:
        return f"{value:.1f}"
    return f"{value:.1f} [{100 * lo:.0f}, {100 * hi:.0f}]"


def _fq(metric: dict[str, Any] | None) -> str:
    """An FQ cell; one left out because the base model shows no signal says why (at or below
    chance, too few known; issues 25 and 36)."""
    reason = (metric or {}).get("undefined_reason") or ""
    if (metric or {}).get("value") is None and no_signal(reason):
        return f"n/a: {reason}"
    return _pct(metric)


def _chance(value: Any) -> str:
    return "-" if not value else f"{100 * value:.0f}%"


def _guess(block: dict[str, Any] | None) -> str:
    """``2.1 of 10 (obs 4)``: a guesser's expected recoveries beside the observed ones."""
    if not block or not block.get("n"):
        return "-"
    return f"{block['expected']:.1f} of {block['n']} (obs {block['observed']})"


def _first_lines(results: dict[str, Any]) -> list[str]:
    """Right under the title: the types that fall short of the scored-question goal and why, and
    the types whose FQ is not reported (base model at chance)."""
    types = results.get("types") or {}
    lines = []
    short = types.get("short") or {}
    if short:
        goal = types.get("min_scored_per_type", 40)
        lines.append(
            f"**Fewer than {goal} scored questions:** "
            + "; ".join(f"{t}: {why}" for t, why in short.items())
            + ". Scored = the multi-hop questions whose target is a forget fact; a larger "
            "--per-type or --n-forget gives more where the knowledge source has more."
        )
    at_chance = types.get("at_chance") or {}
    if at_chance:
        lines.append(
            "**FQ not reported** (n/a, left out of FQ all types and multi-hop): "
            + "; ".join(at_chance.values())
            + "."
        )
    return [part for line in lines for part in (line, "")]  # a paragraph each


def _base_model_line(block: dict[str, Any] | None) -> list[str]:
    """One paragraph for ``--base tuned|taught``: what theta_p was taught, and the control."""
    if not block:
        return []
    corpus, training, cache = block["corpus"], block["training"], block["cache"]
    kinds = ", ".join(f"{k} {v}" for k, v in corpus["counts"].items())
    line = (
        f"**Base model theta_p: {block['kind']}**: fine-tuned on {corpus['n_examples']} examples "
        f"({kinds}; worked examples from `{corpus['teach_source']}`, on no fact the run "
        f"unlearns, retains or scores), {training['steps']} steps, lr {block['settings']['lr']}, "
        f"{block['settings']['epochs']} epochs; "
        + (
            "loaded from the run's cache."
            if cache.get("hit")
            else f"{training['wall_time_s']:.0f} s."
        )
    )
    control = block.get("control")
    if control:
        per = control["per_type"]
        line += (
            " **Control** (taught without the forget facts' statements), accuracy on the scored "
            "questions, control vs taught: "
            + "; ".join(
                f"{t} {_pct(v['acc_control'])} vs {_pct(v['acc_taught'])} (chance {_chance(v['chance'])})"
                for t, v in per.items()
            )
            + "."
        )
    return [line, ""]


def _set_by(m: dict[str, Any]) -> str:
    cells = m.get("robustness_set_by")
    if not cells:
        return "-" if "robustness_set_by" in m else "n/a (older run)"
    return ", ".join(f"{c['attack']} {c['hop']}" for c in cells)


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    fmt = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    lines = [fmt.format(*header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += [fmt.format(*map(str, r)) for r in rows]
    return "\n".join(lines)


def _title(results: dict[str, Any]) -> str:
    """First line; a short run (--allow-fewer) says so here, with requested and actual sizes."""
    sizes = results.get("sizes") or {}
    if not sizes.get("short"):
        return "# leakres results"
    req, act = sizes["requested"], sizes["actual"]
    return (
        f"# leakres results (fewer facts than requested: {act['n_forget']} forget / "
        f"{act['n_retain']} retain facts, requested {req['n_forget']} / {req['n_retain']}; "
        f"the base model knew {sizes['n_single_hop_known']} of {sizes['n_single_hop_asked']})"
    )


def _yes_no(value: Any) -> str:
    return "n/a" if value is None else ("yes" if value else "no")


def render(results: dict[str, Any]) -> str:
    parts = _header(results)
    parts += _fq_section(results)
    parts += _rr_section(results)
    parts += _triangle_section(results)
    parts += comparisons.summary_lines(results)  # --seeds' table, paired tests between methods
    parts += _training_section(results)
    from leakres_cli.outputs.curves import summary_lines

    parts += summary_lines(results, _table)  # --attack-budgets curves, the controls
    parts += _notes(results)
    timings = results["timings_s"]
    parts += [f"Wall time: {timings['total']:.1f} s (" + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items() if k != "total") + ")", ""]  # fmt: skip
    parts += _profile(results)
    return "\n".join(parts)


def _header(results: dict[str, Any]) -> list[str]:
    """The title, the run's configuration, dataset sizes and decoding."""
    cfg = results["config"]
    ds = results["dataset"]
    decoding = results.get("decoding") or {}
    parts = [
        _title(results),
        "",
        *_first_lines(results),
        f"Model `{cfg['model']}` · source `{cfg['source']}` · methods {', '.join(cfg['methods'])} · "
        f"attacks {', '.join(cfg['attacks'])} · judge `{cfg['judge']}` · seed {cfg['seed']}",
        "",
        *_base_model_line(results.get("base_model")),
        f"Questions built: {ds['counts']}; the base model knew {ds['n_single_hop_known']} of "
        f"{ds['n_single_hop_asked']} single-hop facts; {len(results['forget_facts'])} forget and "
        f"{len(results['retain_facts'])} retain facts; scored questions per type: {results['scored_questions']}.",
        "",
        "Values in % with bootstrap 95% CI in brackets; n/a = undefined (e.g. base accuracy 0 or empty S_suc).",
        "",
    ]
    if decoding:
        parts += [
            f"Decoding (evaluation and every attack): {decoding['max_new_tokens']} new tokens, "
            f"batch {decoding['batch_size']} rows (sequences decoded at once), seed {decoding['seed']}, stop on EOS"
            + (f" or {decoding['stop']}" if decoding.get("stop") else "")
            + (
                f" or at the end of the committed answer (`{decoding['answer_end']}`)"
                if decoding.get("answer_end")
                else ""
            )
            + ("; chat template" if decoding.get("chat_template") else "")
            + (f"; prompt form `{decoding['prompt_form']}`" if decoding.get("prompt_form") else ""),
            "",
        ]
    return parts


def _fq_section(results: dict[str, Any]) -> list[str]:
    """Forget Quality per method and type: one column per registered type-level metric."""
    parts: list[str] = []
    types = list(results["scored_questions"])
    specs = shown_metrics("type")
    rows = []
    for method, m in results["methods"].items():
        for t in types:
            pt = m["per_type"][t]
            rows.append([method, t, pt["n"], _chance(pt.get("chance")),
                         *(metric_text(s, lookup(pt, s)) for s in specs), m["s_suc"].get(t, 0)])  # fmt: skip
    parts += ["## Forget Quality", "",
              "chance = accuracy of a uniform guess among the options shown (1/2 yes/no, 1/k for k "
              "options, - for open questions). FQ cc = leakres' own chance-corrected FQ, "
              "1 - (Acc_u - chance) / (Acc_p - chance), not the paper's. A type the base model "
              "answers at chance (95% CI reaching chance, or fewer than 5 right) gets no FQ.", "",
              _table(["method", "type", "n", "chance", *(s.display for s in specs), "S_suc"], rows), ""]  # fmt: skip
    return parts


def _rr_section(results: dict[str, Any]) -> list[str]:
    """Recovery Rate per method and attack (one column pair per registered attack-level metric
    and hop), with the guessing baseline."""
    parts: list[str] = []
    specs = shown_metrics("attack")
    rows = []
    for method, m in results["methods"].items():
        for attack, a in m["attacks"].items():
            cells = [
                c
                for s in specs
                for h in HOPS
                for c in (metric_text(s, lookup(a, s, h)), (lookup(a, s, h) or {}).get("n"))
            ]
            rows.append(
                [
                    method,
                    attack,
                    *cells,
                    a.get("n_unjudged", 0),
                    _guess((a.get("guessing") or {}).get("MH")),
                    ", ".join(f"{t} {_guess(g)}" for t, g in (a.get("guessing") or {}).items()
                              if t not in ("SH", "MH", "label") and g.get("n")) or "-",
                ]
            )  # fmt: skip
    header = [c for s in specs for h in HOPS for c in (f"{s.display} {h}", f"n {h}")]
    parts += ["## Recovery Rate (on S_suc)", "",
              "guessing = recoveries a model that only guesses would make on the same items under "
              "the attack's any-of-N rule (N responses per item): expected count, of n, and the "
              "attack's observed recoveries (leakres' own). RR SH/MH and robustness leave out the "
              "S_suc items of a type the base model answers at chance (a guess, not a recovery); "
              "their guessing counts stay.", "",
              _table(["method", "attack", *header, "unjudged", "guessing MH", "guessing per type"], rows), ""]  # fmt: skip
    return parts


def _triangle_section(results: dict[str, Any]) -> list[str]:
    """The ideal triangle: one column per registered method-level metric (FQ, robustness and
    utility among them), with what explains a value beside it (:data:`TRIANGLE_NOTES`)."""
    specs = shown_metrics("method")
    rows = []
    for method, m in results["methods"].items():
        cells = []
        for s in specs:
            note = TRIANGLE_NOTES.get(s.name)
            cells.append(metric_text(s, lookup(m, s)) + (note[0](m) if note else ""))
            cells += [extra(m) for _, extra in TRIANGLE_AFTER.get(s.name, ())]
        rows.append([method, *cells, training_label(m.get("unlearn") or {})])
    header = [
        h for s in specs for h in (s.display, *(n for n, _ in TRIANGLE_AFTER.get(s.name, ())))
    ]
    return ["## Ideal triangle: forget quality, robustness (1 - max RR), utility", "",
            "Robustness = 1 - max over every (attack, hop) RR cell (the paper's definition); set by = "
            "the cell at that max; pooled = 1 - max over attacks of RR on all of S_suc (hops pooled, "
            "not the paper's). Utility (the radar's) = the lower of the retain ratio (Acc_u / Acc_p on "
            "the retain facts) and the BBH ratio (BBH accuracy of the unlearned / base model on the same "
            "examples; n/a: BBH off), a BBH ratio with a 95% CI wider than +/-10 points being too small "
            "to judge and not used.", "",
            _table(["method", *header, "training"], rows), ""]  # fmt: skip


def _without(m: dict[str, Any]) -> str:
    excluded = ", ".join(m.get("fq_excluded_types") or {})
    return f" (without {excluded})" if excluded else ""


def _basis(m: dict[str, Any]) -> str:
    basis = (m.get("utility") or {}).get("ratio_basis")
    return f" ({basis})" if basis else ""


def _too_small(m: dict[str, Any]) -> str:
    util = m.get("utility") or {}
    return (
        f" {util['bbh_too_small']}" if util.get("bbh_too_small") and util.get("bbh_ratio") else ""
    )


#: what the triangle prints after a metric's value (by registered name; a run's context, not a
#: metric), and the columns that follow a metric's own
TRIANGLE_NOTES = {"forget_quality_all_types": (_without,), "forget_quality_multi_hop": (_without,),
                  "utility": (_basis,), "utility_ratio": (_too_small,)}  # fmt: skip
TRIANGLE_AFTER = {"robustness": (("set by", _set_by),)}


#: how a model `leakres eval` was given came to be, by its kind (no unlearn-zoo record says more)
EXTERNAL_KINDS = {
    "endpoint": "black box behind an endpoint (trained elsewhere)",
    "adapter": "peft adapter (trained elsewhere)",
    "attention_shift": "unlearn-zoo AS adapter (trained elsewhere)",
    "model": "trained elsewhere",
}


def training_label(rec: dict[str, Any]) -> str:
    """The triangle's "training" cell: LoRA / full fine-tuning for a model unlearn-zoo trained,
    what is known of one trained elsewhere (`leakres eval` without an unlearn-zoo record)."""
    if rec.get("method") == "external":
        kind = (rec.get("external") or {}).get("kind")
        return EXTERNAL_KINDS.get(str(kind), "trained elsewhere")
    return "LoRA" if (rec.get("config") or {}).get("use_lora") else "full fine-tuning"


def _training_section(results: dict[str, Any]) -> list[str]:
    """The unlearning run sizes from unlearn-zoo's record (a model trained elsewhere has none: one
    line says so instead of a row of unknowns)."""
    parts: list[str] = []
    rows = []
    elsewhere = []
    for method, m in results["methods"].items():
        if (m.get("unlearn") or {}).get("method") == "external":
            elsewhere.append(f"{method}: {training_label(m['unlearn'])}, no unlearn-zoo record")
            continue
        tr = m.get("training") or {}
        seen = tr.get("forget_examples_seen")
        rows.append([method, f"{'?' if seen is None else seen}/{tr.get('n_forget', '?')}",
                     tr.get("epochs", "?"), tr.get("epochs_completed", "?"), tr.get("steps", "?"),
                     tr.get("planned_steps", "?"), _yes_no(tr.get("cap_hit")),
                     tr.get("stop_reason", "?"), ", ".join(tr.get("computed_by_cli") or []) or "-"])  # fmt: skip
    parts += ["## Unlearning run sizes (from unlearn-zoo's record)", ""]
    if rows:
        parts += [_table(["method", "forget examples seen", "epochs", "epochs done", "steps", "planned steps", "max_steps cap hit", "stop", "computed by the CLI"], rows), ""]  # fmt: skip
    parts += [*(f"- {line}" for line in elsewhere), *([""] if elsewhere else [])]
    return parts


def _notes(results: dict[str, Any]) -> list[str]:
    """Unjudged verdicts and judge agreement (nothing when there are none)."""
    ds = results["dataset"]
    parts: list[str] = []
    unjudged = [
        f"{method}: base {m['n_unjudged']['base']}, unlearned {m['n_unjudged']['unlearned']}, "
        + ", ".join(f"{a} {n}" for a, n in m["n_unjudged"]["attacks"].items())
        for method, m in results["methods"].items()
        if m.get("n_unjudged")
    ]
    if unjudged:
        parts += [
            "Unjudged verdicts (left out of every metric, never counted as wrong; a resumed run "
            f"re-judges them): single-hop base {ds.get('n_single_hop_unjudged', 0)}; "
            + "; ".join(unjudged),
            "",
        ]
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
    return parts


def _profile(results: dict[str, Any]) -> list[str]:
    """The per-stage profile table (a run from before the profile has none: nothing shown)."""
    profile = results.get("profile")
    if not profile:
        return []
    hw = results.get("hardware") or {}
    where = (
        f" on {hw.get('cpu_model', '?')} ({hw.get('device', '?')}, {hw.get('dtype', '?')}, "
        f"{hw.get('torch_threads', '?')} torch threads)"
        if hw
        else ""
    )
    rows = [
        [stage, f"{p.get('wall_s', 0):.1f}", f"{p.get('cpu_s', 0):.1f}", str(p.get("tokens", 0)),
         str(p.get("optimizer_steps", 0))]
        for stage, p in profile.items()
    ]  # fmt: skip
    return [
        f"## Profile per stage{where}",
        "",
        "Exclusive amounts (a stage nested in another is counted once), so each column adds up "
        "to the total; CPU s is this process's CPU time (all threads).",
        "",
        _table(["stage", "wall s", "CPU s", "tokens generated", "optimizer steps"], rows),
        "",
    ]
