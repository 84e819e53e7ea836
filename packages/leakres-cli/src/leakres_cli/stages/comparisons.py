"""Paired tests between methods on the same questions (issue 38 item 2): results.json's
``comparisons``, computed from the methods' cells (runs no model).

Every pair of methods is compared on the questions both were scored on, item by item
(leak-metrics' :mod:`~leak_metrics.comparisons`): FQ per question type
(``compare_forget_quality``: FQ_A - FQ_B from the per-question verdicts, the base model's being
shared) and robustness (``compare_robustness``: 1 - max over (attack, hop) RR, from each
question's S_suc membership and recoveries). Each has a paired percentile bootstrap CI over the
questions and a two-sided permutation p-value; the p-values of one metric (one FQ type, or
robustness) over every pair of methods are one family, Holm-corrected. With several seeds a
question's verdicts are averaged over the seeds (FQ) or its records kept per seed (robustness),
so the difference is that of the seed means and the test stays paired on the question. A type
whose base model is at chance (no FQ reported) is not compared, nor counted in robustness.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from leakres_cli.config.run_config import RunConfig, multi_hop_types
from leakres_cli.records import Record
from leakres_cli.stages.results import Selection
from leakres_cli.stages.scoring import MethodCells, successfully_unlearned_ids
from leakres_cli.stages.type_checks import type_checks

TEST_LABEL = (
    "paired on the same questions: difference A - B in points, 95% paired percentile bootstrap "
    "CI over questions, two-sided permutation p-value (sign flips for FQ, swaps of each "
    "question's records for robustness), Holm-corrected over every pair of methods per metric; "
    "with several seeds, per-question verdicts pooled over the seeds (difference of seed means)"
)


def comparisons_record(
    cfg: RunConfig,
    seeds: Sequence[int],
    cells: dict[str, dict[int, MethodCells]],
    chosen: Selection,
    base: dict[str, Any],
) -> dict[str, Any]:
    """results.json's ``comparisons``: ``fq`` (type -> one entry per pair of methods),
    ``robustness`` (one entry per pair), the types left out and the test's description."""
    from leak_metrics.comparisons import ALPHA, compare_forget_quality, compare_robustness

    boot = {"seed": cfg.seed, "n_resamples": cfg.bootstrap}
    checks = type_checks(base, chosen.scored, boot)
    excluded = {t: c["at_chance"] for t, c in checks.items() if c["at_chance"]}
    pairs = list(itertools.combinations(cells, 2))
    fq: dict[str, list[dict[str, Any]]] = {}
    for qtype, qs in chosen.scored.items():
        if qtype in excluded:
            continue
        b = [base["correct"][q["id"]] for q in qs]
        family = [
            compare_forget_quality(b, _mean_verdicts(cells[x], seeds, qs),
                                   _mean_verdicts(cells[y], seeds, qs), **boot)
            for x, y in pairs
        ]  # fmt: skip
        fq[qtype] = _entries(pairs, family, f"forgets {qtype}", ALPHA)
    items = [q for t, qs in chosen.scored.items() if t not in excluded for q in qs]
    hops = _hops(items, chosen.scored)
    recoveries = {
        m: _recoveries(by_seed, seeds, items, base, chosen.scored) for m, by_seed in cells.items()
    }
    robust = [compare_robustness(recoveries[x], recoveries[y], hops, **boot) for x, y in pairs]  # fmt: skip
    return {
        "test": TEST_LABEL,
        "seeds": list(seeds),
        "alpha": ALPHA,
        "fq": fq,
        "robustness": _entries(pairs, robust, "resists recovery", ALPHA),
        "excluded_types": excluded,
    }


def _entries(pairs: list[tuple[str, str]], family: list, what: str, alpha: float) -> list[dict]:
    """One family's comparisons, Holm-corrected, as JSON with the report's sentence."""
    from leak_metrics.comparisons import describe, with_holm

    out = []
    for (a, b), c in zip(pairs, with_holm(family), strict=True):
        out.append(
            {
                "a": a,
                "b": b,
                "difference": c.difference,
                "ci_low": c.ci_low,
                "ci_high": c.ci_high,
                "p_value": c.p_value,
                "p_holm": c.p_holm,
                "n": c.n,
                "significant": c.significant(alpha),
                "sentence": describe(a, b, what, c, alpha=alpha),
            }
        )
    return out


def _mean_verdicts(
    by_seed: dict[int, MethodCells], seeds: Sequence[int], qs: list[Record]
) -> list[float | None]:
    """Each question's unlearned verdict averaged over the seeds that judged it (None: none did)."""
    out: list[float | None] = []
    for q in qs:
        judged = [by_seed[s].evaluation["correct"][q["id"]] for s in seeds]
        judged = [v for v in judged if v is not None]
        out.append(sum(map(float, judged)) / len(judged) if judged else None)
    return out


def _hops(items: list[Record], scored: dict[str, list[Record]]) -> list[str]:
    from leak_metrics.metrics import hop_of

    multi_hop = multi_hop_types(scored)
    return [hop_of(q["type"], multi_hop) for q in items]


def _recoveries(
    by_seed: dict[int, MethodCells],
    seeds: Sequence[int],
    items: list[Record],
    base: dict[str, Any],
    scored: dict[str, list[Record]],
) -> list[dict[str, list[bool | None]]]:
    """Per seed, attack -> each item's ``recovered`` verdict (None outside that seed's S_suc)."""
    runs = []
    for s in seeds:
        cells = by_seed[s]
        s_suc = {i for ids in successfully_unlearned_ids(base, cells.evaluation, scored).values()
                 for i in ids}  # fmt: skip
        runs.append(
            {
                attack: [
                    cell["recovered"].get(q["id"]) if q["id"] in s_suc else None for q in items
                ]
                for attack, cell in cells.attacks.items()
            }
        )
    return runs
