"""Attack budgets: the axis along which an attack spends effort, and ladders of it (issue 38).

Each built-in attack declares a :class:`BudgetAxis` (its ``budget`` class attribute): which config
field is the budget, what it means, and a default ladder. A ladder runs as few attack runs as its
axis allows: on a *prefix* axis (Probab's samples) one run at the largest rung yields every rung
(the first N responses of the draw, so RR at N is any-of-the-first-N and the curve is monotone by
construction); on any other axis each rung is its own run. Ladders are written per attack as
``"probab=1,2,5,10,20;quantization=int8,fp4"`` or ``"default"`` (every attack's default ladder).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Attack, AttackConfig, AttackResult
from .budget_axis import BudgetAxis, Rung
from .errors import ConfigError

__all__ = ["BudgetAxis", "LadderRun", "ladder_runs", "parse_budgets", "responses_at"]


@dataclasses.dataclass(frozen=True)
class LadderRun:
    """One attack run of a ladder: its config and the rungs its responses answer."""

    config: AttackConfig
    rungs: tuple[Rung, ...]


def _axis(attack_cls: type[Attack]) -> BudgetAxis:
    axis = getattr(attack_cls, "budget", None)
    if axis is None:
        raise ConfigError(
            f"attack {attack_cls.name!r} declares no budget axis; it runs at one setting"
        )
    return axis


def ladder_runs(
    attack_cls: type[Attack], ladder: Sequence[Rung] | None = None, **overrides: Any
) -> list[LadderRun]:
    """The runs that answer ``ladder`` (default: the attack's default ladder) with the other
    config fields from ``overrides``. Every rung is validated by the attack's config class (an
    impossible rung raises its ConfigError, naming the field). A prefix axis gives one run."""
    axis = _axis(attack_cls)
    rungs = tuple(ladder) if ladder is not None else axis.default_ladder
    if not rungs:
        raise ConfigError(f"attack {attack_cls.name!r}: an empty budget ladder")
    if len(set(rungs)) != len(rungs):
        raise ConfigError(f"attack {attack_cls.name!r}: budget ladder {list(rungs)} repeats a rung")
    if axis.field in overrides:
        raise ConfigError(f"attack {attack_cls.name!r}: {axis.field} is set by the budget ladder")
    configs = [attack_cls.config_cls.from_overrides(**overrides, **{axis.field: r}) for r in rungs]
    if axis.prefix:
        ordered = tuple(sorted(rungs))  # type: ignore[type-var]
        return [LadderRun(configs[rungs.index(ordered[-1])], ordered)]
    return [LadderRun(c, (r,)) for c, r in zip(configs, rungs, strict=True)]


def responses_at(result: AttackResult, axis: BudgetAxis, rung: Rung) -> list[str]:
    """The responses that count at ``rung``: the first ``rung`` on a prefix axis, else all."""
    if not axis.prefix:
        return list(result.responses)
    if not isinstance(rung, int) or rung > len(result.responses):
        raise ConfigError(
            f"question {result.id!r}: rung {rung!r} needs {rung} responses, the run has "
            f"{len(result.responses)}"
        )
    return list(result.responses[:rung])


def _parse_rung(text: str) -> Rung:
    return int(text) if text.lstrip("-").isdigit() else text


def parse_budgets(
    spec: str, attacks: Sequence[str], axes: Mapping[str, BudgetAxis]
) -> dict[str, tuple[Rung, ...]]:
    """``"default"`` -> every attack's default ladder; ``"probab=1,5,20;quantization=int8,fp4"``
    -> those ladders (an attack not named runs at its one setting, so it is absent). Unknown or
    unrun attacks and empty ladders are ConfigErrors that quote the spec."""
    spec = spec.strip()
    if spec == "default":
        return {a: axes[a].default_ladder for a in attacks if a in axes}
    out: dict[str, tuple[Rung, ...]] = {}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, sep, values = part.partition("=")
        name = name.strip()
        if not sep or not values.strip():
            raise ConfigError(f"--attack-budgets {spec!r}: write ATTACK=R1,R2,... (got {part!r})")
        if name not in attacks:
            raise ConfigError(
                f"--attack-budgets {spec!r}: {name!r} is not among the run's attacks {list(attacks)}"
            )
        if name not in axes:
            raise ConfigError(f"--attack-budgets {spec!r}: attack {name!r} declares no budget axis")
        out[name] = tuple(_parse_rung(v.strip()) for v in values.split(",") if v.strip())
    return out
