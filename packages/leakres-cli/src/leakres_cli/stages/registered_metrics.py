"""Every metric registered in leak-metrics (:func:`leak_metrics.available_metrics`) that a method's
scores do not hold yet, computed from the same verdicts and put where its spec says (issue 37
item 4): a metric added with one function and one ``register_metric`` call lands in results.json
with no CLI change, and the summary, tables and report read it from there.

The built-in metrics are computed by :mod:`.scoring` (with the at-chance gate and the excluded
types); their keys are present, so nothing here recomputes them and results.json stays as it was.
A new metric receives, by the names in its ``needs``, the inputs its level offers
(:data:`LEVEL_INPUTS`), and ``seed`` / ``n_resamples`` when its function takes them. Its block:
``per_type[TYPE]`` (level ``type``), ``attacks[ATTACK]`` with ``{hop}`` in the key filled with SH /
MH (level ``attack``), the method's block (level ``method``). It must return a ``MetricValue``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from leakres_cli.errors import LeakresError
from leakres_cli.records import Record
from leakres_cli.stages.type_checks import question_chance

#: what each level hands a registered metric, by name (each a list of verdicts unless said)
LEVEL_INPUTS = {
    "type": "base_correct, unlearned_correct, correct (= unlearned_correct), chance (the type's "
    "chance level, a float), chances (per question)",
    "attack": "recovered (per S_suc item of that hop, the types at chance left out)",
    "method": "base_correct, unlearned_correct (pooled over the types above chance), "
    "retain_base_correct, retain_unlearned_correct, rr_cells ({(attack, hop): recovered}), "
    "rr_by_attack ({attack: recovered})",
}


def add_registered_metrics(
    out: dict[str, Any],
    cells: tuple[dict[str, Any], dict[str, Any]],
    scored: dict[str, list[Record]],
    retain: list[Record],
    rr_cells: dict[tuple[str, str], list[bool | None]],
    boot: dict[str, int],
) -> None:
    """Fill ``out`` (one method's block of results.json) with every registered metric it lacks.

    ``cells``: the base cell and the method's evaluation cell (their ``correct`` verdicts);
    ``rr_cells``: each (attack, hop) cell's recoveries, as robustness reads them."""
    from leak_metrics import available_metrics

    groups = [*scored.items(), ("retain", retain)]
    base, unlearned = ({t: [c["correct"][q["id"]] for q in qs] for t, qs in groups} for c in cells)
    verdicts = {"base": base, "unlearned": unlearned}
    for spec in available_metrics():
        if spec.results_key is None:
            continue  # a library metric a run does not compute
        for block, key, inputs in _places(spec.level, spec.name, out, verdicts, scored, rr_cells):
            if _lookup(block, spec.results_key.format(hop=key)) is _MISSING:
                value = _compute(spec.name, spec.compute, spec.needs, inputs(), boot)
                _store(block, spec.results_key.format(hop=key), value)


def _places(level, name, out, verdicts, scored, rr_cells):
    """(block, hop or "", inputs thunk) of each place a metric of ``level`` is reported."""
    base, unlearned = verdicts["base"], verdicts["unlearned"]
    if level == "type":
        for t, qs in scored.items():
            chances = [question_chance(q) for q in qs]
            yield out["per_type"][t], "", lambda t=t, c=chances: _type_inputs(base, unlearned, t, c)
    elif level == "attack":
        for (attack, hop), recovered in rr_cells.items():
            yield out["attacks"][attack], hop, lambda r=recovered: {"recovered": r}
    elif level == "method":
        yield out, "", lambda: _method_inputs(out, base, unlearned, rr_cells)
    else:
        raise LeakresError(
            f"metric {name!r}: level {level!r} has no place in results.json yet (a run reports "
            "the levels type, attack and method)"
        )


def _type_inputs(base, unlearned, qtype, chances):
    return {
        "base_correct": base[qtype],
        "unlearned_correct": unlearned[qtype],
        "correct": unlearned[qtype],
        "chance": sum(chances) / len(chances) if chances else 0.0,
        "chances": chances,
    }


def _method_inputs(out, base, unlearned, rr_cells):
    kept = [t for t in base if t != "retain" and t not in (out.get("fq_excluded_types") or {})]
    by_attack: dict[str, list[bool | None]] = {}
    for (attack, _), values in rr_cells.items():
        by_attack.setdefault(attack, []).extend(values)
    return {
        "base_correct": [v for t in kept for v in base[t]],
        "unlearned_correct": [v for t in kept for v in unlearned[t]],
        "retain_base_correct": base["retain"],
        "retain_unlearned_correct": unlearned["retain"],
        "rr_cells": rr_cells,
        "rr_by_attack": by_attack,
    }


def _compute(name: str, compute: Callable[..., Any], needs, inputs, boot) -> dict[str, Any]:
    from leak_metrics import MetricValue

    missing = [n for n in needs if n not in inputs]
    if missing:
        raise LeakresError(
            f"metric {name!r} needs {', '.join(missing)}, which its level does not give; "
            f"it gives: {', '.join(sorted(inputs))}"
        )
    params = inspect.signature(compute).parameters.values()
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
    names = {p.name for p in params}
    kwargs = {k: v for k, v in boot.items() if takes_any or k in names}
    value = compute(**{n: inputs[n] for n in needs}, **kwargs)
    if not isinstance(value, MetricValue):
        raise LeakresError(
            f"metric {name!r} returned {type(value).__name__}; a run's metric returns a "
            "leak_metrics.MetricValue (value, CI, n)"
        )
    return value.to_dict()


_MISSING = object()


def _lookup(block: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(block, dict) or part not in block:
            return _MISSING
        block = block[part]
    return block


def _store(block: dict[str, Any], dotted: str, value: dict[str, Any]) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        block = block.setdefault(part, {})
    block[last] = value
