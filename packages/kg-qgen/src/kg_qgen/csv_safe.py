"""CSV cells a spreadsheet shows as text and never runs (OWASP CSV injection).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
as a formula (``=HYPERLINK(...)`` in a comment would be a live link); such text cells get a
leading apostrophe. Numbers, and text that reads as a number ("-0.5"), stay as they are.

Each leakres library that writes CSV keeps its own copy of this module (the libraries never
import each other); the copies are byte-identical, which ``tests/test_shared_copies.py`` at the
repository root checks.
"""

from __future__ import annotations

from typing import Any

__all__ = ["csv_safe"]

_FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet shows as text, never evaluates (OWASP CSV injection)."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_LEAD):
        return value
    try:
        float(value)
        return value  # "-0.5" is a number, not a formula
    except ValueError:
        return "'" + value
