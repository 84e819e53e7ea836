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


def test_profile_counts_cpu_tokens_and_optimizer_steps_exclusively() -> None:
    import torch
    from recover_attacks.engine.base import count_generated

    timer = StageTimer()
    start = timer.read()
    weight = torch.nn.Parameter(torch.ones(4))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    with timer.stage("ga:eval"):
        count_generated(7)  # what an engine call adds
        with timer.stage("ga:unlearn"):
            for _ in range(3):
                weight.sum().backward()
                optimizer.step()
            deadline = time.process_time() + 0.05
            while time.process_time() < deadline:  # CPU work, counted here only
                pass
        count_generated(5)
    profile = timer.totals(start)
    assert profile["ga:unlearn"]["optimizer_steps"] == 3
    assert profile["ga:eval"]["optimizer_steps"] == 0
    assert profile["ga:eval"]["tokens"] == 12 and profile["ga:unlearn"]["tokens"] == 0
    assert profile["ga:unlearn"]["cpu_s"] >= 0.04
    assert profile["ga:eval"]["cpu_s"] < profile["ga:unlearn"]["cpu_s"]
    for key in ("wall_s", "cpu_s", "tokens", "optimizer_steps"):
        parts = sum(row[key] for name, row in profile.items() if name != "total")
        assert abs(parts - profile["total"][key]) <= 0.01, key
    assert timer.timings["ga:unlearn"] == profile["ga:unlearn"]["wall_s"]


def test_summary_shows_the_profile_and_reads_runs_from_before_it() -> None:
    import json
    from pathlib import Path

    from leakres_cli.outputs.summary import render

    fixture = Path(__file__).parent / "fixtures" / "run-smoke" / "results.json"
    old = json.loads(fixture.read_text())
    assert "profile" not in old  # written before the profile existed
    assert "Profile per stage" not in render(old)
    row = {"wall_s": 2.5, "cpu_s": 2.0, "tokens": 96, "optimizer_steps": 0}
    new = {
        **old,
        "profile": {"base_evaluation": row, "total": row},
        "hardware": {
            "cpu_model": "AMD EPYC",
            "device": "cpu",
            "dtype": "float32",
            "torch_threads": 1,
        },
    }
    text = render(new)
    assert "## Profile per stage on AMD EPYC (cpu, float32, 1 torch threads)" in text
    rows = [" ".join(line.split()) for line in text.splitlines()]
    assert "| base_evaluation | 2.5 | 2.0 | 96 | 0 |" in rows
