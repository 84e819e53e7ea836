"""Wall time per stage (results.json's ``timings_s``) and the run's stage progress bar."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StageTimer:
    """Wall time per stage, reported in results.json.

    Times are exclusive: a stage entered inside another (``ga:unlearn`` runs inside ``ga:eval``,
    which first needs the unlearned model) is counted once, under its own name, and not again in
    the enclosing stage, so the stage times add up to the run's total (with ``other``).
    """

    timings: dict[str, float] = field(default_factory=dict)
    _open: list[list[float]] = field(
        default_factory=list, repr=False
    )  # per open stage: its nested time

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        self._open.append([0.0])
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            nested = self._open.pop()[0]
            if self._open:
                self._open[-1][0] += elapsed
            self.timings[name] = round(self.timings.get(name, 0.0) + elapsed - nested, 3)


def stage_bar(stages: list[str], enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=len(stages), desc="leakres", unit="stage", position=0)


def advance(bar: Any, note: str) -> None:
    if bar is not None:
        bar.set_postfix_str(note[:60])
        bar.update(1)
