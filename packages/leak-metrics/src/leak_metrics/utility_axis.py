"""The utility vertex of the ideal triangle: one number a model that lost its retain facts cannot pass.

A BBH ratio on a handful of items (3 tasks x 5) can read 89% for a model that kept 1 of 24 retain
facts; drawn alone it makes a broken model look ideal. The axis is therefore the *lower* of the
retain-accuracy ratio and the BBH ratio (each a :class:`MetricValue` with its own CI), and a BBH
ratio whose 95% CI is wider than +/- :data:`MAX_HALF_WIDTH` is "too small to judge": it is shown
as such and not used. This is leak-metrics' rule, not the paper's (the paper plots BBH alone, on
27 full tasks).
"""

from __future__ import annotations

from dataclasses import dataclass

from leak_metrics.datatypes import MetricValue

#: Widest 95% CI half-width (in ratio units: 0.10 = 10 points) a BBH ratio may have to be judged.
MAX_HALF_WIDTH = 0.10


def ci_half_width(metric: MetricValue) -> float | None:
    """Half the width of the metric's CI; None when it is undefined or has no CI."""
    if metric.value is None or metric.ci_low is None or metric.ci_high is None:
        return None
    return (metric.ci_high - metric.ci_low) / 2


def too_small_to_judge(metric: MetricValue, max_half_width: float = MAX_HALF_WIDTH) -> str | None:
    """Why the metric is too imprecise to judge (CI half-width over the limit, or no CI), else None."""
    if metric.value is None:
        return None
    half = ci_half_width(metric)
    if half is None:
        return f"too small to judge: no confidence interval ({metric.n} items)"
    if half > max_half_width:
        return (
            f"too small to judge: 95% CI half-width {100 * half:.1f} points > "
            f"{100 * max_half_width:.0f} ({metric.n} items)"
        )
    return None


@dataclass(frozen=True)
class UtilityAxis:
    """The radar's utility and where it comes from.

    Attributes:
        metric: the chosen ratio (value and its own CI); undefined when no ratio is usable.
        basis: ``"retain"`` or ``"bbh"`` (the ratio that was lower), or ``None`` when undefined.
        bbh_too_small: why the BBH ratio was not used (:func:`too_small_to_judge`), else None.
    """

    metric: MetricValue
    basis: str | None
    bbh_too_small: str | None


def utility_axis(
    retain_ratio: MetricValue,
    bbh_ratio: MetricValue | None,
    *,
    max_half_width: float = MAX_HALF_WIDTH,
) -> UtilityAxis:
    """The lower of the retain ratio and the BBH ratio (BBH only when it is precise enough).

    ``bbh_ratio`` None means BBH did not run. Ties go to the retain ratio.
    """
    too_small = too_small_to_judge(bbh_ratio, max_half_width) if bbh_ratio is not None else None
    candidates = [("retain", retain_ratio)]
    if bbh_ratio is not None and too_small is None:
        candidates.append(("bbh", bbh_ratio))
    defined = [(name, m) for name, m in candidates if m.value is not None]
    if not defined:
        reasons = [m.undefined_reason for _, m in candidates if m.undefined_reason]
        reason = "; ".join(reasons) or "no utility ratio is defined"
        return UtilityAxis(MetricValue.undefined(reason, retain_ratio.n), None, too_small)
    name, metric = min(defined, key=lambda item: float(item[1].value))  # type: ignore[arg-type]
    return UtilityAxis(metric, name, too_small)
