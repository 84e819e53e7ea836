"""Lazy imports of optional dependencies with an install hint instead of a bare ImportError."""

from __future__ import annotations

import importlib
from types import ModuleType

from leak_metrics.errors import MissingExtraError


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise a :class:`MissingExtraError` telling which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{purpose} needs the '{module}' package; install it with "
            f"`pip install leak-metrics[{extra}]`"
        ) from exc
