"""`leakres eval`'s section of summary.md: the models it was given and what it left out.

:func:`eval_notes` renders results.json's ``eval`` block (:meth:`~leakres_cli.models.external.
ExternalBenchmark.eval_record`, with ``attacks_skipped``) as the "Bring your own model" section that
follows the run's own summary.

May import what ``outputs`` may; it reads only the record.
"""

from __future__ import annotations

from typing import Any


def eval_notes(info: dict[str, Any]) -> str:
    """The "Bring your own model" section of ``info`` (results.json's ``eval`` block)."""
    lines = ["", "## Bring your own model", ""]
    for side in ("base", "unlearned"):
        model = info.get(side) or {}
        where = model.get("endpoint") or model.get("path")
        lines.append(f"- {side} model: {model.get('model')} ({model.get('kind')}, {where})")
    if all((info.get(side) or {}).get("kind") == "endpoint" for side in ("base", "unlearned")):
        lines.append(
            "- both models are black boxes (API models, outside the paper's scope): answers, "
            "utility and the attacks that decode through an endpoint only"
        )
    asked = info["facts_requested"]
    lines.append(f"- facts given: {asked['forget']} forget, {asked['retain']} retain")
    for attack, why in info.get("attacks_skipped", {}).items():
        lines.append(f"- attack {attack} skipped: {why}")
    for e in info["facts_excluded"]:
        lines.append(f"- left out ({e['role']}): {e['fact']}: {e['reason']}")
    return "\n".join(lines) + "\n"
