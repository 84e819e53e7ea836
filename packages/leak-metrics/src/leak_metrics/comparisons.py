"""Paired comparisons between two methods on the same questions, Holm-corrected (issue 38 item 2).

Two methods scored on the same questions are compared item by item, not by their CIs side by
side: per-question differences d_i = a_i - b_i; the p-value is a two-sided sign-flip permutation
test of mean(d) (under H0 the two methods are exchangeable on each question, so each d_i's sign
is a coin flip): p = (1 + #{|mean(s * d)| >= |mean(d)|}) / (1 + n_permutations), never 0, and
exactly 1 when a and b are identical. The CI of the difference is a paired percentile bootstrap
over questions. :func:`holm` corrects a family of p-values (every pair of methods) for multiple
comparisons.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from leak_metrics.metrics import DEFAULT_RESAMPLES, DEFAULT_SEED, _percentile_ci, _resample_indices

__all__ = [
    "PairedComparison",
    "compare_forget_quality",
    "compare_robustness",
    "describe",
    "holm",
    "paired_difference",
    "with_holm",
]

DEFAULT_PERMUTATIONS = 10000
ALPHA = 0.05


@dataclass(frozen=True)
class PairedComparison:
    """``a`` minus ``b`` on the same items: the difference, its 95% CI, the raw p-value and (once
    :func:`holm` has been applied to its family) the Holm-adjusted one. ``n``: items compared."""

    difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n: int
    p_holm: float | None = None

    def significant(self, alpha: float = ALPHA) -> bool:
        p = self.p_holm if self.p_holm is not None else self.p_value
        return p is not None and p < alpha


Score = bool | float | None


def _paired(a: Sequence[Score], b: Sequence[Score]) -> tuple[np.ndarray, np.ndarray]:
    if len(a) != len(b):
        raise ValueError(f"paired inputs differ in length: {len(a)} vs {len(b)}")
    keep = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x is not None and y is not None]
    # a bool is 0/1; a float in [0, 1] is one item's verdict averaged over seeds
    return (
        np.asarray([float(a[i]) for i in keep]),  # type: ignore[arg-type]
        np.asarray([float(b[i]) for i in keep]),  # type: ignore[arg-type]
    )


def _sign_flip_p(d: np.ndarray, n_permutations: int, seed: int) -> float:
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    signs = rng.choice((-1.0, 1.0), size=(n_permutations, d.size))
    permuted = np.abs((signs * d).mean(axis=1))
    # a tolerance so that float noise never turns an exact tie into "more extreme"
    extreme = int((permuted >= observed - 1e-12).sum())
    return (1 + extreme) / (1 + n_permutations)


def paired_difference(
    a: Sequence[Score],
    b: Sequence[Score],
    *,
    scale: float = 1.0,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
) -> PairedComparison:
    """mean(a) - mean(b) over the items judged on both sides, times ``scale``, with a paired
    bootstrap CI and a sign-flip permutation p-value (module docstring). Items with ``None`` on
    either side are dropped from both. A verdict is a bool or a float in [0, 1] (one item's
    verdicts averaged over seeds: the test stays paired on the item). No item left: every field
    None, ``n`` 0."""
    x, y = _paired(a, b)
    if x.size == 0:
        return PairedComparison(None, None, None, None, 0)
    d = (x - y) * scale
    idx = _resample_indices(d.size, n_resamples, seed)
    low, high = _percentile_ci(d[idx].mean(axis=1))
    return PairedComparison(
        float(d.mean()), low, high, _sign_flip_p(d, n_permutations, seed), int(d.size)
    )


def compare_forget_quality(
    base: Sequence[bool | None],
    unlearned_a: Sequence[Score],
    unlearned_b: Sequence[Score],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
) -> PairedComparison:
    """FQ_A - FQ_B on the same questions (all three sequences aligned by position).

    With the base model shared, FQ_A - FQ_B = (Acc(B) - Acc(A)) / Acc(base): the paired
    difference of the unlearned verdicts, scaled by the base accuracy over the questions judged
    on all three sides. Undefined (all None) when the base answers none of them. With several
    seeds, ``unlearned_a[i]`` may be item i's verdicts averaged over A's seeds: the difference
    is then that of the seed-mean FQs (the base is shared by every seed).
    """
    if not len(base) == len(unlearned_a) == len(unlearned_b):
        raise ValueError(
            f"inputs differ in length: base {len(base)}, a {len(unlearned_a)}, b {len(unlearned_b)}"
        )
    keep = [
        i
        for i in range(len(base))
        if base[i] is not None and unlearned_a[i] is not None and unlearned_b[i] is not None
    ]
    base_acc = float(np.mean([bool(base[i]) for i in keep])) if keep else 0.0
    if base_acc == 0.0:
        return PairedComparison(None, None, None, None, len(keep))
    return paired_difference(
        [unlearned_b[i] for i in keep],
        [unlearned_a[i] for i in keep],
        scale=1.0 / base_acc,
        seed=seed,
        n_resamples=n_resamples,
        n_permutations=n_permutations,
    )


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None entries are left out of the
    family and returned as None): the i-th smallest of m is multiplied by (m - i + 1), made
    monotone by a running maximum, and capped at 1. Returned in input order."""
    present = [(p, i) for i, p in enumerate(p_values) if p is not None]
    m = len(present)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(present)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def with_holm(family: Sequence[PairedComparison]) -> list[PairedComparison]:
    """The family's comparisons with ``p_holm`` set by :func:`holm` over their raw p-values."""
    adjusted = holm([c.p_value for c in family])
    return [dataclasses.replace(c, p_holm=p) for c, p in zip(family, adjusted, strict=True)]


def describe(
    name_a: str, name_b: str, what: str, c: PairedComparison, *, alpha: float = ALPHA
) -> str:
    """One line for a report, in points (x100), the better method first: "A forgets MT better
    than B: +12.1 points [4.0, 20.3], p = 0.010 (Holm), n = 40"; "A vs B, forgets MT: no
    significant difference (...)" when the (Holm) p-value is not below ``alpha``. ``what`` is a
    verb phrase for which a positive difference means ``name_a`` is better ("forgets MT")."""
    if c.difference is None:
        return f"{name_a} vs {name_b}, {what}: not comparable (no item judged on both sides)"
    if not c.significant(alpha):
        return f"{name_a} vs {name_b}, {what}: no significant difference ({_numbers(c, 1.0)})"
    sign = 1.0 if c.difference >= 0 else -1.0
    better, worse = (name_a, name_b) if sign > 0 else (name_b, name_a)
    return f"{better} {what} better than {worse}: {_numbers(c, sign)}"


def _numbers(c: PairedComparison, sign: float) -> str:
    """``sign * difference`` in points with its CI, p-value (Holm when adjusted) and n."""
    p = c.p_holm if c.p_holm is not None else c.p_value
    tag = "Holm" if c.p_holm is not None else "uncorrected"
    if c.ci_low is not None and c.ci_high is not None:
        lo, hi = sorted((sign * c.ci_low, sign * c.ci_high))
        ci = f"[{100 * lo:.1f}, {100 * hi:.1f}]"
    else:
        ci = "[n/a]"
    return f"{100 * sign * c.difference:+.1f} points {ci}, p = {p:.3f} ({tag}), n = {c.n}"  # type: ignore[operator]


#: one method's recoveries: ``runs[seed_index][attack][i]`` = item i's ``recovered`` verdict, None
#: when item i is not in that run's S_suc (or unjudged)
Recoveries = Sequence[Mapping[str, Sequence[bool | None]]]


def compare_robustness(
    a: Recoveries,
    b: Recoveries,
    hops: Sequence[str],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
) -> PairedComparison:
    """Robustness_A - Robustness_B on the same questions, paired item by item.

    Items are the questions both methods were scored on, aligned by position; ``hops[i]`` is item
    i's hop (``"SH"``/``"MH"``). One run's robustness is the paper's (as
    :func:`~leak_metrics.metrics.robustness_by_cell`): 1 - max over every (attack, hop) cell of RR,
    RR being the mean of the non-None verdicts of the cell's items; a cell with none is ignored.
    A method's robustness is the mean over its runs (seeds) where it is defined. ``a`` and ``b``
    hold the same number of runs and the same attacks.

    CI: paired percentile bootstrap over items (one resample of the questions for both methods).
    p-value: two-sided swap permutation test: under H0 the two methods are exchangeable on each
    question, so each item's records (every run, every attack) are swapped between A and B with
    probability 1/2; p = (1 + #{|stat| >= |observed|}) / (1 + n_permutations), exactly 1 when a and
    b are identical (a permutation whose statistic is undefined counts as extreme). Undefined
    (every field None) when either method's robustness is. ``n``: items in some cell of either.
    """
    num_a, den_a = _recovery_cells(a, hops)
    num_b, den_b = _recovery_cells(b, hops)
    if num_a.shape != num_b.shape:
        raise ValueError(
            f"a and b differ in runs x attacks: {len(a)} x {len(a[0]) if a else 0} vs "
            f"{len(b)} x {len(b[0]) if b else 0}"
        )
    runs = len(a)
    if num_a.shape[0] == 0:  # no run or no attack: no robustness to compare
        return PairedComparison(None, None, None, None, 0)
    a_cells, b_cells = (num_a, den_a), (num_b, den_b)
    observed = float(_difference(np.ones((1, len(hops))), a_cells, b_cells, runs)[0])
    n = int(((den_a + den_b).sum(axis=0) > 0).sum())
    if not np.isfinite(observed):
        return PairedComparison(None, None, None, None, n)
    idx = _resample_indices(len(hops), n_resamples, seed)
    counts = np.zeros((n_resamples, len(hops)))
    np.add.at(counts, (np.arange(n_resamples)[:, None], idx), 1.0)
    low, high = _percentile_ci(_difference(counts, a_cells, b_cells, runs))
    rng = np.random.default_rng(seed)
    swap = (rng.random((n_permutations, len(hops))) < 0.5).astype(float)
    keep = 1.0 - swap
    swapped_a = (keep @ num_a.T + swap @ num_b.T, keep @ den_a.T + swap @ den_b.T)
    swapped_b = (keep @ num_b.T + swap @ num_a.T, keep @ den_b.T + swap @ den_a.T)
    perm = _robustness(*swapped_a, runs) - _robustness(*swapped_b, runs)
    with np.errstate(invalid="ignore"):
        extreme = int((~(np.abs(perm) < abs(observed) - 1e-12)).sum())
    return PairedComparison(observed, low, high, (1 + extreme) / (1 + n_permutations), n)


def _difference(
    weights: np.ndarray,
    a: tuple[np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray],
    runs: int,
) -> np.ndarray:
    """Robustness_A - Robustness_B with item weights (rows x items: 1s, or resample counts)."""
    return _robustness(weights @ a[0].T, weights @ a[1].T, runs) - _robustness(
        weights @ b[0].T, weights @ b[1].T, runs
    )


def _recovery_cells(runs: Recoveries, hops: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(recovered, judged) per (run, attack, hop) cell and item: two (cells x items) 0/1 arrays,
    cells in run-major order with the same number per run."""
    attacks = sorted(runs[0]) if runs else []
    hop_names = sorted(set(hops))
    num, den = [], []
    for run in runs:
        if sorted(run) != attacks:
            raise ValueError(f"every run needs the same attacks: {sorted(run)} vs {attacks}")
        for attack in attacks:
            values = run[attack]
            if len(values) != len(hops):
                raise ValueError(f"attack {attack}: {len(values)} verdicts for {len(hops)} items")
            judged = np.asarray([v is not None for v in values], dtype=float)
            hit = np.asarray([bool(v) for v in values], dtype=float)
            for hop in hop_names:
                in_hop = np.asarray([h == hop for h in hops], dtype=float)
                num.append(hit * judged * in_hop)
                den.append(judged * in_hop)
    shape = (len(num), len(hops))
    return np.asarray(num).reshape(shape), np.asarray(den).reshape(shape)


def _robustness(sums: np.ndarray, judged: np.ndarray, runs: int) -> np.ndarray:
    """Per row of (rows x cells) sums: the mean over runs of 1 - max over the run's defined cells
    of RR (NaN where no run has a defined cell)."""
    rows = sums.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(judged > 0, sums / np.where(judged > 0, judged, 1.0), np.nan)
    rate = rate.reshape(rows, runs, -1) if runs else np.full((rows, 1, 1), np.nan)
    defined = np.isfinite(rate).any(axis=2)
    best = np.where(defined, np.max(np.where(np.isfinite(rate), rate, -np.inf), axis=2), np.nan)
    per_run = 1.0 - best
    counted = np.isfinite(per_run).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counted > 0, np.nansum(per_run, axis=1) / np.maximum(counted, 1), np.nan)
