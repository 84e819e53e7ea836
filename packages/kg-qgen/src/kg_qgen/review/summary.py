"""Review statistics: validity per type with a 95% CI, the overall 0-100 score, Fleiss' kappa.

Definitions (also printed with every summary):

* An item's validity is the share of its annotators who said "decomposes correctly" (items
  nobody has decided yet are left out). A type's validity is the mean over its judged items, so
  every item weighs the same however many people judged it; with one annotator, or the same
  number of annotators on every item, it equals the share of "yes" verdicts.
* 95% CI: the Wilson score interval for that proportion with n = the number of judged items,
  not the number of verdicts - the annotators of one item are not independent draws, so
  counting each verdict would make the interval too narrow. With one annotator it is the exact
  Wilson interval; with several it is conservative.
* Overall score (paper F.1, 0-100): 100 x the mean validity over all judged items (equal to the
  mean of the per-type validities when every type has the same number of judged items, as in
  a finished session), with its Wilson interval.
* Agreement: Fleiss' kappa (Fleiss 1971) over the items judged by at least two annotators,
  categories yes/no. Items may have different numbers of annotators: each item's agreement
  P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)) uses its own n_i, and p_j pools every verdict;
  with a constant number of annotators this is exactly Fleiss' formula. Kappa is undefined when
  every verdict falls in one category (P_e = 1), which is common for a set that is nearly all
  valid; the summary says so instead of printing a number.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from kg_qgen.csv_safe import csv_safe
from kg_qgen.review.storage import FLAGS, Annotation, SampleRow

__all__ = [
    "KappaResult",
    "ReviewSummary",
    "TypeValidity",
    "annotations_csv",
    "fleiss_kappa",
    "format_summary",
    "summarize",
    "wilson_interval",
]

Z95 = 1.959963984540054  # standard normal quantile for a two-sided 95% interval

METHOD_NOTE = (
    "validity = mean over judged items of the share of annotators saying 'decomposes correctly'; "
    "95% CI = Wilson score interval with n = judged items; score = 100 x overall validity; "
    "agreement = Fleiss' kappa over items with >= 2 annotators"
)


def wilson_interval(p_hat: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p_hat`` observed on ``n`` trials."""
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0.0 <= p_hat <= 1.0:
        raise ValueError(f"p_hat must be in [0, 1], got {p_hat}")
    z2 = z * z
    centre = (p_hat + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p_hat * (1 - p_hat) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class KappaResult:
    value: float | None
    n_items: int  # items with >= 2 ratings
    n_ratings: int
    p_observed: float | None
    p_expected: float | None
    undefined_reason: str | None = None


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> KappaResult:
    """Fleiss' kappa of a ratings table: one row per item, one column per category, each cell the
    number of raters who put that item in that category. Rows with fewer than 2 ratings are
    ignored; rows may have different totals (see the module docstring)."""
    rows = [list(map(int, r)) for r in counts if sum(r) >= 2]
    if any(c < 0 for r in rows for c in r):
        raise ValueError("counts must be non-negative")
    if not rows:
        return KappaResult(None, 0, 0, None, None, "no item was judged by two or more annotators")
    n_ratings = sum(sum(r) for r in rows)
    k = max(len(r) for r in rows)
    totals = [sum(r[j] for r in rows if j < len(r)) for j in range(k)]
    p_j = [t / n_ratings for t in totals]
    p_e = sum(p * p for p in p_j)
    p_i = [(sum(c * c for c in r) - sum(r)) / (sum(r) * (sum(r) - 1)) for r in rows]
    p_bar = sum(p_i) / len(p_i)
    if math.isclose(p_e, 1.0):
        return KappaResult(
            None, len(rows), n_ratings, p_bar, p_e,
            "every verdict is in one category (expected agreement = 1)",
        )  # fmt: skip
    return KappaResult((p_bar - p_e) / (1 - p_e), len(rows), n_ratings, p_bar, p_e)


@dataclass
class TypeValidity:
    type: str
    n_sampled: int
    n_judged: int  # items with at least one verdict
    n_verdicts: int
    n_yes: int
    validity: float | None
    ci_low: float | None
    ci_high: float | None
    flags: dict[str, int] = field(default_factory=dict)  # items flagged by anyone, per flag

    @property
    def score(self) -> float | None:
        return None if self.validity is None else 100 * self.validity


@dataclass
class ReviewSummary:
    per_type: list[TypeValidity]
    overall: TypeValidity
    kappa: KappaResult
    annotators: dict[str, dict[str, Any]]  # name -> {n_judged, n_yes, validity}
    n_comments: int
    method: str = METHOD_NOTE

    @property
    def score(self) -> float | None:
        return self.overall.score

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["score"] = self.score
        for row in [*out["per_type"], out["overall"]]:
            row["score"] = None if row["validity"] is None else 100 * row["validity"]
        return out


def _validity(
    name: str, items: Sequence[SampleRow], by_item: dict[str, list[Annotation]]
) -> TypeValidity:
    item_validities: list[float] = []
    n_verdicts = n_yes = 0
    flags = dict.fromkeys(FLAGS, 0)
    for it in items:
        anns = by_item.get(it.item_id, [])
        decided = [a.verdict for a in anns if a.verdict is not None]
        for flag in FLAGS:
            flags[flag] += any(getattr(a, flag) for a in anns)
        if decided:
            n_verdicts += len(decided)
            n_yes += sum(decided)
            item_validities.append(sum(decided) / len(decided))
    n = len(item_validities)
    if n == 0:
        return TypeValidity(name, len(items), 0, 0, 0, None, None, None, flags)
    validity = sum(item_validities) / n
    lo, hi = wilson_interval(validity, n)
    return TypeValidity(name, len(items), n, n_verdicts, n_yes, validity, lo, hi, flags)


def summarize(sample: Sequence[SampleRow], annotations: Sequence[Annotation]) -> ReviewSummary:
    """Every statistic of a review session from its sample and annotations."""
    by_item: dict[str, list[Annotation]] = {}
    for a in annotations:
        by_item.setdefault(a.item_id, []).append(a)
    types = list(dict.fromkeys(s.type for s in sample))
    per_type = [_validity(t, [s for s in sample if s.type == t], by_item) for t in types]
    overall = _validity("all", sample, by_item)
    table = []
    for s in sample:
        decided = [a.verdict for a in by_item.get(s.item_id, []) if a.verdict is not None]
        table.append([sum(decided), len(decided) - sum(decided)])
    kappa = fleiss_kappa(table)
    annotators: dict[str, dict[str, Any]] = {}
    for a in annotations:
        row = annotators.setdefault(a.annotator, {"n_judged": 0, "n_yes": 0, "validity": None})
        if a.verdict is not None:
            row["n_judged"] += 1
            row["n_yes"] += int(a.verdict)
    for row in annotators.values():
        row["validity"] = row["n_yes"] / row["n_judged"] if row["n_judged"] else None
    n_comments = sum(1 for a in annotations if a.comment.strip())
    return ReviewSummary(per_type, overall, kappa, dict(sorted(annotators.items())), n_comments)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def format_summary(summary: ReviewSummary) -> str:
    """The plain-text table ``kg-qgen review DIR --summary`` prints."""
    head = f"{'type':<6}{'items':>7}{'judged':>8}{'verdicts':>10}{'validity %':>12}{'95% CI':>16}"
    head += "".join(f"{f:>15}" for f in FLAGS)
    lines = [head]
    for row in [*summary.per_type, summary.overall]:
        ci = "n/a" if row.ci_low is None else f"[{_pct(row.ci_low)}, {_pct(row.ci_high)}]"
        line = (
            f"{row.type:<6}{row.n_sampled:>7}{row.n_judged:>8}{row.n_verdicts:>10}"
            f"{_pct(row.validity):>12}{ci:>16}"
        )
        lines.append(line + "".join(f"{row.flags.get(f, 0):>15}" for f in FLAGS))
    score = "n/a" if summary.score is None else f"{summary.score:.1f}"
    o = summary.overall
    ci = "" if o.ci_low is None else f" (95% CI {_pct(o.ci_low)}-{_pct(o.ci_high)})"
    lines.append(f"score (0-100): {score}{ci} on {o.n_judged} judged items")
    k = summary.kappa
    if k.value is not None:
        lines.append(f"Fleiss' kappa: {k.value:.3f} on {k.n_items} items ({k.n_ratings} verdicts)")
    else:
        lines.append(f"Fleiss' kappa: n/a ({k.undefined_reason})")
    for name, a in summary.annotators.items():
        lines.append(f"annotator {name}: {a['n_judged']} judged, validity {_pct(a['validity'])}%")
    lines.append(f"comments: {summary.n_comments}")
    lines.append(f"({summary.method})")
    return "\n".join(lines)


CSV_FIELDS = (
    "annotator", "item_id", "type", "position", "question", "answer", "verdict",
    *FLAGS, "comment", "updated_at",
)  # fmt: skip


def annotations_csv(sample: Sequence[SampleRow], annotations: Sequence[Annotation]) -> str:
    """Every annotation as CSV (verdict ``yes`` / ``no`` / empty when not decided)."""
    by_id = {s.item_id: s for s in sample}
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for a in annotations:
        s = by_id[a.item_id]
        row = {
            "annotator": a.annotator,
            "item_id": a.item_id,
            "type": s.type,
            "position": s.position,
            "question": s.question,
            "answer": s.answer,
            "verdict": "" if a.verdict is None else ("yes" if a.verdict else "no"),
            **{f: int(getattr(a, f)) for f in FLAGS},
            "comment": a.comment,
            "updated_at": a.updated_at,
        }
        # every text cell through csv_safe: a comment "=HYPERLINK(...)" stays text
        writer.writerow({k: csv_safe(v) for k, v in row.items()})
    return buf.getvalue()
