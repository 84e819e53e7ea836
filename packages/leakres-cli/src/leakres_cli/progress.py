"""Wall time per stage (results.json's ``timings_s``) and the run's stage progress bar."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StageTimer:
    """Wall time per stage, reported in results.json."""

    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(self.timings.get(name, 0.0) + time.perf_counter() - start, 3)


def stage_bar(stages: list[str], enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=len(stages), desc="leakres", unit="stage", position=0)


def advance(bar: Any, note: str) -> None:
    if bar is not None:
        bar.set_postfix_str(note[:60])
        bar.update(1)
