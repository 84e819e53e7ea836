"""Method registry: built-ins by name plus third-party plugins (entry-point group
``leakres.unlearners``, each entry point pointing at an :class:`Unlearner` subclass).

Names are case-insensitive; built-ins come before plugins (:mod:`unlearn_zoo.plugins`).
``list_unlearners`` is the deprecated name of :func:`available_unlearners`.
"""

from __future__ import annotations

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
from unlearn_zoo.plugins import Registry

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "UNLEARNERS",
    "available_unlearners",
    "get_unlearner",
    "get_unlearner_class",
    "list_unlearners",
]

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


def _check_plugin(name: str, obj: Any) -> None:
    if not (isinstance(obj, type) and issubclass(obj, Unlearner)):
        raise UnlearnError(f"entry point '{name}' in {ENTRY_POINT_GROUP} is not an Unlearner")


UNLEARNERS: Registry[type[Unlearner]] = Registry(
    "unlearner", ENTRY_POINT_GROUP, BUILTIN, check=_check_plugin
)


def available_unlearners() -> list[str]:
    """Names accepted by :func:`get_unlearner` (built-ins first, then plugins)."""
    return UNLEARNERS.names()


def list_unlearners() -> list[str]:
    """Deprecated alias of :func:`available_unlearners`."""
    return available_unlearners()


def get_unlearner_class(name: str) -> type[Unlearner]:
    return UNLEARNERS.get(name)


def get_unlearner(name: str, **overrides: Any) -> Unlearner:
    """Instantiate method ``name``; ``overrides`` set fields of its ``config_cls`` dataclass."""
    return get_unlearner_class(name)(**overrides)
