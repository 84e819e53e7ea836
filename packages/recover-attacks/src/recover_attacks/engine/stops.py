"""Stop strings: find them in a response's text as it grows, and cut the text before them."""

from __future__ import annotations

from collections.abc import Sequence
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
