"""Method registry: built-ins by name plus third-party plugins (entry-point group
``leakres.unlearners``, each entry point pointing at an :class:`Unlearner` subclass)."""

from __future__ import annotations

import difflib
from importlib.metadata import entry_points
from typing import Any

from unlearn_zoo.base import Unlearner
from unlearn_zoo.errors import UnlearnError
from unlearn_zoo.methods.attention_shift import ASUnlearner
from unlearn_zoo.methods.ga import GAUnlearner, GradDiffUnlearner
from unlearn_zoo.methods.npo import NPOUnlearner
from unlearn_zoo.methods.palu import PALUUnlearner
from unlearn_zoo.methods.rmu import RMUUnlearner
from unlearn_zoo.methods.simnpo import SimNPOUnlearner
from unlearn_zoo.methods.tv import TVUnlearner

ENTRY_POINT_GROUP = "leakres.unlearners"

BUILTIN: dict[str, type[Unlearner]] = {
    cls.name: cls
    for cls in (
        GAUnlearner,
        GradDiffUnlearner,
        NPOUnlearner,
        SimNPOUnlearner,
        RMUUnlearner,
        TVUnlearner,
        PALUUnlearner,
        ASUnlearner,
    )
}


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in BUILTIN}


def list_unlearners() -> list[str]:
    """Names accepted by :func:`get_unlearner` (built-ins first, then plugins)."""
    return list(BUILTIN) + sorted(_plugins())


def get_unlearner_class(name: str) -> type[Unlearner]:
    key = name.strip().lower()
    if key in BUILTIN:
        return BUILTIN[key]
    plugins = _plugins()
    if name in plugins:
        cls = plugins[name].load()
        if not (isinstance(cls, type) and issubclass(cls, Unlearner)):
            raise UnlearnError(f"entry point '{name}' in {ENTRY_POINT_GROUP} is not an Unlearner")
        return cls
    known = list_unlearners()
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" did you mean '{close[0]}'?" if close else ""
    raise UnlearnError(f"unknown unlearner '{name}';{hint} Known: {', '.join(known)}")


def get_unlearner(name: str, **overrides: Any) -> Unlearner:
    """Instantiate method ``name``; ``overrides`` set fields of its config dataclass."""
    return get_unlearner_class(name)(**overrides)
