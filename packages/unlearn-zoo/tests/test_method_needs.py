"""Each method says what it needs (``Unlearner.needs()``, issue 23), and the answer is checked
against what :meth:`Unlearner.wrap` really builds on a tiny model: the frozen copies of the weights
(a ``Reference`` copy, TV's ``original``), and against the hooks that use the retain set."""

from __future__ import annotations

from typing import Any

import pytest
from unlearn_zoo import MethodNeeds, available_unlearners, get_unlearner

BUILT_IN = ("ga", "graddiff", "npo", "simnpo", "rmu", "tv", "palu", "as")


def _frozen_copies_built(name: str, model: Any, tokenizer: Any, **overrides: Any) -> int:
    unlearner = get_unlearner(name, **overrides)
    wrapped = unlearner.wrap(model, tokenizer)
    reference = unlearner.reference
    return int(wrapped.original is not None) + int(
        reference is not None and reference.copy is not None
    )


@pytest.mark.parametrize("name", BUILT_IN)
def test_frozen_copies_are_what_wrap_builds(name: str, tiny_model: Any, tokenizer: Any) -> None:
    needs = get_unlearner(name).needs()
    assert isinstance(needs, MethodNeeds)
    assert needs.frozen_copies == _frozen_copies_built(name, tiny_model, tokenizer)
    if get_unlearner(name).supports_lora:
        lora = get_unlearner(name, use_lora=True).needs()
        assert lora.frozen_copies == _frozen_copies_built(
            name, tiny_model, tokenizer, use_lora=True
        )


def test_reference_free_methods_hold_no_copy_and_the_table_of_needs() -> None:
    """SimNPO is reference-free and AS compares against its own adapters-off forward: neither
    holds a copy (leakres' planner listed both as holding one before issue 23)."""
    assert set(BUILT_IN) <= set(available_unlearners())
    table = {name: get_unlearner(name).needs() for name in BUILT_IN}
    assert {n for n, s in table.items() if s.frozen_copies} == {"npo", "rmu", "tv", "palu"}
    assert {n for n, s in table.items() if s.reference_model} == {"npo", "rmu", "palu", "as"}
    assert {n for n, s in table.items() if s.retain_set} == {"graddiff", "rmu", "as"}
    assert {n for n, s in table.items() if s.spans} == {"palu", "as"}
    # the retain set follows the configuration, as the loss does
    assert get_unlearner("simnpo", retain_weight=1.0).needs().retain_set
    assert not get_unlearner("rmu", retain_weight=0.0).needs().retain_set
    assert not get_unlearner("tv").needs().retain_set  # TV has no retain term
