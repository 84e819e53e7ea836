"""`leakres tune`'s grid and selection rule (:data:`RULE`), on trial rows in tune.json's format.

The rule and why it has a fallback are in :mod:`leakres_cli.tune.tuning`'s module doc; this module holds
only the pure functions over rows (no model, no files), so tests and the report can use them.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from leakres_cli.errors import LeakresError

UTILITY_FLOOR = 0.9
FLOOR_RULE = (
    "highest single-hop Forget Quality (SH FQ) on the validation forget facts among the trials "
    f"that forget something (SH FQ > 0) with retain-accuracy ratio >= {UTILITY_FLOOR:g} of the "
    f"base (and BBH ratio >= {UTILITY_FLOOR:g} when BBH is on); ties: higher retain ratio, then "
    "smaller lr, fewer epochs, smaller alpha"
)
FALLBACK_RULE = (
    "if no trial meets that floor (floor_met: false, with a warning): the same choice at a "
    f"relative floor, {UTILITY_FLOOR:g} x the utility (the retain ratio; with BBH on, the lower of "
    "the retain and BBH ratios) of the grid's gentlest trial (smallest lr, then fewest epochs, "
    "smallest alpha), capped at the highest utility among the trials that forget something: "
    "among the trials that forget something at or above it, the highest SH FQ; ties: higher "
    "utility, then smaller lr, fewer epochs, smaller alpha; if no trial forgets anything, none "
    "is chosen"
)
RULE = f"{FLOOR_RULE}; {FALLBACK_RULE}"
VALIDATION_RULE = (
    "known single-hop facts (base model correct) minus the forget facts `leakres run` selects for "
    "the same config and seed; of those, validation forget/retain facts by the run's own selection "
    "rule (select_facts: most multi-hop reach first, retain = neighbours), same seed"
)
#: the searched fields of every trial; ``alpha`` only for TV
SEARCHED = ("lr", "epochs", "alpha")
LR_FACTORS = (0.5, 1.0, 2.0)
TV_ALPHAS = (1.0, 4.0)


@dataclasses.dataclass(frozen=True)
class Trial:
    """One grid point: the searched values (``alpha`` is None for methods other than TV)."""

    lr: float
    epochs: float
    alpha: float | None = None

    @property
    def key(self) -> str:
        parts = [f"lr={self.lr:g}", f"epochs={self.epochs:g}"]
        if self.alpha is not None:
            parts.append(f"alpha={self.alpha:g}")
        return "_".join(parts)

    def overrides(self) -> dict[str, float]:
        out = {"lr": self.lr, "epochs": self.epochs}
        if self.alpha is not None:
            out["alpha"] = self.alpha
        return out


def default_grid_values(method: str, defaults: dict[str, Any]) -> dict[str, tuple[float, ...]]:
    """Around unlearn-zoo's size-tier default: lr x {0.5, 1, 2}, epochs {ceil(default/2), default},
    TV's alpha over {1, 4} (the paper's search). Always holds the default itself."""
    if "lr" not in defaults or "epochs" not in defaults:
        raise LeakresError(
            f"unlearn-zoo has no lr/epochs default for '{method}' at this model size; "
            "pass --lr and --epochs"
        )
    lr, epochs = float(defaults["lr"]), float(defaults["epochs"])
    values = {
        "lr": tuple(lr * f for f in LR_FACTORS),
        "epochs": tuple(sorted({float(math.ceil(epochs / 2)), epochs})),
    }
    if method == "tv":
        values["alpha"] = tuple(sorted({*TV_ALPHAS, float(defaults.get("alpha", 1.0))}))
    return values


def build_grid(values: dict[str, tuple[float, ...]]) -> list[Trial]:
    for name in ("lr", "epochs"):
        if not values.get(name):
            raise LeakresError(f"--{name}: the grid is empty; give at least one value")
    if "alpha" in values and not values["alpha"]:
        raise LeakresError("--tv-alpha: the grid is empty; give at least one value")
    bad = [(n, v) for n, vs in values.items() for v in vs if not (v > 0 and math.isfinite(v))]
    if bad:
        name, value = bad[0]
        flag = "--tv-alpha" if name == "alpha" else f"--{name}"
        raise LeakresError(f"{flag}: {value:g} is not a positive number")
    alphas: tuple[float | None, ...] = values.get("alpha") or (None,)
    return [
        Trial(lr, ep, alpha)
        for lr in sorted(set(values["lr"]))
        for ep in sorted(set(values["epochs"]))
        for alpha in alphas
    ]


def utility(row: dict[str, Any]) -> float | None:
    """The utility the rule compares: the retain ratio, or with BBH on the lower of it and the BBH
    ratio (the floor asks both to reach it, so the fallback ranks by the one further from it);
    None when a ratio is undefined."""
    values = [row["retain_ratio"]["value"]]
    if row.get("bbh_ratio") is not None:
        values.append(row["bbh_ratio"]["value"])
    return None if any(v is None for v in values) else min(values)


def eligible(row: dict[str, Any]) -> bool:
    """The rule's floor (point estimates; an undefined ratio is not eligible)."""
    value = utility(row)
    return value is not None and value >= UTILITY_FLOOR


def forgets(row: dict[str, Any]) -> bool:
    """The trial forgot at least one validation forget fact (a defined SH FQ above 0)."""
    fq = row["fq_sh"]["value"]
    return fq is not None and fq > 0


def _gentler(row: dict[str, Any]) -> tuple[float, float, float]:
    return row["lr"], row["epochs"], row["alpha"] if row["alpha"] is not None else 0.0


def choose(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row :data:`FLOOR_RULE` selects, or None when no trial that forgets is eligible."""
    candidates = [r for r in rows if r["eligible"] and forgets(r)]
    if not candidates:
        return None
    return min(
        candidates,
        key=lambda r: (-r["fq_sh"]["value"], -r["retain_ratio"]["value"], *_gentler(r)),
    )


def relative_floor(rows: list[dict[str, Any]]) -> tuple[float, str, str] | None:
    """The fallback's floor and the trial it is taken against: :data:`UTILITY_FLOOR` x the utility
    of the gentlest trial with a defined utility, capped at the highest utility among the trials
    that forget: ``(value, trial key, "gentlest" | "cap")``; None when no trial forgets anything."""
    forgetting = [r for r in rows if forgets(r) and utility(r) is not None]
    if not forgetting:
        return None
    gentlest = min((r for r in rows if utility(r) is not None), key=_gentler)
    best_forgetting = max(forgetting, key=lambda r: (utility(r), *(-v for v in _gentler(r))))
    if UTILITY_FLOOR * utility(gentlest) <= utility(best_forgetting):
        return UTILITY_FLOOR * utility(gentlest), gentlest["key"], "gentlest"
    return utility(best_forgetting), best_forgetting["key"], "cap"


def choose_fallback(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row :data:`FALLBACK_RULE` selects (the floor rule at :func:`relative_floor`), or None
    when no trial forgets anything."""
    floor = relative_floor(rows)
    if floor is None:
        return None
    candidates = [
        r for r in rows if forgets(r) and utility(r) is not None and utility(r) >= floor[0]
    ]
    return min(candidates, key=lambda r: (-r["fq_sh"]["value"], -utility(r), *_gentler(r)))


def select(rows: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, bool]:
    """:data:`RULE`: ``(chosen row or None, floor_met)``."""
    chosen = choose(rows)
    if chosen is not None:
        return chosen, True
    return choose_fallback(rows), False
