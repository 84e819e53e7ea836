"""Defensive JSON extraction from model replies.

Models wrap JSON in code fences, add prose around it, or stop mid-object. :func:`extract_json`
strips fences, then tries the whole text, then every balanced ``{...}`` / ``[...]`` span in
order, and returns the first that parses. Validation of the fields is the caller's job.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ParseError", "extract_json"]

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class ParseError(ValueError):
    """The reply holds no usable JSON; the message says what was wrong (shown to the model)."""


def _balanced_spans(text: str, opener: str, closer: str) -> list[str]:
    """Balanced ``opener...closer`` spans, outermost first, skipping string contents."""
    spans, depth, start, in_str, esc = [], 0, -1, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == opener:
            if depth == 0:
                start = i
            depth += 1
        elif ch == closer and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def extract_json(text: str, expect: type = dict) -> Any:
    """The first JSON value of type ``expect`` (dict or list) found in ``text``."""
    if not text or not text.strip():
        raise ParseError("the reply is empty")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    opener, closer = ("{", "}") if expect is dict else ("[", "]")
    for cand in candidates:
        cand = cand.strip()
        try:
            value = json.loads(cand)
            if isinstance(value, expect):
                return value
        except json.JSONDecodeError:
            pass
        for span in _balanced_spans(cand, opener, closer):
            try:
                value = json.loads(span)
            except json.JSONDecodeError:
                continue
            if isinstance(value, expect):
                return value
    kind = "object" if expect is dict else "array"
    raise ParseError(f"no valid JSON {kind} found in the reply")
