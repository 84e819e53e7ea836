"""``--set NAME.FIELD=VALUE`` overrides of `leakres run` and `leakres eval`, parsed one way for both."""

from __future__ import annotations

import json

from leakres_cli.errors import LeakresError


def _parse_value(raw: str) -> object:
    """One ``--set`` value: JSON when it parses, else the raw string."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, too deeply nested, a 5000-digit int: a string
        return raw


def parse_overrides(items: tuple[str, ...], methods: tuple[str, ...], attacks: tuple[str, ...]):
    """``--set NAME.FIELD=VALUE`` items as (method overrides, attack overrides), each by name; a value
    is JSON when it parses as JSON, else the string. Raises LeakresError naming the item when its form
    is wrong or NAME is neither a selected method nor a selected attack."""
    method_over: dict[str, dict] = {}
    attack_over: dict[str, dict] = {}
    for item in items:
        if "=" not in item or "." not in item.split("=", 1)[0]:
            raise LeakresError(f"--set expects NAME.FIELD=VALUE, got '{item}'")
        key, raw = item.split("=", 1)
        name, fld = key.split(".", 1)
        if name in methods:
            method_over.setdefault(name, {})[fld] = _parse_value(raw)
        elif name in attacks:
            attack_over.setdefault(name, {})[fld] = _parse_value(raw)
        else:
            raise LeakresError(
                f"--set {item}: '{name}' is neither a selected method ({', '.join(methods)}) "
                f"nor a selected attack ({', '.join(attacks)})"
            )
    return method_over, attack_over
