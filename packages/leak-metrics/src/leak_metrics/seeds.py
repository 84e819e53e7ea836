"""Summaries of one metric over several seeds (issue 38 item 2): mean, standard deviation and
each seed's value, so a ranking that a second seed overturns shows as such."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from leak_metrics.datatypes import MetricValue

__all__ = ["SeedSummary", "summarize_seeds"]


@dataclass(frozen=True)
class SeedSummary:
    """``mean`` and ``std`` (sample standard deviation, ddof 1; None for one seed) over the seeds
    where the metric is defined; ``per_seed`` keeps every seed's value (None = undefined)."""

    mean: float | None
    std: float | None
    per_seed: dict[int, float | None]
    n_defined: int


def summarize_seeds(values: Mapping[int, MetricValue]) -> SeedSummary:
    """Mean, standard deviation and per-seed values of one metric (``{seed: MetricValue}``)."""
    per_seed = {seed: v.value for seed, v in sorted(values.items())}
    defined = np.asarray([v for v in per_seed.values() if v is not None], dtype=float)
    if defined.size == 0:
        return SeedSummary(None, None, per_seed, 0)
    std = float(defined.std(ddof=1)) if defined.size > 1 else None
    return SeedSummary(float(defined.mean()), std, per_seed, int(defined.size))
