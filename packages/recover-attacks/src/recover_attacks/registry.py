"""Attack registry: built-ins by name, third-party attacks via the ``leakres.attacks`` entry points.

Names are case-insensitive; built-ins come before plugins (:mod:`recover_attacks.plugins`).
``list_attacks`` is the deprecated name of :func:`available_attacks`.
"""

from __future__ import annotations

from typing import Any

from .base import Attack
from .plugins import Registry

__all__ = [
    "ATTACKS",
    "ENTRY_POINT_GROUP",
    "available_attacks",
    "get_attack",
    "get_attack_class",
    "list_attacks",
]

ENTRY_POINT_GROUP = "leakres.attacks"


def _check_plugin(name: str, obj: Any) -> None:
    if not (isinstance(obj, type) and issubclass(obj, Attack)):
        raise TypeError(f"entry point {name!r} in {ENTRY_POINT_GROUP!r} is not an Attack class")


# name -> "module:Class"; imported lazily so `available_attacks()` stays cheap.
ATTACKS: Registry[type[Attack]] = Registry(
    "attack",
    ENTRY_POINT_GROUP,
    {
        "probab": "recover_attacks.attacks.probab:ProbabAttack",
        "focus_on_key": "recover_attacks.attacks.focus_on_key:FocusOnKeyAttack",
        "quantization": "recover_attacks.attacks.quantization:QuantizationAttack",
        "relearn": "recover_attacks.attacks.relearn:RelearnAttack",
        "in_context": "recover_attacks.attacks.in_context:InContextAttack",
    },
    check=_check_plugin,
)


def available_attacks() -> list[str]:
    """Names of every available attack (built-ins first, then plugins)."""
    return ATTACKS.names()


def list_attacks() -> list[str]:
    """Deprecated alias of :func:`available_attacks`."""
    return available_attacks()


def get_attack_class(name: str) -> type[Attack]:
    return ATTACKS.get(name)


def get_attack(name: str, **overrides: Any) -> Attack:
    """Build the attack ``name`` with config fields overridden by keyword (unknown field -> error)."""
    cls = get_attack_class(name)
    return cls(cls.config_cls.from_overrides(**overrides))
