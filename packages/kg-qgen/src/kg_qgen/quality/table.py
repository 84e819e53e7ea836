"""The table 6 shape: mean score per question type and judge, with 95% CIs, plus the human row
and the agreement of each LLM judge with the human verdicts.

* A cell is the mean ``overall`` score (mean of the three criteria) of the items the judge
  scored; items it could not score are counted in ``n_failed`` and left out, never imputed.
* 95% CI: percentile bootstrap over items (``n_resamples`` resamples, seeded), so the
  interval needs no normality assumption about bounded 0-100 scores.
* Human row: 100 x validity per type from ``review.sqlite`` with its Wilson interval
  (:mod:`kg_qgen.review.summary`), on the human sample.
* Agreement, per LLM judge, on the items both scored and humans judged: ROC AUC of the LLM's
  logical-correctness score for separating items the human majority found valid from those it
  found invalid (ties in the vote are left out; undefined unless both classes occur), and the
  Pearson correlation between that score and the items' human validity (share of "yes").
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kg_qgen.quality.judge import ItemScore
from kg_qgen.quality.prompt import CRITERIA
from kg_qgen.review.sampling import type_order
from kg_qgen.review.storage import Annotation
from kg_qgen.review.summary import ReviewSummary

__all__ = [
    "MeanCI",
    "agreement_with_human",
    "bootstrap_mean",
    "format_table6",
    "pearson",
    "roc_auc",
    "table6",
]

METHOD_NOTE = (
    "cell = mean overall score (mean of logical correctness, clarity, naturalness; 0-100) over "
    "the items the judge scored; 95% CI = percentile bootstrap over items; human = 100 x "
    "validity with a Wilson interval; agreement = ROC AUC and Pearson r of the LLM "
    "logical-correctness score against the human verdicts"
)


@dataclass(frozen=True)
class MeanCI:
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    undefined_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bootstrap_mean(values: Sequence[float], n_resamples: int = 2000, seed: int = 0) -> MeanCI:
    """Mean with a 95% percentile-bootstrap interval (seeded)."""
    import numpy as np

    if not values:
        return MeanCI(None, None, None, 0, "no scored items")
    arr = np.asarray(values, dtype=float)
    mean = float(arr.mean())
    if len(arr) == 1 or n_resamples < 1:
        return MeanCI(mean, None, None, len(arr), None)
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    chunk = max(1, 2_000_000 // len(arr))  # bound memory: at most ~2M indices at a time
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = rng.integers(0, len(arr), size=(stop - start, len(arr)))
        means[start:stop] = arr[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return MeanCI(mean, float(lo), float(hi), len(arr))


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """P(score of a positive > score of a negative), ties counting 1/2 (Mann-Whitney U / n+n-)."""
    if not positives or not negatives:
        return None
    neg = sorted(negatives)
    total = 0.0
    for p in positives:
        below = bisect.bisect_left(neg, p)
        equal = bisect.bisect_right(neg, p) - below
        total += below + 0.5 * equal
    return total / (len(positives) * len(negatives))


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None when fewer than 3 pairs or either side is constant."""
    n = len(x)
    if n != len(y):
        raise ValueError("x and y differ in length")
    if n < 3:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / math.sqrt(sxx * syy)


def agreement_with_human(
    scores: Sequence[ItemScore], annotations: Sequence[Annotation]
) -> dict[str, Any]:
    """How one judge's logical-correctness scores agree with the human verdicts."""
    votes: dict[str, list[bool]] = {}
    for a in annotations:
        if a.verdict is not None:
            votes.setdefault(a.item_id, []).append(a.verdict)
    llm = {s.id: s.scores["logical_correctness"] for s in scores if s.scores is not None}
    both = [i for i in votes if i in llm]
    out: dict[str, Any] = {"n_items": len(both), "auc": None, "pearson_r": None}
    if not both:
        out["undefined_reason"] = "no item has both a human verdict and a score from this judge"
        return out
    share = {i: sum(votes[i]) / len(votes[i]) for i in both}
    pos = [llm[i] for i in both if share[i] > 0.5]
    neg = [llm[i] for i in both if share[i] < 0.5]
    out.update(
        n_valid=len(pos),
        n_invalid=len(neg),
        n_tied=len(both) - len(pos) - len(neg),
        auc=roc_auc(pos, neg),
        pearson_r=pearson([share[i] for i in both], [llm[i] for i in both]),
        human_validity_pct=100 * sum(share.values()) / len(both),
        llm_logical_mean=sum(llm[i] for i in both) / len(both),
    )
    reasons = []
    if out["auc"] is None:
        reasons.append("AUC needs items the humans found valid and items they found invalid")
    if out["pearson_r"] is None:
        reasons.append("Pearson r needs >= 3 items and variation on both sides")
    out["undefined_reason"] = "; ".join(reasons) or None
    return out


def table6(
    scores: Mapping[str, Sequence[ItemScore]],
    *,
    human: ReviewSummary | None = None,
    annotations: Sequence[Annotation] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """The whole table as plain data (written to ``table6.json``)."""
    types = type_order([s.type for ss in scores.values() for s in ss])
    judges: dict[str, Any] = {}
    for name, items in scores.items():
        ok = [s for s in items if s.overall is not None]
        per_type = {
            t: bootstrap_mean([s.overall for s in ok if s.type == t], n_resamples, seed).to_dict()  # type: ignore[misc]
            for t in types
        }
        per_type["all"] = bootstrap_mean([s.overall for s in ok], n_resamples, seed).to_dict()  # type: ignore[misc]
        criteria = {
            c: bootstrap_mean([s.scores[c] for s in ok], n_resamples, seed).to_dict()  # type: ignore[index]
            for c in CRITERIA
        }
        failed = [s for s in items if s.overall is None]
        judges[name] = {
            "per_type": per_type,
            "criteria": criteria,
            "n_items": len(items),
            "n_failed": len(failed),
            "first_error": failed[0].error if failed else None,
        }
    out: dict[str, Any] = {"types": types, "judges": judges, "human": None, "agreement": None}
    if human is not None:
        rows = {r.type: r for r in [*human.per_type, human.overall]}
        out["human"] = {
            t: {
                "value": None if r.validity is None else 100 * r.validity,
                "ci_low": None if r.ci_low is None else 100 * r.ci_low,
                "ci_high": None if r.ci_high is None else 100 * r.ci_high,
                "n": r.n_judged,
            }
            for t, r in rows.items()
        }
    if annotations:
        out["agreement"] = {
            name: agreement_with_human(items, annotations) for name, items in scores.items()
        }
    out["method"] = METHOD_NOTE
    return out


def _cell(m: Mapping[str, Any] | None) -> str:
    if not m or m.get("value") is None:
        return "n/a"
    if m.get("ci_low") is None:
        return f"{m['value']:.1f}"
    return f"{m['value']:.1f} [{m['ci_low']:.1f}, {m['ci_high']:.1f}]"


def format_table6(table: Mapping[str, Any]) -> str:
    """Markdown: judges x (types + all), then criteria, then agreement."""
    cols = [*table["types"], "all"]
    lines = [
        "| judge | " + " | ".join(cols) + " | failed |",
        "|---|" + "---|" * (len(cols) + 1),
    ]
    human = table.get("human")
    if human:
        lines.append(
            "| Human (validity) | " + " | ".join(_cell(human.get(c)) for c in cols) + " | - |"
        )
    for name, j in table["judges"].items():
        lines.append(
            f"| {name} | "
            + " | ".join(_cell(j["per_type"].get(c)) for c in cols)
            + f" | {j['n_failed']}/{j['n_items']} |"
        )
    lines += ["", "| judge | " + " | ".join(CRITERIA) + " |", "|---|" + "---|" * len(CRITERIA)]
    for name, j in table["judges"].items():
        lines.append(f"| {name} | " + " | ".join(_cell(j["criteria"][c]) for c in CRITERIA) + " |")
    agreement = table.get("agreement")
    if agreement:
        lines += [
            "",
            "| judge vs human | items | valid/invalid/tied | AUC | Pearson r |",
            "|---|---|---|---|---|",
        ]
        notes = []
        for name, a in agreement.items():
            auc = "n/a" if a.get("auc") is None else f"{a['auc']:.3f}"
            r = "n/a" if a.get("pearson_r") is None else f"{a['pearson_r']:.3f}"
            split = f"{a.get('n_valid', 0)}/{a.get('n_invalid', 0)}/{a.get('n_tied', 0)}"
            lines.append(f"| {name} | {a['n_items']} | {split} | {auc} | {r} |")
            if a.get("undefined_reason"):
                notes.append(f"n/a for {name}: {a['undefined_reason']}")
        lines += ["", *notes] if notes else []
    lines += ["", f"({table['method']})"]
    return "\n".join(lines)
