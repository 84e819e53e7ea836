"""Attack registry: built-ins by name, third-party attacks via the ``leakres.attacks`` entry points."""

from __future__ import annotations

import difflib
import importlib
from importlib.metadata import entry_points
from typing import Any

from .base import Attack
from .errors import UnknownAttackError

ENTRY_POINT_GROUP = "leakres.attacks"

# name -> "module:Class"; imported lazily so `list_attacks()` stays cheap.
_BUILTIN: dict[str, str] = {
    "probab": "recover_attacks.attacks.probab:ProbabAttack",
    "focus_on_key": "recover_attacks.attacks.focus_on_key:FocusOnKeyAttack",
    "quantization": "recover_attacks.attacks.quantization:QuantizationAttack",
    "relearn": "recover_attacks.attacks.relearn:RelearnAttack",
    "in_context": "recover_attacks.attacks.in_context:InContextAttack",
}


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in _BUILTIN}


def list_attacks() -> list[str]:
    """Names of every available attack (built-ins first, then plugins)."""
    return list(_BUILTIN) + sorted(_plugins())


def get_attack_class(name: str) -> type[Attack]:
    if name in _BUILTIN:
        module, cls = _BUILTIN[name].split(":")
        return getattr(importlib.import_module(module), cls)
    plugins = _plugins()
    if name in plugins:
        cls = plugins[name].load()
        if not (isinstance(cls, type) and issubclass(cls, Attack)):
            raise TypeError(f"entry point {name!r} in {ENTRY_POINT_GROUP!r} is not an Attack class")
        return cls
    known = list_attacks()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UnknownAttackError(f"unknown attack {name!r}{hint} Known: {', '.join(known)}")


def get_attack(name: str, **overrides: Any) -> Attack:
    """Build the attack ``name`` with config fields overridden by keyword (unknown field -> error)."""
    cls = get_attack_class(name)
    return cls(cls.config_cls.from_overrides(**overrides))
