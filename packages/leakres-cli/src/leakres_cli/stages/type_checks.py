"""Per question type: the chance level, whether the base model knows the type, and whether enough
questions were scored. All of it is recomputed from the stored cells at every scoring (no cell
holds it), so an old run directory gets these numbers on resume.

leakres' own checks, not the paper's (leak-metrics' :mod:`leak_metrics.chance` says why).
"""

from __future__ import annotations

from typing import Any

from leakres_cli.records import Record, question_options

#: Scored questions per type the ``full`` and ``types`` presets aim for; fewer are named in the
#: summary's first lines with the reason.
MIN_SCORED_PER_TYPE = 40

CHANCE_LABEL = (
    "chance: the accuracy of a uniform guess among the options a question shows (1/2 yes/no, "
    "1/k for k options, 0 open), averaged over the type's scored questions. fq_chance_corrected: "
    "leakres' own FQ with (Acc - chance) / (1 - chance) in place of Acc, i.e. "
    "1 - (Acc_u - chance) / (Acc_p - chance); not the paper's metric"
)


def question_chance(question: Record) -> float:
    """1/k for k shown options; an MT record written before ``options`` existed is yes/no."""
    from leak_metrics import chance_level

    options = question_options(question)
    if not options and question.get("type") == "MT":
        options = ("yes", "no")
    return chance_level(options)


def type_checks(
    base: dict[str, Any], scored: dict[str, list[Record]], boot: dict[str, int]
) -> dict[str, dict[str, Any]]:
    """Per scored type: ``chance``, ``n``, ``n_base_correct`` and ``at_chance`` (the reason the
    type's FQ is not reported, ``"base model at chance on MT (11 of 22)"``, or None)."""
    from leak_metrics import base_at_chance

    out: dict[str, dict[str, Any]] = {}
    for qtype, qs in scored.items():
        chance = sum(question_chance(q) for q in qs) / len(qs) if qs else 0.0
        verdicts = [base["correct"][q["id"]] for q in qs]
        out[qtype] = {
            "chance": chance,
            "n": len(qs),
            "n_base_correct": sum(v is True for v in verdicts),
            "at_chance": base_at_chance(verdicts, chance, qtype, **boot),
        }
    return out


def coverage(
    checks: dict[str, dict[str, Any]],
    counts: dict[str, int],
    shortfall: dict[str, str],
    per_type: int,
    n_forget: int,
) -> dict[str, Any]:
    """Which types have fewer than :data:`MIN_SCORED_PER_TYPE` scored questions, and why."""
    short = {}
    for qtype, check in checks.items():
        n = check["n"]
        if n >= MIN_SCORED_PER_TYPE:
            continue
        built = counts.get(qtype, 0)
        if qtype == "SH":
            why = f"{n} forget facts (--n-forget {n_forget})"
        elif qtype in shortfall:
            why = (
                f"{n} of {built} built reach the {n_forget} forget facts; the knowledge source has "
                f"no more for --per-type {per_type} (kg-qgen: {shortfall[qtype]})"
            )
        else:
            why = f"{n} of {built} built (--per-type {per_type}) reach the {n_forget} forget facts"
        short[qtype] = why
    return {"min_scored_per_type": MIN_SCORED_PER_TYPE, "short": short}
