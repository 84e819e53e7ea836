"""One registry shape for every family of implementations a library looks up by name.

Each leakres library keeps its own copy of this module (the libraries never import each other);
the copies are byte-identical (the package's ``UnknownNameError`` is imported relatively), which
``tests/test_shared_copies.py`` at the repository root checks, and
``tests/test_registry_contract.py`` checks that every registry behaves the same:

* names are case-insensitive (``name.strip().lower()``);
* built-ins, including names registered at run time, come before entry-point plugins, both in
  the listing and when a plugin reuses a built-in's name (the built-in wins);
* a built-in is an object or a lazy ``"module:attr"`` reference, imported on first use;
* an unknown name raises the package's ``UnknownNameError`` (a ``KeyError`` and the package's
  base error) whose message says "did you mean" and lists every known name.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from .errors import UnknownNameError

__all__ = ["Registry", "normalize_name", "unknown_name_message"]

T = TypeVar("T")


def normalize_name(name: str) -> str:
    """The key a registry stores and looks names up by."""
    return str(name).strip().lower()


def unknown_name_message(family: str, name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(normalize_name(name), known, n=1)
    hint = f" did you mean '{close[0]}'?" if close else ""
    return f"unknown {family} '{name}';{hint} Known: {', '.join(known)}"


class Registry(Generic[T]):
    """Names of one family (``family`` is the word used in error messages) mapped to objects.

    ``check(entry_point_name, obj)`` vets what a plugin entry point loads (raise to refuse it);
    built-ins are trusted.
    """

    def __init__(
        self,
        family: str,
        group: str,
        builtin: Mapping[str, T | str],
        *,
        check: Callable[[str, Any], None] | None = None,
    ) -> None:
        self.family = family
        self.group = group
        self._check = check
        self._builtin: dict[str, T | str] = {}
        for name, target in builtin.items():
            self.register(name, target)

    def register(self, name: str, target: T | str) -> None:
        """Add (or replace) a built-in at run time: it takes precedence over plugins."""
        self._builtin[normalize_name(name)] = target

    def plugins(self) -> dict[str, EntryPoint]:
        """Entry points of ``group`` whose names no built-in already takes."""
        found = {normalize_name(ep.name): ep for ep in entry_points(group=self.group)}
        return {key: found[key] for key in sorted(found) if key not in self._builtin}

    def names(self) -> list[str]:
        """Built-ins in registration order, then plugins sorted."""
        return [*self._builtin, *self.plugins()]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        # built-ins first: scanning the installed entry points takes milliseconds, and the
        # checks ask this once per record (the MT wording filter's redraws many times over)
        key = normalize_name(name)
        return key in self._builtin or key in self.plugins()

    def get(self, name: str) -> T:
        """The object registered as ``name``; unknown names raise ``UnknownNameError``."""
        key = normalize_name(name)
        if key in self._builtin:
            target = self._builtin[key]
            if isinstance(target, str):
                module, _, attr = target.partition(":")
                return getattr(importlib.import_module(module), attr)
            return target
        plugin = self.plugins().get(key)
        if plugin is None:
            raise UnknownNameError(unknown_name_message(self.family, name, self.names()))
        obj = plugin.load()
        if self._check is not None:
            self._check(plugin.name, obj)
        return obj
