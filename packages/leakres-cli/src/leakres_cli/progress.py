"""Per-stage profile (results.json's ``timings_s`` and ``profile``) and the stage progress bar."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: The quantities profiled per stage, besides wall seconds (``timings_s``).
PROFILE_FIELDS = ("wall_s", "cpu_s", "tokens", "optimizer_steps")

_OPTIMIZER_STEPS = [0]
_HOOKED = [False]


def optimizer_steps_total() -> int:
    """Optimizer steps taken in this process since the first call (every ``torch.optim`` optimizer,
    through torch's global step hook: unlearn-zoo's trainers, relearning, ...)."""
    if not _HOOKED[0]:
        from torch.optim.optimizer import register_optimizer_step_post_hook

        def count(*_: Any) -> None:
            _OPTIMIZER_STEPS[0] += 1

        register_optimizer_step_post_hook(count)
        _HOOKED[0] = True
    return _OPTIMIZER_STEPS[0]


def generated_tokens_total() -> int:
    """Tokens every recover-attacks engine call in this process generated so far."""
    from recover_attacks.engine.base import generated_tokens_total as total

    return total()


def default_counters() -> dict[str, Callable[[], float]]:
    """Monotonic process-wide counters; a stage's amount is the difference across it."""
    return {
        "wall_s": time.perf_counter,
        "cpu_s": time.process_time,  # this process's CPU time, all threads
        "tokens": generated_tokens_total,
        "optimizer_steps": optimizer_steps_total,
    }


@dataclass
class StageTimer:
    """Wall time (``timings``) and the full profile (``profile``: wall and CPU seconds, tokens
    generated, optimizer steps) per stage, reported in results.json.

    Amounts are exclusive: a stage entered inside another (``ga:unlearn`` runs inside ``ga:eval``,
    which first needs the unlearned model) is counted once, under its own name, and not again in
    the enclosing stage, so the stage amounts add up to the run's total (with ``other``).
    """

    timings: dict[str, float] = field(default_factory=dict)
    profile: dict[str, dict[str, float]] = field(default_factory=dict)
    counters: dict[str, Callable[[], float]] = field(default_factory=default_counters)
    _open: list[dict[str, float]] = field(
        default_factory=list, repr=False
    )  # per open stage: the amounts of the stages nested in it

    def __post_init__(self) -> None:
        self.read()  # first reads import torch/recover-attacks: not inside the first stage

    def read(self) -> dict[str, float]:
        return {name: float(counter()) for name, counter in self.counters.items()}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = self.read()
        self._open.append(dict.fromkeys(start, 0.0))
        try:
            yield
        finally:
            end = self.read()
            nested = self._open.pop()
            spent = {k: end[k] - start[k] for k in start}
            if self._open:
                for k, v in spent.items():
                    self._open[-1][k] += v
            row = self.profile.setdefault(name, dict.fromkeys(start, 0.0))
            for k, v in spent.items():
                row[k] = _round(k, row[k] + v - nested[k])
            if "wall_s" in row:
                self.timings[name] = row["wall_s"]

    def totals(self, since: dict[str, float]) -> dict[str, dict[str, float]]:
        """``profile`` plus ``other`` (what no stage holds) and ``total`` (since ``since``, a
        :meth:`read` at the run's start), so each field adds up over the stages."""
        now = self.read()
        total = {k: _round(k, now[k] - since[k]) for k in since}
        other = {
            k: _round(k, max(0.0, total[k] - sum(r.get(k, 0.0) for r in self.profile.values())))
            for k in total
        }
        return {**self.profile, "other": other, "total": total}


def _round(key: str, value: float) -> float:
    return round(value, 3) if key.endswith("_s") else round(value)


def stage_bar(stages: list[str], enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=len(stages), desc="leakres", unit="stage", position=0)


def advance(bar: Any, note: str) -> None:
    if bar is not None:
        bar.set_postfix_str(note[:60])
        bar.update(1)
