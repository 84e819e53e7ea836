"""Reading values of results.json defensively for the report: a metric dict, a number, a nested
key, a setting as text (anything malformed or missing becomes n/a)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from leak_metrics import no_signal

__all__ = ["NA", "Metric", "dig", "fmt", "guessing", "loss_points", "metric", "num"]


@dataclass(frozen=True)
class Metric:
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None
    reason: str | None = None
    n_unjudged: int | None = None

    @property
    def text(self) -> str:
        if self.value is None:
            # FQ left out because the base model shows no signal: the reader must see why
            return f"n/a: {self.reason}" if no_signal(self.reason) else "n/a"
        if self.ci_low is None or self.ci_high is None:
            return f"{100 * self.value:.1f}"
        return f"{100 * self.value:.1f} [{100 * self.ci_low:.0f}, {100 * self.ci_high:.0f}]"

    @property
    def title(self) -> str:
        bits = []
        if self.n is not None:
            bits.append(f"n = {self.n}")
        if self.n_unjudged:
            bits.append(f"{self.n_unjudged} unjudged")
        if self.reason:
            bits.append(f"n/a: {self.reason}")
        return "; ".join(bits)


NA = Metric(None, reason="not in results.json")


def num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    return float(x) if math.isfinite(x) else None


def metric(d: Any) -> Metric:
    """A metric dict of results.json (any extra fields ignored); anything else is n/a."""
    if not isinstance(d, Mapping):
        return NA
    n = d.get("n")
    nu = d.get("n_unjudged")
    reason = d.get("undefined_reason")
    return Metric(
        num(d.get("value")),
        num(d.get("ci_low")),
        num(d.get("ci_high")),
        int(n) if isinstance(n, int) and not isinstance(n, bool) else None,
        str(reason) if reason else None,
        int(nu) if isinstance(nu, int) and not isinstance(nu, bool) else None,
    )


def dig(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, Mapping):
            return None
        d = d.get(k)
    return d


def fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list | tuple):
        return ", ".join(fmt(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ", ".join(f"{k}={fmt(v)}" for k, v in value.items()) or "(none)"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def loss_points(curve: Any) -> list[tuple[float, float]]:
    pts = []
    for k, entry in enumerate(curve if isinstance(curve, list) else []):
        if isinstance(entry, Mapping):
            step, loss = num(entry.get("step")), num(entry.get("loss"))
            if loss is not None:
                pts.append((step if step is not None else float(k), loss))
    return pts


def guessing(block: Any) -> str:
    """``MH 2.1 of 10 (observed 4); MT 1.9 of 2 (observed 2)``: a guesser's expected recoveries."""
    if not isinstance(block, Mapping):
        return "n/a"
    parts = [
        f"{key} {num(g.get('expected')) or 0:.1f} of {g.get('n')} (observed {g.get('observed')})"
        for key, g in block.items()
        if key not in ("SH", "label") and isinstance(g, Mapping) and g.get("n")
    ]
    return "; ".join(parts) or "-"
