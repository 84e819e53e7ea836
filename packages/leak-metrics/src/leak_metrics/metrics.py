"""Paper section 5.4 metrics, each returned as a :class:`MetricValue` with a bootstrap 95% CI.

Confidence intervals: percentile bootstrap over items (questions), ``n_resamples`` (default 1000)
resamples drawn with ``numpy.random.default_rng(seed)``; the CI is the 2.5th and 97.5th percentile
of the resampled statistic. Paired metrics (Forget Quality, utility ratio) resample the same item
indices on both sides. Resamples on which a ratio is undefined (denominator 0) are dropped; the
number dropped is small unless the base accuracy itself is near 0.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from leak_metrics.datatypes import MetricValue

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
CI_LEVEL = 0.95
# The built-in question types of docs/ARCHITECTURE.md section 1 (kg-qgen's QUESTION_TYPES; a
# root test, tests/test_shared_contracts.py, keeps the copies in step). Only the defaults of
# hop_of / recovery_rate_by_hop: a caller with plugin types passes its own multi-hop set.
QUESTION_TYPES: tuple[str, ...] = ("SH", "HS", "MP", "LL", "CC", "DS", "MT")
MULTI_HOP_TYPES = frozenset(QUESTION_TYPES) - {"SH"}


def _percentile_ci(samples: np.ndarray) -> tuple[float | None, float | None]:
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return None, None
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def _resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_resamples, n))


def _split_judged(values: Sequence[bool | None]) -> tuple[np.ndarray, int]:
    judged = [bool(v) for v in values if v is not None]
    return np.asarray(judged, dtype=float), len(values) - len(judged)


def accuracy(
    correct: Sequence[bool | None],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """Fraction of judged items that are correct. ``None`` (unjudged) items are excluded from
    ``n`` and counted in ``n_unjudged``. Undefined when no item was judged."""
    values, n_unjudged = _split_judged(correct)
    if values.size == 0:
        return MetricValue.undefined("no judged items", 0, n_unjudged)
    samples = values[_resample_indices(values.size, n_resamples, seed)].mean(axis=1)
    low, high = _percentile_ci(samples)
    return MetricValue(float(values.mean()), low, high, int(values.size), None, n_unjudged)


retain_accuracy = accuracy


def _paired_ratio_metric(
    base: Sequence[bool | None],
    other: Sequence[bool | None],
    *,
    one_minus: bool,
    undefined_reason: str,
    seed: int,
    n_resamples: int,
    chance: float = 0.0,
) -> MetricValue:
    """(Acc_o - chance) / (Acc_b - chance), or 1 minus it; undefined when Acc_b <= chance."""
    if len(base) != len(other):
        raise ValueError(f"paired inputs differ in length: {len(base)} vs {len(other)}")
    keep = [
        i
        for i, (b, o) in enumerate(zip(base, other, strict=True))
        if b is not None and o is not None
    ]
    n_unjudged = len(base) - len(keep)
    if not keep:
        return MetricValue.undefined("no item judged on both sides", 0, n_unjudged)
    b = np.asarray([bool(base[i]) for i in keep], dtype=float)
    o = np.asarray([bool(other[i]) for i in keep], dtype=float)
    if b.mean() <= chance:
        return MetricValue.undefined(undefined_reason, len(keep), n_unjudged)

    def statistic(b_acc: np.ndarray, o_acc: np.ndarray) -> np.ndarray:
        above = b_acc - chance
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(above > 0, (o_acc - chance) / np.where(above > 0, above, 1), np.nan)
        return 1 - ratio if one_minus else ratio

    idx = _resample_indices(len(keep), n_resamples, seed)
    samples = statistic(b[idx].mean(axis=1), o[idx].mean(axis=1))
    value = float(statistic(np.asarray([b.mean()]), np.asarray([o.mean()]))[0])
    low, high = _percentile_ci(samples)
    return MetricValue(value, low, high, len(keep), None, n_unjudged)


def forget_quality(
    base_correct: Sequence[bool | None],
    unlearned_correct: Sequence[bool | None],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """FQ = 1 - Acc(theta_u, Q) / Acc(theta_p, Q) over the same questions (paired by position).

    Negative when unlearning raised accuracy. Undefined (``value=None``, reason "base accuracy is
    0") when the base model answers none of the judged questions. Questions unjudged on either side
    are dropped from both.
    """
    return _paired_ratio_metric(
        base_correct,
        unlearned_correct,
        one_minus=True,
        undefined_reason="base accuracy is 0",
        seed=seed,
        n_resamples=n_resamples,
    )


def utility_ratio(
    base_correct: Sequence[bool | None],
    unlearned_correct: Sequence[bool | None],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """Utility = Acc_u / Acc_p on the same BBH examples (paired). Undefined when Acc_p = 0."""
    return _paired_ratio_metric(
        base_correct,
        unlearned_correct,
        one_minus=False,
        undefined_reason="base BBH accuracy is 0",
        seed=seed,
        n_resamples=n_resamples,
    )


def successfully_unlearned(
    base_correct: Mapping[str, bool | None], unlearned_correct: Mapping[str, bool | None]
) -> list[str]:
    """S_suc: ids the base model answered correctly and the unlearned model does not (greedy).

    Unjudged ids on either side are not in S_suc. Ids missing from ``unlearned_correct`` are an
    error (the two runs must cover the same questions).
    """
    missing = [qid for qid in base_correct if qid not in unlearned_correct]
    if missing:
        raise ValueError(f"{len(missing)} ids missing from unlearned results, e.g. '{missing[0]}'")
    return [
        qid for qid, ok in base_correct.items() if ok is True and unlearned_correct[qid] is False
    ]


def recovery_rate(
    recovered: Sequence[bool | None],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """RR = (# items of S_suc the attack makes correct again) / |S_suc|.

    ``recovered`` has one entry per item of S_suc (``None`` = unjudged, excluded and counted).
    Undefined when S_suc is empty.
    """
    if len(recovered) == 0:
        return MetricValue.undefined("S_suc is empty (nothing was successfully unlearned)")
    result = accuracy(recovered, seed=seed, n_resamples=n_resamples)
    if result.value is None:
        return MetricValue.undefined("no S_suc item was judged", 0, result.n_unjudged)
    return result


def hop_of(question_type: str, multi_hop_types: Collection[str] = MULTI_HOP_TYPES) -> str:
    """``"SH"`` for single-hop questions, ``"MH"`` for the multi-hop types.

    ``multi_hop_types`` defaults to the six built-in multi-hop types; a caller that knows more
    types (the CLI reads kg-qgen's registry, plugin types included) passes its own set, since
    this library does not import kg-qgen.
    """
    if question_type == "SH":
        return "SH"
    if question_type in multi_hop_types:
        return "MH"
    raise ValueError(
        f"unknown question type '{question_type}'; expected SH or one of {sorted(multi_hop_types)}"
    )


def recovery_rate_by_hop(
    records: Iterable[Mapping[str, Any]],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    multi_hop_types: Collection[str] = MULTI_HOP_TYPES,
) -> dict[str, MetricValue]:
    """RR for single-hop and multi-hop separately.

    Each record is ``{"id", "type", "recovered": bool | None}`` for one item of S_suc. Returns
    ``{"SH": MetricValue, "MH": MetricValue, "all": MetricValue}``. ``multi_hop_types``: as in
    :func:`hop_of`.
    """
    groups: dict[str, list[bool | None]] = {"SH": [], "MH": [], "all": []}
    for record in records:
        groups[hop_of(str(record["type"]), multi_hop_types)].append(record["recovered"])
        groups["all"].append(record["recovered"])
    return {
        hop: recovery_rate(values, seed=seed, n_resamples=n_resamples)
        for hop, values in groups.items()
    }


def robustness(
    rr_by_attack: Mapping[str, MetricValue | Sequence[bool | None]],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> MetricValue:
    """Robustness = 1 - max over attacks of RR (undefined attacks are ignored).

    With per-item ``recovered`` sequences the CI is a bootstrap of ``1 - max RR``: attacks over the
    same S_suc (equal lengths) are resampled jointly (paired), otherwise each independently. With
    only ``MetricValue`` inputs the CI is ``[1 - max ci_high, 1 - max ci_low]`` (a conservative
    envelope, not a bootstrap). ``n`` is the largest attack ``n``.
    """
    if not rr_by_attack:
        return MetricValue.undefined("no attacks given")
    if all(isinstance(v, MetricValue) for v in rr_by_attack.values()):
        defined = [v for v in rr_by_attack.values() if isinstance(v, MetricValue) and v.defined]
        if not defined:
            return MetricValue.undefined("RR undefined for every attack")
        value = 1 - max(float(v.value) for v in defined)  # type: ignore[arg-type]
        highs = [v.ci_high for v in defined if v.ci_high is not None]
        lows = [v.ci_low for v in defined if v.ci_low is not None]
        ci_low = 1 - max(highs) if highs else None
        ci_high = 1 - max(lows) if lows else None
        return MetricValue(value, ci_low, ci_high, max(v.n for v in defined))

    arrays: list[np.ndarray] = []
    n_unjudged = 0
    for name, values in rr_by_attack.items():
        if isinstance(values, MetricValue):
            raise TypeError(f"attack '{name}': mix of MetricValue and sequences is not supported")
        judged, missing = _split_judged(values)
        n_unjudged += missing
        if judged.size:
            arrays.append(judged)
    if not arrays:
        return MetricValue.undefined("RR undefined for every attack", 0, n_unjudged)
    value = 1 - max(float(a.mean()) for a in arrays)
    rng = np.random.default_rng(seed)
    lengths = {a.size for a in arrays}
    if len(lengths) == 1:
        idx = rng.integers(0, arrays[0].size, size=(n_resamples, arrays[0].size))
        stacked = np.stack([a[idx].mean(axis=1) for a in arrays])
    else:
        stacked = np.stack(
            [a[rng.integers(0, a.size, size=(n_resamples, a.size))].mean(axis=1) for a in arrays]
        )
    low, high = _percentile_ci(1 - stacked.max(axis=0))
    return MetricValue(value, low, high, max(a.size for a in arrays), None, n_unjudged)


def robustness_by_cell(
    rr_cells: Mapping[tuple[str, str], Sequence[bool | None]],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> tuple[MetricValue, list[tuple[str, str]]]:
    """The paper's robustness: 1 - max over every (attack, hop) RR cell that is defined.

    ``rr_cells[(attack, hop)]`` holds the per-item ``recovered`` verdicts of one cell (``None`` =
    unjudged, left out of that cell's RR as in :func:`recovery_rate`); cells with no judged item
    are ignored. Returns the metric and the cells that set it (every cell whose RR equals the
    maximum, in input order), so a report can name them. Unlike :func:`robustness`, which pools
    the hops, a multi-hop cell of 0.7 next to a single-hop cell of 0.4 gives 0.3 here.

    The CI is a bootstrap of ``1 - max RR``: the cells of one hop are over the same items (their
    sequences must have equal length) and are resampled jointly (paired); different hops are
    resampled independently. ``n`` is the judged size of the (first) cell that sets the value.
    """
    arrays: dict[tuple[str, str], np.ndarray] = {}
    n_unjudged = 0
    for key, values in rr_cells.items():
        arrays[key] = np.asarray([np.nan if v is None else float(bool(v)) for v in values])
        n_unjudged += sum(v is None for v in values)
    rates = {key: float(np.nanmean(a)) for key, a in arrays.items() if np.isfinite(a).any()}
    if not rates:
        return MetricValue.undefined("RR undefined for every (attack, hop) cell", 0, n_unjudged), []
    top = max(rates.values())
    set_by = [key for key, rate in rates.items() if rate == top]
    hops: dict[str, int] = {}
    for (attack, hop), a in arrays.items():
        if hops.setdefault(hop, a.size) != a.size:
            raise ValueError(
                f"cell ({attack}, {hop}): {a.size} items, but another {hop} cell has {hops[hop]}"
            )
    rng = np.random.default_rng(seed)
    hop_idx = {hop: rng.integers(0, size, size=(n_resamples, size)) for hop, size in hops.items()}
    resampled = []
    for (_, hop), a in arrays.items():
        if not np.isfinite(a).any():
            continue
        picked = a[hop_idx[hop]]
        judged = np.isfinite(picked).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            resampled.append(np.where(judged > 0, np.nansum(picked, axis=1) / judged, np.nan))
    stacked = np.stack(resampled)
    with np.errstate(invalid="ignore"):
        # a resample where every cell drew only unjudged items has no max: dropped from the CI
        best = np.where(
            np.isfinite(stacked).any(axis=0),
            np.nanmax(np.where(np.isfinite(stacked), stacked, -np.inf), axis=0),
            np.nan,
        )
    low, high = _percentile_ci(1 - best)
    n = int(np.isfinite(arrays[set_by[0]]).sum())
    return MetricValue(1 - top, low, high, n, None, n_unjudged), set_by


def forget_quality_by_type(
    base: Mapping[str, bool | None],
    unlearned: Mapping[str, bool | None],
    types: Mapping[str, str],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> dict[str, MetricValue]:
    """FQ per question type from ``{id: correct}`` maps and ``{id: type}``."""
    by_type: dict[str, list[str]] = {}
    for qid, qtype in types.items():
        by_type.setdefault(qtype, []).append(qid)
    out: dict[str, MetricValue] = {}
    for qtype, ids in sorted(by_type.items()):
        missing = [qid for qid in ids if qid not in base or qid not in unlearned]
        if missing:
            raise ValueError(f"type {qtype}: id '{missing[0]}' lacks a base or unlearned verdict")
        out[qtype] = forget_quality(
            [base[q] for q in ids], [unlearned[q] for q in ids], seed=seed, n_resamples=n_resamples
        )
    return out
