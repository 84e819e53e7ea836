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
    ``needs``: the inputs ``compute`` takes, by name; ``compute``: the library function;
    ``label``: the text a reader sees in summaries, tables and reports (default ``short``);
    ``key``: where a run's results.json holds it inside its level's block (a dotted path;
    ``{hop}`` stands for SH / MH at the ``attack`` level; "" = the default :attr:`results_key`;
    None = a library metric a run does not compute)."""

    name: str
    short: str
    definition: str
    reference: str
    higher_is_better: bool
    unit: Literal["percent", "ratio", "count"]
    level: Literal["type", "hop", "attack", "method"]
    needs: tuple[str, ...]
    compute: Callable[..., Any]
    label: str = ""
    key: str | None = ""

    @property
    def display(self) -> str:
        """The label readers see (``label``, else ``short``)."""
        return self.label or self.short

    @property
    def results_key(self) -> str | None:
        """The dotted path of this metric in its level's block of results.json: ``key``, else
        the name (``NAME_{hop}`` at the attack level); None when a run does not compute it."""
        if self.key is None or self.key:
            return self.key
        return f"{self.name}_{{hop}}" if self.level == "attack" else self.name

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    def format(self, value: MetricValue, *, ci: bool = True, ci_digits: int | None = None) -> str:
        """The printed form: ``85.4 [75.0, 94.0]`` for a percent, ``n/a: <reason>`` when
        undefined; ``ci=False`` drops the interval, ``ci_digits`` rounds it apart from the value
        (``ci_digits=0``: ``85.4 [75, 94]``, the CLI's summary and report)."""
        return format_metric(value, self.unit, ci=ci, ci_digits=ci_digits)


def format_metric(
    value: MetricValue, unit: str, *, ci: bool = True, ci_digits: int | None = None
) -> str:
    """See :meth:`MetricSpec.format`."""
    if value.value is None:
        return f"n/a: {value.undefined_reason}" if value.undefined_reason else "n/a"
    scale, digits = (100.0, 1) if unit == "percent" else (1.0, 0 if unit == "count" else 3)
    text = f"{scale * value.value:.{digits}f}"
    if ci and value.ci_low is not None and value.ci_high is not None:
        d = digits if ci_digits is None else ci_digits
        text += f" [{scale * value.ci_low:.{d}f}, {scale * value.ci_high:.{d}f}]"
    return text


def _check_plugin(name: str, obj: Any) -> None:
    if not isinstance(obj, MetricSpec):
        raise TypeError(f"entry point {name!r} in {ENTRY_POINT_GROUP!r} is not a MetricSpec")


def _utility(retain_ratio: MetricValue, bbh_ratio: MetricValue | None, **_: Any) -> MetricValue:
    from leak_metrics.utility_axis import utility_axis

    return utility_axis(retain_ratio, bbh_ratio).metric


def _robustness(rr_cells: Any, **kw: Any) -> MetricValue:
    return metrics.robustness_by_cell(rr_cells, **kw)[0]


_PAPER = "paper §5.4"
_OURS = "leakres"

#: the built-in metrics, in the order writers list them (within a level: the column order of the
#: CLI's summary). Positional fields: name, short, definition, reference, higher_is_better, unit,
#: level, needs, compute; then label (what readers see) and key (where results.json holds it).
BUILTIN_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("base_accuracy", "Acc(θp)",
               "accuracy of the model before unlearning on the scored questions",
               _PAPER, True, "percent", "type", ("correct",), metrics.accuracy,
               "Acc base", "acc_base"),
    MetricSpec("unlearned_accuracy", "Acc(θu)",
               "accuracy of the unlearned model on the scored questions",
               _PAPER, False, "percent", "type", ("correct",), metrics.accuracy,
               "Acc unlearned", "acc_unlearned"),
    MetricSpec("forget_quality", "FQ", "1 - Acc(θu, Q) / Acc(θp, Q) on the same questions",
               _PAPER, True, "percent", "type", ("base_correct", "unlearned_correct"),
               metrics.forget_quality, "FQ", "fq"),
    MetricSpec("chance_corrected_forget_quality", "FQ (chance-corrected)",
               "1 - (Acc(θu) - chance) / (Acc(θp) - chance): FQ measured above guessing",
               _OURS, True, "percent", "type", ("base_correct", "unlearned_correct", "chance"),
               chance.chance_corrected_forget_quality, "FQ cc (leakres)", "fq_chance_corrected"),
    MetricSpec("knowledge_free_forget_quality", "FQ of a guesser",
               "the FQ an answerer that knows nothing gets on the same items: "
               "1 - mean(chance) / Acc(θp)",
               _OURS, True, "percent", "type", ("base_correct", "chances"),
               controls.knowledge_free_forget_quality, key=None),
    MetricSpec("retain_base_accuracy", "retain Acc(θp)",
               "accuracy of the model before unlearning on the retain questions",
               _PAPER, True, "percent", "method", ("correct",), metrics.accuracy,
               "retain base", "retain.acc_base"),
    MetricSpec("retain_accuracy", "retain", "accuracy on the retain questions after unlearning",
               _PAPER, True, "percent", "method", ("correct",), metrics.retain_accuracy,
               "retain unlearned", "retain.acc_unlearned"),
    MetricSpec("forget_quality_all_types", "FQ all",
               "FQ pooled over every scored type whose base model is above chance",
               _PAPER, True, "percent", "method", ("base_correct", "unlearned_correct"),
               metrics.forget_quality, "FQ all types", "fq_all_types"),
    MetricSpec("forget_quality_multi_hop", "FQ MH",
               "FQ pooled over the multi-hop types whose base model is above chance",
               _PAPER, True, "percent", "method", ("base_correct", "unlearned_correct"),
               metrics.forget_quality, "FQ multi-hop", "fq_multi_hop"),
    MetricSpec("robustness", "robustness", "1 - max over every (attack, hop) RR cell",
               _PAPER, True, "percent", "method", ("rr_cells",), _robustness,
               "robustness", "robustness"),
    MetricSpec("robustness_pooled", "robustness pooled",
               "1 - max over attacks of RR on all of S_suc, hops pooled (not the paper's)",
               _OURS, True, "percent", "method", ("rr_by_attack",), metrics.robustness,
               "robustness pooled", "robustness_pooled"),
    MetricSpec("utility", "utility",
               "the radar's utility: the lower of the retain ratio and the BBH ratio (BBH only "
               "when its 95% CI half-width is at most 10 points)",
               _OURS, True, "percent", "method", ("retain_ratio", "bbh_ratio"), _utility,
               "utility (radar)", "utility.ratio"),
    MetricSpec("retain_accuracy_ratio", "retain ratio",
               "Acc(θu) / Acc(θp) on the retain questions",
               _OURS, True, "percent", "method", ("base_correct", "unlearned_correct"),
               metrics.utility_ratio, "retain ratio", "utility.retain_accuracy_ratio"),
    MetricSpec("utility_ratio", "BBH ratio", "BBH Acc(θu) / Acc(θp) on the same examples",
               _PAPER, True, "percent", "method", ("base_correct", "unlearned_correct"),
               metrics.utility_ratio, "BBH ratio", "utility.bbh_ratio"),
    MetricSpec("recovery_rate", "RR",
               "share of S_suc (base right, unlearned wrong) an attack makes right again",
               _PAPER, False, "percent", "attack", ("recovered",), metrics.recovery_rate,
               "RR", "rr_{hop}"),
    MetricSpec("false_recovery_rate", "false RR",
               "share of the items the base model never answered right that the attack "
               "answers right",
               _OURS, False, "percent", "attack", ("base_correct", "attack_correct"),
               controls.false_recovery_rate, key=None),
)  # fmt: skip


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
