"""S_suc: the items an attack is scored on (METHODS.md, Recovery Rate)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping


def select_successfully_unlearned(
    base_correct: Mapping[Hashable, bool], unlearned_correct: Mapping[Hashable, bool]
) -> list[Hashable]:
    """Ids the original model answered correctly and the unlearned model does not (greedy).

    Ids missing from ``unlearned_correct`` raise ``KeyError`` naming the id, because silently
    treating them as forgotten would inflate S_suc. Order follows ``base_correct``.
    """
    missing = [i for i in base_correct if i not in unlearned_correct]
    if missing:
        raise KeyError(
            f"unlearned_correct has no entry for {len(missing)} id(s) of base_correct, "
            f"e.g. {missing[:3]!r}"
        )
    return [i for i, ok in base_correct.items() if ok and not unlearned_correct[i]]
