"""The reworked run (TRL's SFTTrainer for TV, TRL-made references for NPO/PALU/RMU, the
forget_loss/retain_loss split) gives the same per-step losses as the code before it.

The expected values were recorded by ``tests/loss_cases.py`` at commit 68f4bff (see its
docstring) and are not edited by hand. Tolerance: float32 on CPU; TRL's SFTTrainer sums
log-probabilities in its own chunked kernel, and the composed objective adds its terms in a
different order, so equal means equal to ~1e-5 relative, not bit for bit.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from loss_cases import CASES, FIXTURE, run_case

RECORDED: dict[str, list[dict[str, float]]] = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", list(CASES))
def test_losses_equal_to_recorded(name: str, tokenizer: Any) -> None:
    now = run_case(name, tokenizer)
    before = RECORDED[name]
    assert [e["step"] for e in now] == [e["step"] for e in before]
    for old, new in zip(before, now, strict=True):
        assert set(old) == set(new), f"{name}: logged parts changed {set(old)} -> {set(new)}"
        for key, value in old.items():
            assert math.isclose(new[key], value, rel_tol=2e-5, abs_tol=2e-6), (
                f"{name} step {old['step']} {key}: recorded {value}, now {new[key]}"
            )
