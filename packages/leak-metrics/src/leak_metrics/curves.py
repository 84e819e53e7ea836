"""Recovery curves over an attack's budget (issue 38 item 1).

An attack's budget is the effort it spends: Probab's number of samples N, quantization's bits,
relearning's steps. A curve is RR at each rung of a ladder of budgets, so a reader sees how much
effort recovery takes, not one number at one budget.

Any-of-N curves come from ONE batched draw of the largest N: an item counts as recovered at
budget N when any of its first N samples (in draw order) is correct, so the curve costs one run
and is monotone (non-decreasing) in N by construction, item by item. Its CIs resample the same
items at every rung (one index matrix), so the bounds are monotone too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from leak_metrics.datatypes import MetricValue
from leak_metrics.metrics import DEFAULT_RESAMPLES, DEFAULT_SEED, _percentile_ci, _resample_indices

__all__ = [
    "any_of_n_curve",
    "budget_to_reach",
    "curve_area",
    "worst_case",
]


def _first_n_recovered(samples: Sequence[bool | None], n: int, item: int) -> float:
    """1.0 when any of the first ``n`` samples is correct; NaN when none is judged."""
    if len(samples) < n:
        raise ValueError(f"item {item}: {len(samples)} samples, but the ladder asks for N = {n}")
    head = samples[:n]
    if any(v is True for v in head):
        return 1.0
    return np.nan if all(v is None for v in head) else 0.0


def any_of_n_curve(
    samples_per_item: Sequence[Sequence[bool | None]],
    budgets: Sequence[int],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> dict[int, MetricValue]:
    """RR at each budget N of ``budgets`` from one draw of the largest N per item.

    ``samples_per_item[i]`` holds item i's sample verdicts in draw order (``None`` = unjudged);
    every item needs at least ``max(budgets)`` of them (a ValueError names the first short item).
    Recovered at N: any of the first N samples is correct. An item whose first N samples are all
    unjudged is left out of that rung (counted in ``n_unjudged``). Returns ``{N: MetricValue}``
    in ladder order; undefined (reason "S_suc is empty") when there are no items.
    """
    ladder = sorted({int(b) for b in budgets})
    if not ladder or ladder[0] < 1:
        raise ValueError(f"budgets must be positive sample counts, got {list(budgets)}")
    if not samples_per_item:
        return {n: MetricValue.undefined("S_suc is empty") for n in ladder}
    matrix = np.asarray(
        [[_first_n_recovered(s, n, i) for n in ladder] for i, s in enumerate(samples_per_item)]
    )  # items x rungs
    idx = _resample_indices(matrix.shape[0], n_resamples, seed)
    out: dict[int, MetricValue] = {}
    for j, n in enumerate(ladder):
        column = matrix[:, j]
        judged = np.isfinite(column)
        n_unjudged = int((~judged).sum())
        if not judged.any():
            out[n] = MetricValue.undefined("no S_suc item was judged", 0, n_unjudged)
            continue
        picked = column[idx]
        with np.errstate(invalid="ignore"):
            resampled = np.nanmean(np.where(np.isfinite(picked), picked, np.nan), axis=1)
        low, high = _percentile_ci(resampled)
        out[n] = MetricValue(
            float(column[judged].mean()), low, high, int(judged.sum()), None, n_unjudged
        )
    return out


def budget_to_reach(curve: Mapping[int, MetricValue], target: float) -> int | None:
    """The smallest budget whose RR reaches ``target`` (e.g. half the base accuracy), or None.

    Undefined rungs never reach it. The ladder is read in increasing budget order.
    """
    for budget in sorted(curve):
        value = curve[budget].value
        if value is not None and value >= target:
            return budget
    return None


def curve_area(curve: Mapping[int, MetricValue]) -> float | None:
    """Area under the curve over the ladder's rungs, each rung one unit wide, divided by the
    number of intervals: a number in [0, 1] comparable across attacks whose budgets have
    different units (samples, bits, steps). One rung: its value. None if any rung is undefined.
    """
    values = [curve[b].value for b in sorted(curve)]
    if not values or any(v is None for v in values):
        return None
    ys = np.asarray(values, dtype=float)
    if ys.size == 1:
        return float(ys[0])
    return float(((ys[1:] + ys[:-1]) / 2).sum() / (ys.size - 1))


def worst_case(values: Mapping[object, MetricValue]) -> tuple[MetricValue, object | None]:
    """The smallest defined value over budgets (worst-case robustness over every budget) and the
    budget that sets it (the first in input order on ties); undefined when none is defined."""
    defined = [(key, v) for key, v in values.items() if v.defined]
    if not defined:
        return MetricValue.undefined("undefined at every budget"), None
    key, value = min(defined, key=lambda kv: float(kv[1].value))  # type: ignore[arg-type]
    return value, key
