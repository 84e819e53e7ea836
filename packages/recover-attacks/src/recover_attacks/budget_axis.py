"""The budget axis an attack declares (``Attack.budget``); ladders over it live in :mod:`.budgets`."""

from __future__ import annotations

import dataclasses

__all__ = ["BudgetAxis", "Rung"]

Rung = int | str


@dataclasses.dataclass(frozen=True)
class BudgetAxis:
    """``field``: the config field the budget sets; ``label``: what a rung means, for tables and
    plots; ``default_ladder``: the rungs run by ``--attack-budgets default``, in increasing effort;
    ``prefix``: True when one run at the largest rung answers every rung (the rung is a number of
    responses per question, and the responses of a smaller rung are the first ones)."""

    field: str
    label: str
    default_ladder: tuple[Rung, ...]
    prefix: bool = False
