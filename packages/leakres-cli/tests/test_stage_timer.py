"""Stage times are exclusive: a stage run inside another (`ga:unlearn` inside `ga:eval`) is counted
once, so summary.md's stage times add up to the total (issue 22, minor item)."""

from __future__ import annotations

import time

from leakres_cli.progress import StageTimer


def test_nested_stage_is_not_counted_twice() -> None:
    timer = StageTimer()
    start = time.perf_counter()
    with timer.stage("ga:eval"):
        time.sleep(0.05)
        with timer.stage("ga:unlearn"):
            time.sleep(0.2)
        time.sleep(0.05)
    with timer.stage("ga:eval"):  # a second visit adds to the same stage
        time.sleep(0.05)
    total = time.perf_counter() - start
    assert 0.19 <= timer.timings["ga:unlearn"] <= 0.3
    assert 0.14 <= timer.timings["ga:eval"] < 0.25  # without the 0.2 s of unlearning
    assert sum(timer.timings.values()) <= total + 0.005
    assert sum(timer.timings.values()) >= total - 0.02
