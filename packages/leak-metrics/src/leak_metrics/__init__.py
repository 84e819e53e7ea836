"""Judges, Forget Quality, Recovery Rate, BBH utility, tables and plots for unlearning benchmarks.

Core imports need only numpy and matplotlib; the OpenAI-compatible judge needs the ``llm`` extra and
BBH scoring / local judges need the ``local`` extra (imported lazily).
"""

from leak_metrics.chance import (
    base_at_chance,
    chance_corrected_accuracy,
    chance_corrected_forget_quality,
    chance_level,
    guessing_recoveries,
    no_signal,
    type_chance,
)
from leak_metrics.comparisons import (
    PairedComparison,
    compare_forget_quality,
    describe,
    holm,
    paired_difference,
    with_holm,
)
from leak_metrics.controls import false_recovery_rate, knowledge_free_forget_quality, net_recovery
from leak_metrics.curves import any_of_n_curve, budget_to_reach, curve_area, worst_case
from leak_metrics.datatypes import JudgeItem, MetricValue, MultiResponseItem, Verdict
from leak_metrics.errors import (
    InputError,
    JudgeEndpointError,
    LeakMetricsError,
    MissingExtraError,
    UnknownNameError,
)
from leak_metrics.judges import (
    ANSWER_STOP_STRINGS,
    AliasJudge,
    Judge,
    LLMJudge,
    agreement,
    answer_stop,
    available_judges,
    committed_answer,
    get_judge,
    judge_any,
    judge_class,
    judge_needs_endpoint,
    labelled_agreement,
)
from leak_metrics.metric_specs import (
    MetricSpec,
    available_metrics,
    format_metric,
    get_metric,
    register_metric,
)
from leak_metrics.metrics import (
    accuracy,
    forget_quality,
    forget_quality_by_type,
    recovery_rate,
    recovery_rate_by_hop,
    retain_accuracy,
    robustness,
    robustness_by_cell,
    successfully_unlearned,
    utility_ratio,
)
from leak_metrics.seeds import SeedSummary, summarize_seeds
from leak_metrics.utility_axis import UtilityAxis, too_small_to_judge, utility_axis

__version__ = "0.1.0"

__all__ = [
    "ANSWER_STOP_STRINGS",
    "AliasJudge",
    "InputError",
    "Judge",
    "JudgeEndpointError",
    "JudgeItem",
    "LLMJudge",
    "LeakMetricsError",
    "MetricSpec",
    "MetricValue",
    "MissingExtraError",
    "MultiResponseItem",
    "PairedComparison",
    "SeedSummary",
    "UnknownNameError",
    "UtilityAxis",
    "Verdict",
    "__version__",
    "accuracy",
    "agreement",
    "answer_stop",
    "any_of_n_curve",
    "available_judges",
    "available_metrics",
    "base_at_chance",
    "budget_to_reach",
    "chance_corrected_accuracy",
    "chance_corrected_forget_quality",
    "chance_level",
    "committed_answer",
    "compare_forget_quality",
    "curve_area",
    "describe",
    "false_recovery_rate",
    "forget_quality",
    "forget_quality_by_type",
    "format_metric",
    "get_judge",
    "get_metric",
    "guessing_recoveries",
    "holm",
    "judge_any",
    "judge_class",
    "judge_needs_endpoint",
    "knowledge_free_forget_quality",
    "labelled_agreement",
    "net_recovery",
    "no_signal",
    "paired_difference",
    "recovery_rate",
    "recovery_rate_by_hop",
    "register_metric",
    "retain_accuracy",
    "robustness",
    "robustness_by_cell",
    "successfully_unlearned",
    "summarize_seeds",
    "too_small_to_judge",
    "type_chance",
    "utility_axis",
    "utility_ratio",
    "with_holm",
    "worst_case",
]
