"""CI share of benchmarks/fault_injection.py: two seeded SIGKILL trials on the tiny configuration.

Each trial kills a real `leakres run` (SmolLM2-135M, built-in facts) at a seeded random moment,
checks that every cell on disk is whole, resumes with the same command, and requires the resumed
results.json and cells to equal an uninterrupted run's (wall-clock fields excepted, listed in
fault_injection.VOLATILE) with no temp file, staging directory or lock holder left behind.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import fault_injection  # noqa: E402


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> tuple[Path, float]:
    return fault_injection.make_reference(tmp_path_factory.mktemp("fault-injection"))


@pytest.mark.parametrize("index", [0, 1])
def test_killed_run_resumes_to_the_uninterrupted_result(
    reference: tuple[Path, float], index: int
) -> None:
    ref_dir, ref_wall_s = reference
    outcome = fault_injection.kill_trial(ref_dir.parent, ref_dir, ref_wall_s, index, seed=0)
    print(outcome.line())
    assert outcome.ok, outcome.line()
    assert outcome.resumed_equal


def test_comparison_ignores_exactly_the_listed_volatile_fields() -> None:
    a = {
        "timings_s": {"total": 1.0},
        "methods": {"ga": {"unlearn": {"wall_time_s": 1, "steps": 5}}},
    }
    b = {
        "timings_s": {"total": 2.0},
        "methods": {"ga": {"unlearn": {"wall_time_s": 2, "steps": 5}}},
    }
    assert fault_injection.strip_volatile(a) == fault_injection.strip_volatile(b)
    b["methods"]["ga"]["unlearn"]["steps"] = 6
    assert fault_injection.strip_volatile(a) != fault_injection.strip_volatile(b)
    assert fault_injection.diff_paths(a, b) == [
        "/methods/ga/unlearn/steps",
        "/methods/ga/unlearn/wall_time_s",
        "/timings_s/total",
    ]


@pytest.mark.parametrize(("mode", "first", "second"), [("500", 200, 500), ("dead", 500, 500)])
def test_scripted_judge_outage_starts_after_the_preflight(
    mode: str, first: int, second: int
) -> None:
    """'500' passes the run's one preflight request, then fails (an outage mid-run); 'dead' fails
    from the first request, which the run's preflight must turn into a stop before model work."""
    import json
    import urllib.error
    import urllib.request

    def status(url: str) -> int:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]}).encode()
        request = urllib.request.Request(
            f"{url}/chat/completions", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code

    with fault_injection.judge_server(mode) as url:
        assert [status(url), status(url)] == [first, second]
