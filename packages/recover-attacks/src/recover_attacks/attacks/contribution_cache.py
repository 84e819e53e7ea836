"""Key-token contributions kept across FocusOnKey runs that share one original model.

FocusOnKey's contributions C(x_i) are computed on theta_p only: they depend on theta_p's
weights, the tokenizer, the question and the gold answer, never on the model under attack. A
benchmark that attacks several unlearned models of one theta_p (leakres' six methods) asks for
the same questions' contributions again and again; each costs ``n_tokens + 1`` forward passes,
which made FocusOnKey the largest stage of the full preset. This cache computes each once.

Contract:
- entries belong to one model object (held weakly: a model that is freed drops its entries);
- they are dropped when that model's parameters change in place or are replaced (torch bumps a
  tensor's version counter on every in-place write: an optimizer step, ``load_state_dict``,
  ``copy_``), so a hit always returns what a fresh computation on the current weights would;
- the tokenizer is part of the key (its class, vocabulary size, name and chat template), since
  the prompt's tokens come from it.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ContributionCache", "contribution_cache"]

T = TypeVar("T")


def _weights_signature(model: Any) -> tuple[tuple[int, int], ...]:
    """Identity and in-place version of every parameter and buffer (cheap: no tensor data read)."""
    tensors = [*model.parameters(), *model.buffers()]
    return tuple((id(t), t._version) for t in tensors)


def _tokenizer_key(tokenizer: Any) -> str:
    template = getattr(tokenizer, "chat_template", None) or ""
    parts = (
        type(tokenizer).__qualname__,
        str(getattr(tokenizer, "name_or_path", "")),
        str(len(tokenizer)),
        hashlib.sha256(str(template).encode()).hexdigest(),
    )
    return "|".join(parts)


class ContributionCache:
    """Per-model memo of ``compute(model, tokenizer, question, answer)`` results."""

    def __init__(self) -> None:
        self._entries: weakref.WeakKeyDictionary[Any, tuple[tuple, dict]] = (
            weakref.WeakKeyDictionary()
        )
        self.hits = 0
        self.misses = 0

    def get(
        self,
        model: Any,
        tokenizer: Any,
        question: str,
        answer: str,
        compute: Callable[[Any, Any, str, str], T],
    ) -> T:
        signature = _weights_signature(model)
        held = self._entries.get(model)
        if held is None or held[0] != signature:
            held = (signature, {})
            self._entries[model] = held
        key = (_tokenizer_key(tokenizer), question, answer)
        memo = held[1]
        if key in memo:
            self.hits += 1
            return memo[key]
        self.misses += 1
        value = compute(model, tokenizer, question, answer)
        memo[key] = value
        return value

    def clear(self) -> None:
        """Drop every entry (counters too)."""
        self._entries = weakref.WeakKeyDictionary()
        self.hits = self.misses = 0


# one per process: FocusOnKey attacks made separately (one per leakres cell) share it
contribution_cache = ContributionCache()
