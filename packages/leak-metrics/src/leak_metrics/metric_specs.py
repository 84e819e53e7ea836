"""Metrics that describe themselves (issue 37 item 4): one registration per metric.

A :class:`MetricSpec` says what a metric is (name, one-line definition, paper reference), how to
read it (direction, unit), how to print it, at which level it is reported and what it needs; its
``compute`` is the library function. Writers of results, summaries, tables and reports iterate
:func:`available_metrics` instead of naming metrics by hand, so a new metric is one function
plus one :func:`register_metric` call (or a ``leakres.metrics`` entry point naming a MetricSpec).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from leak_metrics import chance, controls, metrics
from leak_metrics.datatypes import MetricValue
from leak_metrics.plugins import Registry

__all__ = [
    "METRICS",
    "MetricSpec",
    "available_metrics",
    "format_metric",
    "get_metric",
    "register_metric",
]

ENTRY_POINT_GROUP = "leakres.metrics"


@dataclass(frozen=True)
class MetricSpec:
    """``name``: the key results carry; ``short``: the column header; ``definition``: one line;
    ``reference``: where it is defined (the paper's section, or "leakres" for our own);
    ``higher_is_better``: for unlearning (FQ: higher = more forgotten); ``unit``: ``percent``
    (a fraction printed x100), ``ratio`` (printed as is) or ``count``; ``level``: ``type``
    (per question type), ``hop`` (SH / MH), ``attack`` (per attack and hop) or ``method``;
    ``needs``: the inputs ``compute`` takes, by name; ``compute``: the library function."""

    name: str
    short: str
    definition: str
    reference: str
    higher_is_better: bool
    unit: Literal["percent", "ratio", "count"]
    level: Literal["type", "hop", "attack", "method"]
    needs: tuple[str, ...]
    compute: Callable[..., Any]

    def format(self, value: MetricValue, *, ci: bool = True) -> str:
        """The printed form: ``85.4 [75.0, 94.0]`` for a percent, ``n/a: <reason>`` when
        undefined; ``ci=False`` drops the interval."""
        return format_metric(value, self.unit, ci=ci)


def format_metric(value: MetricValue, unit: str, *, ci: bool = True) -> str:
    """See :meth:`MetricSpec.format`."""
    if value.value is None:
        return f"n/a: {value.undefined_reason}" if value.undefined_reason else "n/a"
    scale, digits = (100.0, 1) if unit == "percent" else (1.0, 0 if unit == "count" else 3)
    text = f"{scale * value.value:.{digits}f}"
    if ci and value.ci_low is not None and value.ci_high is not None:
        text += f" [{scale * value.ci_low:.{digits}f}, {scale * value.ci_high:.{digits}f}]"
    return text


def _check_plugin(name: str, obj: Any) -> None:
    if not isinstance(obj, MetricSpec):
        raise TypeError(f"entry point {name!r} in {ENTRY_POINT_GROUP!r} is not a MetricSpec")


#: the built-in metrics, in the order writers list them
BUILTIN_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "base_accuracy",
        "Acc(θp)",
        "accuracy of the model before unlearning on the scored questions",
        "paper §5.4",
        True,
        "percent",
        "type",
        ("correct",),
        metrics.accuracy,
    ),
    MetricSpec(
        "forget_quality",
        "FQ",
        "1 - Acc(θu, Q) / Acc(θp, Q) on the same questions",
        "paper §5.4",
        True,
        "percent",
        "type",
        ("base_correct", "unlearned_correct"),
        metrics.forget_quality,
    ),
    MetricSpec(
        "chance_corrected_forget_quality",
        "FQ (chance-corrected)",
        "1 - (Acc(θu) - chance) / (Acc(θp) - chance): FQ measured above guessing",
        "leakres",
        True,
        "percent",
        "type",
        ("base_correct", "unlearned_correct", "chance"),
        chance.chance_corrected_forget_quality,
    ),
    MetricSpec(
        "knowledge_free_forget_quality",
        "FQ of a guesser",
        "the FQ an answerer that knows nothing gets on the same items: 1 - mean(chance) / Acc(θp)",
        "leakres",
        True,
        "percent",
        "type",
        ("base_correct", "chances"),
        controls.knowledge_free_forget_quality,
    ),
    MetricSpec(
        "retain_accuracy",
        "retain",
        "accuracy on the retain questions after unlearning",
        "paper §5.4",
        True,
        "percent",
        "method",
        ("correct",),
        metrics.retain_accuracy,
    ),
    MetricSpec(
        "recovery_rate",
        "RR",
        "share of S_suc (base right, unlearned wrong) an attack makes right again",
        "paper §5.4",
        False,
        "percent",
        "attack",
        ("recovered",),
        metrics.recovery_rate,
    ),
    MetricSpec(
        "false_recovery_rate",
        "false RR",
        "share of the items the base model never answered right that the attack answers right",
        "leakres",
        False,
        "percent",
        "attack",
        ("base_correct", "attack_correct"),
        controls.false_recovery_rate,
    ),
    MetricSpec(
        "robustness",
        "robustness",
        "1 - max over every (attack, hop) RR cell",
        "paper §5.4",
        True,
        "percent",
        "method",
        ("rr_cells",),
        lambda rr_cells, **kw: metrics.robustness_by_cell(rr_cells, **kw)[0],
    ),
    MetricSpec(
        "utility_ratio",
        "BBH ratio",
        "BBH Acc(θu) / Acc(θp) on the same examples",
        "paper §5.4",
        True,
        "ratio",
        "method",
        ("base_correct", "unlearned_correct"),
        metrics.utility_ratio,
    ),
)


METRICS: Registry[MetricSpec] = Registry(
    "metric", ENTRY_POINT_GROUP, {s.name: s for s in BUILTIN_METRICS}, check=_check_plugin
)


def register_metric(spec: MetricSpec) -> None:
    """Add a metric at run time (it comes before plugins and replaces a same-named one)."""
    if not isinstance(spec, MetricSpec):
        raise TypeError(f"register_metric needs a MetricSpec, got {type(spec).__name__}")
    METRICS.register(spec.name, spec)


def get_metric(name: str) -> MetricSpec:
    """The spec registered as ``name``; unknown names raise UnknownNameError (did you mean ...)."""
    return METRICS.get(name)


def available_metrics(level: str | None = None) -> list[MetricSpec]:
    """Every registered metric (built-ins in registration order, then plugins), optionally only
    those reported at ``level``."""
    specs = [METRICS.get(name) for name in METRICS.names()]
    return [s for s in specs if level is None or s.level == level]
