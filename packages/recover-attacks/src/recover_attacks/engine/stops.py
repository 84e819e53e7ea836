"""Stop strings (find them in a response's text as it grows, cut the text before them) and the
injected answer-end rule (stop decoding once the judged part of a response has ended)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any


class StopStrings:
    """Checks only the text of the last few tokens each step (a stop string of ``c`` characters
    ends within the last ``c`` tokens, plus a margin for tokens that decode to partial characters);
    the full text is decoded once, when a stop is seen."""

    def __init__(self, tokenizer: Any, stop: Sequence[str]) -> None:
        self.tokenizer = tokenizer
        self.stop = tuple(stop)
        self.window = max((len(s) for s in self.stop), default=0) + 4

    def __bool__(self) -> bool:
        return bool(self.stop)

    def hit(self, token_ids: Sequence[int]) -> bool:
        tail = self.tokenizer.decode(token_ids[-self.window :], skip_special_tokens=True)
        return any(s in tail for s in self.stop)

    def cut(self, text: str) -> str:
        """``text`` up to (not including) the earliest stop string."""
        cuts = [i for i in (text.find(s) for s in self.stop) if i >= 0]
        return text[: min(cuts)] if cuts else text


class AnswerEnd:
    """Ends a response where the caller's answer rule says its judged part has ended.

    ``rule(text) -> int | None`` is the judge's stop rule (leak-metrics' ``answer_stop``, injected
    by the caller: the libraries never import each other); ``triggers`` are the strings every stop
    ends with (leak-metrics' ``ANSWER_STOP_STRINGS``). Unlike :class:`StopStrings` nothing is cut:
    "D.C. is" holds ". " and is not an end, so the rule decides and the text is kept whole.

    The rule is asked only about the text up to the end of a trigger (``text[:e]``, which ends in
    whitespace), never about a text that ends inside a word or right after a "." : there the rule's
    lookahead ("1.5", "U.S. He", "Inc. was") is not generated yet. For a rule like
    ``answer_stop``, a stop found on such a prefix can only move earlier on a longer text across
    whitespace, so the committed answer (the text up to the stop, stripped) of the shortened
    response equals that of the full-budget one (tests/test_answer_end.py checks the property).
    """

    def __init__(
        self, tokenizer: Any, rule: Callable[[str], int | None] | None, triggers: Sequence[str]
    ) -> None:
        self.tokenizer = tokenizer
        self.rule = rule
        self.triggers = tuple(triggers)
        self.window = max((len(s) for s in self.triggers), default=0) + 4

    def __bool__(self) -> bool:
        return self.rule is not None and bool(self.triggers)

    def hit(self, token_ids: Sequence[int]) -> bool:
        """Whether the answer has ended in the text of ``token_ids`` (checked cheaply first: only
        when a trigger is among the last tokens is the whole text decoded and the rule asked)."""
        tail = self.tokenizer.decode(token_ids[-self.window :], skip_special_tokens=True)
        if not any(s in tail for s in self.triggers):
            return False
        return self.ended(self.tokenizer.decode(token_ids, skip_special_tokens=True))

    def ended(self, text: str) -> bool:
        """Whether the rule finds a stop in ``text[:e]`` for some end ``e`` of a trigger."""
        assert self.rule is not None
        ends = sorted({i + len(s) for s in self.triggers for i in _find_all(text, s)})
        return any(self.rule(text[:e]) is not None for e in ends)


def _find_all(text: str, sub: str) -> list[int]:
    found, i = [], text.find(sub)
    while i >= 0:
        found.append(i)
        i = text.find(sub, i + 1)
    return found


_ANSWER_END: ContextVar[tuple[Callable[[str], int | None], tuple[str, ...]] | None] = ContextVar(
    "answer_end", default=None
)


@contextmanager
def answer_end_rule(rule: Callable[[str], int | None], triggers: Sequence[str]) -> Iterator[None]:
    """Within the block, :func:`recover_attacks.generate` (and so every attack that decodes
    answers) stops each response where ``rule`` says its judged answer has ended, unless the call
    passes its own ``answer_end``. How a caller (the CLI) injects the judge's rule into attacks
    whose configs know nothing of it; see :class:`AnswerEnd`."""
    if not callable(rule) or not triggers:
        raise ValueError("answer_end_rule needs a callable rule and at least one trigger string")
    token = _ANSWER_END.set((rule, tuple(triggers)))
    try:
        yield
    finally:
        _ANSWER_END.reset(token)


def current_answer_end() -> tuple[Callable[[str], int | None], tuple[str, ...]] | None:
    """The rule and triggers set by the innermost :func:`answer_end_rule`, else ``None``."""
    return _ANSWER_END.get()
