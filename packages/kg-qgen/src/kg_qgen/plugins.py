"""One lookup shared by kg-qgen's registries (sources, generators, LLM backends).

A registry maps names to a callable or a lazy ``"module:attr"`` reference; third-party entries come
from an entry point group. Unknown names get a "did you mean" error listing the known ones.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any


def entry_point_targets(group: str) -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=group)}


def available(builtin: Mapping[str, Any], group: str) -> list[str]:
    return sorted(set(builtin) | set(entry_point_targets(group)))


def resolve(kind: str, name: str, builtin: Mapping[str, Any], group: str) -> Callable[..., Any]:
    """The callable registered as ``name`` (imported lazily if given as ``module:attr``)."""
    target = builtin.get(name) or entry_point_targets(group).get(name)
    if target is None:
        known = available(builtin, group)
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise KeyError(f"unknown {kind} '{name}'{hint} Known: {', '.join(known)}")
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
